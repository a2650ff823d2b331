// The figures of one run, derived from its recorded requests only: sums, peak, cost with and
// without prompt caching, and the end-to-end estimate. Caching follows the rule the settings
// describe: a request's prefix (everything before its latest turn) is written the first time
// it is long enough, and what an earlier request wrote is read back at 0.1x.

import type { ModeRun } from "./modes.js";
import type { RequestRecord } from "./scripted-model.js";
import { LATENCY_MODEL, type ModelProfile } from "./settings.js";

export interface CacheSplit {
  /** Input tokens billed at the base price. */
  readonly uncached: number;
  /** Input tokens billed as cache writes. */
  readonly written: number;
  /** Input tokens billed as cache reads. */
  readonly read: number;
}

export interface RunFigures {
  readonly requests: number;
  /** Input tokens summed over every request. */
  readonly inputTokens: number;
  /** The largest single request: what the context window must hold. */
  readonly peakContextTokens: number;
  readonly outputTokens: number;
  readonly costUsd: number;
  readonly cachedCostUsd: number;
  readonly cache: CacheSplit;
  /** Measured tool and sandbox time plus the latency model's model time, in ms. */
  readonly estimatedEndToEndMs: number;
  /** Some request is larger than the model's context window: it would be refused. */
  readonly overContextWindow: boolean;
}

/** Splits each request's input into uncached, written and read tokens; see the module comment. */
export function splitCache(records: readonly RequestRecord[], profile: ModelProfile): CacheSplit[] {
  let cachedPrefix = 0;
  return records.map((record) => {
    if (record.prefixTokens < profile.minCacheableTokens) return { uncached: record.inputTokens, written: 0, read: 0 };
    const read = Math.min(cachedPrefix, record.prefixTokens);
    const written = record.prefixTokens - read;
    cachedPrefix = record.prefixTokens;
    return { uncached: record.inputTokens - record.prefixTokens, written, read };
  });
}

/** The figures of `run` under `profile`'s prices. */
export function summarizeRun(run: ModeRun, profile: ModelProfile): RunFigures {
  const records = run.records;
  const inputTokens = records.reduce((sum, record) => sum + record.inputTokens, 0);
  const outputTokens = records.reduce((sum, record) => sum + record.outputTokens, 0);
  const peakContextTokens = records.reduce((peak, record) => Math.max(peak, record.inputTokens), 0);
  const perRequest = splitCache(records, profile);
  const cache = perRequest.reduce<CacheSplit>(
    (total, split) => ({
      uncached: total.uncached + split.uncached,
      written: total.written + split.written,
      read: total.read + split.read,
    }),
    { uncached: 0, written: 0, read: 0 },
  );
  const input = profile.inputPerMTok / 1e6;
  const output = profile.outputPerMTok / 1e6;
  const costUsd = inputTokens * input + outputTokens * output;
  const cachedCostUsd =
    cache.uncached * input +
    cache.written * input * profile.cacheWriteMultiplier +
    cache.read * input * profile.cacheReadMultiplier +
    outputTokens * output;
  const modelMs =
    records.length * LATENCY_MODEL.timeToFirstTokenMs + (outputTokens / LATENCY_MODEL.outputTokensPerSecond) * 1000;
  return {
    requests: records.length,
    inputTokens,
    peakContextTokens,
    outputTokens,
    costUsd,
    cachedCostUsd,
    cache,
    estimatedEndToEndMs: run.toolWallMs + modelMs,
    overContextWindow: peakContextTokens > profile.contextWindowTokens,
  };
}
