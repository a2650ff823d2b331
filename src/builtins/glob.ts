// A small glob matcher for workspace-relative paths (`/`-separated): `*`, `**`, `?` and
// `{a,b}`. It never builds a regular expression, so no pattern can backtrack
// exponentially: matching is O(pattern × path) per alternative. It refuses (PATTERN_INVALID)
// unbalanced braces, overlong patterns and brace expansions with too many alternatives.

import { ToolError } from "../errors.js";

/** Longest glob accepted, in characters. */
const MAX_GLOB_LENGTH = 1_000;
/** Most alternatives one glob may expand to through `{a,b}`. */
const MAX_GLOB_ALTERNATIVES = 256;

/** A compiled glob: true when `relativePath` (`/`-separated, no leading `./`) matches. */
export type GlobMatcher = (relativePath: string) => boolean;

/**
 * Compiles a glob over `/`-separated relative paths:
 * - `*` matches any characters except `/`; `?` matches exactly one character except `/`;
 * - `**` as a whole segment matches zero or more segments (`**` alone matches everything,
 *   `src/**` everything under src, `**` + `/*.ts` every .ts file at any depth); inside a
 *   segment (`a**b`) it acts as `*`;
 * - `{a,b,c}` matches any of the comma-separated alternatives, which may contain `/`, globs
 *   and nested braces; `\` escapes the next character. Everything else is literal
 *   (`[`, `]` included) and matching is case-sensitive.
 * Throws ToolError `PATTERN_INVALID` for an empty or overlong pattern, an unbalanced brace or
 * more than 256 alternatives.
 */
export function compileGlob(pattern: string): GlobMatcher {
  if (pattern.length === 0) throw invalid("the glob is empty");
  if (pattern.length > MAX_GLOB_LENGTH) throw invalid(`the glob is longer than ${MAX_GLOB_LENGTH} characters`);
  const alternatives = expandBraces(pattern).map((alternative): CompiledSegment[] =>
    alternative
      .split("/")
      .filter((segment) => segment !== "" && segment !== ".")
      .map((segment) => (segment === "**" ? "**" : tokenize(segment))),
  );
  return (relativePath) => {
    const segments = relativePath.split("/");
    return alternatives.some((patternSegments) => matchSegments(patternSegments, segments));
  };
}

/** Whether `relativePath` matches `pattern`; see `compileGlob`. */
export function matchGlob(pattern: string, relativePath: string): boolean {
  return compileGlob(pattern)(relativePath);
}

function invalid(reason: string): ToolError {
  return new ToolError(`Invalid glob: ${reason}. Supported: * (within a folder), ** (any depth), ?, {a,b}.`, {
    code: "PATTERN_INVALID",
  });
}

// Pattern characters after brace expansion: a literal is marked so that an escaped `*`
// stays literal. Represented as strings where `\u0000` precedes a literal character.
const LITERAL_MARK = "\u0000";

/** Expands `{a,b}` (nested allowed) into plain alternatives; escapes become literal marks. */
function expandBraces(pattern: string): string[] {
  let position = 0;

  // Parses a sequence until `,` or `}` (when inside braces) or the end.
  const parseSequence = (insideBraces: boolean): string[] => {
    let results = [""];
    while (position < pattern.length) {
      const character = pattern[position] as string;
      if (character === "\\") {
        const next = pattern[position + 1];
        if (next === undefined) throw invalid("a trailing backslash escapes nothing");
        results = results.map((result) => result + LITERAL_MARK + next);
        position += 2;
      } else if (character === "{") {
        position++;
        const options: string[] = [];
        for (;;) {
          options.push(...parseSequence(true));
          const terminator = pattern[position];
          if (terminator === undefined) throw invalid("a { has no matching }");
          position++;
          if (terminator === "}") break;
        }
        const combined: string[] = [];
        for (const result of results) for (const option of options) combined.push(result + option);
        if (combined.length > MAX_GLOB_ALTERNATIVES)
          throw invalid(`it expands to more than ${MAX_GLOB_ALTERNATIVES} alternatives`);
        results = combined;
      } else if (insideBraces && (character === "," || character === "}")) {
        return results;
      } else if (character === "}") {
        throw invalid("a } has no matching {");
      } else {
        results = results.map((result) => result + character);
        position++;
      }
    }
    return results;
  };

  return parseSequence(false);
}

/** A pattern segment: `**`, or the tokens of an ordinary segment. */
type CompiledSegment = "**" | readonly SegmentToken[];

/** Matches pattern segments against path segments; `**` spans segments (memoized, no blow-up). */
function matchSegments(patternSegments: readonly CompiledSegment[], pathSegments: readonly string[]): boolean {
  const memo = new Map<number, boolean>();
  const width = pathSegments.length + 1;
  const visit = (patternIndex: number, pathIndex: number): boolean => {
    const key = patternIndex * width + pathIndex;
    const known = memo.get(key);
    if (known !== undefined) return known;
    let result: boolean;
    if (patternIndex === patternSegments.length) {
      result = pathIndex === pathSegments.length;
    } else if (patternSegments[patternIndex] === "**") {
      // Zero segments, or one more segment and stay on `**`.
      result =
        visit(patternIndex + 1, pathIndex) || (pathIndex < pathSegments.length && visit(patternIndex, pathIndex + 1));
    } else {
      result =
        pathIndex < pathSegments.length &&
        matchSegment(patternSegments[patternIndex] as readonly SegmentToken[], pathSegments[pathIndex] as string) &&
        visit(patternIndex + 1, pathIndex + 1);
    }
    memo.set(key, result);
    return result;
  };
  return visit(0, 0);
}

/** Tokens of one segment: `*`, `?`, or a literal character. */
type SegmentToken =
  | { readonly kind: "star" }
  | { readonly kind: "one" }
  | { readonly kind: "char"; readonly char: string };

function tokenize(segment: string): SegmentToken[] {
  const tokens: SegmentToken[] = [];
  for (let index = 0; index < segment.length; index++) {
    const character = segment[index] as string;
    if (character === LITERAL_MARK) {
      tokens.push({ kind: "char", char: segment[++index] ?? "" });
    } else if (character === "*") {
      // `**` inside a segment is a plain `*`.
      if (tokens[tokens.length - 1]?.kind !== "star") tokens.push({ kind: "star" });
    } else if (character === "?") {
      tokens.push({ kind: "one" });
    } else {
      tokens.push({ kind: "char", char: character });
    }
  }
  return tokens;
}

/** Classic wildcard matching with a single backtrack point: O(pattern × text). */
function matchSegment(tokens: readonly SegmentToken[], text: string): boolean {
  let tokenIndex = 0;
  let textIndex = 0;
  let starToken = -1;
  let starText = 0;
  while (textIndex < text.length) {
    const token = tokens[tokenIndex];
    if (token !== undefined && (token.kind === "one" || (token.kind === "char" && token.char === text[textIndex]))) {
      tokenIndex++;
      textIndex++;
    } else if (token?.kind === "star") {
      starToken = tokenIndex++;
      starText = textIndex;
    } else if (starToken >= 0) {
      tokenIndex = starToken + 1;
      textIndex = ++starText;
    } else {
      return false;
    }
  }
  while (tokens[tokenIndex]?.kind === "star") tokenIndex++;
  return tokenIndex === tokens.length;
}
