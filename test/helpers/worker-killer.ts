// A real program that kills the type-check worker: 221 characters of recursive conditional types
// whose instantiation grows past any heap (tuples grown ten elements at a time, 999 times), the
// kind of program issue 14 found crashing the checker. A 128 MB worker dies in seconds; a 512 MB
// one (the default) too, more slowly. At run time it is harmless: it returns "object".

export const WORKER_KILLER = `type Grow<X, N extends unknown[] = [], C extends 0[] = []> = C["length"] extends 999 ? N : Grow<X, [...N, X, X, X, X, X, X, X, X, X, X], [...C, 0]>;
type All = [Grow<0>];
const all: All = null as never;
return typeof all;`;

/**
 * Whether a worker this program kills dies alone on this Node line. On Node 22 and 24 a worker
 * thread that reaches its `resourceLimits` heap through one growing allocation may abort the
 * whole process ("FATAL ERROR: Reached heap limit", nodejs/node#47224) instead of ending the
 * worker with ERR_WORKER_OUT_OF_MEMORY: measured here on Node 24.22.3, one run in two. The tests
 * that feed this program to the checker run where the worker dies alone (Node 20); on newer lines
 * this is an open defect of the checker's containment (a hostile program can end the host), not
 * a behaviour to assert.
 */
export const WORKER_DIES_ALONE = Number(process.versions.node.split(".")[0]) < 22;
