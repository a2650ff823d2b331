// The regular-expression engine JSON Schema `pattern` and `patternProperties` run on. A tool's
// schema comes from its source (an MCP server nobody here controls) and ajv validates every
// call's input on the event loop: on JavaScript's backtracking engine `^(a+)+$` held the host
// 3.9 s for 28 characters of a program's argument and 88 s for 41, past the run's wall time.
// Patterns run on RE2JS, whose matching is linear in the input. One RE2 cannot express (a
// lookaround, a backreference) runs on JavaScript's engine only when it repeats no group that
// repeats or alternates inside (the shape that backtracks exponentially); otherwise the schema is
// SCHEMA_INVALID at registration, saying why.

import { createRequire } from "node:module";
import type * as Re2js from "re2js";

/** What ajv's `code.regExp` option takes (its RegExpEngine and RegExpLike, not exported by its root). */
interface RegExpLike {
  test(text: string): boolean;
  toString(): string;
}
type RegExpEngine = ((source: string, flags: string) => RegExpLike) & { readonly code: string };

// CommonJS build, required on the first pattern (or a warm-up): importing Switchyard does not load it.
const require = createRequire(import.meta.url);
let engine: typeof Re2js.RE2JS | undefined;

/** Patterns compiled so far (a catalog's are few and repeat across tools), or why one is refused. */
const compiled = new Map<string, RegExpLike | Error>();
/** Distinct patterns remembered; past it the oldest is compiled again when met. */
const MAX_REMEMBERED_PATTERNS = 10_000;
/** Characters of a refused pattern quoted in its message. */
const MAX_QUOTED_CHARS = 80;

/** ajv's `code.regExp`: compiles `source` as above, or throws an Error that says why not. */
export const schemaPatternEngine: RegExpEngine = Object.assign(
  (source: string, _flags: string): RegExpLike => {
    const found = compilePattern(source);
    if (found instanceof Error) throw found;
    return found;
  },
  // ajv prints `code` only into standalone validation code, which Switchyard never generates.
  { code: "switchyard/schema-pattern" },
);

/**
 * Whether `source` is a pattern `schemaPatternEngine` runs (checked at registration). Cheap for
 * nearly every pattern: a valid one with no nested repetition runs on one engine or the other, so
 * RE2 is asked (and its compile, about 75 µs, paid) only for one that has it; the rest compile on
 * their tool's first call. Asking RE2 for every pattern made a catalog of 5,000 tools with
 * distinct patterns take 305-355 ms to construct.
 */
export function isRunnablePattern(source: unknown): boolean {
  if (typeof source !== "string") return false;
  if (isJavaScriptPattern(source) && !repeatsAmbiguousGroup(source)) return true;
  return !(compilePattern(source) instanceof Error);
}

function isJavaScriptPattern(source: string): boolean {
  try {
    new RegExp(source, "u");
    return true;
  } catch {
    return false;
  }
}

function compilePattern(source: string): RegExpLike | Error {
  const known = compiled.get(source);
  if (known !== undefined) return known;
  const made = linearPattern(source) ?? backtrackingPattern(source);
  if (compiled.size >= MAX_REMEMBERED_PATTERNS) compiled.delete(compiled.keys().next().value as string);
  compiled.set(source, made);
  return made;
}

/** Loads RE2JS (about 8 ms of a process's CPU), for a warm-up step ahead of the first pattern. */
export function loadPatternEngine(): typeof Re2js.RE2JS {
  engine ??= (require("re2js") as typeof Re2js).RE2JS;
  return engine;
}

let compiles = 0;

/** How many patterns RE2 has compiled in this process; lets a test prove registration compiled none. */
export function patternCompileCount(): number {
  return compiles;
}

function linearPattern(source: string): RegExpLike | undefined {
  compiles += 1;
  const re2 = loadPatternEngine();
  try {
    const pattern = re2.compile(re2.translateRegExp(source));
    // ajv keys a validator's patterns by their text (`toString`), as a RegExp prints itself.
    return { test: (text: string) => pattern.test(text), toString: () => `/${source}/u` };
  } catch {
    return undefined;
  }
}

/** JavaScript's engine, as ajv's default (the `u` flag), for a pattern that cannot backtrack exponentially. */
function backtrackingPattern(source: string): RegExpLike | Error {
  let native: RegExp;
  try {
    native = new RegExp(source, "u");
  } catch (error) {
    return error instanceof Error ? error : new Error(String(error));
  }
  if (!repeatsAmbiguousGroup(source)) return native;
  const quoted = source.length <= MAX_QUOTED_CHARS ? source : `${source.slice(0, MAX_QUOTED_CHARS)}…`;
  return new Error(
    `pattern /${quoted}/ needs a backtracking engine (it has a lookaround or a backreference) and repeats a group ` +
      "that itself repeats or alternates, which can take exponential time on hostile input: rewrite it without " +
      "the lookaround or backreference (it then runs in linear time), or without the nested repetition",
  );
}

/**
 * Whether a quantifier applies to a group that holds a quantifier or an alternation (`(a+)+`,
 * `(a|ab)*`, `(\w+\s?){2,}`): a conservative reading of the source, which may refuse a pattern
 * that would not backtrack, never the reverse.
 */
function repeatsAmbiguousGroup(source: string): boolean {
  // For each open group, whether it holds a quantifier or an alternation so far.
  const open: boolean[] = [];
  // Whether the group that closed just before this character held one.
  let closedAmbiguous = false;
  for (let at = 0; at < source.length; at++) {
    const char = source[at];
    const afterGroup = closedAmbiguous;
    closedAmbiguous = false;
    if (char === "\\") {
      at++;
    } else if (char === "[") {
      at = endOfClass(source, at);
    } else if (char === "(") {
      open.push(false);
      at = endOfGroupPrefix(source, at);
    } else if (char === ")") {
      closedAmbiguous = open.pop() === true;
    } else if (char === "|") {
      if (open.length > 0) open[open.length - 1] = true;
    } else if (char === "*" || char === "+" || char === "{" || char === "?") {
      // `?` after a group makes it optional, not repeated; after a quantifier it makes it lazy.
      if (afterGroup && char !== "?") return true;
      open.fill(true);
    }
  }
  return false;
}

/** The index of the `]` that closes the class opened at `start`. */
function endOfClass(source: string, start: number): number {
  let at = start + 1;
  if (source[at] === "^") at++;
  if (source[at] === "]") at++;
  while (at < source.length && source[at] !== "]") at += source[at] === "\\" ? 2 : 1;
  return at;
}

/** The index of the last character of the group syntax (`(?:`, `(?=`, `(?<!`, `(?<name>`) opened at `start`. */
function endOfGroupPrefix(source: string, start: number): number {
  if (source[start + 1] !== "?") return start;
  const kind = source[start + 2];
  if (kind !== "<") return start + 2;
  const next = source[start + 3];
  if (next === "=" || next === "!") return start + 3;
  const close = source.indexOf(">", start);
  return close === -1 ? start + 2 : close;
}
