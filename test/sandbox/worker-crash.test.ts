import { afterAll, describe, expect, it } from "vitest";
import type { CallRecord, RunResult } from "../../src/contract.js";
import { createRandom } from "../../examples/orders/orders-service.js";
import { defineTool } from "../../src/registry/define-tool.js";
import { WorkerPool, type WorkerExit } from "../../src/sandbox/worker-pool.js";
import { Switchyard } from "../../src/switchyard.js";
import { createDeferred } from "../helpers/pipeline-fixtures.js";

const RUNS = 100;
const SEED = Number(process.env["CRASH_SEED"] ?? 20_261_201);

// Sequential calls, then a fan-out, then more: a kill finds calls pending in every shape.
const PROGRAM = `
  let done = 0;
  for (let i = 0; i < 3; i++) { await tools.work.step({ i }); done++; }
  const wide = await Promise.all(Array.from({ length: 4 }, (_, i) => tools.work.step({ i })));
  done += wide.length;
  await tools.work.step({ last: true });
  return done + 1;
`;
const CALLS_PER_RUN = 8;

describe("workers killed at random", () => {
  const exits: WorkerExit[] = [];
  let nextExit = createDeferred();
  const pool = new WorkerPool({
    size: 2,
    onWorkerExit: (exit) => {
      exits.push(exit);
      nextExit.resolve();
      nextExit = createDeferred();
    },
  });
  afterAll(() => pool.close());

  it(`loses no call record over ${RUNS} runs while workers are killed by SIGKILL and SIGABRT, and every run ends with a result`, async () => {
    // Seeded (mulberry32), so a failing storm can be replayed with CRASH_SEED.
    const next = createRandom(SEED);
    const durations = createRandom(SEED + 1);
    const executed = new Map<string, number>();
    const kills: { signal: NodeJS.Signals; pid: number }[] = [];
    let callsUntilKill = 40 + Math.floor(next() * 80);
    const killOne = (): void => {
      const pids = pool.pids();
      if (pids.length === 0) return;
      const pid = pids[Math.floor(next() * pids.length)]!;
      // Both deaths, in turn: SIGKILL as the OOM killer sends it, SIGABRT as a native abort raises it.
      const signal: NodeJS.Signals = kills.length % 2 === 0 ? "SIGKILL" : "SIGABRT";
      try {
        process.kill(pid, signal);
        kills.push({ signal, pid });
      } catch {
        // Already gone: another kill got there first.
      }
    };
    const step = defineTool({
      name: "work.step",
      description: "One step of work; answers after 1-10 ms.",
      effect: "read",
      inputSchema: { type: "object" },
      execute: async (_input, { callId, signal }) => {
        executed.set(callId, (executed.get(callId) ?? 0) + 1);
        // Kills come with the calls' progress, not with time: the storm is the same on a slow machine.
        if (--callsUntilKill === 0) {
          callsUntilKill = 40 + Math.floor(next() * 80);
          const exited = nextExit.promise;
          killOne();
          // This call stays pending until the kill is handled: if its run was in the killed
          // worker, the run has crashed by then and the call ends cancelled.
          await Promise.race([exited, new Promise((resolve) => signal.addEventListener("abort", resolve))]);
        }
        // Tools take time, as real ones do: a killed worker's runs have calls in flight on the host.
        await new Promise((resolve) => setTimeout(resolve, 1 + Math.floor(durations() * 10)));
        return { ok: true };
      },
    });
    const yard = new Switchyard({ tools: [step], typeCheck: "off", workers: pool, limits: { memoryLimitMb: 64 } });
    pool.warmUp();

    const results: RunResult[] = await Promise.all(Array.from({ length: RUNS }, () => yard.run(PROGRAM)));
    console.log(
      `crash storm (seed ${SEED}): ${kills.length} kills, ${results.filter((result) => !result.ok).length} of ${RUNS} runs crashed`,
    );

    // Every run ended with a result: its output, or the crash of the worker that held it.
    expect(results).toHaveLength(RUNS);
    for (const result of results) {
      if (result.ok) expect(result.output, JSON.stringify(result)).toBe(CALLS_PER_RUN);
      else expect(result.error?.code, JSON.stringify(result.error)).toBe("SANDBOX_CRASHED");
    }
    const crashed = results.filter((result) => !result.ok);
    expect(crashed.length).toBeGreaterThan(0);
    expect(crashed.length).toBeLessThan(RUNS);
    expect(new Set(kills.map((kill) => kill.signal))).toEqual(new Set(["SIGKILL", "SIGABRT"]));

    // Every call that reached the host has exactly one record, in its own run, and no run's
    // records have a gap: ids are the host's sequence of calls as they arrived.
    const recorded = new Map<string, CallRecord>();
    for (const result of results) {
      expect(result.stats.toolCalls).toBe(result.calls.length);
      result.calls.forEach((record, index) => {
        expect(record.id).toBe(`${result.programId}.${index + 1}`);
        expect(recorded.has(record.id)).toBe(false);
        recorded.set(record.id, record);
        if (result.ok) expect(record.status).toBe("ok");
        else expect(["ok", "cancelled"]).toContain(record.status);
      });
      if (result.ok) expect(result.calls).toHaveLength(CALLS_PER_RUN);
    }
    for (const [callId, times] of executed) {
      expect(times, callId).toBe(1);
      expect(recorded.get(callId)?.status, callId).toBeDefined();
    }
    // Calls pending when their worker died were among them, each ending cancelled.
    expect([...recorded.values()].some((record) => record.status === "cancelled")).toBe(true);

    // The killed workers were replaced: the pool still runs programs, on new workers.
    const after = await yard.run(PROGRAM);
    expect(after.output).toBe(CALLS_PER_RUN);
    const killed = new Set(kills.map((kill) => kill.pid));
    expect(pool.pids().length).toBeGreaterThan(0);
    expect(pool.pids().filter((pid) => killed.has(pid))).toEqual([]);
    expect(exits.filter((exit) => killed.has(exit.pid ?? -1) && !exit.expected).length).toBe(killed.size);
    await yard.close();
  }, 180_000);
});
