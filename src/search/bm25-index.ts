// A BM25F index over tool documents with five weighted fields. Documents can be added,
// removed and replaced one at a time, so a catalog change (an MCP server's tools swapped)
// costs work proportional to the tools that changed, never a full rebuild. Results are
// deterministic: equal scores keep the order in which documents were first added.

import type { QueryConcept } from "./query-expansion.js";
import { tokenize } from "./tokenize.js";

/** The searchable fields of a tool document. */
export type SearchField = "namespace" | "name" | "description" | "parameterNames" | "parameterDescriptions";

/** A document as the index receives it: raw text per field, tokenized on entry. */
export interface SearchDocument {
  /** Unique within the index; the tool's full name in practice. */
  readonly id: string;
  readonly namespace: string;
  readonly name: string;
  readonly description: string;
  readonly parameterNames: string;
  readonly parameterDescriptions: string;
}

/** One ranked hit: BM25F score, higher is better. */
export interface SearchHit {
  readonly id: string;
  readonly score: number;
}

/** Tuning of the ranking function. */
export interface Bm25Options {
  /** Term-frequency saturation. Default 1.2; 0 makes repeated terms count once. */
  readonly k1?: number;
  /** Per-field weights; missing fields keep `DEFAULT_FIELD_WEIGHTS`. */
  readonly fieldWeights?: Partial<Record<SearchField, number>>;
  /** Per-field length normalization in [0, 1]; missing fields keep `DEFAULT_FIELD_B`. */
  readonly fieldB?: Partial<Record<SearchField, number>>;
}

export const SEARCH_FIELDS: readonly SearchField[] = [
  "namespace",
  "name",
  "description",
  "parameterNames",
  "parameterDescriptions",
];

/**
 * Field weights. A tool's name is a few words its author chose to say what it does, so a
 * term there is the strongest evidence (3): with k1 = 1.2 one name hit scores 0.71 of the
 * term's IDF against 0.45 for one description hit, so a name hit outranks a description
 * hit of the same term. The namespace names the service ("crm", "billing") a user often
 * mentions (2). Parameter names are short identifiers that say what the tool takes (1),
 * the description is prose (1), and parameter descriptions are long, repetitive prose
 * ("Maximum number of results") that should only break ties (0.5).
 */
export const DEFAULT_FIELD_WEIGHTS: Readonly<Record<SearchField, number>> = {
  namespace: 2,
  name: 3,
  description: 1,
  parameterNames: 1,
  parameterDescriptions: 0.5,
};

/**
 * Length normalization per field. Names and namespaces are short and of similar length,
 * so normalizing them mostly adds noise (0.3, 0); prose fields get the usual 0.75, so a
 * term in a one-line description counts more than the same term in a page of text.
 */
export const DEFAULT_FIELD_B: Readonly<Record<SearchField, number>> = {
  namespace: 0,
  name: 0.3,
  description: 0.75,
  parameterNames: 0.5,
  parameterDescriptions: 0.75,
};

interface IndexedDocument {
  readonly ordinal: number;
  readonly lengths: Record<SearchField, number>;
  /** term → frequency per field, in SEARCH_FIELDS order. */
  readonly terms: Map<string, number[]>;
}

/**
 * A BM25F index (Robertson & Zaragoza): per-field term frequencies are length-normalized,
 * weighted and summed before one saturation, `idf · tf / (k1 + tf)`, with the
 * Lucene-style IDF `ln(1 + (N - df + 0.5) / (df + 0.5))`, which is never negative.
 */
export class Bm25Index {
  readonly #k1: number;
  readonly #weights: readonly number[];
  readonly #b: readonly number[];
  readonly #documents = new Map<string, IndexedDocument>();
  /** term → ids of documents containing it in any field. */
  readonly #postings = new Map<string, Set<string>>();
  readonly #totalLengths: number[] = SEARCH_FIELDS.map(() => 0);
  #nextOrdinal = 0;

  /** Throws `RangeError` for a negative k1, a negative weight or a b outside [0, 1]. */
  constructor(options: Bm25Options = {}) {
    this.#k1 = options.k1 ?? 1.2;
    if (!(this.#k1 >= 0)) throw new RangeError(`k1 must be a non-negative number, got ${this.#k1}.`);
    this.#weights = SEARCH_FIELDS.map((field) => options.fieldWeights?.[field] ?? DEFAULT_FIELD_WEIGHTS[field]);
    this.#b = SEARCH_FIELDS.map((field) => options.fieldB?.[field] ?? DEFAULT_FIELD_B[field]);
    if (this.#weights.some((weight) => !(weight >= 0))) throw new RangeError("Field weights must be non-negative.");
    if (this.#b.some((b) => !(b >= 0 && b <= 1))) throw new RangeError("Field b values must be within [0, 1].");
  }

  /** The number of documents indexed. */
  get size(): number {
    return this.#documents.size;
  }

  /** True when a document with this id is indexed. */
  has(id: string): boolean {
    return this.#documents.has(id);
  }

  /** Adds a document. Throws `RangeError` when the id is already indexed (use `replace`). */
  add(document: SearchDocument): void {
    if (this.#documents.has(document.id)) {
      throw new RangeError(`Document "${document.id}" is already indexed; use replace().`);
    }
    this.#insert(document, this.#nextOrdinal++);
  }

  /** Removes a document; returns false when the id was not indexed. */
  remove(id: string): boolean {
    const indexed = this.#documents.get(id);
    if (indexed === undefined) return false;
    this.#documents.delete(id);
    for (const term of indexed.terms.keys()) {
      const ids = this.#postings.get(term);
      ids?.delete(id);
      if (ids?.size === 0) this.#postings.delete(term);
    }
    SEARCH_FIELDS.forEach((field, index) => {
      this.#totalLengths[index] = (this.#totalLengths[index] ?? 0) - indexed.lengths[field];
    });
    return true;
  }

  /**
   * Adds or replaces a document. A replaced document keeps its original insertion rank,
   * so updating a tool's description does not reorder ties.
   */
  replace(document: SearchDocument): void {
    const previous = this.#documents.get(document.id);
    if (previous === undefined) {
      this.add(document);
      return;
    }
    this.remove(document.id);
    this.#insert(document, previous.ordinal);
  }

  /**
   * Ranks documents for a natural-language query; returns at most `limit` hits with a
   * positive score, best first, ties in insertion order. A query without searchable terms
   * (empty, only stop words) returns no hits. No expansion: see `searchConcepts`.
   */
  search(query: string, limit: number): SearchHit[] {
    const concepts = [...new Set(tokenize(query))].map((term) => ({ terms: [term], exact: true, alternatives: [] }));
    return this.searchConcepts(concepts, limit);
  }

  /**
   * Ranks documents for expanded query concepts. A concept scores a document by the better of
   * its exact term's BM25F contribution and `alternativeWeight` times the best alternative's,
   * where an alternative's IDF is capped at the concept's own (a synonym is never more telling
   * than the word the user typed) and a phrase alternative counts only when all its words occur,
   * at its weakest word. So one concept adds at most `alternativeWeight · idf` through
   * alternatives, less than a name hit of the exact term (about 0.6–0.7 · idf at k1 = 1.2, name
   * weight 3, for names up to six times the average length): expansion cannot lift a tool
   * above one whose name holds the query's words. Default weight 0.5.
   */
  searchConcepts(concepts: readonly QueryConcept[], limit: number, alternativeWeight = 0.5): SearchHit[] {
    const count = this.#documents.size;
    if (concepts.length === 0 || count === 0 || !(limit > 0)) return [];
    const averageLengths = this.#totalLengths.map((total) => total / count);
    const scores = new Map<string, number>();
    for (const concept of concepts) {
      const conceptScores = new Map<string, number>();
      if (concept.exact && concept.terms.length === 1) {
        const term = concept.terms[0] as string;
        const ids = this.#postings.get(term);
        if (ids !== undefined) {
          const idf = this.#idf(ids.size, count);
          for (const id of ids) {
            const saturated = this.#saturated(term, id, averageLengths);
            if (saturated > 0) conceptScores.set(id, idf * saturated);
          }
        }
      }
      if (concept.alternatives.length > 0 && alternativeWeight > 0) {
        let ceiling = Number.POSITIVE_INFINITY;
        for (const term of concept.terms) ceiling = Math.min(ceiling, this.#idf(this.#postings.get(term)?.size ?? 0, count));
        for (const alternative of concept.alternatives) {
          this.#scoreAlternative(alternative, ceiling, alternativeWeight, averageLengths, conceptScores);
        }
      }
      for (const [id, score] of conceptScores) scores.set(id, (scores.get(id) ?? 0) + score);
    }
    return [...scores]
      .map(([id, score]) => ({ id, score, ordinal: this.#documents.get(id)?.ordinal ?? 0 }))
      .sort((left, right) => right.score - left.score || left.ordinal - right.ordinal)
      .slice(0, Math.floor(limit))
      .map(({ id, score }) => ({ id, score }));
  }

  // Raises `scores` to weight × the alternative's score where that is higher.
  #scoreAlternative(
    alternative: readonly string[],
    ceiling: number,
    weight: number,
    averageLengths: readonly number[],
    scores: Map<string, number>,
  ): void {
    const count = this.#documents.size;
    let rarest: Set<string> | undefined;
    for (const term of alternative) {
      const ids = this.#postings.get(term);
      if (ids === undefined) return;
      if (rarest === undefined || ids.size < rarest.size) rarest = ids;
    }
    if (rarest === undefined) return;
    let idf = ceiling;
    for (const term of alternative) idf = Math.min(idf, this.#idf(this.#postings.get(term)?.size ?? 0, count));
    for (const id of rarest) {
      let weakest = Number.POSITIVE_INFINITY;
      for (const term of alternative) weakest = Math.min(weakest, this.#saturated(term, id, averageLengths));
      if (!(weakest > 0)) continue;
      const score = weight * idf * weakest;
      if (score > (scores.get(id) ?? 0)) scores.set(id, score);
    }
  }

  // Lucene-style IDF, never negative; a term no document has gets the largest value.
  #idf(documentFrequency: number, count: number): number {
    return Math.log(1 + (count - documentFrequency + 0.5) / (documentFrequency + 0.5));
  }

  // The BM25F term weight without IDF: length-normalized, field-weighted frequency, saturated.
  #saturated(term: string, id: string, averageLengths: readonly number[]): number {
    const indexed = this.#documents.get(id);
    const frequencies = indexed?.terms.get(term);
    if (indexed === undefined || frequencies === undefined) return 0;
    let weighted = 0;
    for (let index = 0; index < SEARCH_FIELDS.length; index++) {
      const frequency = frequencies[index] ?? 0;
      if (frequency === 0) continue;
      const average = averageLengths[index] ?? 0;
      const b = this.#b[index] ?? 0;
      const length = indexed.lengths[SEARCH_FIELDS[index] as SearchField];
      const norm = average > 0 ? 1 - b + (b * length) / average : 1;
      weighted += ((this.#weights[index] ?? 0) * frequency) / norm;
    }
    return weighted === 0 ? 0 : weighted / (this.#k1 + weighted);
  }

  #insert(document: SearchDocument, ordinal: number): void {
    const terms = new Map<string, number[]>();
    const lengths = {} as Record<SearchField, number>;
    SEARCH_FIELDS.forEach((field, index) => {
      const fieldTerms = tokenize(document[field]);
      lengths[field] = fieldTerms.length;
      this.#totalLengths[index] = (this.#totalLengths[index] ?? 0) + fieldTerms.length;
      for (const term of fieldTerms) {
        let frequencies = terms.get(term);
        if (frequencies === undefined) {
          frequencies = SEARCH_FIELDS.map(() => 0);
          terms.set(term, frequencies);
        }
        frequencies[index] = (frequencies[index] ?? 0) + 1;
      }
    });
    this.#documents.set(document.id, { ordinal, lengths, terms });
    for (const term of terms.keys()) {
      let ids = this.#postings.get(term);
      if (ids === undefined) {
        ids = new Set();
        this.#postings.set(term, ids);
      }
      ids.add(document.id);
    }
  }
}
