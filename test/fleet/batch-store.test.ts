// The store's one write of a result, on a real Redis: a worker's write replaces what is there and
// counts the repeat (a job run twice), a recorded failure never replaces a result, and either
// keeps the running mark and the failed set in step with the result it leaves.

import { describe, expect, it } from "vitest";
import { type BatchResult, BatchStore } from "../../src/fleet/batch-store.js";
import { useRedisForFile } from "../helpers/redis-server.js";

const redis = useRedisForFile();

function resultOf(key: string, ok: boolean, worker: string): BatchResult {
  return {
    key,
    input: key,
    ok,
    output: ok ? worker : null,
    ...(ok ? {} : { error: { code: "RUNTIME_ERROR" as const, message: "failed" } }),
    calls: { total: 0, byStatus: {}, failed: [] },
    attempt: 1,
    wallMs: 0,
    enqueuedAt: 0,
    startedAt: 0,
    finishedAt: 0,
    worker,
  };
}

describe("BatchStore's result writes", () => {
  it("replaces a result on a worker's write and counts the repeat; a write-once keeps the result there", async () => {
    const store = new BatchStore(redis.client, `store-${process.pid}`);
    const batchId = "b";
    expect(await store.startRunning(batchId, "k", "w1")).toBe(true);
    await store.writeResult(batchId, resultOf("k", false, "w1"));
    expect(await store.counts(batchId)).toMatchObject({ done: 1, failed: 1, running: 0 });

    await store.startRunning(batchId, "k", "w2");
    await store.writeResult(batchId, resultOf("k", true, "w2"));
    expect((await store.results(batchId, ["k"]))[0]).toMatchObject({ ok: true, worker: "w2" });
    expect(await store.counts(batchId)).toMatchObject({ done: 1, failed: 0, running: 0 });
    expect(await store.repeatedWrites(batchId)).toEqual(new Map([["k", 2]]));

    expect(await store.writeResultOnce(batchId, resultOf("k", false, "reconciled"))).toBe("present");
    expect((await store.results(batchId, ["k"]))[0]).toMatchObject({ ok: true, worker: "w2" });
    expect(await store.counts(batchId)).toMatchObject({ done: 1, failed: 0 });
    expect(await store.repeatedWrites(batchId)).toEqual(new Map([["k", 2]]));

    await store.setCancelled(batchId, true);
    expect(await store.writeResultOnce(batchId, resultOf("new", false, "reconciled"), { cancelled: true })).toBe(
      "refused",
    );
    expect(await store.writeResultOnce(batchId, resultOf("new", false, "reconciled"))).toBe("written");
    expect(await store.counts(batchId)).toMatchObject({ done: 2, failed: 1 });
  });
});
