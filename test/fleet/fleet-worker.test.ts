// Workers and batches on a real Redis, in this process: results once per input in input order,
// resumable submits, the failure policy (transient retried with backoff, permanent not), cancel,
// and a shutdown that hands unfinished jobs back to the queue for another worker.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SwitchyardError, ToolError } from "../../src/errors.js";
import { readBatchResults } from "../../src/fleet/batch-results.js";
import { cancelBatch } from "../../src/fleet/cancel-batch.js";
import { type FleetWorker, startFleetWorker } from "../../src/fleet/fleet-worker.js";
import { submitBatch } from "../../src/fleet/submit-batch.js";
import { getBatchStatus, watchBatch } from "../../src/fleet/watch-batch.js";
import { defineTool, type ToolDefinition } from "../../src/registry/define-tool.js";
import { isAlive } from "../helpers/mcp-servers.js";
import { createDeferred } from "../helpers/pipeline-fixtures.js";
import { startRedis, type TestRedis } from "../helpers/redis-server.js";
import { sandboxWorkerPids } from "../helpers/worker-processes.js";

let redis: TestRedis;
beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => {
  await redis?.stop();
});

let queueCount = 0;
/** A fresh queue per test, so tests never see each other's jobs. */
function freshQueue(): string {
  return `test-${process.pid}-${++queueCount}`;
}

async function worker(queue: string, tools: readonly ToolDefinition[], extra = {}): Promise<FleetWorker> {
  return startFleetWorker({
    redis: redis.url,
    queue,
    config: { typeCheck: "off" },
    configOptions: { tools },
    concurrency: 4,
    ...extra,
  });
}

async function untilFinished(queue: string, batchId: string): Promise<void> {
  for await (const progress of watchBatch({ redis: redis.url, queue, batchId, intervalMs: 50 })) {
    if (progress.finished) return;
  }
}

async function resultsOf(queue: string, batchId: string) {
  const results = [];
  for await (const result of readBatchResults({ redis: redis.url, queue, batchId })) results.push(result);
  return results;
}

const echo = (calls: { count: number }) =>
  defineTool({
    name: "api.echo",
    description: "Counts its calls.",
    effect: "read",
    inputSchema: { type: "object" },
    execute: () => ++calls.count,
  });

describe("a fleet worker", () => {
  it("writes one result per distinct input, in input order, and a resubmit skips them all", async () => {
    const queue = freshQueue();
    const calls = { count: 0 };
    const running = await worker(queue, [echo(calls)]);
    try {
      const inputs = Array.from({ length: 30 }, (_, index) => ({ id: index }));
      const submitted = await submitBatch({
        redis: redis.url,
        queue,
        program: "await tools.api.echo({}); return 'done';",
        inputs: [...inputs, { id: 3 }],
      });
      expect(submitted).toMatchObject({ total: 30, queued: 30, skipped: 0, repeated: 1 });
      await untilFinished(queue, submitted.batchId);
      const results = await resultsOf(queue, submitted.batchId);
      expect(results.map((result) => result.input)).toEqual(inputs);
      expect(results.every((result) => result.ok && result.output === "done" && result.attempt === 1)).toBe(true);
      expect(results[0]!.calls).toEqual({ total: 1, byStatus: { ok: 1 }, failed: [] });
      expect(calls.count).toBe(30);
      const again = await submitBatch({
        redis: redis.url,
        queue,
        program: "await tools.api.echo({}); return 'done';",
        inputs,
      });
      expect(again).toMatchObject({ batchId: submitted.batchId, total: 30, queued: 0, skipped: 30 });
      expect(await getBatchStatus({ redis: redis.url, queue, batchId: submitted.batchId })).toMatchObject({
        total: 30,
        done: 30,
        ok: 30,
        failed: 0,
        running: 0,
        queued: 0,
        finished: true,
      });
    } finally {
      await running.close();
    }
  });

  it("retries a transient failure with backoff and reports a permanent one at once", async () => {
    const queue = freshQueue();
    let flaky = 0;
    const tools = [
      defineTool({
        name: "api.flaky",
        description: "Down for its first two calls.",
        inputSchema: { type: "object" },
        execute: () => {
          flaky += 1;
          if (flaky <= 2) throw new ToolError("the server is down", { code: "SOURCE_UNAVAILABLE" });
          return "up";
        },
      }),
    ];
    const running = await worker(queue, tools);
    try {
      const transient = await submitBatch({
        redis: redis.url,
        queue,
        batchId: "transient",
        program: "return await tools.api.flaky({});",
        inputs: [1],
        backoffMs: 20,
      });
      const permanent = await submitBatch({
        redis: redis.url,
        queue,
        batchId: "permanent",
        program: "throw new Error('a bug in the program');",
        inputs: [1],
        backoffMs: 20,
      });
      await untilFinished(queue, transient.batchId);
      await untilFinished(queue, permanent.batchId);
      const [retried] = await resultsOf(queue, transient.batchId);
      expect(retried).toMatchObject({ ok: true, output: "up", attempt: 3 });
      expect(flaky).toBe(3);
      const [failed] = await resultsOf(queue, permanent.batchId);
      expect(failed).toMatchObject({ ok: false, attempt: 1, error: { code: "RUNTIME_ERROR" } });
      expect(failed!.error!.message).toContain("a bug in the program");
    } finally {
      await running.close();
    }
  });

  it("gives up after the batch's attempts and keeps the last failure as the result", async () => {
    const queue = freshQueue();
    let tries = 0;
    const down = defineTool({
      name: "api.down",
      description: "Always down.",
      inputSchema: { type: "object" },
      execute: () => {
        tries += 1;
        throw new ToolError("still down", { code: "SOURCE_UNAVAILABLE" });
      },
    });
    const running = await worker(queue, [down]);
    try {
      const batch = await submitBatch({
        redis: redis.url,
        queue,
        program: "return await tools.api.down({});",
        inputs: ["x"],
        attempts: 2,
        backoffMs: 10,
      });
      await untilFinished(queue, batch.batchId);
      const [result] = await resultsOf(queue, batch.batchId);
      expect(result).toMatchObject({ ok: false, attempt: 2, error: { code: "RUNTIME_ERROR" } });
      expect(result!.error!.message).toContain("SOURCE_UNAVAILABLE from tools.api.down");
      expect(tries).toBe(2);
      expect(await getBatchStatus({ redis: redis.url, queue, batchId: batch.batchId })).toMatchObject({
        done: 1,
        failed: 1,
        ok: 0,
      });
    } finally {
      await running.close();
    }
  });

  it("cancels a batch: running runs stop, queued jobs go, no result is written for them; a resubmit resumes", async () => {
    const queue = freshQueue();
    const release = createDeferred();
    let started = 0;
    const slow = defineTool({
      name: "api.slow",
      description: "Waits until released or cancelled.",
      effect: "read",
      inputSchema: { type: "object" },
      execute: async (_input, { signal }) => {
        started += 1;
        await Promise.race([release.promise, new Promise((resolve) => signal.addEventListener("abort", resolve))]);
        return "released";
      },
    });
    const running = await worker(queue, [slow], { concurrency: 2 });
    try {
      const batch = await submitBatch({
        redis: redis.url,
        queue,
        program: "return await tools.api.slow({});",
        inputs: [1, 2, 3, 4, 5, 6],
      });
      while (started < 2) await new Promise((resolve) => setTimeout(resolve, 10));
      const cancelled = await cancelBatch({ redis: redis.url, queue, batchId: batch.batchId });
      // Jobs not yet fetched are removed; those the worker fetched meanwhile stop on the flag
      // before their program starts (no tool call: `started` stays 2, below).
      expect(cancelled.removed).toBeLessThanOrEqual(4);
      await untilFinished(queue, batch.batchId);
      const status = await getBatchStatus({ redis: redis.url, queue, batchId: batch.batchId });
      expect(status).toMatchObject({ cancelled: true, done: 0, running: 0, queued: 0, finished: true });
      expect(started).toBe(2);
      release.resolve();
      const resumed = await submitBatch({
        redis: redis.url,
        queue,
        program: "return await tools.api.slow({});",
        inputs: [1, 2, 3, 4, 5, 6],
      });
      expect(resumed).toMatchObject({ batchId: batch.batchId, queued: 6, skipped: 0 });
      await untilFinished(queue, batch.batchId);
      expect((await resultsOf(queue, batch.batchId)).map((result) => result.output)).toEqual(Array(6).fill("released"));
    } finally {
      await running.close();
    }
  });

  it("hands its unfinished jobs back when it closes, and another worker runs them", async () => {
    const queue = freshQueue();
    let starts = 0;
    const stuck = defineTool({
      name: "api.stuck",
      description: "Hangs on the first two calls until cancelled; answers after.",
      effect: "read",
      inputSchema: { type: "object" },
      execute: async (_input, { signal }) => {
        starts += 1;
        if (starts <= 2) await new Promise((resolve) => signal.addEventListener("abort", resolve));
        return "finished";
      },
    });
    const first = await worker(queue, [stuck], { concurrency: 2 });
    const batch = await submitBatch({
      redis: redis.url,
      queue,
      program: "return await tools.api.stuck({});",
      inputs: ["a", "b"],
    });
    while (starts < 2) await new Promise((resolve) => setTimeout(resolve, 10));
    await first.close({ graceMs: 50 });
    expect(first.completed).toBe(0);
    const second = await worker(queue, [stuck]);
    try {
      await untilFinished(queue, batch.batchId);
      const results = await resultsOf(queue, batch.batchId);
      expect(results.map((result) => [result.output, result.attempt, result.worker])).toEqual([
        ["finished", 2, second.name],
        ["finished", 2, second.name],
      ]);
    } finally {
      await second.close();
    }
  });

  it("hands each program its input, and its attempt through tools.fleet.job()", async () => {
    const queue = freshQueue();
    const seen = new Set<number>();
    const flaky = defineTool({
      name: "api.once",
      description: "Down the first time it sees a number.",
      inputSchema: { type: "object", properties: { n: { type: "number" } }, required: ["n"] },
      execute: (input: { n: number }) => {
        if (!seen.has(input.n)) {
          seen.add(input.n);
          throw new ToolError("down", { code: "SOURCE_UNAVAILABLE" });
        }
        return input.n * 2;
      },
    });
    const running = await worker(queue, [flaky]);
    try {
      const batch = await submitBatch({
        redis: redis.url,
        queue,
        program: `
          const job = await tools.fleet.job();
          const doubled = await tools.api.once({ n: input.n });
          return { doubled, attempt: job.attempt, of: job.attempts, key: job.key };`,
        inputs: [{ n: 1 }, { n: 2 }, { n: "three" }],
        inputSchema: { type: "object", properties: { n: { type: "number" } }, required: ["n"] },
        backoffMs: 10,
      });
      await untilFinished(queue, batch.batchId);
      const results = await resultsOf(queue, batch.batchId);
      // The jobs are durable: the retry replays `fleet.job()` from the journal (the attempt it was
      // first answered in) and makes again only the call that failed.
      expect(results.slice(0, 2).map((result) => [result.attempt, result.output])).toEqual([
        [2, { doubled: 2, attempt: 1, of: 3, key: results[0]!.key }],
        [2, { doubled: 4, attempt: 1, of: 3, key: results[1]!.key }],
      ]);
      // An input that does not match the schema fails before the program runs, and is not retried.
      expect(results[2]).toMatchObject({ ok: false, attempt: 1, error: { code: "INPUT_INVALID" } });
    } finally {
      await running.close();
    }
  });

  it("runs its jobs' programs in worker processes when the config sets workers, and runs a job again whose worker crashed", async () => {
    const queue = freshQueue();
    const before = new Set(await sandboxWorkerPids());
    let starts = 0;
    const hold = defineTool({
      name: "api.hold",
      description: "Holds its first call until it is cancelled; doubles n.",
      effect: "read",
      inputSchema: { type: "object", properties: { n: { type: "number" } }, required: ["n"] },
      execute: async (input: { n: number }, { signal }) => {
        starts += 1;
        if (starts === 1) await new Promise((resolve) => signal.addEventListener("abort", resolve));
        return input.n * 2;
      },
    });
    const running = await startFleetWorker({
      redis: redis.url,
      queue,
      config: { typeCheck: "off", workers: 1 },
      configOptions: { tools: [hold] },
    });
    let sandboxes: number[] = [];
    try {
      const batch = await submitBatch({
        redis: redis.url,
        queue,
        program:
          "const doubled = await tools.api.hold({ n: input.n });\nreturn { doubled, attempt: (await tools.fleet.job()).attempt };",
        inputs: [{ n: 21 }],
        backoffMs: 10,
      });
      while (starts < 1) await new Promise((resolve) => setTimeout(resolve, 10));
      sandboxes = (await sandboxWorkerPids()).filter((pid) => !before.has(pid));
      expect(sandboxes).toHaveLength(1);
      process.kill(sandboxes[0]!, "SIGKILL");
      await untilFinished(queue, batch.batchId);
      const [result] = await resultsOf(queue, batch.batchId);
      // SANDBOX_CRASHED is transient: the input ran again, on the worker that replaced the dead one.
      expect(result).toMatchObject({ ok: true, output: { doubled: 42, attempt: 2 }, attempt: 2 });
      expect(starts).toBe(2);
      const now = (await sandboxWorkerPids()).filter((pid) => !before.has(pid));
      expect(now).toHaveLength(1);
      expect(now).not.toContain(sandboxes[0]);
      sandboxes = now;
    } finally {
      await running.close();
    }
    // Closing the worker closed its session, and the session its sandbox workers.
    for (const pid of sandboxes) expect(isAlive(pid)).toBe(false);
  });

  it("refuses an unknown batch with BATCH_NOT_FOUND and a batch id taken by another program", async () => {
    const queue = freshQueue();
    const error = await getBatchStatus({ redis: redis.url, queue, batchId: "nope" }).catch((caught: unknown) => caught);
    expect(SwitchyardError.isInstance(error) && error.code).toBe("BATCH_NOT_FOUND");
    await submitBatch({ redis: redis.url, queue, batchId: "taken", program: "return 1;", inputs: [] });
    await expect(
      submitBatch({ redis: redis.url, queue, batchId: "taken", program: "return 2;", inputs: [] }),
    ).rejects.toThrow(/exists with another program/);
    await expect(submitBatch({ redis: redis.url, queue, batchId: "a b", program: "", inputs: [] })).rejects.toThrow(
      /batch id "a b" is not valid/,
    );
  });
});
