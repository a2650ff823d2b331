// An embedder for hybrid search over the OpenAI embeddings API (or any server speaking it),
// through the `openai` client, loaded on first use so importing Switchyard does not load it.
// Batches inputs, keeps the API's order by index, and fails loudly on a short or malformed answer.

import { importOptional } from "../optional-dependency.js";
import type { Embedder } from "./embedding-index.js";

export interface OpenAIEmbedderOptions {
  /** Default `text-embedding-3-small`. */
  readonly model?: string;
  /** Vector length, for models that can shorten theirs. Default: the model's. */
  readonly dimensions?: number;
  /** Default: the SDK's (OPENAI_API_KEY). */
  readonly apiKey?: string;
  /** Any server speaking the embeddings endpoint, e.g. `http://127.0.0.1:8000/v1`. Default: the SDK's. */
  readonly baseURL?: string;
  /** Retries on 408/409/429/5xx and connection errors. Default: the SDK's (2). */
  readonly maxRetries?: number;
  /** Per-request timeout in ms. Default: the SDK's. */
  readonly timeoutMs?: number;
  /** Inputs per request. Default 256 (the API accepts up to 2,048). */
  readonly batchSize?: number;
}

/** The embeddings API as the embedder uses it; an `OpenAI` client fits. */
interface EmbeddingsClient {
  embeddings: {
    create(body: { model: string; input: string[]; dimensions?: number }): Promise<{
      data: { index: number; embedding: number[] }[];
    }>;
  };
}

/**
 * Creates an embedder for `DiscoveryOptions.embed` that calls `POST /embeddings`. Rejects (and
 * discovery then answers with the lexical ranking) when the API fails or answers a number of
 * vectors other than the number of inputs.
 */
export function createOpenAIEmbedder(options: OpenAIEmbedderOptions = {}): Embedder {
  const model = options.model ?? "text-embedding-3-small";
  const batchSize = Math.max(1, Math.floor(options.batchSize ?? 256));
  let client: Promise<EmbeddingsClient> | undefined;
  const clientOf = (): Promise<EmbeddingsClient> =>
    (client ??= importOptional<typeof import("openai")>("openai").then(
      ({ default: OpenAI }) =>
        new OpenAI({
          ...(options.apiKey === undefined ? {} : { apiKey: options.apiKey }),
          ...(options.baseURL === undefined ? {} : { baseURL: options.baseURL }),
          ...(options.maxRetries === undefined ? {} : { maxRetries: options.maxRetries }),
          ...(options.timeoutMs === undefined ? {} : { timeout: options.timeoutMs }),
        }) as unknown as EmbeddingsClient,
    ));
  return async (texts) => {
    const openai = await clientOf();
    const vectors: number[][] = [];
    for (let start = 0; start < texts.length; start += batchSize) {
      const input = texts.slice(start, start + batchSize);
      const response = await openai.embeddings.create({
        model,
        input,
        ...(options.dimensions === undefined ? {} : { dimensions: options.dimensions }),
      });
      const ordered = [...response.data].sort((left, right) => left.index - right.index);
      if (ordered.length !== input.length) {
        throw new Error(`The embeddings API answered ${ordered.length} vectors for ${input.length} inputs.`);
      }
      vectors.push(...ordered.map((entry) => [...entry.embedding]));
    }
    return vectors;
  };
}
