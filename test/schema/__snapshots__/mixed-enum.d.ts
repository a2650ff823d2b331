type MixedEnum = "a" | 1 | -1 | 2.5 | true | null | {"kind":"x"} | [1,"two"];
