// A batch's progress, read from its own records in O(1) however large it is: done, failed,
// running, queued, and, while watching, the rate and the time left. Reading never changes it.

import type { Redis } from "ioredis";
import { type BatchCounts, BatchStore } from "./batch-store.js";
import { connectRedis, type FleetOptions, queueNameOf } from "./redis-connection.js";

export interface BatchOptions extends FleetOptions {
  readonly batchId: string;
}

/** Where a batch stands. */
export interface BatchStatus extends BatchCounts {
  readonly batchId: string;
  /** Inputs whose result is ok. */
  readonly ok: number;
  /** Inputs neither done nor running (0 once the batch is cancelled). */
  readonly queued: number;
  /** Every input has its result, or the batch was cancelled and nothing runs any more. */
  readonly finished: boolean;
  /** Epoch ms of this reading. */
  readonly at: number;
}

/** A reading while watching: with the rate over the last seconds and the time left. */
export interface BatchProgress extends BatchStatus {
  /** Results per second, over the last 10 s of watching; undefined before two readings. */
  readonly perSecond: number | undefined;
  /** Time until every input is done at that rate, in ms; undefined when unknown. */
  readonly etaMs: number | undefined;
}

/** The batch's status. Throws BATCH_NOT_FOUND for an unknown id, FLEET_UNAVAILABLE without Redis. */
export async function getBatchStatus(options: BatchOptions): Promise<BatchStatus> {
  const redis = await connectRedis(options.redis);
  try {
    const store = new BatchStore(redis, queueNameOf(options));
    await store.requireMeta(options.batchId);
    return await readStatus(store, options.batchId);
  } finally {
    await quit(redis);
  }
}

export interface WatchBatchOptions extends BatchOptions {
  /** Time between readings, in ms. Default 500. */
  readonly intervalMs?: number;
  /** Stops watching (the batch goes on). */
  readonly signal?: AbortSignal;
}

/**
 * Readings of the batch every `intervalMs` until it is finished (the last reading is the finished
 * one) or `signal` fires. Throws like getBatchStatus.
 */
export async function* watchBatch(options: WatchBatchOptions): AsyncGenerator<BatchProgress> {
  const redis = await connectRedis(options.redis);
  const window: { at: number; done: number }[] = [];
  try {
    const store = new BatchStore(redis, queueNameOf(options));
    await store.requireMeta(options.batchId);
    while (options.signal?.aborted !== true) {
      const status = await readStatus(store, options.batchId);
      window.push({ at: status.at, done: status.done });
      while (window.length > 2 && status.at - window[0]!.at > 10_000) window.shift();
      const first = window[0]!;
      const seconds = (status.at - first.at) / 1000;
      const perSecond = window.length < 2 || seconds <= 0 ? undefined : (status.done - first.done) / seconds;
      const left = status.total - status.done;
      const etaMs = perSecond === undefined || perSecond <= 0 ? undefined : (left / perSecond) * 1000;
      yield { ...status, perSecond, etaMs };
      if (status.finished) return;
      await sleep(options.intervalMs ?? 500, options.signal);
    }
  } finally {
    await quit(redis);
  }
}

async function readStatus(store: BatchStore, batchId: string): Promise<BatchStatus> {
  const counts = await store.counts(batchId);
  const running = Math.min(counts.running, counts.total - counts.done);
  const queued = counts.cancelled ? 0 : Math.max(0, counts.total - counts.done - running);
  return {
    batchId,
    ...counts,
    running,
    ok: counts.done - counts.failed,
    queued,
    finished: counts.done >= counts.total || (counts.cancelled && running === 0),
    at: Date.now(),
  };
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    }
    signal?.addEventListener("abort", done, { once: true });
  });
}

async function quit(redis: Redis): Promise<void> {
  await redis.quit().catch(() => redis.disconnect());
}
