// A BM25F index over tool documents with five weighted fields. Documents can be added,
// removed and replaced one at a time, so a catalog change (an MCP server's tools swapped)
// costs work proportional to the tools that changed, never a full rebuild. Results are
// deterministic: equal scores keep the order in which documents were first added.

import type { QueryConcept } from "./query-expansion.js";
import { SlotList } from "./slot-list.js";
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
  /**
   * How much a query that accounts for a tool's whole name lifts it: a score is multiplied by
   * `1 + nameCoverageWeight · share`, where share is the part of the name's distinct words, each
   * counted by its IDF, that some query concept matched, exactly or through an alternative.
   * Default `DEFAULT_NAME_COVERAGE_WEIGHT`; 0 turns it off.
   */
  readonly nameCoverageWeight?: number;
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
 * term's IDF against 0.56 for one description hit, so a name hit outranks a description
 * hit of the same term. The namespace names the service ("crm", "billing") a user often
 * mentions (2). The description is the prose in which a tool says what it does in words a
 * user might use (1.5); parameter names are short identifiers, often generic (`id`, `query`,
 * `limit`), that say what the tool takes (0.5); parameter descriptions are long, repetitive
 * prose ("Maximum number of results") that should only break ties (0.5). Description 1.5 and
 * parameter names 0.5, against 1 and 1 before, lifted or kept every labelled set of the search
 * benchmark, user-phrased queries written apart from it most.
 */
export const DEFAULT_FIELD_WEIGHTS: Readonly<Record<SearchField, number>> = {
  namespace: 2,
  name: 3,
  description: 1.5,
  parameterNames: 0.5,
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

/**
 * A tool's name is a few words (`drop_database`, `list_products`); a query that accounts for all
 * of them, through its own words or their synonyms, asks for that tool more surely than one that
 * matches a single word of a longer name, however rare. Each name word counts by its IDF, so
 * covering "products" says more than covering "list". 0.5: a fully covered name scores 1.5 times
 * its sum (the search benchmark's phrased queries gain at 0.3 to 1 alike; 0.5 sits in that plateau).
 */
export const DEFAULT_NAME_COVERAGE_WEIGHT = 0.5;

const NAME_FIELD = SEARCH_FIELDS.indexOf("name");
const NAMESPACE_FIELD = SEARCH_FIELDS.indexOf("namespace");
/** Name terms tracked for coverage, one bit each; a longer name's other words do not count. */
const MAX_NAME_BITS = 30;

const CORE_FIELDS: ReadonlySet<number> = new Set(
  (["namespace", "name", "description"] as const).map((field) => SEARCH_FIELDS.indexOf(field)),
);

interface WeightedPosting {
  /** Dense numbers (see `DenseView`) of the documents holding the term. */
  readonly slots: Int32Array;
  /** Saturated BM25F weight of the term in each of them, without IDF, in (0, 1). */
  readonly weights: Float64Array;
  /** 1 where the term is in the document's name or namespace. */
  readonly inName: Uint8Array;
  /** The term's bit among the document's name terms (see `IndexedDocument.nameBits`), 0 if none. */
  readonly nameBit: Int32Array;
  /** The weights counting only name, namespace and description: what alternatives match. */
  readonly coreWeights: Float64Array;
  readonly idf: number;
  /** How many documents a one-word concept of the term matches: those where its weight is not 0 (a field weighted 0). */
  readonly matched: number;
  /** slot → weight over all documents, built when a phrase first needs it. */
  bySlot?: Float64Array;
  /** The same of `coreWeights`. */
  coreBySlot?: Float64Array;
  /** slot → inName over all documents, built when a phrase first needs it. */
  namedBySlot?: Uint8Array;
  /** slot → nameBit over all documents, built when a phrase first needs it. */
  nameBitBySlot?: Int32Array;
}

/** The documents numbered 0..n-1 for one catalog state, with scratch space for scoring. */
interface DenseView {
  readonly ids: readonly string[];
  readonly ordinals: Int32Array;
  /** Per document and field (slot · 5 + field), the BM25 length norm `1 - b + b · length / average`. */
  readonly norms: Float64Array;
  readonly total: Float64Array;
  readonly concept: Float64Array;
  /** Per document, how many of the query's concepts its name holds exactly. */
  readonly named: Int32Array;
  /** Per document, a bit for each distinct term of its name field (see `IndexedDocument`). */
  readonly nameBits: readonly ReadonlyMap<string, number>[];
  /** Per document, the bits of the name terms the query's concepts matched. */
  readonly covered: Int32Array;
  /** Per document, the IDF of each name term in bit order, then their sum; built when first needed. */
  readonly nameIdfs: (Float64Array | undefined)[];
  /** The slots a search scored (in `total`), one concept scored (in `concept`), and matched by name. */
  readonly touched: SlotList;
  readonly conceptTouched: SlotList;
  readonly coveredSlots: SlotList;
}

/** A dense view part built: the documents not yet given a slot are the iterator's rest. */
interface DenseBuild {
  readonly documents: Iterator<IndexedDocument>;
  readonly averageLengths: readonly number[];
  readonly norms: Float64Array;
  readonly ordinals: Int32Array;
  readonly nameBits: ReadonlyMap<string, number>[];
  slot: number;
}

interface IndexedDocument {
  readonly ordinal: number;
  /** Its number in the current dense view; set when the view is built. */
  slot: number;
  /** A bit for each of the first 30 distinct terms of the name field: names are a few words. */
  readonly nameBits: ReadonlyMap<string, number>;
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
  readonly #nameCoverageWeight: number;
  readonly #documents = new Map<string, IndexedDocument>();
  /** term → the documents containing it in any field, each with the term's frequency per field. */
  readonly #postings = new Map<string, Map<IndexedDocument, readonly number[]>>();
  readonly #totalLengths: number[] = SEARCH_FIELDS.map(() => 0);
  /**
   * term → its documents with their saturated term weights, computed on first use. Average field
   * lengths change with every add or remove, so any change clears it; searches, which vastly
   * outnumber changes, then read plain arrays.
   */
  readonly #weightedPostings = new Map<string, WeightedPosting>();
  #dense: DenseView | undefined;
  /** The dense view being built a slice at a time (`prepare`); a search finishes it. */
  #denseBuild: DenseBuild | undefined;
  /** The terms `prepare` has yet to look at, in vocabulary order; reset by any change. */
  #preparing: Iterator<[string, Map<IndexedDocument, readonly number[]>]> | undefined;
  #nextOrdinal = 0;

  /** Throws `RangeError` for a negative k1, a negative weight or a b outside [0, 1]. */
  constructor(options: Bm25Options = {}) {
    this.#k1 = options.k1 ?? 1.2;
    if (!(this.#k1 >= 0)) throw new RangeError(`k1 must be a non-negative number, got ${this.#k1}.`);
    this.#weights = SEARCH_FIELDS.map((field) => options.fieldWeights?.[field] ?? DEFAULT_FIELD_WEIGHTS[field]);
    this.#b = SEARCH_FIELDS.map((field) => options.fieldB?.[field] ?? DEFAULT_FIELD_B[field]);
    if (this.#weights.some((weight) => !(weight >= 0))) throw new RangeError("Field weights must be non-negative.");
    if (this.#b.some((b) => !(b >= 0 && b <= 1))) throw new RangeError("Field b values must be within [0, 1].");
    this.#nameCoverageWeight = options.nameCoverageWeight ?? DEFAULT_NAME_COVERAGE_WEIGHT;
    if (!(this.#nameCoverageWeight >= 0)) throw new RangeError("The name coverage weight must be non-negative.");
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
    this.#invalidate();
    this.#documents.delete(id);
    for (const term of indexed.terms.keys()) {
      const documents = this.#postings.get(term);
      documents?.delete(indexed);
      if (documents?.size === 0) this.#postings.delete(term);
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
   * Builds about `work` more units of scoring data ahead of the searches that would build them on
   * first use (a document's place in the dense view, or a document of a term's weighted posting, is
   * one unit; a new query's words cost milliseconds each on a large catalog, and the dense view of
   * 50,000 documents about 100 ms); for background work between changes, so a call never holds the
   * thread long whatever the catalog's size or its words' spread. Returns true when all is built.
   */
  prepare(work: number): boolean {
    if (this.#documents.size === 0) return true;
    let done = 0;
    if (this.#dense === undefined) {
      done += this.#buildDense(work);
      if (this.#dense === undefined) return false;
    }
    const terms = (this.#preparing ??= this.#postings.entries());
    while (done < work) {
      const next = terms.next();
      if (next.done === true) return true;
      const [term, documents] = next.value;
      if (this.#weightedPostings.has(term)) continue;
      this.#posting(term);
      done += documents.size;
    }
    return false;
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
   * Ranks documents for expanded query concepts. A concept's exact part is its terms' BM25F
   * contributions summed, counted only where all of them occur (one term, or a phrase). Its
   * alternatives score `alternativeWeight · min(ceiling, idf) · weight`, where the weight counts
   * the name, namespace and description only (a synonym met in a parameter says little), a
   * phrase alternative counts only where all its words occur, at its weakest word, with the IDF
   * of that conjunction, and the ceiling is the concept's own IDF (a synonym is never more telling
   * than the words the user typed; a concept of no words has none). Both parts are multiplied by
   * the concept's `weight`. A document takes the better of the two per concept, and a
   * document whose name (or namespace) holds every exact concept ranks above all others, so
   * expansion never outranks an exact name match. Then each score is lifted by the share of the
   * document's name words the concepts matched (see `nameCoverageWeight`). Default weight 0.8
   * (chosen on the tuning part of the search benchmark's user-phrased queries).
   */
  searchConcepts(concepts: readonly QueryConcept[], limit: number, alternativeWeight = 0.8): SearchHit[] {
    const count = this.#documents.size;
    if (concepts.length === 0 || count === 0 || !(limit > 0)) return [];
    const dense = this.#denseView();
    const { total, concept: conceptScores, named, touched, conceptTouched, coveredSlots } = dense;
    // `coveredSlots`: documents some concept matched in its name; a phrase counts only with all its words there.
    const cover =
      this.#nameCoverageWeight > 0
        ? (slot: number, mask: number) => {
            // 0: some word of the concept is not among the name's words.
            if (mask === 0) return;
            if (dense.covered[slot] === 0) coveredSlots.push(slot);
            dense.covered[slot] = (dense.covered[slot] as number) | mask;
          }
        : undefined;
    let exactConcepts = 0;
    for (const concept of concepts) {
      // A one-word concept (most are) reads its posting in place: no per-search copies, which at
      // thousands of tools were most of a search's garbage and the collector's pauses in p99.
      const single = concept.terms.length === 1 ? this.#posting(concept.terms[0] as string) : undefined;
      if (single !== undefined) {
        if (concept.exact) {
          exactConcepts += 1;
          this.#scoreSingle(single, concept.weight ?? 1, conceptScores, conceptTouched, named, cover);
        }
        if (concept.alternatives.length > 0 && alternativeWeight > 0) {
          const ceiling = Math.min(this.#idf(single.matched, count), single.idf);
          const weight = alternativeWeight * (concept.weight ?? 1);
          for (const alternative of concept.alternatives) {
            this.#scoreAlternative(alternative, weight, ceiling, conceptScores, conceptTouched, cover);
          }
        }
        this.#addConcept(conceptScores, conceptTouched, total, touched);
        continue;
      }
      const matched = this.#matchAll(concept.terms);
      if (concept.exact) {
        exactConcepts += 1;
        for (let index = 0; index < matched.slots.length; index++) {
          const slot = matched.slots[index] as number;
          conceptScores[slot] = (matched.sums[index] as number) * (concept.weight ?? 1);
          conceptTouched.push(slot);
          if (matched.named[index] === true) {
            named[slot] = (named[slot] as number) + 1;
            cover?.(slot, matched.masks[index] as number);
          }
        }
      }
      if (concept.alternatives.length > 0 && alternativeWeight > 0) {
        // A phrase is as telling as its words together, never more than their sum; a concept of
        // no words (one a question implies) has no ceiling but its weight.
        const ceiling =
          concept.terms.length === 0
            ? Number.POSITIVE_INFINITY
            : Math.min(this.#idf(matched.slots.length, count), matched.idfSum);
        const weight = alternativeWeight * (concept.weight ?? 1);
        for (const alternative of concept.alternatives) {
          this.#scoreAlternative(alternative, weight, ceiling, conceptScores, conceptTouched, cover);
        }
      }
      this.#addConcept(conceptScores, conceptTouched, total, touched);
    }
    for (let index = 0; index < coveredSlots.length; index++) {
      const slot = coveredSlots.at(index);
      const share = this.#coveredShare(dense, slot);
      total[slot] = (total[slot] as number) * (1 + this.#nameCoverageWeight * share);
      dense.covered[slot] = 0;
    }
    coveredSlots.clear();
    const hits = topHits(touched, total, dense, Math.floor(limit), exactConcepts);
    for (let index = 0; index < touched.length; index++) {
      const slot = touched.at(index);
      total[slot] = 0;
      named[slot] = 0;
    }
    touched.clear();
    return hits;
  }

  // A one-word exact concept's scores, as #matchAll would give them for that word alone.
  #scoreSingle(
    posting: WeightedPosting,
    weight: number,
    scores: Float64Array,
    touched: SlotList,
    named: Int32Array,
    cover: ((slot: number, mask: number) => void) | undefined,
  ): void {
    for (let index = 0; index < posting.slots.length; index++) {
      const termWeight = posting.weights[index] as number;
      if (termWeight === 0) continue;
      const slot = posting.slots[index] as number;
      scores[slot] = posting.idf * termWeight * weight;
      touched.push(slot);
      if (posting.inName[index] === 1) {
        named[slot] = (named[slot] as number) + 1;
        cover?.(slot, posting.nameBit[index] as number);
      }
    }
  }

  // Moves one concept's scores into the totals and clears them for the next concept.
  #addConcept(scores: Float64Array, conceptTouched: SlotList, total: Float64Array, touched: SlotList): void {
    for (let index = 0; index < conceptTouched.length; index++) {
      const slot = conceptTouched.at(index);
      const score = scores[slot] as number;
      if (score === 0) continue; // already moved: a slot can be listed twice
      if (total[slot] === 0) touched.push(slot);
      total[slot] = (total[slot] as number) + score;
      scores[slot] = 0;
    }
    conceptTouched.clear();
  }

  /**
   * The documents holding every one of `terms`, with the sum of the terms' IDF-weighted
   * contributions and the weakest term's weight in each; `idfSum` adds the terms' IDFs (a term
   * no document has counts the largest IDF).
   */
  #matchAll(
    terms: readonly string[],
    core = false,
  ): {
    slots: number[];
    sums: number[];
    weakest: number[];
    named: boolean[];
    /** The terms' name bits together; 0 when one of them is not among the name's words. */
    masks: number[];
    idfSum: number;
  } {
    const count = this.#documents.size;
    const postings: WeightedPosting[] = [];
    let idfSum = 0;
    let missing = false;
    for (const term of terms) {
      const posting = this.#posting(term);
      if (posting === undefined) {
        idfSum += this.#idf(0, count);
        missing = true;
      } else {
        idfSum += posting.idf;
        postings.push(posting);
      }
    }
    const result = {
      slots: [] as number[],
      sums: [] as number[],
      weakest: [] as number[],
      named: [] as boolean[],
      masks: [] as number[],
      idfSum,
    };
    if (missing || postings.length === 0) return result;
    let rarest = postings[0] as WeightedPosting;
    for (const posting of postings) if (posting.slots.length < rarest.slots.length) rarest = posting;
    const others = postings
      .filter((posting) => posting !== rarest)
      .map(
        (posting) =>
          [posting, this.#bySlot(posting, core), this.#namedBySlot(posting), this.#nameBitBySlot(posting)] as const,
      );
    for (let index = 0; index < rarest.slots.length; index++) {
      const slot = rarest.slots[index] as number;
      const weight = (core ? rarest.coreWeights : rarest.weights)[index] as number;
      let sum = rarest.idf * weight;
      let weakest = weight;
      let named = rarest.inName[index] === 1;
      let mask = rarest.nameBit[index] as number;
      for (const [posting, bySlot, namedBySlot, nameBitBySlot] of others) {
        const other = bySlot[slot] as number;
        if (other === 0) {
          weakest = 0;
          break;
        }
        sum += posting.idf * other;
        weakest = Math.min(weakest, other);
        named &&= namedBySlot[slot] === 1;
        const bit = nameBitBySlot[slot] as number;
        mask = bit === 0 ? 0 : mask === 0 ? 0 : mask | bit;
      }
      if (weakest === 0) continue;
      result.slots.push(slot);
      result.sums.push(sum);
      result.weakest.push(weakest);
      result.named.push(named);
      result.masks.push(mask);
    }
    return result;
  }

  // The IDF-weighted share of a name's words whose bits are set in `covered`.
  #coveredShare(dense: DenseView, slot: number): number {
    let idfs = dense.nameIdfs[slot];
    if (idfs === undefined) {
      const nameBits = dense.nameBits[slot] as ReadonlyMap<string, number>;
      idfs = new Float64Array(nameBits.size + 1);
      let index = 0;
      for (const term of nameBits.keys()) {
        const idf = this.#idfOf(term);
        idfs[index++] = idf;
        idfs[nameBits.size] = (idfs[nameBits.size] as number) + idf;
      }
      dense.nameIdfs[slot] = idfs;
    }
    const covered = dense.covered[slot] as number;
    let matched = 0;
    for (let index = 0; index < idfs.length - 1; index++) {
      if ((covered & (1 << index)) !== 0) matched += idfs[index] as number;
    }
    const all = idfs[idfs.length - 1] as number;
    return all > 0 ? matched / all : 0;
  }

  // Raises concept scores to weight · min(ceiling, idf) · weakest word's weight where higher, and
  // reports every document it matched to `cover`.
  #scoreAlternative(
    alternative: readonly string[],
    weight: number,
    ceiling: number,
    scores: Float64Array,
    touched: SlotList,
    cover: ((slot: number, mask: number) => void) | undefined,
  ): void {
    const matched = alternative.length === 1 ? this.#single(alternative[0] as string) : this.#matchAll(alternative);
    if (matched === undefined || matched.slots.length === 0) return;
    const factor = weight * Math.min(ceiling, this.#idf(matched.slots.length, this.#documents.size));
    for (let index = 0; index < matched.slots.length; index++) {
      const slot = matched.slots[index] as number;
      if (matched.named[index]) cover?.(slot, matched.masks[index] as number);
      const score = factor * (matched.weakest[index] as number);
      const current = scores[slot] as number;
      if (score > current) {
        if (current === 0) touched.push(slot);
        scores[slot] = score;
      }
    }
  }

  // A single term's posting in the shape #matchAll returns, without copying.
  #single(
    term: string,
  ): { slots: Int32Array; weakest: Float64Array; named: Uint8Array; masks: Int32Array } | undefined {
    const posting = this.#posting(term);
    return posting === undefined
      ? undefined
      : { slots: posting.slots, weakest: posting.coreWeights, named: posting.inName, masks: posting.nameBit };
  }

  #nameBitBySlot(posting: WeightedPosting): Int32Array {
    if (posting.nameBitBySlot === undefined) {
      const bits = new Int32Array(this.#denseView().ids.length);
      posting.slots.forEach((slot, index) => {
        bits[slot] = posting.nameBit[index] as number;
      });
      posting.nameBitBySlot = bits;
    }
    return posting.nameBitBySlot;
  }

  #namedBySlot(posting: WeightedPosting): Uint8Array {
    if (posting.namedBySlot === undefined) {
      const named = new Uint8Array(this.#denseView().ids.length);
      posting.slots.forEach((slot, index) => {
        named[slot] = posting.inName[index] as number;
      });
      posting.namedBySlot = named;
    }
    return posting.namedBySlot;
  }

  #bySlot(posting: WeightedPosting, core: boolean): Float64Array {
    const key = core ? "coreBySlot" : "bySlot";
    let bySlot = posting[key];
    if (bySlot === undefined) {
      bySlot = new Float64Array(this.#denseView().ids.length);
      const weights = core ? posting.coreWeights : posting.weights;
      posting.slots.forEach((slot, index) => {
        (bySlot as Float64Array)[slot] = weights[index] as number;
      });
      posting[key] = bySlot;
    }
    return bySlot;
  }

  #invalidate(): void {
    this.#weightedPostings.clear();
    this.#dense = undefined;
    this.#denseBuild = undefined;
    this.#preparing = undefined;
  }

  #denseView(): DenseView {
    if (this.#dense === undefined) this.#buildDense(Number.POSITIVE_INFINITY);
    return this.#dense as DenseView;
  }

  /**
   * Builds up to `count` more documents of the dense view (all of it at once for a search; a slice
   * per call for `prepare`); sets `#dense` once every document has its slot. Returns how many it built.
   */
  #buildDense(count: number): number {
    const fields = SEARCH_FIELDS.length;
    const total = this.#documents.size;
    this.#denseBuild ??= {
      documents: this.#documents.values(),
      averageLengths: this.#totalLengths.map((sum) => sum / total),
      norms: new Float64Array(total * fields),
      ordinals: new Int32Array(total),
      nameBits: [],
      slot: 0,
    };
    const build = this.#denseBuild;
    let built = 0;
    for (; built < count && build.slot < total; built++) {
      const indexed = build.documents.next().value as IndexedDocument;
      const slot = build.slot++;
      indexed.slot = slot;
      build.ordinals[slot] = indexed.ordinal;
      build.nameBits.push(indexed.nameBits);
      for (let field = 0; field < fields; field++) {
        const average = build.averageLengths[field] ?? 0;
        const b = this.#b[field] ?? 0;
        const length = indexed.lengths[SEARCH_FIELDS[field] as SearchField];
        build.norms[slot * fields + field] = average > 0 ? 1 - b + (b * length) / average : 1;
      }
    }
    if (build.slot < total) return built;
    this.#denseBuild = undefined;
    this.#dense = {
      ids: [...this.#documents.keys()],
      ordinals: build.ordinals,
      norms: build.norms,
      total: new Float64Array(total),
      concept: new Float64Array(total),
      named: new Int32Array(total),
      nameBits: build.nameBits,
      covered: new Int32Array(total),
      nameIdfs: new Array<Float64Array | undefined>(total),
      touched: new SlotList(),
      conceptTouched: new SlotList(),
      coveredSlots: new SlotList(),
    };
    return built;
  }

  // The term's documents with their saturated weights; built once per catalog state, in one pass
  // over the term's documents with the view's per-field length norms (no lookups per document).
  #posting(term: string): WeightedPosting | undefined {
    let posting = this.#weightedPostings.get(term);
    if (posting !== undefined) return posting;
    const documents = this.#postings.get(term);
    if (documents === undefined) return undefined;
    const { norms } = this.#denseView();
    const fields = SEARCH_FIELDS.length;
    const slots = new Int32Array(documents.size);
    const weights = new Float64Array(documents.size);
    const coreWeights = new Float64Array(documents.size);
    const inName = new Uint8Array(documents.size);
    const nameBit = new Int32Array(documents.size);
    let index = 0;
    let matched = 0;
    for (const [indexed, frequencies] of documents) {
      const slot = indexed.slot;
      let weighted = 0;
      let core = 0;
      for (let field = 0; field < fields; field++) {
        const frequency = frequencies[field] ?? 0;
        if (frequency === 0) continue;
        const contribution = ((this.#weights[field] ?? 0) * frequency) / (norms[slot * fields + field] as number);
        weighted += contribution;
        if (CORE_FIELDS.has(field)) core += contribution;
      }
      slots[index] = slot;
      weights[index] = weighted === 0 ? 0 : weighted / (this.#k1 + weighted);
      if (weighted !== 0) matched += 1;
      coreWeights[index] = core === 0 ? 0 : core / (this.#k1 + core);
      inName[index] = (frequencies[NAME_FIELD] ?? 0) > 0 || (frequencies[NAMESPACE_FIELD] ?? 0) > 0 ? 1 : 0;
      if ((frequencies[NAME_FIELD] ?? 0) > 0) nameBit[index] = indexed.nameBits.get(term) ?? 0;
      index += 1;
    }
    const idf = this.#idf(documents.size, this.#documents.size);
    posting = { slots, weights, coreWeights, inName, nameBit, idf, matched };
    this.#weightedPostings.set(term, posting);
    return posting;
  }

  // The term's IDF without building its posting; 0 for a term no document has.
  #idfOf(term: string): number {
    const documents = this.#postings.get(term);
    return documents === undefined ? 0 : this.#idf(documents.size, this.#documents.size);
  }

  // Lucene-style IDF, never negative; a term no document has gets the largest value.
  #idf(documentFrequency: number, count: number): number {
    return Math.log(1 + (count - documentFrequency + 0.5) / (documentFrequency + 0.5));
  }

  #insert(document: SearchDocument, ordinal: number): void {
    this.#invalidate();
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
    const nameBits = new Map<string, number>();
    for (const [term, frequencies] of terms) {
      if ((frequencies[NAME_FIELD] ?? 0) > 0 && nameBits.size < MAX_NAME_BITS) nameBits.set(term, 1 << nameBits.size);
    }
    const indexed: IndexedDocument = { ordinal, slot: -1, nameBits, lengths, terms };
    this.#documents.set(document.id, indexed);
    for (const [term, frequencies] of terms) {
      let documents = this.#postings.get(term);
      if (documents === undefined) {
        documents = new Map();
        this.#postings.set(term, documents);
      }
      documents.set(indexed, frequencies);
    }
  }
}

// The `limit` best hits among `slots`, best first: documents whose name holds every concept of
// the query exactly come first (what the user named outranks what expansion found), then by
// score, ties by insertion order. Reported scores are made non-increasing down the list.
function topHits(
  slots: SlotList,
  scores: Float64Array,
  dense: DenseView,
  limit: number,
  exactConcepts: number,
): SearchHit[] {
  const top: number[] = [];
  const isNamed = (slot: number): boolean => exactConcepts > 0 && dense.named[slot] === exactConcepts;
  const before = (left: number, right: number): boolean => {
    const leftNamed = isNamed(left);
    if (leftNamed !== isNamed(right)) return leftNamed;
    const difference = (scores[left] as number) - (scores[right] as number);
    return difference > 0 || (difference === 0 && (dense.ordinals[left] as number) < (dense.ordinals[right] as number));
  };
  for (let index = 0; index < slots.length; index++) {
    const slot = slots.at(index);
    if (!((scores[slot] as number) > 0)) continue;
    const last = top[top.length - 1];
    if (top.length === limit && last !== undefined && !before(slot, last)) continue;
    let position = top.length;
    while (position > 0 && before(slot, top[position - 1] as number)) position -= 1;
    top.splice(position, 0, slot);
    if (top.length > limit) top.pop();
  }
  const hits = top.map((slot) => ({ id: dense.ids[slot] as string, score: scores[slot] as number }));
  for (let index = hits.length - 2; index >= 0; index--) {
    const hit = hits[index] as SearchHit;
    const next = hits[index + 1] as SearchHit;
    if (hit.score < next.score) hits[index] = { id: hit.id, score: next.score };
  }
  return hits;
}
