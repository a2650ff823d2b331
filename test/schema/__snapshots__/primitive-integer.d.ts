/** Integers are plain numbers in TypeScript. */
type PrimitiveInteger = number;
