type PrefixItemsWithRest = [string, number, ...(boolean | null)[]];
