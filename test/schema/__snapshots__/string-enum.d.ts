/** Issue state. */
type StringEnum = "open" | "closed" | "all";
