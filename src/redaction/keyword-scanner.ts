// One pass over a text for every keyword rule and every known secret value at once: their
// literals are compiled into a single trie-shaped regular expression, and a rule is asked to
// look only where one of its keywords occurs. Linear in the text; refuses nothing.
//
// Speed: the regex engine tests the alternatives at every position, and alternatives that
// start with a lowercase letter pass its first quick check at most positions of ordinary text.
// Keywords of that kind are therefore looked for only at the start of a word (after a
// character that is not an ASCII letter), in a second regex of their own; the two run side by
// side, hits taken in position order. That halves the cost of the pass (about 6 against 12 ms
// per MB on a loaded 2-core machine). Every rule's secret starts a word there anyway
// (secretlint's rules say `(?<!\p{L})` or `\b`); rules whose keywords start with a lowercase
// letter must accept that.

import type { Finding, KeywordRule } from "./keyword-rule.js";

/** A value found literally wherever it occurs, e.g. a token from the config, or its base64 form. */
export interface LiteralValue {
  readonly text: string;
  readonly kind: string;
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
  readonly #entries = new Map<string, Entry>();
  /** Literal values and the keywords that do not start with a lowercase letter, anywhere. */
  readonly #free: RegExp | undefined;
  /** Keywords that start with a lowercase letter, after a character that is not a letter (group 1). */
  readonly #wordStart: RegExp | undefined;
  /** The same keywords at the start of the text. */
  readonly #wordStartAtZero: RegExp | undefined;
  /** Per rule, the first position it has not yet covered in the current scan. */
  readonly #covered: number[];

  constructor(rules: readonly KeywordRule[], literals: readonly LiteralValue[] = []) {
    this.#rules = rules;
    this.#covered = rules.map(() => 0);
    const keywordRules = new Map<string, Set<number>>();
    const literalKinds = new Map<string, string>();
    rules.forEach((rule, index) => {
      for (const keyword of rule.keywords) {
        if (keyword === "") continue;
        let set = keywordRules.get(keyword);
        if (set === undefined) keywordRules.set(keyword, (set = new Set()));
        set.add(index);
      }
    });
    for (const literal of literals)
      if (literal.text !== "" && !literalKinds.has(literal.text)) literalKinds.set(literal.text, literal.kind);
    const texts = [...new Set([...keywordRules.keys(), ...literalKinds.keys()])];
    // The regex takes the longest text at a position, so a text also carries everything its
    // prefixes stand for: `ghp_` inside a listed secret `ghp_...` still runs the GitHub rule.
    for (const text of texts) {
      const ruleIndexes = new Set<number>();
      const found: { length: number; kind: string }[] = [];
      for (const other of texts) {
        if (!text.startsWith(other)) continue;
        for (const index of keywordRules.get(other) ?? []) ruleIndexes.add(index);
        const kind = literalKinds.get(other);
        if (kind !== undefined) found.push({ length: other.length, kind });
      }
      this.#entries.set(text, { literals: found, rules: [...ruleIndexes].sort((a, b) => a - b) });
    }
    // Literal values are matched anywhere; keywords that start with a lowercase letter only
    // at a word start (see the module comment).
    const wordStart = texts.filter((text) => !literalKinds.has(text) && /^[a-z]/.test(text));
    const free = texts.filter((text) => !wordStart.includes(text));
    this.#free = free.length === 0 ? undefined : new RegExp(trieSource(free), "g");
    this.#wordStart = wordStart.length === 0 ? undefined : new RegExp(`[^A-Za-z](${trieSource(wordStart)})`, "g");
    this.#wordStartAtZero = wordStart.length === 0 ? undefined : new RegExp(trieSource(wordStart), "y");
  }

  /** Whether `text` holds any keyword or literal value: when false, `scan` would find nothing. */
  mayMatch(text: string): boolean {
    for (const pattern of [this.#wordStartAtZero, this.#free, this.#wordStart]) {
      if (pattern === undefined) continue;
      pattern.lastIndex = 0;
      if (pattern.test(text)) return true;
    }
    return false;
  }

  /** Appends every literal value and every rule finding in `text` to `found`, unordered, possibly overlapping. */
  scan(text: string, found: Finding[]): void {
    this.#covered.fill(0);
    const atZero = this.#wordStartAtZero;
    if (atZero !== undefined) {
      atZero.lastIndex = 0;
      const match = atZero.exec(text);
      if (match !== null) this.#found(text, 0, match[0], found);
    }
    const free = this.#free;
    const wordStart = this.#wordStart;
    if (free !== undefined) free.lastIndex = 0;
    if (wordStart !== undefined) wordStart.lastIndex = 0;
    let nextFree = free?.exec(text) ?? null;
    let nextWord = wordStart?.exec(text) ?? null;
    // Two sorted streams of hits, merged: a rule must see its keywords in position order.
    while (nextFree !== null || nextWord !== null) {
      const wordAt = nextWord === null ? Number.POSITIVE_INFINITY : nextWord.index + 1;
      if (nextFree !== null && nextFree.index <= wordAt) {
        const at = nextFree.index;
        this.#found(text, at, nextFree[0], found);
        // Keywords may overlap (`://` inside `postgres://`): go on from the next character.
        free!.lastIndex = at + 1;
        nextFree = free!.exec(text);
      } else {
        this.#found(text, wordAt, nextWord![1]!, found);
        wordStart!.lastIndex = wordAt;
        nextWord = wordStart!.exec(text);
      }
    }
  }

  #found(text: string, at: number, matched: string, found: Finding[]): void {
    const entry = this.#entries.get(matched)!;
    for (const literal of entry.literals) found.push({ start: at, end: at + literal.length, kind: literal.kind });
    const covered = this.#covered;
    for (const index of entry.rules) {
      if (at < covered[index]!) continue;
      covered[index] = this.#rules[index]!.scan(text, at, found);
    }
  }
}

interface TrieNode {
  terminal: boolean;
  readonly children: Map<string, TrieNode>;
}

/**
 * A regex source matching any of `texts`, longest first at a position, shaped as a trie so
 * shared prefixes are tested once. Every code unit outside `[A-Za-z0-9_ ]` is written as
 * `\uXXXX`, so no text can inject syntax.
 */
function trieSource(texts: readonly string[]): string {
  const root: TrieNode = { terminal: false, children: new Map() };
  for (const text of texts) {
    let node = root;
    // Code units, not code points: the regex has no `u` flag and matches units.
    for (let index = 0; index < text.length; index++) {
      const unit = text[index]!;
      let child = node.children.get(unit);
      if (child === undefined) node.children.set(unit, (child = { terminal: false, children: new Map() }));
      node = child;
    }
    node.terminal = true;
  }
  return emit(root);
}

function emit(start: TrieNode): string {
  // Runs of single-child nodes are written in a loop, so only branch points recurse: a long
  // secret value does not deepen the stack.
  let prefix = "";
  let node = start;
  while (!node.terminal && node.children.size === 1) {
    const [unit, child] = node.children.entries().next().value as [string, TrieNode];
    prefix += escapeUnit(unit);
    node = child;
  }
  if (node.children.size === 0) return prefix;
  const branches = [...node.children].map(([unit, child]) => escapeUnit(unit) + emit(child));
  const body = branches.length === 1 ? branches[0]! : `(?:${branches.join("|")})`;
  return prefix + (node.terminal ? `(?:${body})?` : body);
}

function escapeUnit(unit: string): string {
  return /^[A-Za-z0-9_ ]$/.test(unit) ? unit : `\\u${unit.charCodeAt(0).toString(16).padStart(4, "0")}`;
}
