// Regex search over tool documents for the exact patterns a model writes ("refund",
// "list.*invoice"). A pattern is a model's input, so it is untrusted: it is length-capped
// and its structure is checked before it is compiled, refusing the known catastrophic
// backtracking shapes, and every searched field is cut to a fixed length. Refusals are
// returned as `PATTERN_INVALID` data, never thrown. Results are deterministic.

import type { SearchDocument, SearchHit } from "./bm25-index.js";
import { splitWords } from "./tokenize.js";

/** Longest pattern accepted, in UTF-16 code units. */
export const MAX_PATTERN_LENGTH = 200;

/** Most unbounded quantifiers (`*`, `+`, `{n,}`, or a bound over 100) one pattern may hold. */
export const MAX_UNBOUNDED_QUANTIFIERS = 4;

/** Each field is cut to this many characters before matching, so one test costs a bounded time. */
export const MAX_FIELD_TEXT_LENGTH = 1_000;

/**
 * Wall-clock budget of one regex search over the whole catalog, in milliseconds; checked
 * between fields. The static check refuses the shapes known to blow up, so this is only
 * reached by a pattern the check did not foresee; it then fails with `PATTERN_INVALID`.
 */
export const REGEX_SEARCH_BUDGET_MS = 250;

// A repetition bound over this counts as unbounded: `a{1,5000}` backtracks like `a+`.
const LARGE_REPETITION = 100;

/**
 * Regex scores per field: a pattern matching the tool's name (with its namespace) is the
 * strongest evidence, as in BM25. A document's score is the sum over the fields it matches.
 */
export const REGEX_FIELD_WEIGHTS = {
  name: 3,
  description: 1,
  parameterNames: 1,
  parameterDescriptions: 0.5,
} as const;

/** Why a pattern was refused; the message says what to change. */
export interface PatternError {
  readonly code: "PATTERN_INVALID";
  readonly message: string;
}

export type PatternCheckResult =
  | { readonly ok: true; readonly regex: RegExp }
  | { readonly ok: false; readonly error: PatternError };

export type RegexSearchResult =
  | { readonly ok: true; readonly hits: SearchHit[] }
  | { readonly ok: false; readonly error: PatternError };

function refuse(message: string): { ok: false; error: PatternError } {
  return { ok: false, error: { code: "PATTERN_INVALID", message } };
}

interface GroupFrame {
  containsQuantifier: boolean;
  containsAlternation: boolean;
  /** Whether an unbounded quantifier was still "open" when the group began. */
  openUnboundedBefore: boolean;
}

interface Quantifier {
  readonly length: number;
  readonly min: number;
  readonly unbounded: boolean;
}

// Reads a quantifier at `index` (with its lazy `?`), or undefined when none starts there.
function readQuantifier(pattern: string, index: number): Quantifier | undefined {
  const char = pattern[index];
  let quantifier: Quantifier | undefined;
  if (char === "*") quantifier = { length: 1, min: 0, unbounded: true };
  else if (char === "+") quantifier = { length: 1, min: 1, unbounded: true };
  else if (char === "?") quantifier = { length: 1, min: 0, unbounded: false };
  else if (char === "{") {
    const match = /^\{(\d+)(,(\d*))?\}/.exec(pattern.slice(index));
    if (match === null) return undefined;
    const min = Number(match[1]);
    const max = match[2] === undefined ? min : match[3] === "" ? Infinity : Number(match[3]);
    quantifier = { length: match[0].length, min, unbounded: max > LARGE_REPETITION || min > LARGE_REPETITION };
  }
  if (quantifier === undefined) return undefined;
  return pattern[index + quantifier.length] === "?" ? { ...quantifier, length: quantifier.length + 1 } : quantifier;
}

/**
 * Checks a model-written pattern and compiles it case-insensitively. Refuses, as
 * `PATTERN_INVALID` data: an empty pattern or one over 200 characters; a syntax error;
 * backreferences and lookaround; a quantified group that contains a quantifier or an
 * alternation (`(a+)+`, `(a|a)*`, `(.*)*`: exponential backtracking); two unbounded
 * quantifiers with nothing required between them (`.*.*`, `\w+\s*\w+`: polynomial
 * backtracking); and more than four unbounded quantifiers. The check is structural and
 * conservative: it may refuse a harmless pattern, and says how to simplify it.
 */
export function checkPattern(pattern: string): PatternCheckResult {
  if (typeof pattern !== "string" || pattern.length === 0)
    return refuse('The pattern is empty; send a word or a regular expression such as "list.*invoice".');
  if (pattern.length > MAX_PATTERN_LENGTH) {
    return refuse(
      `The pattern has ${pattern.length} characters; the limit is ${MAX_PATTERN_LENGTH}. Send a shorter pattern.`,
    );
  }
  const frames: GroupFrame[] = [{ containsQuantifier: false, containsAlternation: false, openUnboundedBefore: false }];
  // True while the last unbounded quantifier has not been followed by a required atom.
  let openUnbounded = false;
  let unboundedCount = 0;
  let index = 0;
  while (index < pattern.length) {
    const char = pattern[index] as string;
    const frame = frames.at(-1) as GroupFrame;
    let atomEnd = index + 1;
    let zeroWidth = false;
    let closedGroup: GroupFrame | undefined;
    if (char === "\\") {
      const next = pattern[index + 1] ?? "";
      if (/[1-9]/.test(next) || (next === "k" && pattern[index + 2] === "<")) {
        return refuse(
          "Backreferences (\\1, \\k<name>) are not allowed in search patterns; match the text itself instead.",
        );
      }
      if (next === "b" || next === "B") zeroWidth = true;
      atomEnd = index + 2;
    } else if (char === "[") {
      let cursor = index + 1;
      if (pattern[cursor] === "^") cursor += 1;
      if (pattern[cursor] === "]") cursor += 1;
      while (cursor < pattern.length && pattern[cursor] !== "]") cursor += pattern[cursor] === "\\" ? 2 : 1;
      atomEnd = cursor + 1;
    } else if (char === "(") {
      if (/^\(\?(?:=|!|<=|<!)/.test(pattern.slice(index))) {
        return refuse("Lookahead and lookbehind ((?=, (?!, (?<=, (?<!) are not allowed in search patterns.");
      }
      frames.push({ containsQuantifier: false, containsAlternation: false, openUnboundedBefore: openUnbounded });
      const named = /^\(\?(?::|<[A-Za-z_$][\w$]*>)/.exec(pattern.slice(index));
      index += named === null ? 1 : named[0].length;
      continue;
    } else if (char === ")") {
      if (frames.length === 1) break; // unbalanced: the compiler reports it below
      closedGroup = frames.pop();
    } else if (char === "|") {
      frame.containsAlternation = true;
      openUnbounded = false;
      index += 1;
      continue;
    } else if (char === "^" || char === "$") {
      zeroWidth = true;
    }
    const quantifier = readQuantifier(pattern, atomEnd);
    const owner = frames.at(-1) as GroupFrame;
    if (closedGroup !== undefined) {
      if (quantifier !== undefined && (closedGroup.containsQuantifier || closedGroup.containsAlternation)) {
        return refuse(
          "A repeated group may not contain a quantifier or an alternation (shapes like (a+)+, (a|b)* and (.*)* can backtrack for ever). Remove the outer quantifier or the inner one.",
        );
      }
      // Nesting propagates: `((a|b)c)*` is as ambiguous as `(a|b)*`.
      owner.containsQuantifier ||= closedGroup.containsQuantifier;
      owner.containsAlternation ||= closedGroup.containsAlternation;
    }
    if (quantifier === undefined) {
      if (!zeroWidth && closedGroup === undefined) openUnbounded = false;
      if (closedGroup !== undefined && !closedGroup.containsQuantifier) openUnbounded = false;
      index = atomEnd;
      continue;
    }
    owner.containsQuantifier = true;
    const before: boolean = closedGroup === undefined ? openUnbounded : closedGroup.openUnboundedBefore;
    if (quantifier.unbounded) {
      unboundedCount += 1;
      if (unboundedCount > MAX_UNBOUNDED_QUANTIFIERS) {
        return refuse(
          `The pattern has more than ${MAX_UNBOUNDED_QUANTIFIERS} unbounded quantifiers (*, +, {n,}); use fewer.`,
        );
      }
      if (before) {
        return refuse(
          "Two unbounded quantifiers follow each other with nothing required between them (like .*.* or \\w+\\s*\\w+), which backtracks badly; merge them into one.",
        );
      }
      openUnbounded = true;
    } else if (quantifier.min > 0) {
      openUnbounded = false;
    } else {
      openUnbounded = before;
    }
    index = atomEnd + quantifier.length;
  }
  // Unicode-aware when the pattern is valid as such (\p{L}, astral characters, case-insensitive
  // matching of non-ASCII letters); a pattern only the legacy syntax accepts (`\-` outside a
  // class, a lone `{`) keeps it, as models write both.
  try {
    return { ok: true, regex: new RegExp(pattern, "iu") };
  } catch {
    // Not valid with the `u` flag: tried without it below.
  }
  try {
    return { ok: true, regex: new RegExp(pattern, "i") };
  } catch (error) {
    const reason = error instanceof Error ? error.message.replace(/^Invalid regular expression: /, "") : "syntax error";
    return refuse(`The pattern is not a valid regular expression: ${reason}.`);
  }
}

// What the regex sees of a document's name: the full name and its words, so "list invoice"
// and "list.*invoice" both find `billing.listInvoices`.
function nameHaystack(document: SearchDocument): string {
  // The id is the tool's full name as registered; the name fields may be normalized for BM25.
  return `${document.id} ${splitWords(document.id).join(" ")}`;
}

export interface WeightedText {
  readonly text: string;
  readonly weight: number;
}

// A catalog keeps its document objects between searches, so each document's texts are
// split and cut once, not on every search; weak keys let replaced documents go.
const haystacks = new WeakMap<SearchDocument, readonly WeightedText[]>();

/** The texts a pattern is tested against for one document, each with its score weight; cached per document. */
export function haystacksOf(document: SearchDocument): readonly WeightedText[] {
  let fields = haystacks.get(document);
  if (fields === undefined) {
    fields = [
      { text: nameHaystack(document), weight: REGEX_FIELD_WEIGHTS.name },
      { text: document.description, weight: REGEX_FIELD_WEIGHTS.description },
      { text: document.parameterNames, weight: REGEX_FIELD_WEIGHTS.parameterNames },
      { text: document.parameterDescriptions, weight: REGEX_FIELD_WEIGHTS.parameterDescriptions },
    ].map(({ text, weight }) => ({ text: text.slice(0, MAX_FIELD_TEXT_LENGTH), weight }));
    haystacks.set(document, fields);
  }
  return fields;
}

/**
 * Runs a checked pattern over documents, scoring each by the weights of the fields it
 * matches (`REGEX_FIELD_WEIGHTS`, name first); returns at most `limit` hits, best first,
 * ties in the documents' iteration order. Fails with `PATTERN_INVALID` when the pattern is
 * refused by `checkPattern` or the search exceeds `REGEX_SEARCH_BUDGET_MS`.
 */
export function searchByRegex(documents: Iterable<SearchDocument>, pattern: string, limit: number): RegexSearchResult {
  const checked = checkPattern(pattern);
  if (!checked.ok) return checked;
  const { regex } = checked;
  const startedAt = performance.now();
  const hits: { id: string; score: number; ordinal: number }[] = [];
  let ordinal = 0;
  for (const document of documents) {
    let score = 0;
    for (const { text, weight } of haystacksOf(document)) {
      if (regex.test(text)) score += weight;
      if (performance.now() - startedAt > REGEX_SEARCH_BUDGET_MS) {
        return refuse(
          `The pattern took over ${REGEX_SEARCH_BUDGET_MS} ms to run over the catalog; send a simpler pattern.`,
        );
      }
    }
    if (score > 0) hits.push({ id: document.id, score, ordinal });
    ordinal += 1;
  }
  hits.sort((left, right) => right.score - left.score || left.ordinal - right.ordinal);
  return { ok: true, hits: hits.slice(0, Math.max(0, Math.floor(limit))).map(({ id, score }) => ({ id, score })) };
}
