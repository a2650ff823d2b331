import { afterEach, describe, expect, it } from "vitest";
import type { RunResult } from "../../src/contract.js";
import { defineTool } from "../../src/registry/define-tool.js";
import { RunQueue } from "../../src/sandbox/run-queue.js";
import { Switchyard, type SwitchyardOptions } from "../../src/switchyard.js";
import { createDeferred } from "../helpers/pipeline-fixtures.js";

const yards: Switchyard[] = [];
afterEach(async () => {
  await Promise.all(yards.splice(0).map((yard) => yard.close()));
});

/** A session whose `gate.held` calls wait until the test opens the gate; counts the runs inside it. */
function createYard(options: SwitchyardOptions = {}) {
  const state = { inside: 0, maxInside: 0, entered: [] as string[] };
  const gate = createDeferred();
  const held = defineTool({
    name: "gate.held",
    description: "Waits until the test opens the gate.",
    effect: "read",
    inputSchema: { type: "object", properties: { label: { type: "string" } } },
    execute: async (input: { label?: string }) => {
      state.inside++;
      state.maxInside = Math.max(state.maxInside, state.inside);
      state.entered.push(input.label ?? "");
      await gate.promise;
      state.inside--;
      return "done";
    },
  });
  const yard = new Switchyard({ tools: [held], typeCheck: "off", ...options });
  yards.push(yard);
  return { yard, state, open: () => gate.resolve() };
}

const HOLD = (label: string) => `return await tools.gate.held({ label: ${JSON.stringify(label)} });`;

describe("the session's memory budget", () => {
  it("has no more runs in the sandbox than the budget holds; the others wait and then all finish", async () => {
    const queue = new RunQueue({ memoryBudgetMb: 64 });
    const { yard, state, open } = createYard({ runQueue: queue, limits: { memoryLimitMb: 16 } });
    const runs = Array.from({ length: 10 }, (_, index) => yard.run(HOLD(`r${index}`)));
    await expect.poll(() => state.inside, { timeout: 20_000 }).toBe(4);
    expect(queue.stats()).toMatchObject({ waiting: 6, running: 4, memoryInUseMb: 64 });
    open();
    const results = await Promise.all(runs);
    expect(results.map((result) => result.output)).toEqual(Array(10).fill("done"));
    expect(state.maxInside).toBe(4);
    expect(queue.stats()).toEqual({ waiting: 0, queued: 0, running: 0, memoryInUseMb: 0 });
  });

  it("counts each run's own memory limit against the budget", async () => {
    const queue = new RunQueue({ memoryBudgetMb: 96 });
    const { yard, state, open } = createYard({ runQueue: queue, limits: { memoryLimitMb: 16 } });
    const large = yard.run(HOLD("large"), { limits: { memoryLimitMb: 64 } });
    const small = [1, 2, 3].map((index) => yard.run(HOLD(`small${index}`), { limits: { memoryLimitMb: 16 } }));
    await expect.poll(() => state.inside, { timeout: 20_000 }).toBe(3);
    expect(queue.stats()).toMatchObject({ running: 3, memoryInUseMb: 96, waiting: 1 });
    open();
    expect((await Promise.all([large, ...small])).every((result) => result.ok)).toBe(true);
  });

  it("returns RUN_QUEUE_FULL as a failed result, without throwing or running, once maxQueuedRuns wait", async () => {
    const queue = new RunQueue({ memoryBudgetMb: 16, maxQueuedRuns: 2 });
    const { yard, state, open } = createYard({ runQueue: queue, limits: { memoryLimitMb: 16 } });
    const first = yard.run(HOLD("first"));
    await expect.poll(() => state.inside, { timeout: 20_000 }).toBe(1);
    const waiting = [yard.run(HOLD("second")), yard.run(HOLD("third"))];
    const refused = await yard.run(HOLD("refused"));
    expect(refused).toMatchObject({ ok: false, output: null, calls: [], error: { code: "RUN_QUEUE_FULL" } });
    expect(refused.error?.message).toMatch(/2 runs are already waiting/);
    open();
    const results = await Promise.all([first, ...waiting]);
    expect(results.every((result) => result.ok)).toBe(true);
    expect(state.entered).toEqual(["first", "second", "third"]);
  });

  it("ends a run cancelled while it waits with CANCELLED, before any of it ran", async () => {
    const queue = new RunQueue({ memoryBudgetMb: 16 });
    const { yard, state, open } = createYard({ runQueue: queue, limits: { memoryLimitMb: 16 } });
    const first = yard.run(HOLD("first"));
    await expect.poll(() => state.inside, { timeout: 20_000 }).toBe(1);
    const controller = new AbortController();
    const queued = yard.run(HOLD("queued"), { signal: controller.signal });
    await expect.poll(() => queue.stats().waiting, { timeout: 20_000 }).toBe(1);
    controller.abort();
    const cancelled = await queued;
    expect(cancelled.error).toEqual({ code: "CANCELLED", message: "The run was cancelled before it started." });
    expect(cancelled.calls).toEqual([]);
    open();
    await first;
    expect(state.entered).toEqual(["first"]);
  });

  it("shares one budget and a fair order across sessions given the same RunQueue", async () => {
    const queue = new RunQueue({ memoryBudgetMb: 16 });
    const busy = createYard({ runQueue: queue, limits: { memoryLimitMb: 16 } });
    const quiet = createYard({ runQueue: queue, limits: { memoryLimitMb: 16 } });
    const order: string[] = [];
    const track = (label: string, running: Promise<RunResult>) => running.then(() => order.push(label));
    const holder = track("busy-held", busy.yard.run(HOLD("busy-held")));
    await expect.poll(() => busy.state.inside, { timeout: 20_000 }).toBe(1);
    const flood = [1, 2, 3].map((index) => track(`busy${index}`, busy.yard.run("return 0;")));
    await expect.poll(() => queue.stats().queued, { timeout: 20_000 }).toBe(3);
    const single = track("quiet", quiet.yard.run("return 0;"));
    await expect.poll(() => queue.stats().queued, { timeout: 20_000 }).toBe(4);
    busy.open();
    await Promise.all([holder, ...flood, single]);
    // The quiet session's one run is not served after the busy session's whole backlog.
    expect(order).toEqual(["busy-held", "busy1", "quiet", "busy2", "busy3"]);
    quiet.open();
  });

  it("throws OPTION_INVALID for a memory limit over the budget, in the session and in a run", async () => {
    expect(() => new Switchyard({ limits: { memoryLimitMb: 2048 } })).toThrow(
      expect.objectContaining({ code: "OPTION_INVALID", message: expect.stringMatching(/memoryBudgetMb \(1024\)/) }),
    );
    expect(() => new Switchyard({ runQueue: { memoryBudgetMb: -1 } })).toThrow(
      expect.objectContaining({ code: "OPTION_INVALID" }),
    );
    const { yard } = createYard({ runQueue: { memoryBudgetMb: 256 } });
    await expect(yard.run("return 1;", { limits: { memoryLimitMb: 512 } })).rejects.toMatchObject({
      code: "OPTION_INVALID",
    });
    expect((await yard.run("return 1;", { limits: { memoryLimitMb: 256 } })).output).toBe(1);
  });
});
