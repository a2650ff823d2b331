// The guest runtime in a real isolate, bound to a real ToolBridge through bindings that count
// and keep what crosses: how many crossings a program's calls take, what they carry, and the
// console lines handed over when the isolate is disposed.

import { afterAll, describe, expect, it } from "vitest";
import { defineTool, type ToolDefinition } from "../../src/registry/define-tool.js";
import { IsolatePool } from "../../src/sandbox/isolate-pool.js";
import { LONE_CALL_HOLD_MS, ToolBridge } from "../../src/sandbox/tool-bridge.js";
import { PROGRAM_FILE, wrapForRun } from "../../src/program/program-wrapper.js";
import {
  batchOpensWait,
  batchSentAhead,
  decodeCallBatch,
  decodeProgramResult,
  encodeGuestConfig,
  MAX_BYTES_AHEAD,
  MAX_ERROR_TEXT_CHARS,
} from "../../runtime/wire.js";
import { createDeferred, createTestContext, echoTool } from "../helpers/pipeline-fixtures.js";

const pool = new IsolatePool();
afterAll(() => pool.close());

const gate = { current: createDeferred<string>(), waiting: 0 };
const warming: { execute: () => unknown } = { execute: () => 1 };
/** When each call of `t.slow` finished (performance.now()). */
const slowDoneAt: number[] = [];
/** When each call of `t.io` finished (performance.now()). */
const ioDoneAt: number[] = [];
/** A read tool that returns its input after a `ms` timer, noting in `doneAt` when it answered. */
function timerTool(name: string, description: string, ms: number, doneAt: number[]): ToolDefinition {
  return defineTool({
    name,
    description,
    effect: "read",
    inputSchema: { type: "object" },
    execute: (input: unknown) =>
      new Promise((resolve) =>
        setTimeout(() => {
          doneAt.push(performance.now());
          resolve(input);
        }, ms),
      ),
  });
}
const tools: ToolDefinition[] = [
  echoTool("t.echo"),
  defineTool({
    name: "t.later",
    description: "Returns its input after a promise hop.",
    effect: "read",
    inputSchema: { type: "object" },
    execute: async (input: unknown) => input,
  }),
  defineTool({
    name: "t.held",
    description: "Waits until the test opens the gate.",
    effect: "read",
    inputSchema: { type: "object" },
    execute: () => {
      gate.waiting++;
      return gate.current.promise;
    },
  }),
  timerTool("t.slow", "Returns its input after 40 ms.", 40, slowDoneAt),
  timerTool(
    "t.io",
    "Returns its input after a timer of a fifth of the lone-call hold (a quick read).",
    Math.max(1, LONE_CALL_HOLD_MS / 5),
    ioDoneAt,
  ),
  defineTool({
    name: "t.warming",
    description: "Answers as `warming.execute` says.",
    effect: "read",
    inputSchema: { type: "object" },
    execute: () => warming.execute(),
  }),
  defineTool({
    name: "t.never",
    description: "Never answers.",
    effect: "read",
    inputSchema: { type: "object" },
    execute: () => new Promise(() => {}),
  }),
];

interface GuestRun {
  readonly result: ReturnType<typeof decodeProgramResult>;
  readonly resultText: string;
  /** The text of every `submit` crossing, in order. */
  readonly batches: string[];
  /** When each `submit` crossing was answered (performance.now()), in crossing order. */
  readonly submitAnsweredAt: number[];
  readonly waits: number;
  /** Waits the guest crossed again to ask for: `waits` less those its blocking crossings opened. */
  readonly guestWaits: number;
  readonly lines: string[];
  readonly bridge: ToolBridge;
}

/** Runs a plain JavaScript program body in a fresh isolate; `onStart` sees the bridge while it runs. */
async function runGuest(source: string, options: { maxArgumentBytes?: number; wallMs?: number } = {}) {
  const { context } = createTestContext(tools);
  const bridge = new ToolBridge({
    programId: "g",
    pipeline: context,
    maxToolCalls: 10_000,
    maxArgumentBytes: options.maxArgumentBytes ?? 1024 * 1024,
    maxArgumentDepth: 64,
    maxPendingArgumentBytes: 32 * 1024 * 1024,
    onCallLimit: () => {},
  });
  const batches: string[] = [];
  const submitAnsweredAt: number[] = [];
  const lines: string[] = [];
  let waits = 0;
  const prepared = await pool.take(128);
  prepared.bind({
    submit: (text) => {
      batches.push(String(text));
      const answered = bridge.submit(text);
      const index = submitAnsweredAt.length;
      submitAnsweredAt.push(Number.NaN);
      if (typeof answered === "string") submitAnsweredAt[index] = performance.now();
      else void answered.then(() => (submitAnsweredAt[index] = performance.now()));
      return answered;
    },
    wait: () => {
      waits++;
      return bridge.wait();
    },
    log: (_level, text) => lines.push(String(text)),
    config: () =>
      encodeGuestConfig({
        maxArgumentBytes: options.maxArgumentBytes ?? 1024 * 1024,
        maxOutputBytes: 64 * 1024,
        maxLogBytes: 16 * 1024,
        maxLogLines: 200,
      }),
  });
  let resultText: unknown;
  const timer = setTimeout(() => prepared.isolate.dispose(), options.wallMs ?? 20_000);
  try {
    const script = await prepared.isolate.compileScript(wrapForRun(source), { filename: PROGRAM_FILE });
    resultText = await script.run(prepared.context, { promise: true, copy: true });
  } catch {
    resultText = undefined;
  } finally {
    clearTimeout(timer);
    bridge.close();
    prepared.dispose();
  }
  const run: GuestRun = {
    result: decodeProgramResult(resultText),
    resultText: String(resultText),
    batches,
    submitAnsweredAt,
    waits,
    guestWaits: waits - batches.filter((batch) => batchOpensWait(batch)).length,
    lines,
    bridge,
  };
  return run;
}

describe("the guest's crossings", () => {
  it("sends a Promise.all fan-out in batches of at most 256 calls, each answered in its own crossing", async () => {
    const run = await runGuest(
      "const r = await Promise.all(Array.from({ length: 600 }, (_, i) => tools.t.echo({ i }))); return r.map((x) => x.i).join() === Array.from({ length: 600 }, (_, i) => i).join();",
    );
    expect(run.result).toEqual({ ok: true, outputJson: "true" });
    expect(run.batches).toHaveLength(3);
    expect(run.waits).toBe(0);
    expect(run.bridge.records.map((record) => record.id)).toEqual(Array.from({ length: 600 }, (_, i) => `g.${i + 1}`));
  });

  it("sends the full batches of a turn ahead, and blocks on every fourth, so the host never holds more than three", async () => {
    const run = await runGuest(
      "const r = await Promise.all(Array.from({ length: 2000 }, (_, i) => tools.t.echo({ i }))); return r.every((x, i) => x.i === i);",
    );
    expect(run.result).toEqual({ ok: true, outputJson: "true" });
    // 7 full batches and one of 208: three ahead, one blocking, three ahead, the turn's last.
    expect(run.batches.map((batch) => batch[0]).join("")).toBe("lllnllln");
    expect(run.waits).toBe(0);
    expect(run.bridge.records.map((record) => record.id)).toEqual(Array.from({ length: 2000 }, (_, i) => `g.${i + 1}`));
  });

  // Found from outside (2026-12-03): the host takes a run's batches sent ahead one after another
  // in one turn of its event loop; 30 calls of 458 KB arguments (objects with distinct keys, ~75 ms
  // a MB to parse) held it 305 ms. Past MAX_BYTES_AHEAD a batch blocks, and the loop turns between.
  it("sends ahead at most MAX_BYTES_AHEAD of arguments before a batch that blocks", async () => {
    const run = await runGuest(
      `const big = "x".repeat(200 * 1024);
       const r = await Promise.all(Array.from({ length: 12 }, (_, i) => tools.t.echo({ i, big })));
       return r.every((x, i) => x.i === i);`,
    );
    expect(run.result).toEqual({ ok: true, outputJson: "true" });
    let ahead = 0;
    for (const batch of run.batches) {
      if (batchSentAhead(batch)) ahead += batch.length;
      else ahead = 0;
      // One batch may reach past the budget (a call is never split); never two.
      expect(ahead).toBeLessThanOrEqual(MAX_BYTES_AHEAD + 1024 * 1024);
    }
    const marks = run.batches.map((batch) => batch[0]).join("");
    expect(marks).not.toMatch(/l{2}/);
    expect(run.bridge.records).toHaveLength(12);
  });

  it("keeps the bound in a turn of 9,002 calls made without awaiting any", async () => {
    const run = await runGuest("for (let i = 0; ; i++) { tools.t.echo({ i }); if (i > 9000) return i; }");
    expect(run.result.ok).toBe(true);
    const marks = run.batches.map((batch) => batch[0]).join("");
    expect(marks).toMatch(/^(l{3}n)+l*n$/);
    expect(run.bridge.records).toHaveLength(9002);
  });

  it("sends the second stage of a two-stage fan-out as one more batch", async () => {
    const run = await runGuest(
      "const r = await Promise.all(Array.from({ length: 100 }, async (_, i) => { const a = await tools.t.echo({ i }); return tools.t.echo({ j: a.i }); })); return r.length;",
    );
    expect(run.result).toEqual({ ok: true, outputJson: "100" });
    expect(run.batches).toHaveLength(2);
  });

  it("answers sequential calls in one crossing each, also when the tool answers after a promise hop", async () => {
    const run = await runGuest(
      "let n = 0; for (let i = 0; i < 50; i++) { n += (await tools.t.echo({ v: 1 })).v + (await tools.t.later({ v: 1 })).v; } return n;",
    );
    expect(run.result).toEqual({ ok: true, outputJson: "100" });
    expect(run.batches).toHaveLength(100);
    // Each crossing may wait for its call: the program had nothing else in flight. The first
    // opens a wait the instant answers never need; the guest never crosses to ask for one.
    expect(run.batches.map((batch) => batch[0]).join("")).toBe(`W${"w".repeat(99)}`);
    expect(run.guestWaits).toBe(0);
  });

  it("holds a lone call to a slow tool no longer than the hold, and brings its answer back through the wait", async () => {
    slowDoneAt.length = 0;
    const run = await runGuest(
      "let n = 0; for (let i = 0; i < 4; i++) n += (await tools.t.slow({ v: 1 })).v; return n;",
    );
    expect(run.result).toEqual({ ok: true, outputJson: "4" });
    // Each crossing may wait, and opens the wait its answer comes back through: four crossings
    // out, four back, and the guest never crosses again to ask.
    expect(run.batches.map((batch) => batch[0]).join("")).toBe("WWWW");
    expect(run.waits).toBe(4);
    expect(run.guestWaits).toBe(0);
    // No crossing is held for the whole 40 ms call: each is answered once the hold is over.
    expect(LONE_CALL_HOLD_MS).toBeLessThan(40);
    expect(slowDoneAt).toHaveLength(4);
    for (const [index, answeredAt] of run.submitAnsweredAt.entries())
      expect(answeredAt).toBeLessThan(slowDoneAt[index]!);
    expect(run.bridge.records.map((record) => [record.id, record.status])).toEqual([
      ["g.1", "ok"],
      ["g.2", "ok"],
      ["g.3", "ok"],
      ["g.4", "ok"],
    ]);
  });

  it("answers each lone call of a tool that waits on a timer shorter than the hold in its own crossing, with no wait", async () => {
    ioDoneAt.length = 0;
    const run = await runGuest(
      "let n = 0; for (let i = 0; i < 20; i++) n += (await tools.t.io({ v: 1 })).v; return n;",
    );
    expect(run.result).toEqual({ ok: true, outputJson: "20" });
    // Every call crossed blocking and came back with its answer: the wait the first crossing
    // opened is never answered, and no call was sent ahead as a slow tool's.
    expect(run.batches.map((batch) => batch[0]).join("")).toBe(`W${"w".repeat(19)}`);
    expect(run.waits).toBe(1);
    expect(ioDoneAt).toHaveLength(20);
    for (const [index, answeredAt] of run.submitAnsweredAt.entries())
      expect(answeredAt).toBeGreaterThanOrEqual(ioDoneAt[index]!);
  });

  it("keeps crossing blocking for a tool that was slow once and then answers at once", async () => {
    let calls = 0;
    warming.execute = () => (++calls === 1 ? new Promise((resolve) => setTimeout(() => resolve(1), 60)) : 1);
    const run = await runGuest("let n = 0; for (let i = 0; i < 20; i++) n += await tools.t.warming({}); return n;");
    expect(run.result).toEqual({ ok: true, outputJson: "20" });
    // The first call outlasts the hold and comes back through the wait it opened; the next one
    // opens a new wait, which the instant answers never need.
    expect(run.batches.map((batch) => batch[0]).join("")).toBe(`WW${"w".repeat(18)}`);
    expect(run.guestWaits).toBe(0);
  });

  it("keeps lone calls of paths named like Object.prototype's members blocking", async () => {
    const names = ["__proto__", "constructor", "toString", "hasOwnProperty", "valueOf"];
    const run = await runGuest(
      `for (const name of ${JSON.stringify(names)}) for (let i = 0; i < 3; i++) await tools[name]({}).catch(() => 0); return 1;`,
    );
    expect(run.result).toEqual({ ok: true, outputJson: "1" });
    // Each answers TOOL_NOT_FOUND in its crossing, never sent ahead (the first crossing opened
    // the wait, which stays outstanding).
    expect(run.batches.map((batch) => batch[0]).join("")).toBe(`W${"w".repeat(3 * names.length - 1)}`);
    expect(run.bridge.records.map((record) => [record.tool, record.status])).toEqual(
      names.flatMap((name) => Array.from({ length: 3 }, () => [name, "invalid"])),
    );
  });

  it("does not let a call the program never awaits hold its end", async () => {
    const run = await runGuest("tools.t.never({}); await null; return 'early';");
    expect(run.result).toEqual({ ok: true, outputJson: '"early"' });
    // It crossed (and may wait), not held while it waits; the run's end then cancels it.
    expect(run.batches).toEqual([expect.stringMatching(/^Wc7:t\.never/)]);
  });

  it("returns each answer as it comes, not when the slowest call of its batch is done", async () => {
    gate.current = createDeferred<string>();
    const run = await runGuest(
      "const slow = tools.t.held({}); const fast = await tools.t.later({ v: 'fast' }); return fast.v;",
    );
    expect(run.result).toEqual({ ok: true, outputJson: '"fast"' });
    expect(run.batches).toHaveLength(1);
  });

  it("brings calls that finish together back in one wait", async () => {
    gate.current = createDeferred<string>();
    gate.waiting = 0;
    const running = runGuest(
      "const r = await Promise.all(Array.from({ length: 50 }, () => tools.t.held({}))); return r.length;",
    );
    await expect.poll(() => gate.waiting, { timeout: 10_000 }).toBe(50);
    gate.current.resolve("open");
    const run = await running;
    expect(run.result).toEqual({ ok: true, outputJson: "50" });
    expect(run.batches).toHaveLength(1);
    expect(run.waits).toBeLessThanOrEqual(2);
  });

  it("sends a call refused in the sandbox as a refusal, without its arguments", async () => {
    const run = await runGuest(
      `const codes = [];
      for (const input of [{ n: 1n }, { f() {} }, { s: "x".repeat(5000) }, { ["k".repeat(1e6)]: 1n }]) {
        try { await tools.t.echo(input); } catch (e) { codes.push([e.code, e.callId]); }
      }
      try { await tools(); } catch (e) { codes.push([e.code, e.callId]); }
      return codes;`,
      { maxArgumentBytes: 1000 },
    );
    const ids = run.bridge.records.map((record) => record.id);
    expect(run.result.ok && JSON.parse(run.result.outputJson)).toEqual([
      ["INPUT_INVALID", ids[0]],
      ["INPUT_INVALID", ids[1]],
      ["ARGUMENT_TOO_LARGE", ids[2]],
      ["INPUT_INVALID", ids[3]],
      ["TOOL_NOT_FOUND", ids[4]],
    ]);
    expect(ids).toHaveLength(5);
    expect(run.bridge.records[2]?.bytesIn).toBeGreaterThan(1000);
    for (const batch of run.batches) expect(batch.length).toBeLessThan(2_000);
  });

  it("sends every argument as JSON.stringify writes it, a flat record too (written without the replacer)", async () => {
    const run = await runGuest(
      `const many = {};
      for (let i = 0; i < 17; i++) many["k" + i] = i;
      let reads = 0;
      class Point { constructor() { this.x = 1; } }
      const values = [
        {}, { a: 1, b: "two", c: true, d: false, e: null },
        { s: 'é\u2028"\\\n\u0000\ud800', 'key "q"': "v" },
        { n: -0, x: NaN, y: Infinity, z: 1e21, w: 0.1, m: -5e-7 },
        { u: undefined, k: 1 }, JSON.parse('{"__proto__": 1, "a": 2}'), many, { nested: { a: 1 }, list: [1] },
        Object.assign(Object.create(null), { a: 1 }), new Point(),
        { get g() { reads++; return 5; }, h: "x" },
      ];
      const expected = values.map((value) => JSON.stringify(value));
      for (const value of values) await tools.t.echo(value);
      Object.prototype.toJSON = function () { return { replaced: true }; };
      try {
        expected.push(JSON.stringify({ a: 1 }));
        await tools.t.echo({ a: 1 });
      } finally {
        delete Object.prototype.toJSON;
      }
      return { expected, reads };`,
    );
    expect(run.result.ok).toBe(true);
    const { expected, reads } = JSON.parse((run.result as { outputJson: string }).outputJson) as {
      expected: string[];
      reads: number;
    };
    const sent = run.batches.flatMap((batch) =>
      (decodeCallBatch(batch)?.requests ?? []).map((request) => (request.kind === "call" ? request.argsJson : "")),
    );
    expect(sent).toEqual(expected);
    expect(expected.at(-1)).toBe('{"replaced":true}');
    // JSON.stringify in the program read the getter once, the crossing once more.
    expect(reads).toBe(2);
  });

  it("refuses a flat record over the argument limit with the replacer's own message", async () => {
    const run = await runGuest(
      `const messages = [];
      for (const input of [{ s: "x".repeat(1000) }, { s: "é".repeat(600) }, { n: 1, s: "x".repeat(960) }]) {
        try { await tools.t.echo(input); messages.push("sent"); } catch (e) { messages.push(e.code + ": " + e.message); }
      }
      return messages;`,
      { maxArgumentBytes: 1000 },
    );
    expect(run.result.ok && JSON.parse(run.result.outputJson)).toEqual([
      "ARGUMENT_TOO_LARGE: The argument is larger than the 1000-byte limit.",
      "ARGUMENT_TOO_LARGE: The argument is 1208 bytes, over the 1000-byte limit.",
      "sent",
    ]);
  });

  it("keeps an argument's size limit when its toJSON makes a call of its own", async () => {
    const run = await runGuest(
      `const arg = { a: "x".repeat(900), b: { toJSON() { void tools.t.echo({ inner: 1 }); return "y".repeat(900); } } };
      try { await tools.t.echo(arg); return "sent"; } catch (e) { return e.code; }`,
      { maxArgumentBytes: 1000 },
    );
    expect(run.result).toEqual({ ok: true, outputJson: '"ARGUMENT_TOO_LARGE"' });
  });

  it("cuts a 20 MB error message and its stack inside the isolate, before they cross", async () => {
    const run = await runGuest('throw new Error("A".repeat(2e7));');
    expect(run.resultText.length).toBeLessThan(3 * MAX_ERROR_TEXT_CHARS);
    expect(run.result).toMatchObject({ ok: false, code: "RUNTIME_ERROR" });
    expect(!run.result.ok && run.result.stack).toContain(`${PROGRAM_FILE}:2:`);
  });

  it("cuts a deep recursion's stack with every frame kept by Error.stackTraceLimit", async () => {
    const run = await runGuest(
      "Error.stackTraceLimit = Infinity; const f = (n) => n === 0 ? null.x : f(n - 1); f(50000);",
    );
    expect(run.resultText.length).toBeLessThan(3 * MAX_ERROR_TEXT_CHARS);
  });
});

describe("the guest's console", () => {
  it("hands every line to the host when the isolate is disposed, also lines written after the last call", async () => {
    const run = await runGuest("await tools.t.echo({}); console.log('x'); console.warn('y', { z: 1 }); return 1;");
    expect(run.lines).toEqual(["x", '[warn] y {"z":1}']);
  });

  it("keeps lines written before the isolate was disposed in the middle of a loop", async () => {
    const run = await runGuest("await tools.t.echo({}); console.log('spinning'); while (true) {}", { wallMs: 300 });
    expect(run.lines).toEqual(["spinning"]);
  });
});
