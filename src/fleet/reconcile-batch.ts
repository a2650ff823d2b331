// Reconciling a batch's results with BullMQ's jobs, so that no input is left without a result when
// the worker that should have written it could not: a job BullMQ failed for good (lost its worker
// too often, or its processing threw) whose worker died before recording it, or whose stalled
// check ran in a worker that then exited; or a job gone from the queue with no result. The
// batch's readers (status, watch, results) run it; each missing result is written at most once,
// in the same atomic step that finds it missing, so "one result per input" holds with any number
// of readers and workers at once. It never writes for an input that has a result, runs or waits.

import type { Job, Queue } from "bullmq";
import type { Redis } from "ioredis";
import { importOptional } from "../optional-dependency.js";
import { jobIdOf, type ProgramJobData } from "./batch-jobs.js";
import { type BatchMeta, type BatchResult, BatchStore } from "./batch-store.js";
import { connectRedis, type FleetOptions, queueNameOf } from "./redis-connection.js";

/** The `worker` of a result a reader recorded. */
export const RECONCILED = "reconciled";

const EXISTS_CHUNK = 1_000;

/**
 * Writes the missing result of every input of the batch whose job is in BullMQ's failed set (from
 * its failedReason and stalled count). With `findMissing`, also of every input whose job is gone
 * from the queue (`JOB_LOST`), unless the batch is cancelled or a submit of it is in progress;
 * that pass costs one EXISTS per input without a result. `settled` holds the failed jobs found
 * recorded already (id and failure time), so a reader that passes the same set again fetches only
 * new ones. Returns how many results it wrote: 0 when run again.
 */
export async function reconcileBatch(
  store: BatchStore,
  queue: Queue<ProgramJobData>,
  meta: BatchMeta,
  options: { readonly findMissing: boolean; readonly settled?: Set<string> },
): Promise<number> {
  const { batchId } = meta;
  const settled = options.settled ?? new Set<string>();
  let written = 0;
  // Ids and failure times only: the job records are read for failures not yet seen recorded.
  const failed = await store.redis.zrange(queue.toKey("failed"), 0, -1, "WITHSCORES");
  for (let index = 0; index < failed.length; index += 2) {
    const id = failed[index]!;
    const seen = `${id}@${failed[index + 1]}`;
    if (!id.startsWith(`${batchId}.`) || settled.has(seen)) continue;
    const job = (await queue.getJob(id)) as Job<ProgramJobData> | undefined;
    // Gone, or added again (a resubmit with retryFailed) since the failed set was read.
    if (job === undefined || job.data.batchId !== batchId || !(await job.isFailed())) continue;
    // Not while a submit runs: it may be replacing this job, and the result it had, right now.
    const result = failedJobResult(job, job.failedReason ?? "", RECONCILED);
    const outcome = await store.writeResultOnce(batchId, result, { submitting: true });
    if (outcome === "written") written += 1;
    if (outcome !== "refused") settled.add(seen);
  }
  if (!options.findMissing) return written;
  const counts = await store.counts(batchId);
  if (counts.cancelled || counts.done >= counts.total || (await store.submitInProgress(batchId))) return written;
  const keys = await store.keys(batchId);
  for (let start = 0; start < keys.length; start += EXISTS_CHUNK) {
    const chunk = keys.slice(start, start + EXISTS_CHUNK);
    const results = await store.results(batchId, chunk);
    const pending = chunk.filter((_, index) => results[index] === undefined);
    if (pending.length === 0) continue;
    const jobKeys = pending.map((key) => queue.toKey(jobIdOf(batchId, key)));
    const exists = await existing(store.redis, jobKeys);
    for (const [index, key] of pending.entries()) {
      if (exists[index]) continue;
      // Written only if, at that moment, the job is still absent, nothing is submitting and the
      // batch is not cancelled: a submit that started meanwhile owns the key.
      const result = lostJobResult(key, meta);
      const unless = { submitting: true, cancelled: true, job: jobKeys[index]! };
      if ((await store.writeResultOnce(batchId, result, unless)) === "written") written += 1;
    }
  }
  return written;
}

/** The result of a job BullMQ failed for good: WORKER_LOST when it stalled too often, else INTERNAL_ERROR. */
export function failedJobResult(job: Job<ProgramJobData>, reason: string, worker: string): BatchResult {
  const { key, input } = job.data;
  const lost = /stalled more than allowable limit/.test(reason);
  const now = Date.now();
  return {
    key,
    input,
    ok: false,
    output: null,
    error: {
      code: lost ? "WORKER_LOST" : "INTERNAL_ERROR",
      message: lost
        ? `The job's worker stopped, or stalled past its lock, while running it (${stalls(job.stalledCounter)}), ` +
          "more often than the fleet allows; the program may be crashing its worker."
        : `The worker failed to run the job: ${reason || "no reason recorded"}`,
    },
    calls: { total: 0, byStatus: {}, failed: [] },
    attempt: Math.max(1, job.attemptsStarted),
    wallMs: 0,
    enqueuedAt: job.timestamp,
    startedAt: job.processedOn ?? now,
    finishedAt: now,
    worker,
  };
}

function stalls(count: number): string {
  return count === 1 ? "1 stall" : `${count} stalls`;
}

/** The result of an input whose job is gone from the queue and that no worker recorded. */
function lostJobResult(key: string, meta: BatchMeta): BatchResult {
  const now = Date.now();
  return {
    key,
    input: null,
    ok: false,
    output: null,
    error: {
      code: "JOB_LOST",
      message:
        "The input's job is gone from the queue and no worker recorded a result for it (its record was " +
        "removed from Redis); it may not have run. Submit the batch again with --retry-failed to run it.",
    },
    calls: { total: 0, byStatus: {}, failed: [] },
    attempt: 1,
    wallMs: 0,
    enqueuedAt: meta.createdAt,
    startedAt: now,
    finishedAt: now,
    worker: RECONCILED,
  };
}

async function existing(redis: Redis, keys: readonly string[]): Promise<boolean[]> {
  const pipeline = redis.pipeline();
  for (const key of keys) pipeline.exists(key);
  const replies = (await pipeline.exec()) ?? [];
  return keys.map((_, index) => Number(replies[index]?.[1]) === 1);
}

/** A reader's view of one batch: its store and settings, and its reconciliation, on one connection. */
export interface BatchReader {
  readonly store: BatchStore;
  readonly meta: BatchMeta;
  /** reconcileBatch on this batch; failures found recorded are not read again by this reader. */
  reconcile(options: { readonly findMissing: boolean }): Promise<number>;
  close(): Promise<void>;
}

/** Opens the batch for reading. Throws BATCH_NOT_FOUND for an unknown id, FLEET_UNAVAILABLE without Redis. */
export async function openBatchReader(options: FleetOptions & { readonly batchId: string }): Promise<BatchReader> {
  const queueName = queueNameOf(options);
  const { Queue } = await importOptional<typeof import("bullmq")>("bullmq");
  const redis = await connectRedis(options.redis);
  const queue = new Queue<ProgramJobData>(queueName, { connection: redis });
  const close = async (): Promise<void> => {
    await queue.close().catch(() => undefined);
    await redis.quit().catch(() => redis.disconnect());
  };
  try {
    const store = new BatchStore(redis, queueName);
    const meta = await store.requireMeta(options.batchId);
    const settled = new Set<string>();
    return {
      store,
      meta,
      reconcile: (reconciling) => reconcileBatch(store, queue, meta, { ...reconciling, settled }),
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}
