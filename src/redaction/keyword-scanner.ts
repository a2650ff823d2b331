// One pass over a text for every keyword rule and every known secret value at once (a
// LiteralIndex of their texts), asking a rule to look only where one of its keywords occurs.
// The same pass over the JSON text of a value tells, without parsing it, whether redacting its
// strings could change anything: the common case for a large tool result is that it cannot.
// Linear in the text; refuses nothing.
//
// Keywords that start with a lowercase letter count only at the start of a word (after a
// character that is not an ASCII letter), as in the regex scanner this replaced, where checking
// them anywhere had made the pass twice as slow; here it saves calls to rules. Every rule's
// secret starts a word there anyway (secretlint's rules say `(?<!\p{L})` or `\b`); rules whose
// keywords start with a lowercase letter must accept that.

import type { Finding, KeywordRule } from "./keyword-rule.js";
import { type DecodedPosition, JsonStringCursor } from "./json-string-cursor.js";
import { LiteralIndex } from "./literal-index.js";

/** A value found literally wherever it occurs, e.g. a token from the config, or its base64 form. */
export interface LiteralValue {
  readonly text: string;
  readonly kind: string;
  /** A base64 or base64url form of a secret, which a wrapped base64 text may break over lines. */
  readonly base64?: boolean;
}

interface Entry {
  /** Literal values that start where this entry's text starts (itself and its prefixes). */
  readonly literals: readonly { readonly length: number; readonly kind: string }[];
  /** Indexes of the rules whose keywords start where this entry's text starts. */
  readonly rules: readonly number[];
}

/** Finds keywords and literal values in one pass; see the module comment. */
export class KeywordScanner {
  readonly #rules: readonly KeywordRule[];
  readonly #index: LiteralIndex<Entry>;
  /**
   * The same keywords, with each literal value as JSON.stringify writes it inside a string.
   * Undefined when a value holds a UTF-16 surrogate: JSON.stringify escapes a lone one only,
   * and whether one at a value's edge is lone depends on the text around it.
   */
  readonly #jsonIndex: LiteralIndex<Entry> | undefined;
  /** Per rule, the first position it has not yet covered in the current scan. */
  readonly #covered: number[];

  constructor(rules: readonly KeywordRule[], literals: readonly LiteralValue[] = []) {
    this.#rules = rules;
    this.#covered = rules.map(() => 0);
    const keywordRules = new Map<string, Set<number>>();
    rules.forEach((rule, index) => {
      for (const keyword of rule.keywords) {
        if (keyword === "") continue;
        let set = keywordRules.get(keyword);
        if (set === undefined) keywordRules.set(keyword, (set = new Set()));
        set.add(index);
      }
    });
    this.#index = buildIndex(keywordRules, literals);
    const hasSurrogate = literals.some((literal) => /[\ud800-\udfff]/.test(literal.text));
    this.#jsonIndex = hasSurrogate
      ? undefined
      : buildIndex(
          keywordRules,
          literals.map((literal) => ({ text: JSON.stringify(literal.text).slice(1, -1), kind: literal.kind })),
        );
  }

  /** Whether `text` holds any keyword or literal value: when false, `scan` would find nothing. */
  mayMatch(text: string): boolean {
    let hit = false;
    this.#index.forEachHit(text, false, () => {
      hit = true;
      return false;
    });
    return hit;
  }

  /** Appends every literal value and every rule finding in `text` to `found`, unordered, possibly overlapping. */
  scan(text: string, found: Finding[]): void {
    const covered = this.#covered;
    covered.fill(0);
    this.#index.forEachHit(text, false, (at, { value: entry }) => {
      for (const literal of entry.literals) found.push({ start: at, end: at + literal.length, kind: literal.kind });
      for (const index of entry.rules) {
        if (at < covered[index]!) continue;
        covered[index] = this.#rules[index]!.scan(text, at, found);
      }
      return true;
    });
  }

  /**
   * Whether `scan` could find anything in some string (key or value) of the JSON value that
   * JSON.stringify wrote as `json`: false only when it certainly cannot, decided on the text
   * itself. A literal value (in its JSON-escaped form) counts as found. A keyword's rules run
   * on the decoded string around it, exactly as `scan` would run them there, unless a rule's
   * `mayReportInJson` rules the keyword out first; no other string is decoded.
   */
  mayFindInJson(json: string): boolean {
    const index = this.#jsonIndex;
    if (index === undefined) return true;
    const strings = new JsonStringCursor(json);
    const covered = this.#rules.map(() => 0);
    const found: Finding[] = [];
    let mayFind = false;
    index.forEachHit(json, true, (at, { value: entry }) => {
      if (entry.literals.length > 0) {
        mayFind = true;
        return false;
      }
      let position: DecodedPosition | undefined | null = null;
      for (const ruleIndex of entry.rules) {
        const rule = this.#rules[ruleIndex]!;
        if (rule.mayReportInJson?.(json, at) === false) continue;
        if (position === null) {
          try {
            position = strings.locate(at);
          } catch {
            // Not inside a string as far as the text shows (not JSON.stringify's output): assume the worst.
            mayFind = true;
            return false;
          }
          // Coverage is per string, as `scan` runs once per string.
          if (position?.first === true) covered.fill(0);
        }
        // Inside an escape sequence: no keyword starts there in the decoded string.
        if (position === undefined) return true;
        if (position.at < covered[ruleIndex]!) continue;
        covered[ruleIndex] = rule.scan(position.text, position.at, found);
        // A keyword in a key (`"password":`) may name a secret in its value, which a rule sees
        // only with the key beside it: the walk reads the two together (Redactor.#keyedSecret).
        if (found.length > 0 || position.isKey) {
          mayFind = true;
          return false;
        }
      }
      return true;
    });
    return mayFind;
  }
}

/**
 * The index of the keywords and literal values. The longest text at a position is the one
 * reported, so a text also carries everything its prefixes stand for: `ghp_` inside a listed
 * secret `ghp_...` still runs the GitHub rule.
 */
function buildIndex(keywordRules: ReadonlyMap<string, ReadonlySet<number>>, literals: readonly LiteralValue[]) {
  const literalKinds = new Map<string, string>();
  for (const literal of literals)
    if (literal.text !== "" && !literalKinds.has(literal.text)) literalKinds.set(literal.text, literal.kind);
  const texts = [...new Set([...keywordRules.keys(), ...literalKinds.keys()])];
  return new LiteralIndex<Entry>(
    texts.map((text) => {
      const ruleIndexes = new Set<number>();
      const found: { length: number; kind: string }[] = [];
      for (const other of texts) {
        if (!text.startsWith(other)) continue;
        for (const index of keywordRules.get(other) ?? []) ruleIndexes.add(index);
        const kind = literalKinds.get(other);
        if (kind !== undefined) found.push({ length: other.length, kind });
      }
      const entry: Entry = { literals: found, rules: [...ruleIndexes].sort((a, b) => a - b) };
      // Literal values are matched anywhere; keywords that start with a lowercase letter only at a word start.
      return { text, wordStart: !literalKinds.has(text) && /^[a-z]/.test(text), value: entry };
    }),
  );
}
