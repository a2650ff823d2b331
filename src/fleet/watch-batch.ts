// A batch's progress, read from its own records: done, failed, running, queued, and, while
// watching, the rate and the time left. Reading changes nothing but the results no worker could
// write (reconcile-batch.ts): each reading records the failures of jobs BullMQ failed for good,
// and looks for jobs gone from the queue (one EXISTS per input without a result) once per status,
// and every MISSING_CHECK_INTERVAL_MS while watching; the counts themselves are O(1).

import type { BatchCounts, BatchStore } from "./batch-store.js";
import { openBatchReader } from "./reconcile-batch.js";
import type { FleetOptions } from "./redis-connection.js";

/** How often a watch looks for jobs gone from the queue, in ms. */
const MISSING_CHECK_INTERVAL_MS = 10_000;

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
  const reader = await openBatchReader(options);
  try {
    await reader.reconcile({ findMissing: true });
    return await readStatus(reader.store, options.batchId);
  } finally {
    await reader.close();
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
  const reader = await openBatchReader(options);
  const window: { at: number; done: number }[] = [];
  let missingCheckedAt = Number.NEGATIVE_INFINITY;
  try {
    while (options.signal?.aborted !== true) {
      const findMissing = performance.now() - missingCheckedAt >= MISSING_CHECK_INTERVAL_MS;
      if (findMissing) missingCheckedAt = performance.now();
      await reader.reconcile({ findMissing });
      const status = await readStatus(reader.store, options.batchId);
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
    await reader.close();
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
