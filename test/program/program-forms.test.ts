// The shapes a program may take, through a real session (type check, compile, isolate): the
// body of an async function, or one function expression (the form other code-mode tools use)
// that is called and whose result is returned. A program that returns nothing is warned about.

import { afterAll, describe, expect, it } from "vitest";
import type { RunResult } from "../../src/contract.js";
import { renderRunResultForModel } from "../../src/model-tools/render-for-model.js";
import { mayBeExpressionProgram } from "../../src/program/program-wrapper.js";
import { defineTool } from "../../src/registry/define-tool.js";
import { RETURNED_NOTHING } from "../../src/sandbox/run-program.js";
import { Switchyard } from "../../src/switchyard.js";

const double = defineTool({
  name: "util.double",
  description: "Doubles x.",
  effect: "read",
  inputSchema: { type: "object", properties: { x: { type: "number" } }, required: ["x"], additionalProperties: false },
  outputSchema: { type: "object", properties: { y: { type: "number" } }, required: ["y"] },
  execute: (input: { x: number }) => ({ y: input.x * 2 }),
});

const yard = new Switchyard({ tools: [double] });
afterAll(() => yard.close());

const returnedNothing = (result: RunResult) => result.warnings.filter((warning) => warning.code === RETURNED_NOTHING);

describe("program forms", () => {
  it.each([
    ["an async arrow function", "async () => {\n  const { y } = await tools.util.double({ x: 21 });\n  return y;\n}"],
    ["an async function declaration", "async function main() {\n  return (await tools.util.double({ x: 21 })).y;\n}"],
    ["a plain arrow with a trailing semicolon", "() => 42;"],
    ["a typed arrow (TypeScript syntax)", "async (): Promise<number> => {\n  return 42;\n}"],
    ["an arrow after a comment", "// the model's note\nasync () => (await tools.util.double({ x: 21 })).y"],
    ["an async IIFE", "(async () => {\n  return (await tools.util.double({ x: 21 })).y;\n})()"],
  ])("calls a program that is %s and returns its result", async (_name, source) => {
    const result = await yard.run(source);
    expect(result.error).toBeUndefined();
    expect(result.output).toBe(42);
    expect(returnedNothing(result)).toEqual([]);
  });

  it("reports a runtime error inside a function-expression program at the model's own line", async () => {
    const result = await yard.run("async () => {\n  const a = 1;\n  throw new Error(`boom ${a}`);\n}");
    expect(result.error).toMatchObject({ code: "RUNTIME_ERROR", line: 3 });
    expect(result.error?.message).toContain("boom 1");
  });

  it("reports a type error inside a function-expression program at the model's own line and column", async () => {
    const result = await yard.run("async () => {\n  const r = await tools.util.doubel({ x: 1 });\n  return r;\n}");
    expect(result.error?.code).toBe("TYPE_ERROR");
    expect(result.error).toMatchObject({ line: 2, column: 30 });
    expect(result.calls).toEqual([]);
  });

  it("still refuses a wrong input field inside a function-expression program", async () => {
    const result = await yard.run("async () => tools.util.double({ z: 1 })");
    expect(result.error?.code).toBe("TYPE_ERROR");
    expect(result.error?.line).toBe(1);
  });

  it("runs a program that only starts like a function as a body", async () => {
    const result = await yard.run("(globalThis as { n?: number }).n = 1;\nreturn 2;");
    expect(result.output).toBe(2);
  });

  it("reports a syntax error of a function-shaped program against the body form, at the model's line", async () => {
    const result = await yard.run("async () => {\n  const = 1;\n}");
    expect(result.error).toMatchObject({ code: "SYNTAX_ERROR", line: 2 });
  });

  it("warns, on the last line, when a program returns nothing, and the model's text says so", async () => {
    const result = await yard.run("const { y } = await tools.util.double({ x: 1 });\nconsole.log(y);\n");
    expect(result.ok).toBe(true);
    expect(result.output).toBeNull();
    const [warning] = returnedNothing(result);
    expect(warning).toMatchObject({ line: 2, severity: "warning" });
    expect(warning?.message).toMatch(/^the program returned nothing/);
    expect(renderRunResultForModel(result)).toContain("warning line 2: the program returned nothing");
  });

  it("warns when a function-expression program's function returns nothing", async () => {
    const result = await yard.run("async () => { await tools.util.double({ x: 1 }); }");
    expect(returnedNothing(result)).toHaveLength(1);
  });

  it("does not warn when a program returns null on purpose", async () => {
    const result = await yard.run("return null;");
    expect(result.output).toBeNull();
    expect(returnedNothing(result)).toEqual([]);
  });

  it("does not warn for a failed run", async () => {
    const result = await yard.run("throw new Error('no');");
    expect(result.ok).toBe(false);
    expect(returnedNothing(result)).toEqual([]);
  });
});

describe("mayBeExpressionProgram", () => {
  it("tries the expression form only for programs that start like a function", () => {
    expect(mayBeExpressionProgram("async () => 1")).toBe(true);
    expect(mayBeExpressionProgram("  /* note */ function main() {}")).toBe(true);
    expect(mayBeExpressionProgram("x => x")).toBe(true);
    expect(mayBeExpressionProgram("const x = 1; return x;")).toBe(false);
    expect(mayBeExpressionProgram("return async () => 1;")).toBe(false);
    expect(mayBeExpressionProgram("await tools.a.b({})")).toBe(false);
  });
});
