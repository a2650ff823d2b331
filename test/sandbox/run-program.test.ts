import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { Switchyard } from "../../src/switchyard.js";
import { defineTool } from "../../src/registry/define-tool.js";
import { ToolError } from "../../src/errors.js";
import type { RunResult } from "../../src/contract.js";
import type { TraceEvent } from "../../src/trace/trace-events.js";
import { createDeferred } from "../helpers/pipeline-fixtures.js";

function createYard(extra: ConstructorParameters<typeof Switchyard>[0] = {}) {
  const state = { inFlight: 0, maxInFlight: 0, calls: 0, lastInput: undefined as unknown };
  const gate = { current: createDeferred() };
  const echo = defineTool({
    name: "util.echo",
    description: "Returns its input doubled.",
    effect: "read",
    inputSchema: {
      type: "object",
      properties: { x: { type: "number" } },
      required: ["x"],
      additionalProperties: false,
    },
    execute: (input: { x: number }) => {
      state.calls++;
      return { y: input.x * 2 };
    },
  });
  const held = defineTool({
    name: "util.held",
    description: "Waits until the test opens the gate.",
    effect: "read",
    inputSchema: { type: "object" },
    execute: async () => {
      state.inFlight++;
      state.maxInFlight = Math.max(state.maxInFlight, state.inFlight);
      await gate.current.promise;
      state.inFlight--;
      return "done";
    },
  });
  const never = defineTool({
    name: "util.never",
    description: "Never returns.",
    effect: "read",
    inputSchema: { type: "object" },
    execute: () => new Promise(() => {}),
  });
  const failing = defineTool({
    name: "util.fail",
    description: "Throws.",
    inputSchema: { type: "object" },
    execute: (input: { kind?: string }) => {
      if (input.kind === "tool-error") throw new ToolError("the upstream said no", { code: "UPSTREAM_REFUSED" });
      // A host error whose stack is full of host paths: only the message may cross.
      throw new Error("boom");
    },
  });
  const inspect = defineTool({
    name: "util.inspect",
    description: "Records what arrived.",
    inputSchema: { type: "object" },
    execute: (input: unknown) => {
      state.lastInput = input;
      return { keys: Object.keys(input as object), protoIsObject: Object.getPrototypeOf(input) === Object.prototype };
    },
  });
  const big = defineTool({
    name: "util.big",
    description: "Returns n bytes.",
    effect: "read",
    inputSchema: { type: "object", properties: { n: { type: "integer" } }, required: ["n"] },
    execute: (input: { n: number }) => "x".repeat(input.n),
  });
  // The type checker would refuse several of these programs before they run; these tests
  // are about the sandbox itself, the layer that must hold when the check is off.
  const yard = new Switchyard({ tools: [echo, held, never, failing, inspect, big], typeCheck: "off", ...extra });
  return { yard, state, gate };
}

function expectOneRecordPerCall(result: RunResult): void {
  const ids = result.calls.map((call) => call.id);
  expect(new Set(ids).size).toBe(ids.length);
  expect(result.stats.toolCalls).toBe(ids.length);
}

describe("Switchyard.run: the program and its output", () => {
  it("returns the program's value, with top-level await and return", async () => {
    const { yard } = createYard();
    const result = await yard.run("const r = await tools.util.echo({ x: 21 });\nreturn r.y;");
    expect(result).toMatchObject({ ok: true, output: 42 });
    expect(result.calls).toEqual([expect.objectContaining({ tool: "util.echo", status: "ok" })]);
  });

  it("strips a surrounding Markdown code fence", async () => {
    const { yard } = createYard();
    const result = await yard.run("```typescript\nreturn 'fenced';\n```\n");
    expect(result.output).toBe("fenced");
  });

  it("turns undefined into null", async () => {
    const { yard } = createYard();
    expect((await yard.run("const x = 1;")).output).toBeNull();
  });

  it.each([
    ["a function", "return { f: () => 1 };"],
    ["a cycle", "const a: any = {}; a.self = a; return a;"],
    ["a BigInt", "return { n: 10n };"],
  ])("refuses %s in the output with OUTPUT_NOT_SERIALIZABLE", async (_label, source) => {
    const { yard } = createYard();
    const result = await yard.run(source);
    expect(result.ok).toBe(false);
    expect(result.error?.code).toBe("OUTPUT_NOT_SERIALIZABLE");
  });

  it("refuses a 100 MB output inside the isolate with OUTPUT_TOO_LARGE", async () => {
    const { yard } = createYard();
    const result = await yard.run("return 'x'.repeat(100_000_000);", { limits: { memoryLimitMb: 512 } });
    expect(result.error?.code).toBe("OUTPUT_TOO_LARGE");
    expect(result.stats.bytesOut).toBe(0);
  });

  it("enforces maxOutputBytes on many small values too", async () => {
    const { yard } = createYard();
    const result = await yard.run("return Array.from({ length: 5000 }, (_, i) => i);", {
      limits: { maxOutputBytes: 1024 },
    });
    expect(result.error?.code).toBe("OUTPUT_TOO_LARGE");
  });

  it("captures console output and cuts it at the log budget with a visible marker", async () => {
    const { yard } = createYard();
    const result = await yard.run("for (let i = 0; i < 10_000; i++) console.log('line', i, { i });", {
      limits: { maxLogLines: 20 },
    });
    expect(result.ok).toBe(true);
    expect(result.logs.length).toBe(21);
    expect(result.logs[0]).toBe('line 0 {"i":0}');
    expect(result.logs.at(-1)).toMatch(/log truncated/);
  });

  it("cuts logs by bytes as well as lines", async () => {
    const { yard } = createYard();
    const result = await yard.run("for (let i = 0; i < 1000; i++) console.warn('y'.repeat(1000));", {
      limits: { maxLogBytes: 4096 },
    });
    const total = result.logs.reduce((sum, line) => sum + line.length, 0);
    expect(total).toBeLessThan(4096 + 200);
    expect(result.logs.at(-1)).toMatch(/log truncated/);
    expect(result.logs[0]).toMatch(/^\[warn\] y+/);
  });
});

describe("Switchyard.run: every log line and every call accounted for", () => {
  it("keeps a line logged after the last call when the program returns right after it", async () => {
    const { yard } = createYard();
    const result = await yard.run('await tools.util.echo({ x: 1 }); console.log("x"); return 1;');
    expect(result).toMatchObject({ ok: true, output: 1, logs: ["x"] });
  });

  it("keeps every line logged after a call, in order", async () => {
    const { yard } = createYard();
    const result = await yard.run(
      "for (let i = 0; i < 5; i++) { await tools.util.echo({ x: i }); console.log('after', i); console.error('e', i); }",
    );
    expect(result.logs).toEqual(Array.from({ length: 5 }, (_, i) => [`after ${i}`, `[error] e ${i}`]).flat());
  });

  it.each([
    ["CPU_LIMIT", "console.log('last words'); while (true) {}", { cpuTimeMs: 200 }],
    ["TIMEOUT", "console.log('last words'); await tools.util.never({});", { wallTimeMs: 300 }],
    [
      "MEMORY_LIMIT",
      "console.log('last words'); const a: number[][] = []; while (true) a.push(new Array(10_000).fill(1));",
      { memoryLimitMb: 16 },
    ],
  ])("keeps the lines logged before a run ended with %s", async (code, ending, limits) => {
    const { yard } = createYard();
    const result = await yard.run(
      `await tools.util.echo({ x: 1 });
console.log('first');
${ending}`,
      { limits },
    );
    expect(result.error?.code).toBe(code);
    expect(result.logs).toEqual(["first", "last words"]);
  });

  it("gives calls refused inside the sandbox a record, an id and trace events, and never runs the tool", async () => {
    const { yard, state } = createYard();
    const events: TraceEvent[] = [];
    yard.trace.subscribe((event) => events.push(event));
    const result = await yard.run(
      `const seen: unknown[] = [];
      for (const input of [{ n: 10n }, { f: () => 1 }, { s: "a".repeat(2_000) }]) {
        try { await tools.util.inspect(input as any); } catch (e) { seen.push([(e as any).code, (e as any).callId]); }
      }
      return seen;`,
      { limits: { maxArgumentBytes: 1_000 } },
    );
    const ids = result.calls.map((call) => call.id);
    expect(result.output).toEqual([
      ["INPUT_INVALID", ids[0]],
      ["INPUT_INVALID", ids[1]],
      ["ARGUMENT_TOO_LARGE", ids[2]],
    ]);
    expect(result.calls).toEqual([
      expect.objectContaining({ tool: "util.inspect", status: "invalid", code: "INPUT_INVALID" }),
      expect.objectContaining({ tool: "util.inspect", status: "invalid", code: "INPUT_INVALID" }),
      expect.objectContaining({ tool: "util.inspect", status: "invalid", code: "ARGUMENT_TOO_LARGE" }),
    ]);
    expect(result.calls[2]?.bytesIn).toBeGreaterThan(1_000);
    expect(state.lastInput).toBeUndefined();
    for (const id of ids) {
      expect(events.filter((event) => "callId" in event && event.callId === id).map((event) => event.type)).toEqual([
        "tool-call-start",
        "tool-call-end",
      ]);
    }
    expectOneRecordPerCall(result);
  });

  it("puts a program's tools.$search and tools.$describe calls in the trace", async () => {
    const { yard } = createYard();
    const events: TraceEvent[] = [];
    yard.trace.subscribe((event) => events.push(event));
    const result = await yard.run("await tools.$search('echo'); await tools.$describe('util.echo'); return 1;");
    expect(result.calls.map((call) => [call.tool, call.status])).toEqual([
      ["$search", "ok"],
      ["$describe", "ok"],
    ]);
    const ended = events.filter((event) => event.type === "tool-call-end");
    expect(ended.map((event) => [event.tool, event.callId])).toEqual(result.calls.map((call) => [call.tool, call.id]));
    expect(events.filter((event) => event.type === "tool-call-start")).toHaveLength(2);
  });

  // Found from outside (2026-12-03): options read before the call existed threw the program's own
  // value synchronously, with no call id and no record.
  it("refuses $search options that throw while read as INPUT_INVALID, each with its record", async () => {
    const { yard } = createYard();
    const result = await yard.run(`
      const codes = [];
      const hostile = [
        { get limit() { throw "getter threw"; } },
        new Proxy({}, { ownKeys() { throw new Error("trap threw"); } }),
      ];
      for (const options of hostile) {
        try { await tools.$search("echo", options); codes.push("answered"); }
        catch (error) { codes.push(isToolCallError(error) ? error.code : "raw " + String(error)); }
      }
      return codes;`);
    expect(result.output).toEqual(["INPUT_INVALID", "INPUT_INVALID"]);
    expect(result.calls.map((call) => [call.tool, call.code])).toEqual([
      ["$search", "INPUT_INVALID"],
      ["$search", "INPUT_INVALID"],
    ]);
  });

  it("does not let a call the program never awaits hold its end", async () => {
    const { yard } = createYard();
    const result = await yard.run("void tools.util.never({}); return 'early';", { limits: { wallTimeMs: 10_000 } });
    expect(result).toMatchObject({ ok: true, output: "early" });
    expect(result.calls).toEqual([expect.objectContaining({ tool: "util.never", status: "cancelled" })]);
  });

  it("ends a wide fan-out at TOOL_CALL_LIMIT in the middle of a batch, one record per call", async () => {
    const { yard } = createYard();
    const result = await yard.run(
      "await Promise.all(Array.from({ length: 60 }, (_, x) => tools.util.echo({ x }).catch(() => null)));",
      { limits: { maxToolCalls: 10 } },
    );
    expect(result.error?.code).toBe("TOOL_CALL_LIMIT");
    expect(result.calls.filter((call) => call.status === "ok")).toHaveLength(10);
    expect(result.calls.length).toBeGreaterThan(10);
    expectOneRecordPerCall(result);
  });
});

describe("Switchyard.run: compile errors in the model's own lines", () => {
  it("reports SYNTAX_ERROR with line and column", async () => {
    const { yard } = createYard();
    const result = await yard.run("const a = 1;\nconst b = ;\nreturn a;");
    expect(result.error).toMatchObject({ code: "SYNTAX_ERROR", line: 2, column: 11 });
    expect(result.calls).toEqual([]);
  });

  it("reports RUNTIME_ERROR with the line of the throw", async () => {
    const { yard } = createYard();
    const result = await yard.run("const a = 1;\nconst b: any = null;\n\nreturn b.missing.field;");
    expect(result.error).toMatchObject({ code: "RUNTIME_ERROR", line: 4 });
    expect(result.error?.message).toContain("Cannot read properties of null");
  });

  it("locates a runtime error in a plain JavaScript program (no transform) by its line", async () => {
    const { yard } = createYard();
    const result = await yard.run("const a = 1;\n\nconst b = null;\nreturn b.field;");
    expect(result.error).toMatchObject({ code: "RUNTIME_ERROR", line: 4 });
  });

  it("runs TypeScript syntax through the transform: types, enums, generics, a type-argument call", async () => {
    const { yard } = createYard();
    const result = await yard.run(`
      interface Point { x: number; y: number }
      enum Color { Red = "red", Blue = "blue" }
      function first<T>(items: readonly T[]): T | undefined { return items[0]; }
      const identity = <T,>(value: T): T => value;
      const point: Point = { x: 1, y: 2 };
      const n = first<number>([7, 8]);
      return { sum: point.x + point.y, color: Color.Blue, n, same: identity<string>("s") as string };`);
    expect(result.output).toEqual({ sum: 3, color: "blue", n: 7, same: "s" });
  });

  it("reads a<b>(c) as TypeScript does, as a call with a type argument", async () => {
    const { yard } = createYard();
    const result = await yard.run("const f = (x: unknown) => x;\nconst g = f;\nreturn g<number>(5);");
    expect(result.output).toBe(5);
  });

  it.each([
    [
      "a getter on message that throws",
      "const e = new Error('x'); Object.defineProperty(e, 'message', { get() { throw new Error('boom'); } }); throw e;",
    ],
    [
      "a Proxy that traps every access",
      "throw new Proxy(new Error('x'), { get() { throw new Error('trap'); }, getPrototypeOf() { throw new Error('trap'); } });",
    ],
    ["a plain value", "await Promise.reject(42);"],
  ])("reports a hostile thrown value (%s) as RUNTIME_ERROR, never as a sandbox failure", async (_label, source) => {
    const { yard } = createYard();
    const result = await yard.run(source);
    expect(result.error?.code).toBe("RUNTIME_ERROR");
  });

  it("refuses source over maxSourceBytes with SOURCE_TOO_LARGE", async () => {
    const { yard } = createYard();
    const result = await yard.run(`return ${JSON.stringify("z".repeat(2000))};`, { limits: { maxSourceBytes: 1000 } });
    expect(result.error?.code).toBe("SOURCE_TOO_LARGE");
  });

  it("compiles deeply nested input in linear space (nested blocks printed indented grow quadratically)", async () => {
    const { yard } = createYard();
    // The type annotation sends it through esbuild: plain JavaScript skips the transform.
    const nested = `const label: string = "nested";\n${"if (1) {".repeat(10_000)}${"}".repeat(10_000)}\nreturn label;`;
    const result = await yard.run(nested);
    expect(result.output).toBe("nested");
  });

  it("keeps working after esbuild's service process dies", async () => {
    const { yard } = createYard();
    // Type annotations make both runs go through esbuild's service; plain JavaScript would not.
    expect((await yard.run("const one: number = 1;\nreturn one;")).output).toBe(1);
    const children = execFileSync("ps", ["-o", "pid=,args=", "--ppid", String(process.pid)], { encoding: "utf8" });
    const service = children.split("\n").find((line) => line.includes("esbuild") && line.includes("--service"));
    expect(service).toBeDefined();
    process.kill(Number(service!.trim().split(/\s+/)[0]), "SIGKILL");
    await new Promise((resolve) => setTimeout(resolve, 100));
    const after = await yard.run("const alive: string = 'still alive';\nreturn alive;");
    expect(after.output).toBe("still alive");
  });
});

describe("Switchyard.run: the bridge", () => {
  it("has all 50 calls of a Promise.all in flight at once", async () => {
    const { yard, state, gate } = createYard();
    const running = yard.run(
      "return (await Promise.all(Array.from({ length: 50 }, () => tools.util.held({})))).length;",
    );
    await expect.poll(() => state.inFlight, { timeout: 10_000 }).toBe(50);
    gate.current.resolve();
    const result = await running;
    expect(result.output).toBe(50);
    expect(state.maxInFlight).toBe(50);
    expect(result.calls).toHaveLength(50);
    expectOneRecordPerCall(result);
  });

  it("gives the program code, message and callId of a failed call, and no host path", async () => {
    const { yard } = createYard();
    const result = await yard.run(`
      const out: unknown[] = [];
      for (const kind of ["tool-error", "plain"]) {
        try { await tools.util.fail({ kind }); }
        catch (e) { const err = e as Error & { code: string; callId: string }; out.push({ code: err.code, message: err.message, callId: err.callId, stack: err.stack, isError: e instanceof Error }); }
      }
      return out;`);
    const [toolError, plain] = result.output as {
      code: string;
      message: string;
      callId: string;
      stack: string;
      isError: boolean;
    }[];
    expect(toolError).toMatchObject({ code: "UPSTREAM_REFUSED", message: "the upstream said no", isError: true });
    expect(toolError?.callId).toBe(result.calls[0]?.id);
    expect(plain?.code).toBe("TOOL_ERROR");
    expect(plain?.message).toBe("boom");
    expect(JSON.stringify(result.output)).not.toMatch(/\/work\/|node_modules|file:\/\/|\.ts:\d/);
    expect(plain?.stack).not.toMatch(/execute-tool-call|run-program/);
  });

  it("rejects invalid input with INPUT_INVALID naming every failing path, before the tool runs", async () => {
    const { yard, state } = createYard();
    const result = await yard.run(
      "try { await tools.util.echo({ x: 'seven', extra: true } as any); } catch (e) { return (e as any).code + '|' + (e as Error).message; }",
    );
    const text = String(result.output);
    expect(text).toMatch(/^INPUT_INVALID\|/);
    expect(text).toContain('/x: expected type number, received string "seven"');
    expect(text).toContain("/extra");
    expect(state.calls).toBe(0);
    expect(result.calls[0]).toMatchObject({ status: "invalid", code: "INPUT_INVALID" });
  });

  it("answers an unknown tool with TOOL_NOT_FOUND naming the closest tool", async () => {
    const { yard } = createYard();
    const result = await yard.run(
      "try { await (tools as any).util.ecko({ x: 1 }); } catch (e) { return [(e as any).code, (e as Error).message]; }",
    );
    expect(result.output).toEqual(["TOOL_NOT_FOUND", expect.stringContaining('"util.echo"')]);
  });

  it("never lets __proto__ or constructor keys pollute host objects", async () => {
    const { yard, state } = createYard();
    const result = await yard.run(
      `return await tools.util.inspect(JSON.parse('{"__proto__": {"polluted": true}, "constructor": {"prototype": {"polluted": true}}, "a": 1}'));`,
    );
    expect(result.ok).toBe(true);
    expect(({} as Record<string, unknown>)["polluted"]).toBeUndefined();
    expect(Object.getPrototypeOf(state.lastInput)).toBe(Object.prototype);
    expect(result.output).toEqual({ keys: ["constructor", "a"], protoIsObject: true });
  });

  it("runs getters and toJSON only inside the isolate", async () => {
    const { yard, state } = createYard();
    const result = await yard.run(`
      let reads = 0;
      const arg = { get x() { reads++; return 5; }, toJSON() { return { fromToJSON: true }; } };
      await tools.util.inspect(arg);
      return reads;`);
    expect(result.ok).toBe(true);
    expect(state.lastInput).toEqual({ fromToJSON: true });
  });

  it("refuses a promise passed as an argument (a missing await) with INPUT_INVALID", async () => {
    const { yard, state } = createYard();
    const result = await yard.run(
      "try { await tools.util.inspect({ p: tools.util.echo({ x: 1 }) }); } catch (e) { return (e as any).code; }",
    );
    expect(result.output).toBe("INPUT_INVALID");
    expect(state.lastInput).toBeUndefined();
  });

  it("refuses oversized and too deeply nested arguments with ARGUMENT_TOO_LARGE", async () => {
    const { yard, state } = createYard();
    const result = await yard.run(`
      const codes: string[] = [];
      try { await tools.util.inspect({ s: "a".repeat(2_000_000) }); } catch (e) { codes.push((e as any).code); }
      let deep: any = {}; for (let i = 0; i < 500; i++) deep = { d: deep };
      try { await tools.util.inspect(deep); } catch (e) { codes.push((e as any).code); }
      return codes;`);
    expect(result.output).toEqual(["ARGUMENT_TOO_LARGE", "ARGUMENT_TOO_LARGE"]);
    expect(state.lastInput).toBeUndefined();
  });

  it("refuses calls once the arguments held for calls in flight pass the budget, so a program cannot pin host memory", async () => {
    const { yard, state, gate } = createYard();
    const running = yard.run(
      `const big = "x".repeat(300_000);
      const pending = Promise.allSettled(Array.from({ length: 10 }, () => tools.util.held({ big })));
      // Crossings reach the host in order: once this answers, the host has seen all ten.
      await tools.util.echo({ x: 1 });
      const settled = await pending;
      return settled.map((entry) => (entry.status === "fulfilled" ? "ok" : (entry.reason as { code: string }).code));`,
      { limits: { maxPendingArgumentBytes: 1_000_000 } },
    );
    await expect.poll(() => state.calls).toBe(1);
    expect(state.inFlight).toBe(3);
    gate.current.resolve();
    const result = await running;
    expect(result.output).toEqual(["ok", "ok", "ok", ...Array.from({ length: 7 }, () => "ARGUMENT_TOO_LARGE")]);
    expect(state.maxInFlight).toBe(3);
  });

  it("ends the run with TOOL_CALL_LIMIT when the program makes too many calls", async () => {
    const { yard } = createYard();
    const result = await yard.run("for (let i = 0; ; i++) { try { await tools.util.echo({ x: i }); } catch {} }", {
      limits: { maxToolCalls: 25 },
    });
    expect(result.error?.code).toBe("TOOL_CALL_LIMIT");
    expect(result.calls.filter((call) => call.status === "ok")).toHaveLength(25);
    expectOneRecordPerCall(result);
  });

  it("cancels calls still pending when the program returns, each with one record", async () => {
    const { yard } = createYard();
    const result = await yard.run(
      "void tools.util.never({}); void tools.util.never({}); await tools.util.echo({ x: 1 }); return 'early';",
    );
    expect(result.output).toBe("early");
    expect(result.calls.map((call) => call.status).sort()).toEqual(["cancelled", "cancelled", "ok"]);
    expectOneRecordPerCall(result);
  });

  it("refuses calls made after the program finished", async () => {
    const { yard } = createYard();
    const result = await yard.run(`
      let late: Promise<unknown> | undefined;
      Promise.resolve().then(() => Promise.resolve()).then(() => { late = tools.util.echo({ x: 1 }).catch((e) => e.code); });
      return 'done';`);
    expect(result.output).toBe("done");
    // Whether the late call was refused in the guest or in the host, it never ran.
    expect(result.calls.filter((call) => call.status === "ok")).toHaveLength(0);
  });

  it("counts bytes that moved inside the sandbox against bytes returned", async () => {
    const { yard } = createYard();
    const result = await yard.run("const s = await tools.util.big({ n: 100_000 }); return s.length;");
    expect(result.stats.bytesIn).toBeGreaterThan(100_000);
    expect(result.stats.bytesOut).toBeLessThan(10);
  });
});

describe("Switchyard.run: isolation and hostile programs", () => {
  it("exposes no WebAssembly, process, require, fetch, setInterval or dynamic import", async () => {
    const { yard } = createYard();
    const result = await yard.run(`
      const dynamic = await import("node:fs").then(() => "loaded", () => "refused");
      return { wasm: typeof WebAssembly, process: typeof (globalThis as any).process, require: typeof (globalThis as any).require,
               fetch: typeof (globalThis as any).fetch, setInterval: typeof (globalThis as any).setInterval, dynamic };`);
    expect(result.output).toEqual({
      wasm: "undefined",
      process: "undefined",
      require: "undefined",
      fetch: "undefined",
      setInterval: "undefined",
      dynamic: "refused",
    });
  });

  it("leaves no installer or host reference on the global object", async () => {
    const { yard } = createYard();
    const result = await yard.run(
      "return Object.getOwnPropertyNames(globalThis).filter((name) => /switchyard|ivm|^Reference$|host|program/i.test(name));",
    );
    expect(result.output).toEqual([]);
  });

  it("ends a synchronous infinite loop with CPU_LIMIT", async () => {
    const { yard } = createYard();
    const result = await yard.run("while (true) {}", { limits: { cpuTimeMs: 200 } });
    expect(result.error?.code).toBe("CPU_LIMIT");
  });

  it("ends an infinite loop after an await the same way", async () => {
    const { yard } = createYard();
    const result = await yard.run("await tools.util.echo({ x: 1 });\nwhile (true) {}", { limits: { cpuTimeMs: 200 } });
    expect(result.error?.code).toBe("CPU_LIMIT");
    expect(result.calls).toHaveLength(1);
  });

  it("ends a run that waits forever with TIMEOUT and cancels the pending call", async () => {
    const { yard } = createYard();
    const result = await yard.run("await tools.util.never({});", { limits: { wallTimeMs: 300 } });
    expect(result.error?.code).toBe("TIMEOUT");
    expect(result.calls).toEqual([expect.objectContaining({ status: expect.stringMatching(/cancelled|timeout/) })]);
  });

  it("ends a memory bomb with MEMORY_LIMIT, and the next run works", async () => {
    const { yard } = createYard();
    const bomb = await yard.run("const a: string[] = []; while (true) a.push('x'.repeat(1024) + a.length);", {
      limits: { memoryLimitMb: 16 },
    });
    expect(bomb.error?.code).toBe("MEMORY_LIMIT");
    const bombAfterAwait = await yard.run(
      "await tools.util.echo({ x: 1 }); const a: number[][] = []; while (true) a.push(new Array(10_000).fill(1));",
      { limits: { memoryLimitMb: 16 } },
    );
    expect(bombAfterAwait.error?.code).toBe("MEMORY_LIMIT");
    const next = await yard.run("return 'fine';");
    expect(next.output).toBe("fine");
  });

  it("cancels a run through its AbortSignal, every pending call getting a record and its log kept", async () => {
    const { yard, state } = createYard();
    const controller = new AbortController();
    const running = yard.run(
      "await tools.util.echo({ x: 1 });\nconsole.log('waiting');\nawait Promise.all([tools.util.held({}), tools.util.held({}), tools.util.never({})]);",
      { signal: controller.signal },
    );
    await expect.poll(() => state.inFlight).toBe(2);
    controller.abort();
    const result = await running;
    expect(result.error?.code).toBe("CANCELLED");
    expect(result.calls.map((call) => call.status)).toEqual(["ok", "cancelled", "cancelled", "cancelled"]);
    expect(result.logs).toEqual(["waiting"]);
  });

  it("does not let one run's spinning continuation block the next run", async () => {
    const { yard } = createYard();
    const first = await yard.run("void tools.util.echo({ x: 1 }).then(() => { while (true) {} }); return 1;", {
      limits: { cpuTimeMs: 200 },
    });
    // Whether the spin starts before or after the output is taken, the isolate is gone.
    expect(first.ok ? first.output : first.error?.code).toSatisfy(
      (value: unknown) => value === 1 || value === "CPU_LIMIT",
    );
    const second = await yard.run("return 2;");
    expect(second.output).toBe(2);
  });
});
