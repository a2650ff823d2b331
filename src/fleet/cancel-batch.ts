// Cancelling a batch: its queued jobs are removed, the workers running its jobs cancel those runs
// (every pending call ends CANCELLED; no result is written), and jobs fetched afterwards are
// skipped. Inputs that had a result keep it. Submitting the batch again resumes it.

import { importOptional } from "../optional-dependency.js";
import { jobIdOf } from "./batch-jobs.js";
import { BatchStore } from "./batch-store.js";
import { connectRedis, queueNameOf } from "./redis-connection.js";
import type { BatchOptions } from "./watch-batch.js";

export interface CancelledBatch {
  readonly batchId: string;
  /** Queued jobs removed. */
  readonly removed: number;
  /** Runs the workers were told to stop. */
  readonly stopped: number;
}

/** Cancels the batch; see the module comment. Throws BATCH_NOT_FOUND, FLEET_UNAVAILABLE. */
export async function cancelBatch(options: BatchOptions): Promise<CancelledBatch> {
  const queueName = queueNameOf(options);
  const { Queue } = await importOptional<typeof import("bullmq")>("bullmq");
  const redis = await connectRedis(options.redis);
  const queue = new Queue(queueName, { connection: redis });
  try {
    const store = new BatchStore(redis, queueName);
    await store.requireMeta(options.batchId);
    await store.setCancelled(options.batchId, true);
    const { done } = await store.finishedKeys(options.batchId);
    const pending = (await store.keys(options.batchId)).filter((key) => !done.has(key));
    let removed = 0;
    for (const key of pending) {
      // A job a worker holds is locked and stays: that worker stops its run instead.
      removed += await queue.remove(jobIdOf(options.batchId, key)).catch(() => 0);
    }
    // Told after the queued jobs are gone: a run stopped sooner ends its job, which then was no
    // longer locked and counted as a queued job removed (a race CI met: 5 removed of 6, 2 running).
    await redis.publish(store.cancelChannel, options.batchId);
    const { running } = await store.counts(options.batchId);
    return { batchId: options.batchId, removed, stopped: running };
  } finally {
    await queue.close();
    await redis.quit().catch(() => redis.disconnect());
  }
}
