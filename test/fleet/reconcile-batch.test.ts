// Reconciliation on a real Redis, with the situations built directly through BullMQ's own worker
// API (no Switchyard worker writing anything): a job whose lock lapsed and that BullMQ's stalled
// check failed for good, a job failed by its processing, a job gone from the queue. The batch's
// readers record each missing result exactly once, however many read at once, and never for an
// input whose job still waits, while a submit is in progress, or once the batch is cancelled.

import { randomUUID } from "node:crypto";
import { Queue, UnrecoverableError, Worker } from "bullmq";
import { describe, expect, it } from "vitest";
import type { JsonValue } from "../../src/contract.js";
import { jobIdOf, type ProgramJobData } from "../../src/fleet/batch-jobs.js";
import { readBatchResults } from "../../src/fleet/batch-results.js";
import { type BatchResult, BatchStore } from "../../src/fleet/batch-store.js";
import { startFleetWorker } from "../../src/fleet/fleet-worker.js";
import { RECONCILED, reconcileBatch } from "../../src/fleet/reconcile-batch.js";
import { submitBatch } from "../../src/fleet/submit-batch.js";
import { getBatchStatus, watchBatch } from "../../src/fleet/watch-batch.js";
import { useRedisForFile } from "../helpers/redis-server.js";

const redis = useRedisForFile();

let queueCount = 0;
function freshQueue(): string {
  return `reconcile-${process.pid}-${++queueCount}`;
}

async function resultsOf(queue: string, batchId: string): Promise<BatchResult[]> {
  const results = [];
  for await (const result of readBatchResults({ redis: redis.url, queue, batchId })) results.push(result);
  return results;
}

async function until(condition: () => Promise<boolean>, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/**
 * BullMQ's worker in manual mode, standing in for a Switchyard worker that dies or fails before it
 * writes anything: it takes jobs and ends them as told, and its stalled check fails a job whose
 * lock lapsed at once (maxStalledCount 0).
 */
function manualWorker(queue: string) {
  const worker = new Worker<ProgramJobData>(queue, null, {
    connection: redis.client.duplicate(),
    lockDuration: 400,
    stalledInterval: 200,
    maxStalledCount: 0,
  });
  return {
    async take() {
      const token = randomUUID();
      const job = await worker.getNextJob(token, { block: false });
      if (job === undefined) throw new Error("no job to take");
      return { job, token };
    },
    startStalledCheck: () => worker.startStalledCheckTimer(),
    close: () => worker.close(true),
  };
}

/**
 * A batch of `inputs` with: the first job stalled, then failed for good by the worker that next
 * fetched it (what BullMQ's worker does with a job that stalled too often) and that died before
 * writing; the second failed by its processing; the third completed and gone with no result.
 */
async function brokenBatch(queue: string, inputs: JsonValue[]) {
  const submitted = await submitBatch({ redis: redis.url, queue, program: "return input;", inputs, attempts: 1 });
  const bull = new Queue<ProgramJobData>(queue, { connection: redis.client });
  const store = new BatchStore(redis.client, queue);
  const manual = manualWorker(queue);
  try {
    // A worker takes the first input, marks it running and dies: its lock lapses.
    const stalled = await manual.take();
    await store.startRunning(submitted.batchId, stalled.job.data.key, "doomed-worker");
    const failed = await manual.take();
    await failed.job.moveToFailed(new Error("Connection is closed."), failed.token, false);
    const gone = await manual.take();
    // Completed and removed (removeOnComplete) without a result: as if its record were deleted.
    await gone.job.moveToCompleted(null, gone.token, false);
    // The stalled check puts it back in the queue marked to fail (maxStalledCount 0)...
    void manual.startStalledCheck();
    const stalledId = stalled.job.id!;
    await until(async () => (await bull.getJob(stalledId))?.deferredFailure !== undefined, "the job stalled");
    // ...and the worker that fetches it next fails it for good, then dies before recording anything.
    for (let fetched = 0; ; fetched += 1) {
      expect(fetched).toBeLessThan(inputs.length);
      const next = await manual.take();
      if (next.job.id !== stalledId) {
        await next.job.moveToWait(next.token);
        continue;
      }
      await next.job.moveToFailed(new UnrecoverableError(next.job.deferredFailure), next.token, false);
      break;
    }
    expect(await bull.getJobState(stalledId)).toBe("failed");
    expect(await bull.getJobState(failed.job.id!)).toBe("failed");
    expect(await bull.getJobState(gone.job.id!)).toBe("unknown");
    return { batchId: submitted.batchId, keys: [stalled.job.data.key, failed.job.data.key, gone.job.data.key] };
  } finally {
    await manual.close();
    await bull.close();
  }
}

describe("the batch's readers reconcile it with BullMQ", () => {
  it("record a result exactly once for a job failed for good or gone, however many read at once, and none for waiting jobs", async () => {
    const queue = freshQueue();
    const inputs = ["a", "b", "c", "d", "e"];
    const { batchId, keys } = await brokenBatch(queue, inputs);
    const fleet = { redis: redis.url, queue, batchId };
    // Eight readers at once, of all three kinds: each missing result is written by one of them.
    const readings = await Promise.all([
      ...Array.from({ length: 3 }, () => getBatchStatus(fleet)),
      ...Array.from({ length: 3 }, () => resultsOf(queue, batchId)),
      ...Array.from({ length: 2 }, async () => {
        for await (const progress of watchBatch({ ...fleet, intervalMs: 10 })) return progress;
        return undefined;
      }),
    ]);
    expect(readings).toHaveLength(8);
    const store = new BatchStore(redis.client, queue);
    expect(await store.repeatedWrites(batchId)).toEqual(new Map());
    expect(await redis.client.hvals(`switchyard:${queue}:batch:${batchId}:writes`)).toEqual(["1", "1", "1"]);

    expect(await getBatchStatus(fleet)).toMatchObject({
      total: 5,
      done: 3,
      failed: 3,
      ok: 0,
      running: 0,
      queued: 2,
      finished: false,
    });
    const results = await resultsOf(queue, batchId);
    expect(results.map((result) => result.key)).toEqual(keys);
    const [stalled, failed, gone] = results;
    // Started twice: by the worker that died, and by the one that failed it.
    expect(stalled).toMatchObject({ input: "a", ok: false, output: null, attempt: 2, worker: RECONCILED });
    expect(stalled!.error).toMatchObject({ code: "WORKER_LOST" });
    expect(stalled!.error!.message).toMatch(
      /^The job's worker stopped, or stalled past its lock, while running it \(1 stall\)/,
    );
    expect(failed).toMatchObject({ input: "b", ok: false, worker: RECONCILED });
    expect(failed!.error).toEqual({
      code: "INTERNAL_ERROR",
      message: "The worker failed to run the job: Connection is closed.",
    });
    expect(gone).toMatchObject({ input: null, ok: false, worker: RECONCILED, error: { code: "JOB_LOST" } });
    expect(gone!.error!.message).toContain("--retry-failed");

    // Once more, directly, twice: nothing new is written and the results stay as they were.
    const bull = new Queue<ProgramJobData>(queue, { connection: redis.client });
    try {
      const meta = await store.requireMeta(batchId);
      expect(await reconcileBatch(store, bull, meta, { findMissing: true })).toBe(0);
      expect(await reconcileBatch(store, bull, meta, { findMissing: true })).toBe(0);
    } finally {
      await bull.close();
    }
    expect(await resultsOf(queue, batchId)).toEqual(results);

    // The two waiting inputs run; the three recorded failures run again with retryFailed.
    const worker = await startFleetWorker({ redis: redis.url, queue, config: { typeCheck: "off" } });
    try {
      const follow = async () => {
        for await (const progress of watchBatch({ ...fleet, intervalMs: 50 })) if (progress.finished) return;
      };
      await follow();
      expect(
        await submitBatch({ redis: redis.url, queue, program: "return input;", inputs, retryFailed: true }),
      ).toMatchObject({ batchId, queued: 3, skipped: 2 });
      await follow();
    } finally {
      await worker.close();
    }
    const final = await resultsOf(queue, batchId);
    expect(final.map((result) => [result.output, result.ok])).toEqual(inputs.map((input) => [input, true]));
    expect(await getBatchStatus(fleet)).toMatchObject({ total: 5, done: 5, failed: 0, finished: true });
  }, 90_000);

  it("let a watch finish on a batch whose only job failed for good with no result", async () => {
    const queue = freshQueue();
    const submitted = await submitBatch({
      redis: redis.url,
      queue,
      program: "return input;",
      inputs: [1],
      attempts: 1,
    });
    const manual = manualWorker(queue);
    try {
      const { job, token } = await manual.take();
      await job.moveToFailed(new Error("Redis went away"), token, false);
    } finally {
      await manual.close();
    }
    let last: Awaited<ReturnType<typeof getBatchStatus>> | undefined;
    for await (const progress of watchBatch({ redis: redis.url, queue, batchId: submitted.batchId, intervalMs: 20 })) {
      last = progress;
    }
    expect(last).toMatchObject({ total: 1, done: 1, failed: 1, finished: true });
  }, 60_000);

  it("write no JOB_LOST while a submit of the batch is in progress or once it is cancelled", async () => {
    const queue = freshQueue();
    const submitted = await submitBatch({ redis: redis.url, queue, program: "return input;", inputs: ["x", "y"] });
    const fleet = { redis: redis.url, queue, batchId: submitted.batchId };
    const manual = manualWorker(queue);
    try {
      const { job, token } = await manual.take();
      await job.moveToCompleted(null, token, false);
    } finally {
      await manual.close();
    }
    const store = new BatchStore(redis.client, queue);
    await store.startSubmit(submitted.batchId);
    expect(await getBatchStatus(fleet)).toMatchObject({ done: 0, queued: 2 });
    await store.endSubmit(submitted.batchId);
    expect(await store.submitInProgress(submitted.batchId)).toBe(false);
    await store.setCancelled(submitted.batchId, true);
    expect(await getBatchStatus(fleet)).toMatchObject({ done: 0, cancelled: true });
    await store.setCancelled(submitted.batchId, false);
    const status = await getBatchStatus(fleet);
    expect(status).toMatchObject({ done: 1, failed: 1, queued: 1 });
    const [lost] = await resultsOf(queue, submitted.batchId);
    expect(lost).toMatchObject({ error: { code: "JOB_LOST" } });
    // The other input's job waits in the queue: it was never taken for lost.
    const bull = new Queue(queue, { connection: redis.client });
    try {
      const [other] = (await store.keys(submitted.batchId)).filter((key) => key !== lost!.key);
      expect(await bull.getJobState(jobIdOf(submitted.batchId, other!))).toBe("waiting");
    } finally {
      await bull.close();
    }
  }, 60_000);
});
