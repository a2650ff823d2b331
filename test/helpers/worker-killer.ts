// A real program that kills the type-check worker: 221 characters of recursive conditional types
// whose instantiation grows past any heap (tuples grown ten elements at a time, 999 times), the
// kind of program issue 14 found crashing the checker. A 128 MB worker dies in seconds; a 512 MB
// one (the default) too, more slowly. At run time it is harmless: it returns "object".

export const WORKER_KILLER = `type Grow<X, N extends unknown[] = [], C extends 0[] = []> = C["length"] extends 999 ? N : Grow<X, [...N, X, X, X, X, X, X, X, X, X, X], [...C, 0]>;
type All = [Grow<0>];
const all: All = null as never;
return typeof all;`;
