// The isolate pool's close, on real isolates: it resolves only once the pool's background warm-up
// (the runtime's code cache, made by running a warm-up program in an isolate) has ended, so a host
// that closes its session and exits never exits while one of the pool's isolates still runs.

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
