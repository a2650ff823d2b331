// A real program that kills the type checker's process: 221 characters of recursive conditional
// types whose instantiation grows past any heap (tuples grown ten elements at a time, 999 times),
// the kind of program issue 14 found crashing the checker. A 128 MB checker dies in seconds; a
// 512 MB one (the default) too, more slowly. At run time it is harmless: it returns "object".
// The checker runs in a child process, so this ends that process only, on every Node line (a
// worker thread's heap limit could abort the whole host on Node 22 and 24: nodejs/node#47224).

export const WORKER_KILLER = `type Grow<X, N extends unknown[] = [], C extends 0[] = []> = C["length"] extends 999 ? N : Grow<X, [...N, X, X, X, X, X, X, X, X, X, X], [...C, 0]>;
type All = [Grow<0>];
const all: All = null as never;
return typeof all;`;
