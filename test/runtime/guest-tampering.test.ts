// A program may replace any global or prototype member before it calls a tool. The guest
// runtime uses only the built-ins it captured before the program ran, so tampering can break
// the program's own code but never a crossing or the run's ending: each program here ends
// quickly, with its calls answered or with its own error, never by the wall-time limit.

import { afterAll, describe, expect, it } from "vitest";
import { Switchyard } from "../../src/switchyard.js";
import { echoTool } from "../helpers/pipeline-fixtures.js";

const WALL_TIME_MS = 8_000;
const yard = new Switchyard({ tools: [echoTool("t.echo")], typeCheck: "off", limits: { wallTimeMs: WALL_TIME_MS } });
afterAll(() => yard.close());

const run = async (source: string) => {
  const startedAt = Date.now();
  const result = await yard.run(source);
  return { result, ms: Date.now() - startedAt };
};

const WIRE_KEYS = ["ok", "index", "value", "code", "message", "callId", "details", "tool", "name", "input", "then"];

describe("a program that tampers with built-ins before calling a tool", () => {
  it.each([
    ["replaces JSON.stringify and JSON.parse", `JSON.stringify = () => "{}"; JSON.parse = () => ({});`],
    [
      "replaces Function.prototype.call, apply and bind",
      "Function.prototype.call = Function.prototype.apply = Function.prototype.bind = function () { return 1; } as any;",
    ],
    [
      "replaces Reflect.apply and Object.defineProperty",
      "(Reflect as any).apply = () => 1; (Object as any).defineProperty = () => ({});",
    ],
    [
      "puts a setter on Array.prototype[0] and [1] that swallows writes",
      'for (const i of ["0", "1"]) Object.defineProperty(Array.prototype, i, { set() {}, get() { return undefined; }, configurable: true });',
    ],
    [
      "puts swallowing setters on Object.prototype for the wire's keys",
      `for (const k of ${JSON.stringify(WIRE_KEYS.filter((k) => k !== "then"))}) (Object.prototype as any).__defineSetter__(k, function () {});`,
    ],
    [
      "puts a get accessor on Object.prototype (descriptors would turn into accessors)",
      "(Object.prototype as any).get = function () { return 1; }; (Object.prototype as any).set = function () {};",
    ],
    ["makes Promise.prototype.then a no-op", "Promise.prototype.then = function (this: any) { return this; } as any;"],
    [
      "replaces Promise.prototype.constructor (assignment is ignored)",
      "(Promise.prototype as any).constructor = function () { throw new Error('constructor'); };",
    ],
    [
      "replaces Array.prototype.push, pop and the Array iterator",
      "Array.prototype.push = () => 0; Array.prototype.pop = () => undefined; (Array.prototype as any)[Symbol.iterator] = function* () {};",
    ],
    [
      "replaces the Map and WeakSet methods",
      "Map.prototype.get = () => undefined; Map.prototype.set = function (this: any) { return this; }; WeakSet.prototype.has = () => true;",
    ],
    [
      "replaces String.prototype.slice, charCodeAt and indexOf",
      "String.prototype.slice = () => ''; String.prototype.charCodeAt = () => 0; String.prototype.indexOf = () => -1;",
    ],
    [
      "defines Error[Symbol.hasInstance] that throws",
      "Object.defineProperty(Error, Symbol.hasInstance, { value: () => { throw new Error('instanceof'); } });",
    ],
  ])("still gets its calls, its sleep and its end when it %s", async (_what, tampering) => {
    const { result, ms } = await run(
      // Only `await` (which a program cannot redirect for native promises), two calls in one batch, a sleep.
      `${tampering}\nawait tools.t.echo({ a: 1 });\nawait sleep(5);\nconst b = tools.t.echo({ b: 2 });\nconst c = tools.t.echo({ c: 3 });\nawait b;\nawait c;\nconsole.log("done");\nreturn "end";`,
    );
    expect(ms).toBeLessThan(WALL_TIME_MS / 2);
    expect(result.error?.code).not.toBe("TIMEOUT");
    expect(result.error?.code).not.toBe("INTERNAL_ERROR");
    if (!result.ok) expect(result.error?.code).toBe("RUNTIME_ERROR");
    // Every call the program made crossed and has its record.
    expect(result.calls.map((call) => call.status)).toEqual(["ok", "ok", "ok"]);
  });

  it("cannot give promises a species of its own: the attempt is its own TypeError, at its line", async () => {
    const { result } = await run(
      "await tools.t.echo({});\nObject.defineProperty(Promise, Symbol.species, { get() { throw new Error('species'); } });",
    );
    expect(result.error).toMatchObject({ code: "RUNTIME_ERROR", line: 2 });
    expect(result.error?.message).toContain("TypeError");
  });

  it("ends the combination the issue describes (JSON, call, Array.prototype[0], Object.prototype setters, then) with its calls answered", async () => {
    const { result, ms } = await run(
      [
        `JSON.stringify = () => "{}"; JSON.parse = () => ({});`,
        "Function.prototype.call = function () { return 1; } as any;",
        'Object.defineProperty(Array.prototype, "0", { set() {}, get() { return undefined; }, configurable: true });',
        `for (const k of ${JSON.stringify(WIRE_KEYS.filter((k) => k !== "then"))}) (Object.prototype as any).__defineSetter__(k, function () {});`,
        "const then = Promise.prototype.then;",
        "Promise.prototype.then = function (this: any) { return this; } as any;",
        "const answer: any = await tools.t.echo({ a: 1 });",
        "Promise.prototype.then = then;",
        "return Object.keys(answer).length;",
      ].join("\n"),
    );
    expect(ms).toBeLessThan(WALL_TIME_MS / 2);
    expect(result).toMatchObject({ ok: true, output: 1 });
    expect(result.calls).toHaveLength(1);
  });

  it("still has its failed calls recognised by isToolCallError, with their code and call id", async () => {
    const { result } = await run(
      [
        "Object.defineProperty(Error.prototype, 'code', { set() {}, get() { return 'FORGED'; }, configurable: true });",
        "WeakSet.prototype.has = () => false;",
        "try { await (tools as any).t.missing({}); } catch (error: any) {",
        "  return [isToolCallError(error), isToolCallError({ code: 'TOOL_NOT_FOUND' }), error.code, typeof error.callId];",
        "}",
      ].join("\n"),
    );
    expect(result.output).toEqual([true, false, "TOOL_NOT_FOUND", "string"]);
  });

  it("ends with its own error, at its line, when it throws after breaking String.prototype.slice", async () => {
    const { result } = await run(
      'String.prototype.slice = () => "";\nawait tools.t.echo({});\nthrow new Error("mine");',
    );
    expect(result.error).toMatchObject({ code: "RUNTIME_ERROR", line: 3 });
    expect(result.error?.message).toContain("mine");
  });

  it("keeps the line and note of a failed call it never catches after replacing the String and Reflect methods", async () => {
    const { result } = await run(
      [
        "String.prototype.replace = String.prototype.replaceAll = String.prototype.slice = () => { throw new Error('string'); };",
        "(String.prototype as any)[Symbol.replace] = () => { throw new Error('symbol'); }; (Reflect as any).apply = () => 1;",
        "(Error as any).captureStackTrace = () => { throw new Error('capture'); };",
        "await (tools as any).t.missing({});",
      ].join("\n"),
    );
    expect(result.error).toMatchObject({ code: "RUNTIME_ERROR", line: 4 });
    expect(result.error?.message).toContain("TOOL_NOT_FOUND from tools.t.missing, call ");
  });

  it("ends with its output when Object.prototype.toJSON is defined (the error and end encodings do not call it)", async () => {
    const { result } = await run('(Object.prototype as any).toJSON = () => "hijacked";\nthrow new Error("real");');
    expect(result.error).toMatchObject({ code: "RUNTIME_ERROR", line: 2 });
    expect(result.error?.message).toContain("real");
  });
});

describe("the host's own built-ins", () => {
  it("are left as they were by importing Switchyard: only the guest locks Promise's species and constructor", async () => {
    await run("return 1;");
    expect(Object.getOwnPropertyDescriptor(Promise.prototype, "constructor")).toMatchObject({
      writable: true,
      configurable: true,
    });
    expect(Object.getOwnPropertyDescriptor(Promise, Symbol.species)?.configurable).toBe(true);
  });
});

describe("a program's mistake is its own error, never INTERNAL_ERROR", () => {
  it("reports a call with a BigInt argument it never awaited as RUNTIME_ERROR at the call's line", async () => {
    const { result } = await run("const x = 1;\n(tools as any).t.echo({ n: BigInt(1) }); return 4;");
    expect(result.error).toMatchObject({ code: "RUNTIME_ERROR", line: 2 });
    expect(result.error?.message).toContain("BigInt");
    expect(result.calls).toEqual([
      expect.objectContaining({ tool: "t.echo", status: "invalid", code: "INPUT_INVALID" }),
    ]);
  });

  it("reports a call to a missing tool it never awaited as RUNTIME_ERROR naming the tool", async () => {
    const { result } = await run("(tools as any).t.nope({});\nreturn 1;");
    expect(result.error?.code).toBe("RUNTIME_ERROR");
    expect(result.error?.message).toContain("t.nope");
  });

  it.each([
    ["`tools` itself", "return tools;", '""'],
    ["a namespace of `tools`", "return tools.t;", '""'],
    ["a tool inside a value", "return { echo: tools.t.echo };", '"echo"'],
  ])("refuses to return %s as OUTPUT_NOT_SERIALIZABLE, saying a tool is not a value", async (_what, source, key) => {
    const { result } = await run(source);
    expect(result.error?.code).toBe("OUTPUT_NOT_SERIALIZABLE");
    expect(result.error?.message).toContain(`at ${key}: a tool is not a value`);
    // Serializing it made no call (no `toJSON` tool was called).
    expect(result.calls).toEqual([]);
  });

  it("still calls a tool named toJSON outside serialization", async () => {
    const named = new Switchyard({ tools: [echoTool("t.toJSON")], typeCheck: "off" });
    try {
      const result = await named.run("return await tools.t.toJSON({ a: 1 });");
      expect(result.output).toEqual({ a: 1 });
    } finally {
      await named.close();
    }
  });
});
