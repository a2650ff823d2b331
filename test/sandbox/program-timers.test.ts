import { afterAll, describe, expect, it } from "vitest";
import { MAX_PENDING_TIMERS } from "../../runtime/wire.js";
import { defineTool } from "../../src/registry/define-tool.js";
import { Switchyard } from "../../src/switchyard.js";
import { createDeferred } from "../helpers/pipeline-fixtures.js";

/** Host timers alive right now (Node's own count of `Timeout` handles). */
function hostTimers(): number {
  return process.getActiveResourcesInfo().filter((resource) => resource === "Timeout").length;
}

const state = { lateCalls: 0, reached: createDeferred() };
const probe = defineTool({
  name: "probe.hostTimers",
  description: "Counts the host's live timers.",
  inputSchema: { type: "object" },
  effect: "read",
  execute: () => hostTimers(),
});
const reached = defineTool({
  name: "probe.reached",
  description: "Tells the test the program got here.",
  inputSchema: { type: "object" },
  effect: "read",
  execute: () => {
    state.reached.resolve();
    return true;
  },
});
const late = defineTool({
  name: "probe.late",
  description: "Counts calls.",
  inputSchema: { type: "object" },
  effect: "read",
  execute: () => ++state.lateCalls,
});
const echo = defineTool({
  name: "probe.echo",
  description: "Returns its input.",
  inputSchema: { type: "object", properties: { n: { type: "number" } }, required: ["n"] },
  outputSchema: { type: "object", properties: { n: { type: "number" } }, required: ["n"] },
  effect: "read",
  execute: (input: { n: number }) => input,
});
const yard = new Switchyard({ tools: [probe, reached, late, echo] });

// The program forms a run accepts (see program-wrapper.ts); each wraps the same body.
const FORMS: readonly (readonly [string, (body: string) => string])[] = [
  ["a body", (body) => body],
  ["an async arrow function", (body) => `async () => {\n${body}\n}`],
  ["an async function main", (body) => `async function main() {\n${body}\n}`],
  ["a parenthesized async arrow", (body) => `(async () => {\n${body}\n});`],
];
afterAll(() => yard.close());

describe("sleep, setTimeout and clearTimeout inside programs", () => {
  it("sleeps at least the time asked, counted in the run's wall time", async () => {
    const result = await yard.run("const start = Date.now(); await sleep(120); return Date.now() - start;");
    expect(result.ok, result.error?.message).toBe(true);
    expect(result.output).toBeGreaterThanOrEqual(115);
    expect(result.stats.wallMs).toBeGreaterThanOrEqual(115);
  });

  it("fires callbacks in deadline order, equal deadlines in the order set, with their arguments; cleared ones never", async () => {
    const result = await yard.run(`
      const fired: string[] = [];
      setTimeout((label: string) => fired.push(label), 30, "c");
      setTimeout((label: string) => fired.push(label), 10, "a");
      setTimeout((label: string) => fired.push(label), 10, "b");
      const cleared = setTimeout(() => fired.push("cleared"), 20);
      clearTimeout(cleared);
      clearTimeout(cleared);
      clearTimeout(123456);
      await sleep(60);
      return fired;`);
    expect(result.output).toEqual(["a", "b", "c"]);
  });

  it.each([
    ["negative", "-50"],
    ["NaN", "NaN"],
    ["a string that is no number", '"soon" as any'],
    ["undefined", "undefined as any"],
  ])("treats a %s delay as 0", async (_label, delay) => {
    const result = await yard.run(`const start = Date.now(); await sleep(${delay}); return Date.now() - start;`);
    expect(result.ok, result.error?.message).toBe(true);
    expect(result.output).toBeLessThan(1_000);
  });

  it.each([
    ["a huge delay", "1e12"],
    ["Infinity", "Infinity"],
  ])(
    "ends a sleep of %s at the run's wall-time limit with TIMEOUT, holding no host timer after",
    async (_label, delay) => {
      const before = hostTimers();
      const result = await yard.run(`await sleep(${delay}); return "woke";`, { limits: { wallTimeMs: 300 } });
      expect(result.error?.code).toBe("TIMEOUT");
      expect(result.stats.wallMs).toBeLessThan(5_000);
      await expect.poll(hostTimers).toBeLessThanOrEqual(before);
    },
  );

  it("counts sleeps against the wall time: two 200 ms sleeps do not fit in 300 ms", async () => {
    const result = await yard.run("await sleep(200); await sleep(200); return 'done';", {
      limits: { wallTimeMs: 300 },
    });
    expect(result.error?.code).toBe("TIMEOUT");
  });

  it("holds one host timer for 5,000 pending sleeps", async () => {
    const idle = await yard.run("return await tools.probe.hostTimers();");
    const busy = await yard.run(`
      const all = Promise.all(Array.from({ length: 5000 }, (_, i) => sleep(100 + (i % 50))));
      const during = await tools.probe.hostTimers();
      await all;
      return during;`);
    expect(busy.ok, busy.error?.message).toBe(true);
    expect(busy.output as number).toBeLessThanOrEqual((idle.output as number) + 1);
  });

  it(`ends a program setting a million timers at the ${MAX_PENDING_TIMERS + 1}th, the host untouched`, async () => {
    const before = hostTimers();
    const result = await yard.run("for (let i = 0; i < 1_000_000; i++) setTimeout(() => {}, 60_000); return 'set';");
    expect(result.error?.code).toBe("RUNTIME_ERROR");
    expect(result.error?.message).toMatch(/RangeError: At most 10000 timers may be pending at once/);
    await expect.poll(hostTimers).toBeLessThanOrEqual(before);
  });

  it("lets a program catch the refusal and go on", async () => {
    const result = await yard.run(`
      let set = 0; let refused = 0;
      for (let i = 0; i < 20_000; i++) {
        try { setTimeout(() => {}, 60_000); set++; } catch (e) { if (e instanceof RangeError) refused++; }
      }
      return { set, refused, timers: await tools.probe.hostTimers() };`);
    expect(result.ok, result.error?.message).toBe(true);
    expect(result.output).toMatchObject({ set: MAX_PENDING_TIMERS, refused: 20_000 - MAX_PENDING_TIMERS });
  });

  it("lets clearTimeout free room: a million set-and-clear pairs stay under the limit", async () => {
    const result = await yard.run(`
      for (let i = 0; i < 1_000_000; i++) clearTimeout(setTimeout(() => {}, 60_000 - (i % 1000)));
      let fired = false; setTimeout(() => { fired = true; }, 1); await sleep(20);
      return fired;`);
    expect(result.ok, result.error?.message).toBe(true);
    expect(result.output).toBe(true);
  });

  it("never fires a timer once the program has returned, and leaves no host timer behind", async () => {
    const before = hostTimers();
    state.lateCalls = 0;
    const result = await yard.run(`
      setTimeout(() => { void tools.probe.late(); }, 30);
      setTimeout(() => { void tools.probe.late(); }, 5_000);
      return "returned";`);
    expect(result.output).toBe("returned");
    expect(result.stats.wallMs).toBeLessThan(2_000);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(state.lateCalls).toBe(0);
    expect(hostTimers()).toBeLessThanOrEqual(before);
  });

  it("stops a sleeping run at once when it is cancelled, and releases its host timer", async () => {
    state.reached = createDeferred();
    const before = hostTimers();
    const controller = new AbortController();
    const running = yard.run("await tools.probe.reached(); await sleep(60_000); return 'woke';", {
      signal: controller.signal,
    });
    await state.reached.promise;
    const started = Date.now();
    controller.abort();
    const result = await running;
    expect(result.error?.code).toBe("CANCELLED");
    expect(Date.now() - started).toBeLessThan(2_000);
    await expect.poll(hostTimers).toBeLessThanOrEqual(before);
  });

  it("logs a callback that throws or rejects and keeps the program running", async () => {
    const result = await yard.run(`
      setTimeout(() => { throw new Error("boom"); }, 1);
      setTimeout(async () => { throw new Error("later boom"); }, 2);
      await sleep(30);
      return "still here";`);
    expect(result.output).toBe("still here");
    expect(result.logs).toEqual([
      "[error] Uncaught in a timer callback: Error: boom",
      "[error] Uncaught in a timer callback: Error: later boom",
    ]);
  });

  it("refuses a string callback rather than evaluating it", async () => {
    const result = await yard.run(
      `try { setTimeout("globalThis.x = 1" as any, 1); return "set"; } catch (e) { return String(e); }`,
    );
    expect(result.output).toBe("TypeError: setTimeout needs a function; strings are not evaluated.");
  });

  it("keeps timers working when the program overwrites Date.now and Promise", async () => {
    const result = await yard.run(`
      (Date as any).now = () => 0; (globalThis as any).Promise = function () { throw new Error("no"); };
      let fired = false; setTimeout(() => { fired = true; }, 5);
      await sleep(30);
      return fired;`);
    expect(result.ok, result.error?.message).toBe(true);
    expect(result.output).toBe(true);
  });

  it("hands each answer to its own await when calls, wake-ups and $budget cross in one batch", async () => {
    const result = await yard.run(`
      const fired: number[] = [];
      setTimeout(() => fired.push(1), 15);
      const [a, slept, budget, b] = await Promise.all([
        tools.probe.echo({ n: 1 }),
        sleep(5).then(() => "slept"),
        tools.$budget(),
        tools.probe.echo({ n: 2 }),
      ]);
      const c = await sleep(0).then(() => tools.probe.echo({ n: 3 }));
      await sleep(20);
      const d = await tools.probe.echo({ n: 4 });
      return { a: a.n, slept, callsMade: budget.callsMade, b: b.n, c: c.n, d: d.n, fired };`);
    expect(result.ok, result.error?.message).toBe(true);
    expect(result.output).toEqual({ a: 1, slept: "slept", callsMade: 1, b: 2, c: 3, d: 4, fired: [1] });
    expect(result.calls.map((call) => call.id.split(".").at(-1))).toEqual(["1", "2", "3", "4"]);
    expect(result.stats.toolCalls).toBe(4);
  });

  it.each(FORMS)("runs timers and $budget in %s, under an output contract", async (_form, wrap) => {
    const body = `const start = Date.now();
let fired = false;
setTimeout(() => { fired = true; }, 5);
await sleep(30);
const { callsLeft } = await tools.$budget();
const { n } = await tools.probe.echo({ n: 7 });
return { n, fired, callsLeft, slept: Date.now() - start >= 25 };`;
    const result = await yard.run(wrap(body), {
      limits: { maxToolCalls: 10 },
      outputSchema: {
        type: "object",
        properties: {
          n: { type: "number" },
          fired: { type: "boolean" },
          callsLeft: { type: "number" },
          slept: { type: "boolean" },
        },
        required: ["n", "fired", "callsLeft", "slept"],
        additionalProperties: false,
      },
    });
    expect(result.error).toBeUndefined();
    expect(result.output).toEqual({ n: 7, fired: true, callsLeft: 10, slept: true });
    expect(result.calls).toHaveLength(1);
  });

  it("declares the timers, so a program using them type-checks and a wrong argument does not", async () => {
    const wrong = await yard.run("await sleep('10 seconds'); return 1;");
    expect(wrong.error?.code).toBe("TYPE_ERROR");
    expect(wrong.error?.message).toMatch(/not assignable to parameter of type 'number'/);
  });
});
