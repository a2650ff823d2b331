/** A matrix. */
type NestedArrays = number[][];
