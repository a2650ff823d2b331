// Limits on JSON text that crosses into the host from untrusted code (a program's tool arguments,
// a run's input), checked on the text before anything parses or walks it, so no depth can make the
// host recurse without end. Pure functions of the text; the sandbox and the program toolchain share them.

/** Whether JSON text nests deeper than `maxDepth`, by a linear scan that skips strings. */
export function exceedsJsonDepth(text: string, maxDepth: number): boolean {
  let depth = 0;
  let inString = false;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (inString) {
      if (code === 92 /* \ */) index++;
      else if (code === 34 /* " */) inString = false;
    } else if (code === 34) {
      inString = true;
    } else if (code === 123 /* { */ || code === 91 /* [ */) {
      if (++depth > maxDepth) return true;
    } else if (code === 125 /* } */ || code === 93 /* ] */) {
      depth--;
    }
  }
  return false;
}

/**
 * Deepest value a recursive schema validates: ajv recurses once or more per level, so a value
 * nested deeper (only JSON the host parsed itself can be: a program's arguments stop at the
 * bridge's maxArgumentDepth, 64 by default) is refused before validation instead of overflowing
 * the host's stack. Far above what real tool arguments and results nest.
 */
export const MAX_VALIDATED_DEPTH = 256;

/**
 * Whether a value nests objects and arrays deeper than `maxDepth` (the root is depth 1). Iterative;
 * ends on shared and cyclic object graphs (a cycle counts as too deep), in O(size × maxDepth) at worst.
 */
export function exceedsValueDepth(value: unknown, maxDepth: number): boolean {
  if (value === null || typeof value !== "object") return false;
  const deepestSeen = new Map<object, number>();
  const pending: [object, number][] = [[value, 1]];
  while (pending.length > 0) {
    const [node, depth] = pending.pop() as [object, number];
    if (depth > maxDepth) return true;
    if ((deepestSeen.get(node) ?? 0) >= depth) continue;
    deepestSeen.set(node, depth);
    for (const child of Array.isArray(node) ? node : Object.values(node)) {
      if (child !== null && typeof child === "object") pending.push([child, depth + 1]);
    }
  }
  return false;
}
