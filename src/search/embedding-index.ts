// Hybrid retrieval: ranks tools by the cosine similarity of embeddings from an embedder the
// integrator supplies, and fuses that ranking with the lexical one by reciprocal rank fusion.
// Vectors are cached by tool text, so a catalog change embeds only the tools whose text changed,
// and the catalog's vector table is built once per catalog version. An embedder that fails or
// answers malformed vectors is reported to the caller, who falls back to the lexical ranking.

/** Turns texts into vectors, one per text, in order; all vectors of one embedder have one length. */
export type Embedder = (texts: readonly string[]) => Promise<number[][]>;

/** What the index needs of a tool: its full name and the text its vector is made from. */
export interface EmbeddableTool {
  readonly name: string;
  readonly text: string;
}

/** One ranked name with its score (cosine similarity, or fused score). */
export interface RankedName {
  readonly name: string;
  readonly score: number;
}

/** The constant of reciprocal rank fusion (Cormack et al.): each list adds 1 / (k + rank). */
export const RRF_K = 60;
/** Texts per embedder call when many tools need vectors at once. */
export const EMBEDDING_BATCH_SIZE = 64;
/** Query vectors kept, most recent first. */
const QUERY_CACHE_SIZE = 128;

/**
 * Fuses ranked lists by reciprocal rank fusion: a name's score is the sum over lists of
 * 1 / (k + rank), rank from 1. Ties keep the order of first appearance (the first list first).
 */
export function fuseByReciprocalRank(lists: readonly (readonly string[])[], k = RRF_K): RankedName[] {
  const scores = new Map<string, number>();
  for (const list of lists) {
    list.forEach((name, index) => {
      scores.set(name, (scores.get(name) ?? 0) + 1 / (k + index + 1));
    });
  }
  return [...scores]
    .map(([name, score], order) => ({ name, score, order }))
    .sort((left, right) => right.score - left.score || left.order - right.order)
    .map(({ name, score }) => ({ name, score }));
}

/** Vectors for a catalog and for queries, from one embedder; see the module comment. */
export class EmbeddingIndex {
  readonly #embed: Embedder;
  /** tool text → its vector (or the pending request for it); pruned to the current catalog. */
  #vectors = new Map<string, Promise<Float64Array>>();
  readonly #queries = new Map<string, Promise<Float64Array>>();
  #table: { version: number; names: string[]; vectors: Promise<Float64Array[]> } | undefined;
  /** Texts sent to the embedder so far, for callers that account for its cost. */
  embeddedTexts = 0;

  constructor(embed: Embedder) {
    this.#embed = embed;
  }

  /**
   * Ranks `tools` (the catalog at `version`) by similarity to `query`, best first, at most
   * `limit`. Rejects when the embedder fails or answers vectors of the wrong count or shape.
   */
  async rank(
    query: string,
    tools: () => readonly EmbeddableTool[],
    version: number,
    limit: number,
  ): Promise<RankedName[]> {
    const [table, queryVector] = await Promise.all([this.#tableFor(version, tools), this.#queryVector(query)]);
    const vectors = await table.vectors;
    return table.names
      .map((name, index) => ({ name, score: cosine(queryVector, vectors[index] as Float64Array), index }))
      .sort((left, right) => right.score - left.score || left.index - right.index)
      .slice(0, limit)
      .map(({ name, score }) => ({ name, score }));
  }

  #tableFor(
    version: number,
    tools: () => readonly EmbeddableTool[],
  ): { names: string[]; vectors: Promise<Float64Array[]> } {
    if (this.#table?.version === version) return this.#table;
    const catalog = tools();
    const kept = new Map<string, Promise<Float64Array>>();
    const missing: string[] = [];
    for (const tool of catalog) {
      const cached = this.#vectors.get(tool.text) ?? kept.get(tool.text);
      if (cached !== undefined) kept.set(tool.text, cached);
      else if (!missing.includes(tool.text)) missing.push(tool.text);
    }
    for (let start = 0; start < missing.length; start += EMBEDDING_BATCH_SIZE) {
      const batch = missing.slice(start, start + EMBEDDING_BATCH_SIZE);
      const vectors = this.#embedBatch(batch);
      batch.forEach((text, index) => {
        kept.set(
          text,
          vectors.then((all) => all[index] as Float64Array),
        );
      });
    }
    // Texts of tools no longer in the catalog go; a failed request is retried on the next search.
    this.#vectors = kept;
    const table = {
      version,
      names: catalog.map((tool) => tool.name),
      vectors: Promise.all(catalog.map((tool) => kept.get(tool.text) as Promise<Float64Array>)),
    };
    table.vectors.catch(() => {
      if (this.#table === table) this.#table = undefined;
      for (const [text, vector] of this.#vectors) vector.catch(() => this.#vectors.delete(text));
    });
    this.#table = table;
    return table;
  }

  #queryVector(query: string): Promise<Float64Array> {
    const cached = this.#queries.get(query);
    if (cached !== undefined) {
      this.#queries.delete(query);
      this.#queries.set(query, cached);
      return cached;
    }
    const vector = this.#embedBatch([query]).then((vectors) => vectors[0] as Float64Array);
    vector.catch(() => this.#queries.delete(query));
    this.#queries.set(query, vector);
    if (this.#queries.size > QUERY_CACHE_SIZE) this.#queries.delete(this.#queries.keys().next().value as string);
    return vector;
  }

  async #embedBatch(texts: readonly string[]): Promise<Float64Array[]> {
    this.embeddedTexts += texts.length;
    const vectors = await this.#embed(texts);
    if (!Array.isArray(vectors) || vectors.length !== texts.length) {
      throw new Error(
        `The embedder answered ${Array.isArray(vectors) ? vectors.length : "no"} vectors for ${texts.length} texts.`,
      );
    }
    return vectors.map((vector, index) => {
      if (!Array.isArray(vector) || vector.length === 0 || !vector.every((value) => Number.isFinite(value))) {
        throw new Error(`The embedder's vector ${index} is not a non-empty list of finite numbers.`);
      }
      return Float64Array.from(vector);
    });
  }
}

function cosine(left: Float64Array, right: Float64Array): number {
  if (left.length !== right.length)
    throw new Error(`Vectors of ${left.length} and ${right.length} dimensions cannot be compared.`);
  let dot = 0;
  let leftNorm = 0;
  let rightNorm = 0;
  for (let index = 0; index < left.length; index++) {
    const a = left[index] as number;
    const b = right[index] as number;
    dot += a * b;
    leftNorm += a * a;
    rightNorm += b * b;
  }
  return leftNorm === 0 || rightNorm === 0 ? 0 : dot / Math.sqrt(leftNorm * rightNorm);
}
