// Query expansion for the lexical search: turns a query into concepts, each the query's own
// term (matched at full weight) plus the related terms the vocabulary table lists for it
// (matched at a lower weight by the index). Phrases of the table ("look up", "pull request") are
// matched in the query before single words, also with one word inserted ("pull my request"), and
// a word inside a matched phrase does not expand on its own. Pure and deterministic; the table is
// compiled once per expander.

import { isStopWord, splitWords, stem, tokenize } from "./tokenize.js";
import { CONCEPT_GROUPS, ONE_WAY_TERMS, QUESTION_WORDS, READING_WORDS } from "./vocabulary.js";

/** One unit of meaning of a query, as the index scores it. */
export interface QueryConcept {
  /**
   * The stems this concept stands for: one query term, or the content words of a phrase of the
   * table found in the query ("money back"), which match only together.
   */
  readonly terms: readonly string[];
  /** True when the terms themselves are matched at full weight (always, from `expand`). */
  readonly exact: boolean;
  /** Related terms from the vocabulary; each is one stem or a phrase of stems that must all occur. */
  readonly alternatives: readonly (readonly string[])[];
  /** How much the concept counts against a typed word, in (0, 1]. Default 1. */
  readonly weight?: number;
}

/**
 * Weight of the reading action a question implies (`QUESTION_WORDS`): enough to put the tool that
 * lists products above the one that creates them for "what do we sell", too little to outweigh a
 * word the user typed. The search benchmark's phrased queries gain alike from 0.2 to 0.5.
 */
export const QUESTION_WEIGHT = 0.3;

const QUESTIONS: ReadonlySet<string> = new Set(QUESTION_WORDS);
const READING: readonly (readonly string[])[] = READING_WORDS.map((word) => tokenize(word));

/** A group's entry as an alternative: its content stems and their key. */
interface Alternative {
  readonly key: string;
  readonly terms: readonly string[];
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
 * A QueryExpander's table, built a slice of entries at a time: about 25 ms of CPU for the default
 * vocabulary (its first build in a process), which a session's background takes in short steps
 * rather than in one turn of the event loop; a search that needs it first finishes it at once.
 */
export class ExpansionTables {
  readonly triggers = new Map<string, number[]>();
  readonly alternatives: Alternative[][] = [];
  readonly groupCount: number;
  readonly #groups: readonly (readonly string[])[];
  readonly #oneWay: readonly (readonly [string, readonly string[]])[];
  /** The next group (then one-way list) to add. */
  #next = 0;

  constructor(groups: readonly (readonly string[])[], oneWay: Readonly<Record<string, readonly string[]>>) {
    this.#groups = groups;
    this.#oneWay = Object.entries(oneWay);
    this.groupCount = groups.length;
  }

  /** Adds about `entries` more entries (whole groups and lists, at least one); true once the table is whole. */
  build(entries: number): boolean {
    const total = this.#groups.length + this.#oneWay.length;
    let added = 0;
    for (; added < entries && this.#next < total; this.#next++) {
      if (this.#next < this.#groups.length) {
        const group = this.#groups[this.#next] as readonly string[];
        this.#addGroup(group, this.#next);
        added += group.length;
      } else {
        const [key, list] = this.#oneWay[this.#next - this.#groups.length] as readonly [string, readonly string[]];
        this.#addOneWay(key, list);
        added += list.length + 1;
      }
    }
    return this.#next >= total;
  }

  // A group's entries all stand for one another.
  #addGroup(group: readonly string[], index: number): void {
    const alternatives = new Map<string, readonly string[]>();
    for (const entry of group) {
      if (!this.#addTrigger(entry, index)) continue;
      const content = tokenize(entry);
      // "file a", "log in", "how many" mean what they mean through their stop word: they trigger
      // the group, but one content word left alone ("file", "log") is not what they stand for.
      const needsStopWord = content.length === 1 && splitWords(entry).length > 1;
      if (content.length > 0 && !needsStopWord) alternatives.set(keyOf(content), content);
    }
    this.alternatives.push([...alternatives].map(([key, terms]) => ({ key, terms })));
  }

  // A one-way list is a group whose entries trigger it and whose only alternative is its key.
  #addOneWay(key: string, entries: readonly string[]): void {
    const content = tokenize(key);
    if (content.length === 0) return;
    const index = this.alternatives.length;
    this.alternatives.push([{ key: keyOf(content), terms: content }]);
    for (const entry of entries) this.#addTrigger(entry, index);
  }

  // Makes `entry` a trigger of group `index`; false when it cannot be one (too long, no content word).
  #addTrigger(entry: string, index: number): boolean {
    const words = splitWords(entry).map(stemUnlessStopWord);
    // A trigger needs a content word: "to" or "by" alone would expand half of all queries.
    if (words.length === 0 || words.length > MAX_PHRASE_WORDS || words.every(isStopWord)) return false;
    const key = keyOf(words);
    const indexes = this.triggers.get(key);
    if (indexes === undefined) this.triggers.set(key, [index]);
    else if (!indexes.includes(index)) indexes.push(index);
    return true;
  }
}

/**
 * Expands queries with a table of concept groups (default `CONCEPT_GROUPS`) and one-way terms
 * (default `ONE_WAY_TERMS`). A group's entries all stand for one another; a word in several groups
 * expands to all of them; an entry of a one-way list brings in its key only. A phrase of the
 * table found in a query is one concept: its words match together or not at all, so "money
 * back" does not find a tool for going back a page.
 */
export class QueryExpander {
  /** Trigger (stemmed words, stop words kept, joined by spaces) → indexes of its groups. */
  readonly #triggers: ReadonlyMap<string, readonly number[]>;
  /** Per group: its entries as content stems, the alternatives a trigger brings in. */
  readonly #alternatives: readonly (readonly Alternative[])[];
  readonly #groupCount: number;

  /** The table of `groups` and `oneWay`, or the one `groups` has built (finished now if it has not). */
  constructor(
    groups: readonly (readonly string[])[] | ExpansionTables = CONCEPT_GROUPS,
    oneWay: Readonly<Record<string, readonly string[]>> = ONE_WAY_TERMS,
  ) {
    const tables = groups instanceof ExpansionTables ? groups : new ExpansionTables(groups, oneWay);
    tables.build(Number.POSITIVE_INFINITY);
    this.#triggers = tables.triggers;
    this.#alternatives = tables.alternatives;
    this.#groupCount = tables.groupCount;
  }

  /**
   * The longest table entry starting at `index`: its words in a row, or (for two words or more)
   * with one word inserted after the first ("whole docs site" for "whole site", "open the file" for
   * "open file"), which people say as often, unless that word opens an entry of its own. At one
   * length the entry in a row wins. Words already taken by another phrase are never part of a match.
   */
  #phraseAt(
    stems: readonly string[],
    index: number,
    taken: ReadonlySet<number>,
  ): { positions: number[]; groups: readonly number[]; gapped: boolean } | undefined {
    for (let length = Math.min(MAX_PHRASE_WORDS, stems.length - index); length >= 1; length--) {
      // In a row, then (two words or more, room after) with the word after the first left out.
      for (let gap = 0; gap <= (length >= 2 && index + length < stems.length ? 1 : 0); gap++) {
        let key = stems[index] as string;
        let free = true;
        for (let offset = 1; offset < length && free; offset++) {
          free = !taken.has(index + offset + gap);
          key += ` ${stems[index + offset + gap]}`;
        }
        const groups = free ? this.#triggers.get(key) : undefined;
        if (groups === undefined) continue;
        // A word that opens a phrase of its own ("list every page": "every page") is not an inserted one.
        if (gap === 1 && this.#opensPhrase(stems, index + 1)) continue;
        const positions = [index];
        for (let offset = 1; offset < length; offset++) positions.push(index + offset + gap);
        return { positions, groups, gapped: gap === 1 };
      }
    }
    return undefined;
  }

  // True when a table entry of two words or more starts at `index`, in a row.
  #opensPhrase(stems: readonly string[], index: number): boolean {
    for (let length = Math.min(MAX_PHRASE_WORDS, stems.length - index); length >= 2; length--) {
      if (this.#triggers.has(keyOf(stems.slice(index, index + length)))) return true;
    }
    return false;
  }

  /** The number of concept groups in the table (one-way lists not counted). */
  get groupCount(): number {
    return this.#groupCount;
  }

  /**
   * Splits a query into concepts: table entries found in the query (longest phrase first, see
   * `#phraseAt`) and the remaining content words, each matched exactly; a table entry also brings
   * its groups' other entries as alternatives. A word inserted into a phrase is a concept of its own.
   * A query that opens with a question word (`QUESTION_WORDS`) gets one more concept, of no words
   * of its own, whose alternatives are `READING_WORDS`, weighted `QUESTION_WEIGHT`.
   */
  expand(query: string): QueryConcept[] {
    const words = splitWords(query);
    const stems = words.map(stemUnlessStopWord);
    const concepts = new Map<string, { terms: string[]; alternatives: Map<string, readonly string[]> }>();
    const conceptOf = (terms: string[]) => {
      const key = keyOf(terms);
      let concept = concepts.get(key);
      if (concept === undefined) {
        concept = { terms, alternatives: new Map() };
        concepts.set(key, concept);
      }
      return concept;
    };
    // Words taken by a phrase matched around an inserted word, read when the loop reaches them.
    const taken = new Set<number>();
    let index = 0;
    while (index < words.length) {
      if (taken.has(index)) {
        index += 1;
        continue;
      }
      const match = this.#phraseAt(stems, index, taken);
      if (match === undefined) {
        if (!isStopWord(words[index] as string)) conceptOf([stem(words[index] as string)]);
        index += 1;
        continue;
      }
      const content = match.positions
        .map((position) => words[position] as string)
        .filter((word) => !isStopWord(word))
        .map(stem);
      const concept = conceptOf(content);
      const own = new Set(content);
      for (const group of match.groups) {
        for (const { key, terms: alternative } of this.#alternatives[group] ?? []) {
          // An alternative made only of the concept's own words would count them twice.
          if (alternative.every((term) => own.has(term))) continue;
          concept.alternatives.set(key, alternative);
        }
      }
      if (match.gapped) {
        for (const position of match.positions.slice(1)) taken.add(position);
        index += 1;
      } else {
        index += match.positions.length;
      }
    }
    const result: QueryConcept[] = [...concepts.values()].map((concept) => ({
      terms: concept.terms,
      exact: true,
      alternatives: [...concept.alternatives.values()],
    }));
    // A question asks to read: a concept of no words whose alternatives are the reading verbs.
    if (result.length > 0 && QUESTIONS.has(words[0] as string)) {
      result.push({ terms: [], exact: false, alternatives: READING, weight: QUESTION_WEIGHT });
    }
    return result;
  }
}
