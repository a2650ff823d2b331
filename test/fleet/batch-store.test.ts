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
  it("replaces only a PAUSED result with a resumed run's, without counting a repeat", async () => {
    const store = new BatchStore(redis.client, `paused-${process.pid}`);
    const paused = { ...resultOf("k", false, "w1"), error: { code: "PAUSED" as const, message: "waits" } };
    await store.writeResult("b", paused);
    await store.writeResult("b", resultOf("other", false, "w1"));
    expect(await store.replacePausedResult("b", resultOf("k", true, "resume"))).toBe("replaced");
    expect((await store.results("b", ["k"]))[0]).toMatchObject({ ok: true, worker: "resume" });
    expect(await store.counts("b")).toMatchObject({ done: 2, failed: 1 });
    expect(await store.repeatedWrites("b")).toEqual(new Map());
    // A result that is not PAUSED (written since, or another failure) stays; no result is not made.
    expect(await store.replacePausedResult("b", resultOf("k", false, "late"))).toBe("kept");
    expect(await store.replacePausedResult("b", resultOf("other", true, "resume"))).toBe("kept");
    expect(await store.replacePausedResult("b", resultOf("none", true, "resume"))).toBe("absent");
    expect(await store.results("b", ["k", "other", "none"])).toMatchObject([
      { ok: true, worker: "resume" },
      { ok: false, worker: "w1" },
      undefined,
    ]);
    // A result planted as text that is not JSON, or JSON whose error is not an object, is kept too.
    for (const planted of ["not json", "[1,2]", '{"error":"PAUSED"}', '{"error":{"code":["PAUSED"]}}']) {
      await redis.client.hset(`switchyard:paused-${process.pid}:batch:b:results`, "planted", planted);
      expect(await store.replacePausedResult("b", resultOf("planted", true, "resume")), planted).toBe("kept");
    }
  });

  it("writes a PAUSED result with its run's record, reads the record only when its fields have their types, and forgets it", async () => {
    const store = new BatchStore(redis.client, `paused-run-${process.pid}`);
    const job = { batchId: "b", key: "k", input: { n: 1 }, attempt: 2, enqueuedAt: 5 };
    const paused: BatchResult = {
      ...resultOf("k", false, "w1"),
      input: job.input,
      attempt: job.attempt,
      enqueuedAt: job.enqueuedAt,
      error: { code: "PAUSED", message: "waits" },
    };
    await store.startRunning("b", "k", "w1");
    await store.writePausedResult("b", paused, "run-1", 60_000);
    expect(await store.results("b", ["k"])).toEqual([paused]);
    expect(await store.counts("b")).toMatchObject({ done: 1, failed: 1, running: 0 });
    expect(await store.pausedRun("run-1")).toEqual(job);
    expect(await redis.client.pttl(`switchyard:paused-run-${process.pid}:paused-run:run-1`)).toBeGreaterThan(50_000);
    // A results key of another type (planted, or another program's): the write is refused aloud,
    // not reported done (MULTI answers a command's failure in its reply, which must not be dropped).
    await redis.client.set(`switchyard:paused-run-${process.pid}:batch:planted:results`, "not a hash");
    await expect(store.writePausedResult("planted", paused, "run-3", 60_000)).rejects.toThrow(/WRONGTYPE/);
    await store.forgetPausedRun("run-1");
    expect(await store.pausedRun("run-1")).toBeUndefined();
    const planted = [
      "not json",
      "null",
      '{"batchId":["b"],"key":"k","attempt":1,"enqueuedAt":1}',
      '{"batchId":"b","key":"k","attempt":"1","enqueuedAt":1}',
      '{"batchId":"b","key":"k","attempt":1,"enqueuedAt":1e999}',
    ];
    for (const text of planted) {
      await redis.client.set(`switchyard:paused-run-${process.pid}:paused-run:run-2`, text);
      expect(await store.pausedRun("run-2"), text).toBeUndefined();
    }
  });

  // Found from outside (2026-12-03): 125,000 keys spread into one call overflowed the stack, so a
  // batch of that many inputs could not be submitted, and its empty meta read "finished".
  it("appends and forgets 130,000 keys, spread over commands of a bounded size", async () => {
    const store = new BatchStore(redis.client, `store-many-${process.pid}`);
    const keys = Array.from({ length: 130_000 }, (_, index) => `k${index}`);
    await store.appendKeys("many", keys);
    expect(await store.keys("many")).toEqual(keys);
    await store.forgetResults("many", keys);
  });
});
