// Fleet jobs as durable runs, on a real Redis in this process: a retry after a transient failure
// or a crashed sandbox replays the calls journaled before it and makes again only the call that
// failed or was in flight, with the same idempotency key; `durable: false` keeps the old
// at-least-once delivery; a hostile job payload never becomes a key or a run id as it is.

import { Queue } from "bullmq";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isRunId } from "../../src/durable/run-id.js";
import type { ResumedRunRecord } from "../../src/durable/run-journal.js";
import { ToolError } from "../../src/errors.js";
import { readBatchResults } from "../../src/fleet/batch-results.js";
import { BatchStore } from "../../src/fleet/batch-store.js";
import { connectRedis } from "../../src/fleet/redis-connection.js";
import { durableRunIdOf, retryCutOf } from "../../src/fleet/durable-job.js";
import { type FleetWorker, type FleetWorkerOptions, startFleetWorker } from "../../src/fleet/fleet-worker.js";
import { fleetRunJournal } from "../../src/fleet/fleet-run-journal.js";
import { submitBatch } from "../../src/fleet/submit-batch.js";
import { watchBatch } from "../../src/fleet/watch-batch.js";
import { defineTool } from "../../src/registry/define-tool.js";
import { Switchyard } from "../../src/switchyard.js";
import { REFUNDS, shopPermissions, shopTools } from "../durable/fixtures/shop-tools.js";
import { startRedis, type TestRedis } from "../helpers/redis-server.js";
import { sandboxWorkerPids } from "../helpers/worker-processes.js";
import { startShopWorker } from "./fixtures/shop-worker.js";

let redis: TestRedis;
beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => {
  await redis?.stop();
});

let queues = 0;
function freshQueue(): string {
  return `durable-${process.pid}-${++queues}`;
}

async function finish(queue: string, batchId: string) {
  for await (const progress of watchBatch({ redis: redis.url, queue, batchId, intervalMs: 50 })) {
    if (progress.finished) break;
  }
  const results = [];
  for await (const result of readBatchResults({ redis: redis.url, queue, batchId })) results.push(result);
  return results;
}

/** A tool that counts its calls by `n` and keeps each call's idempotency key; fails as `failOn` says. */
function countingTool(failOn: (n: number, call: number) => boolean) {
  const calls = new Map<number, string[]>();
  const tool = defineTool({
    name: "api.count",
    description: "Counts its calls by n and doubles n.",
    inputSchema: { type: "object", properties: { n: { type: "number" } }, required: ["n"] },
    execute: (input: { n: number }, context) => {
      const keys = calls.get(input.n) ?? [];
      keys.push(context.idempotencyKey ?? "none");
      calls.set(input.n, keys);
      if (failOn(input.n, keys.length)) throw new ToolError("the server is down", { code: "SOURCE_UNAVAILABLE" });
      return input.n * 2;
    },
  });
  return { tool, calls };
}

const THREE_CALLS = "let sum = 0; for (let n = 1; n <= 3; n++) sum += await tools.api.count({ n }); return sum;";

async function startWorker(queue: string, extra: Partial<FleetWorkerOptions>): Promise<FleetWorker> {
  return startFleetWorker({ redis: redis.url, queue, config: { typeCheck: "off" }, concurrency: 2, ...extra });
}

describe("durable fleet jobs", () => {
  it("replay the calls before a transient failure on retry and make the failed call again with the same key", async () => {
    const queue = freshQueue();
    const { tool, calls } = countingTool((n, call) => n === 3 && call === 1);
    const worker = await startWorker(queue, { configOptions: { tools: [tool] } });
    try {
      const batch = await submitBatch({ redis: redis.url, queue, program: THREE_CALLS, inputs: [1], backoffMs: 10 });
      const [result] = await finish(queue, batch.batchId);
      expect(result).toMatchObject({ ok: true, output: 12, attempt: 2 });
      expect([...calls.entries()].map(([n, keys]) => [n, keys.length])).toEqual([
        [1, 1],
        [2, 1],
        [3, 2],
      ]);
      const [first, again] = calls.get(3)!;
      expect(first).toMatch(/:3$/);
      expect(again).toBe(first);
    } finally {
      await worker.close();
    }
  });

  it("replay a fan-out after a transient failure of one of its calls without diverging", async () => {
    const queue = freshQueue();
    const { tool, calls } = countingTool((n, call) => n === 4 && call === 1);
    const worker = await startWorker(queue, { configOptions: { tools: [tool] } });
    try {
      const program = `const first = await tools.api.count({ n: 1 });
        const rest = await Promise.all([2, 3, 4, 5].map((n) => tools.api.count({ n })));
        return [first, ...rest];`;
      const batch = await submitBatch({ redis: redis.url, queue, program, inputs: [1], backoffMs: 10 });
      const [result] = await finish(queue, batch.batchId);
      expect(result).toMatchObject({ ok: true, output: [2, 4, 6, 8, 10], attempt: 2 });
      // The call before the fan-out is replayed; the failed call is made again with its key, and
      // its siblings at most once more (those answered in the failed call's crossing).
      expect(calls.get(1)).toHaveLength(1);
      expect(calls.get(4)).toHaveLength(2);
      expect(calls.get(4)![1]).toBe(calls.get(4)![0]);
      for (const n of [2, 3, 5]) {
        const keys = calls.get(n)!;
        expect(keys.length).toBeLessThanOrEqual(2);
        expect(new Set(keys).size).toBe(1);
      }
    } finally {
      await worker.close();
    }
  });

  it("make every call again on retry when the worker is not durable (at least once)", async () => {
    const queue = freshQueue();
    const { tool, calls } = countingTool((n, call) => n === 3 && call === 1);
    const worker = await startWorker(queue, { configOptions: { tools: [tool] }, durable: false });
    try {
      const batch = await submitBatch({ redis: redis.url, queue, program: THREE_CALLS, inputs: [1], backoffMs: 10 });
      const [result] = await finish(queue, batch.batchId);
      expect(result).toMatchObject({ ok: true, output: 12, attempt: 2 });
      expect([...calls.values()].map((keys) => keys.length)).toEqual([2, 2, 2]);
      expect(calls.get(1)).toEqual(["none", "none"]);
    } finally {
      await worker.close();
    }
  });

  it("replay the calls before a crashed sandbox and make the call in flight again with the same key", async () => {
    const queue = freshQueue();
    const before = new Set(await sandboxWorkerPids());
    const calls = new Map<number, string[]>();
    const hold = defineTool({
      name: "api.hold",
      description: "Holds its first call of n=2 until it is cancelled; doubles n.",
      inputSchema: { type: "object", properties: { n: { type: "number" } }, required: ["n"] },
      execute: async (input: { n: number }, context) => {
        const keys = calls.get(input.n) ?? [];
        keys.push(context.idempotencyKey ?? "none");
        calls.set(input.n, keys);
        if (input.n === 2 && keys.length === 1)
          await new Promise((resolve) => context.signal.addEventListener("abort", resolve));
        return input.n * 2;
      },
    });
    const worker = await startFleetWorker({
      redis: redis.url,
      queue,
      config: { typeCheck: "off", workers: 1 },
      configOptions: { tools: [hold] },
    });
    try {
      const batch = await submitBatch({
        redis: redis.url,
        queue,
        program: "let sum = 0; for (let n = 1; n <= 3; n++) sum += await tools.api.hold({ n }); return sum;",
        inputs: [1],
        backoffMs: 10,
      });
      while (calls.get(2) === undefined) await new Promise((resolve) => setTimeout(resolve, 10));
      const sandboxes = (await sandboxWorkerPids()).filter((pid) => !before.has(pid));
      expect(sandboxes).toHaveLength(1);
      process.kill(sandboxes[0]!, "SIGKILL");
      const [result] = await finish(queue, batch.batchId);
      expect(result).toMatchObject({ ok: true, output: 12, attempt: 2 });
      expect(calls.get(1)).toHaveLength(1);
      expect(calls.get(2)).toHaveLength(2);
      expect(calls.get(2)![1]).toBe(calls.get(2)![0]);
      expect(calls.get(3)).toHaveLength(1);
    } finally {
      await worker.close();
    }
  });
});

describe("a paused fleet job resumed through the library", () => {
  it("has its PAUSED batch result replaced by the resumed run's, and not while the run pauses again", async () => {
    const queue = freshQueue();
    const worker = await startShopWorker(redis.url, queue);
    const client = await connectRedis(redis.url);
    const store = fleetRunJournal(client, queue);
    // A session of the person's own app: another process's tools and rules, the fleet's store.
    const yard = new Switchyard({
      tools: shopTools,
      permissions: shopPermissions,
      typeCheck: "off",
      runJournal: store,
    });
    try {
      const batch = await submitBatch({ redis: redis.url, queue, program: REFUNDS, inputs: [{ shop: 7 }] });
      const [paused] = await finish(queue, batch.batchId);
      expect(paused).toMatchObject({ ok: false, error: { code: "PAUSED" } });
      const [run] = await store.list();
      const records: ResumedRunRecord[] = [];
      const onRecorded = (record: ResumedRunRecord): number => records.push(record);

      // No decisions: the run pauses again, and the batch keeps its PAUSED result.
      const again = await yard.resume(run!.id, { onRecorded, askTimeoutMs: 50 });
      expect(again.error?.code).toBe("PAUSED");
      expect(records).toEqual([]);
      expect((await finish(queue, batch.batchId))[0]).toEqual(paused);

      const decisions = [
        { position: 3, approved: true },
        { position: 4, approved: false, reason: "not this one" },
      ];
      const resumed = await yard.resume(run!.id, { decisions, onRecorded });
      expect(resumed).toMatchObject({ ok: true, output: { a: { refunded: 1 }, b: { caught: "PERMISSION_DENIED" } } });
      expect(records).toEqual([{ outcome: "replaced", batchId: batch.batchId, key: paused!.key }]);
      const [finished] = await finish(queue, batch.batchId);
      expect(finished).toMatchObject({ key: paused!.key, input: { shop: 7 }, ok: true, worker: "switchyard resume" });
      expect(finished).not.toHaveProperty("error");

      // The run has ended: resuming it again replays it to its end and records nothing more.
      const replayed = await yard.resume(run!.id, { onRecorded });
      expect(replayed.output).toEqual(resumed.output);
      expect(records).toHaveLength(1);
      expect((await finish(queue, batch.batchId))[0]).toEqual(finished);
    } finally {
      await yard.close();
      client.disconnect();
      await worker.close();
    }
  });
});

describe("a job with a hostile payload", () => {
  it("runs under a hashed run id: no key of the journal store holds the payload's batch id or key", async () => {
    const queue = freshQueue();
    const { tool, calls } = countingTool(() => false);
    const worker = await startWorker(queue, { configOptions: { tools: [tool] } });
    const client = await connectRedis(redis.url);
    try {
      // What a writer with access to the queue could plant: a batch whose id and key try to reach
      // other keys, as a meta record the worker reads and a job added past submitBatch's checks.
      const batchId = `../x*{slot}\n${"y".repeat(10_000)}`;
      const key = "a:b*\r\n{c}";
      await new BatchStore(client, queue).ensureMeta({
        batchId,
        program: THREE_CALLS,
        attempts: 1,
        backoffMs: 10,
        createdAt: Date.now(),
      });
      const jobs = new Queue(queue, { connection: client });
      await jobs.add("program", { batchId, key, input: 1 }, { jobId: "../p*{q}\n" });
      await jobs.close();
      while (calls.size < 3) await new Promise((resolve) => setTimeout(resolve, 20));
      const runKeys = await client.keys(`switchyard:${queue}:runs:*`);
      expect(runKeys.length).toBeGreaterThan(0);
      for (const runKey of runKeys) {
        expect(runKey).toMatch(new RegExp(`^switchyard:${queue}:runs:(index|job-[0-9a-f]{40}:(journal|bytes|lease))$`));
      }
    } finally {
      await worker.close();
      await client.quit();
    }
  });
});

describe("a durable job's run id", () => {
  const hostile = [
    "../../etc/passwd",
    "*",
    "{slot}",
    "a\nb",
    "x".repeat(10_000),
    "switchyard:q:runs:other:journal",
    "",
  ];

  it("is the job id and its timestamp for the jobs submitBatch makes", () => {
    expect(
      durableRunIdOf({ id: "b-1234.abcd", timestamp: 1_700_000_000_000, data: { batchId: "b-1234", key: "k" } }),
    ).toBe(`b-1234.abcd-${(1_700_000_000_000).toString(36)}`);
  });

  it.each(hostile)("is a hash, never the payload, for the hostile job id or batch id %j", (value) => {
    const fromId = durableRunIdOf({ id: value, timestamp: 1, data: { batchId: "b", key: "k" } });
    const fromBatch = durableRunIdOf({ id: undefined, timestamp: 1, data: { batchId: value, key: value } });
    for (const id of [fromId, fromBatch]) {
      expect(isRunId(id)).toBe(true);
      expect(id).toMatch(/^job-[0-9a-f]{40}$/);
    }
    // Distinct payloads never share a journal.
    expect(fromId).not.toBe(durableRunIdOf({ id: `${value}x`, timestamp: 1, data: { batchId: "b", key: "k" } }));
  });

  it("differs for a job added again (a resubmit runs afresh, not a replay of the failed run)", () => {
    const job = { id: "b.k", data: { batchId: "b", key: "k" } };
    expect(durableRunIdOf({ ...job, timestamp: 1 })).not.toBe(durableRunIdOf({ ...job, timestamp: 2 }));
  });
});

describe("the cut a retry makes", () => {
  const header = {
    t: "run",
    v: 1,
    id: "r",
    createdAt: 0,
    expiresAt: 1,
    source: "",
    nowMs: 0,
    seed: [1, 2, 3, 4],
  } as const;
  const crossing = (k: number, code?: string) =>
    ({
      t: "x",
      k,
      kind: "now",
      nowMs: 0,
      answers: [
        {
          i: k,
          n: k + 1,
          tool: "api.count",
          h: "h",
          e: `${k},1`,
          r: {
            id: `r.${k + 1}`,
            tool: "api.count",
            caller: "program",
            status: code === undefined ? "ok" : "error",
            ...(code === undefined ? {} : { code }),
            durationMs: 0,
            bytesIn: 0,
            bytesOut: 0,
          },
        },
      ],
    }) as const;

  it("keeps everything before the crossing of the failed call, and never the end", () => {
    const journal = {
      header,
      bytes: 0,
      entries: [crossing(0), crossing(1, "SOURCE_UNAVAILABLE"), crossing(2), { t: "end", at: 0, ok: false } as const],
    };
    expect(retryCutOf(journal, ["SOURCE_UNAVAILABLE"])).toBe(2);
    // A failure whose code is not transient is kept; only the end goes.
    expect(retryCutOf(journal, ["TIMEOUT"])).toBe(4);
    expect(retryCutOf({ header, bytes: 0, entries: [crossing(0)] }, ["TIMEOUT"])).toBeUndefined();
  });
});
