// Answers that finished while the program was busy wait on the host for the guest to take them.
// They have a byte budget per run (`maxPendingResultBytes`): past it a result is dropped and its
// call fails RESULT_TOO_LARGE, and calls made while it is full start only once the guest has
// taken answers. Measured on the host's heap after a collection, with the program still busy.

import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { afterAll, describe, expect, it } from "vitest";
import { defineTool } from "../../src/registry/define-tool.js";
import { Switchyard } from "../../src/switchyard.js";

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

const RESULT_CHARS = 2_000_000;
const CALLS = 256;
const BUDGET = 16 * 1024 * 1024;
const state = { finished: 0 };
const big = defineTool({
  name: "files.big",
  description: "Returns a distinct 2 MB string, as a large file read does.",
  effect: "read",
  inputSchema: { type: "object", properties: { n: { type: "number" } } },
  execute: async (input: { n?: number }) => {
    await new Promise((resolve) => setImmediate(resolve));
    state.finished++;
    return String(input.n ?? 0).padEnd(RESULT_CHARS, "x");
  },
});

const yard = new Switchyard({
  tools: [big],
  typeCheck: "off",
  limits: { wallTimeMs: 60_000, cpuTimeMs: 60_000, maxPendingResultBytes: BUDGET },
});
afterAll(() => yard.close());

/**
 * The host's JavaScript heap after a full collection, in MB: what is held, not garbage (results
 * dropped past the budget are garbage; resident memory would keep their pages for a while).
 */
const heldMb = (): number => {
  gc();
  const { heapUsed, external } = process.memoryUsage();
  return (heapUsed + external) / 1e6;
};

describe("the byte budget of answers waiting for a busy program", () => {
  it("holds at most the budget while 256 parallel 2 MB results finish during a busy loop", async () => {
    await yard.run("return 1");
    const baseline = heldMb();
    state.finished = 0;
    const run = yard.run(`
      const calls = [];
      for (let n = 0; n < ${CALLS}; n++) calls.push(tools.files.big({ n }).then(() => "ok", (error) => error.code));
      await Promise.resolve();
      const end = Date.now() + 6_000;
      while (Date.now() < end && !(globalThis as any).stop) {}
      const counts: Record<string, number> = {};
      for (const outcome of await Promise.all(calls)) counts[outcome] = (counts[outcome] ?? 0) + 1;
      return counts;
    `);
    // Every tool call has run (or was held back) while the program is still in its loop.
    await expect.poll(() => state.finished, { timeout: 20_000, interval: 50 }).toBeGreaterThan(0);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const held = heldMb() - baseline;
    const result = await run;
    // The budget and slack: without it, every result that finished waits on the host's heap.
    expect(held).toBeLessThan((2 * BUDGET) / 1e6 + 24);
    const output = result.output as Record<string, number>;
    expect(output["RESULT_TOO_LARGE"]).toBeGreaterThan(0);
    expect((output["ok"] ?? 0) + (output["RESULT_TOO_LARGE"] ?? 0)).toBe(CALLS);
    const dropped = result.calls.filter((call) => call.code === "RESULT_TOO_LARGE");
    expect(dropped).toHaveLength(output["RESULT_TOO_LARGE"]!);
    expect(dropped.every((call) => call.status === "error" && call.bytesOut === 0)).toBe(true);
  });

  it("delivers every result to a program that takes them as they come", async () => {
    const result = await yard.run(`
      let total = 0;
      for (let n = 0; n < 32; n++) total += (await tools.files.big({ n })).length;
      const parallel = await Promise.all(Array.from({ length: 6 }, (_, n) => tools.files.big({ n })));
      return total + parallel.reduce((sum, text) => sum + text.length, 0);
    `);
    expect(result).toMatchObject({ ok: true, output: 38 * RESULT_CHARS });
  });
});
