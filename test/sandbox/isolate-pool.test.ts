// The isolate pool's close, on real isolates: it resolves only once the pool's background warm-up
// (the runtime's code cache, made by running a warm-up program in an isolate) has ended, so a host
// that closes its session and exits never exits while one of the pool's isolates still runs. And
// when its spares are made: on take (a worker's pool), or only when a run announces itself.

import { describe, expect, it } from "vitest";
import { loadGuestRuntimeSource } from "../../src/sandbox/guest-runtime-source.js";
import { IsolatePool } from "../../src/sandbox/isolate-pool.js";

describe("IsolatePool.close", () => {
  it("waits for a warm-up under way before it resolves, and keeps no spare after", async () => {
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const pool = new IsolatePool({
      runtimeSource: async () => {
        await gate;
        return loadGuestRuntimeSource();
      },
    });
    pool.warmUp(16);
    let closed = false;
    const closing = pool.close().then(() => {
      closed = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(closed).toBe(false);
    release();
    await closing;
    expect(closed).toBe(true);
    // A take after close still works, from a fresh isolate (no spare was kept).
    const prepared = await pool.take(16);
    expect(prepared.isolate.isDisposed).toBe(false);
    prepared.dispose();
  });

  it("resolves at once when nothing is warming", async () => {
    const pool = new IsolatePool();
    const started = performance.now();
    await pool.close();
    expect(performance.now() - started).toBeLessThan(1_000);
  });
});

/** A pool on the real runtime that counts the isolates it prepares (each reads the runtime's source once). */
function countingPool(spareOnTake: boolean): { pool: IsolatePool; prepared: () => number } {
  let prepared = 0;
  const pool = new IsolatePool({
    spareOnTake,
    runtimeSource: () => {
      prepared += 1;
      return loadGuestRuntimeSource();
    },
  });
  return { pool, prepared: () => prepared };
}

/** Lets the pool's setImmediate steps and isolated-vm's async work run. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 50));

/** Takes and disposes one isolate, so the pool's once-per-process code-cache warm-up is over before counting. */
async function warmed(pool: IsolatePool): Promise<void> {
  (await pool.take(16)).dispose();
  await settle();
}

describe("IsolatePool spares", () => {
  it("starts the next spare as soon as one is taken, by default", async () => {
    const { pool, prepared } = countingPool(true);
    await warmed(pool);
    const first = await pool.take(16);
    const afterTake = prepared();
    await settle();
    expect(prepared()).toBe(afterTake + 1);
    first.dispose();
    await pool.close();
  });

  it("with spareOnTake false prepares nothing while a taken isolate runs, and one spare per prepareSpare", async () => {
    const { pool, prepared } = countingPool(false);
    await warmed(pool);
    const first = await pool.take(16);
    const afterTake = prepared();
    await settle();
    // The taken isolate's run needs this thread for its calls: no spare is made meanwhile.
    expect(prepared()).toBe(afterTake);
    pool.prepareSpare(16);
    pool.prepareSpare(16);
    await settle();
    pool.prepareSpare(16);
    await settle();
    expect(prepared()).toBe(afterTake + 1);
    // The next take uses that spare rather than preparing one.
    const second = await pool.take(16);
    expect(prepared()).toBe(afterTake + 1);
    expect(second.isolate.isDisposed).toBe(false);
    first.dispose();
    second.dispose();
    await pool.close();
  });

  it("prepares no spare once closed", async () => {
    const { pool, prepared } = countingPool(false);
    await pool.close();
    pool.prepareSpare(16);
    await settle();
    expect(prepared()).toBe(0);
  });
});
