// Query expansion for the lexical search: turns a query into concepts, each the query's own
// term (matched at full weight) plus the related terms the vocabulary table lists for it
// (matched at a lower weight by the index). Phrases of the table ("look up", "pull request") are
// matched in the query before single words, and a word inside a matched phrase does not expand
// on its own. Pure and deterministic; the table is compiled once per expander.

import { isStopWord, splitWords, stem, tokenize } from "./tokenize.js";
import { CONCEPT_GROUPS } from "./vocabulary.js";

/** One unit of meaning of a query, as the index scores it. */
export interface QueryConcept {
  /** The stems this concept stands for: one query term, or a matched phrase's content words. */
  readonly terms: readonly string[];
  /** True for a single query term, which is also matched itself at full weight. */
  readonly exact: boolean;
  /** Related terms from the vocabulary; each is one stem or a phrase of stems that must all occur. */
  readonly alternatives: readonly (readonly string[])[];
}

/** Longest table phrase matched in a query, in words. */
const MAX_PHRASE_WORDS = 4;

// Stop words stay as they are inside phrases ("sign in", "how many"), on both sides alike.
function stemUnlessStopWord(word: string): string {
  return isStopWord(word) ? word : stem(word);
}

function keyOf(words: readonly string[]): string {
  return words.join(" ");
}

/**
 * Expands queries with a table of concept groups (default `CONCEPT_GROUPS`). A group's entries
 * all stand for one another; a word in several groups expands to all of them.
 */
export class QueryExpander {
  /** Trigger (stemmed words, stop words kept, joined by spaces) → indexes of its groups. */
  readonly #triggers = new Map<string, number[]>();
  /** Per group: its entries as content stems, the alternatives a trigger brings in. */
  readonly #alternatives: (readonly string[])[][] = [];

  constructor(groups: readonly (readonly string[])[] = CONCEPT_GROUPS) {
    groups.forEach((group, index) => {
      const alternatives = new Map<string, readonly string[]>();
      for (const entry of group) {
        const words = splitWords(entry).map(stemUnlessStopWord);
        // A trigger needs a content word: "to" or "by" alone would expand half of all queries.
        if (words.length === 0 || words.length > MAX_PHRASE_WORDS || words.every(isStopWord)) continue;
        const key = keyOf(words);
        const indexes = this.#triggers.get(key);
        if (indexes === undefined) this.#triggers.set(key, [index]);
        else if (!indexes.includes(index)) indexes.push(index);
        const content = tokenize(entry);
        if (content.length > 0) alternatives.set(keyOf(content), content);
      }
      this.#alternatives.push([...alternatives.values()]);
    });
  }

  /** The number of concept groups in the table. */
  get groupCount(): number {
    return this.#alternatives.length;
  }

  /**
   * Splits a query into concepts: each distinct content word is an exact concept; each table
   * entry found in the query (longest phrase first) adds its groups' other entries as
   * alternatives, to the word itself or, for a phrase, to a concept of the phrase's own.
   */
  expand(query: string): QueryConcept[] {
    const words = splitWords(query);
    const stems = words.map(stemUnlessStopWord);
    const concepts = new Map<string, { terms: string[]; exact: boolean; alternatives: Map<string, readonly string[]> }>();
    const conceptOf = (terms: string[], exact: boolean) => {
      const key = `${exact ? "=" : "~"}${keyOf(terms)}`;
      let concept = concepts.get(key);
      if (concept === undefined) {
        concept = { terms, exact, alternatives: new Map() };
        concepts.set(key, concept);
      }
      return concept;
    };
    let index = 0;
    while (index < words.length) {
      let matched = 0;
      for (let length = Math.min(MAX_PHRASE_WORDS, words.length - index); length >= 1; length--) {
        const groups = this.#triggers.get(keyOf(stems.slice(index, index + length)));
        if (groups === undefined) continue;
        matched = length;
        const content = tokenize(words.slice(index, index + length).join(" "));
        const concept = conceptOf(content, length === 1);
        const own = new Set(content);
        for (const group of groups) {
          for (const alternative of this.#alternatives[group] ?? []) {
            // An alternative made only of the concept's own words would count them twice.
            if (alternative.every((term) => own.has(term))) continue;
            concept.alternatives.set(keyOf(alternative), alternative);
          }
        }
        break;
      }
      const span = Math.max(1, matched);
      // Words of a matched phrase, and unmatched words, are still matched exactly.
      for (const word of words.slice(index, index + span)) {
        if (!isStopWord(word)) conceptOf([stem(word)], true);
      }
      index += span;
    }
    return [...concepts.values()].map((concept) => ({
      terms: concept.terms,
      exact: concept.exact,
      alternatives: [...concept.alternatives.values()],
    }));
  }
}
