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
