// The figures of one run, derived from its recorded requests only: sums, peak, the prompt
// cache as the adapter's breakpoints make the provider bill it (cache-model.ts), the cost as
// billed (input, cache write, cache read, output; each request in its own price band) and
// the end-to-end estimate.

import { priceTokens, sumCosts, type BilledCost } from "../../src/agent/model-pricing.js";
import { simulatePromptCache, type CacheSplit } from "./cache-model.js";
import { countPrefixTokens } from "./count-request.js";
import type { ModeRun } from "./modes.js";
import type { RequestRecord } from "./scripted-model.js";
import { LATENCY_MODEL, type BenchModel } from "./settings.js";

export type { CacheSplit };

export interface RunFigures {
  readonly requests: number;
  /** Input tokens summed over every request, cached or not. */
  readonly inputTokens: number;
  /** The largest single request: what the context window must hold. */
  readonly peakContextTokens: number;
  readonly outputTokens: number;
  /** Input tokens summed by how they are billed. */
  readonly cache: CacheSplit;
  /** The bill: each kind of token at its price. */
  readonly billed: BilledCost;
  /** Measured tool and sandbox time plus the latency model's model time, in ms. */
  readonly estimatedEndToEndMs: number;
  /** Some request is larger than the model's context window: it would be refused. */
  readonly overContextWindow: boolean;
}

/** Each request's input split as billed; see cache-model.ts. */
export function splitCache(records: readonly RequestRecord[], model: BenchModel): CacheSplit[] {
  return simulatePromptCache(
    records.map((record) => record.body),
    records.map((record) => record.inputTokens),
    model.minCacheableTokens,
    (body, blocks) => countPrefixTokens(body, blocks, model),
  );
}

/** The figures of `run` under `model`'s prices and cache rules. */
export function summarizeRun(run: ModeRun, model: BenchModel): RunFigures {
  const records = run.records;
  const inputTokens = records.reduce((sum, record) => sum + record.inputTokens, 0);
  const outputTokens = records.reduce((sum, record) => sum + record.outputTokens, 0);
  const peakContextTokens = records.reduce((peak, record) => Math.max(peak, record.inputTokens), 0);
  const perRequest = splitCache(records, model);
  const cache = perRequest.reduce<CacheSplit>(
    (total, split) => ({
      uncached: total.uncached + split.uncached,
      written: total.written + split.written,
      read: total.read + split.read,
    }),
    { uncached: 0, written: 0, read: 0 },
  );
  const billed = sumCosts(
    perRequest.map((split, index) =>
      priceTokens(model, {
        uncachedInput: split.uncached,
        cacheWrite: split.written,
        cacheRead: split.read,
        output: records[index]!.outputTokens,
      }),
    ),
  );
  const modelMs =
    records.length * LATENCY_MODEL.timeToFirstTokenMs + (outputTokens / LATENCY_MODEL.outputTokensPerSecond) * 1000;
  return {
    requests: records.length,
    inputTokens,
    peakContextTokens,
    outputTokens,
    cache,
    billed,
    estimatedEndToEndMs: run.toolWallMs + modelMs,
    overContextWindow: peakContextTokens > model.contextWindowTokens,
  };
}
