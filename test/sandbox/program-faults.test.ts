import { afterAll, describe, expect, it } from "vitest";
import type { RunResult } from "../../src/contract.js";
import { MAX_CALL_ERROR_MESSAGE_CHARS } from "../../src/execute-tool-call.js";
import { runResultToToolResult } from "../../src/gateway/gateway-tools.js";
import { renderRunResultForModel } from "../../src/model-tools/render-for-model.js";
import { defineTool } from "../../src/registry/define-tool.js";
import { Switchyard } from "../../src/switchyard.js";
import { MAX_ERROR_TEXT_CHARS } from "../../runtime/wire.js";

const pathTool = (name: string) =>
  defineTool({
    name,
    description: "Answers with its name.",
    inputSchema: { type: "object" },
    effect: "read",
    execute: () => name,
  });

const yard = new Switchyard({
  tools: [pathTool("toString.run"), pathTool("constructor.go"), pathTool("hasOwnProperty.check")],
  typeCheck: "off",
});
afterAll(() => yard.close());

describe("program faults are the program's, with their place in its source", () => {
  it("reports a promise rejected before the first await as RUNTIME_ERROR at its line, not INTERNAL_ERROR", async () => {
    const result = await yard.run(`const a = 1;\nPromise.reject(new Error("oops"));\nreturn a;`);
    expect(result.error).toMatchObject({ code: "RUNTIME_ERROR", line: 2 });
    expect(result.error?.message).toContain("oops");
  });

  it("reports a program nested too deeply for V8's parser as SYNTAX_ERROR", async () => {
    const result = await yard.run(`return ${"[".repeat(45_000)}${"]".repeat(45_000)};`);
    expect(result.error?.code).toBe("SYNTAX_ERROR");
  });
});

describe("the tools object has no prototype members", () => {
  it("calls namespaces named like Object.prototype members", async () => {
    const result = await yard.run(
      "return [await tools.toString.run({}), await tools.constructor.go({}), await tools.hasOwnProperty.check({})];",
    );
    expect(result.output).toEqual(["toString.run", "constructor.go", "hasOwnProperty.check"]);
  });

  it("does not hand out Object or its prototype through `tools`", async () => {
    const result = await yard.run(
      "const t = tools as any; return [t.constructor === Object, t.__proto__ === Object.prototype, typeof t.valueOf];",
    );
    expect(result.output).toEqual([false, false, "function"]);
  });
});

describe("error texts are capped wherever they travel", () => {
  const huge = defineTool({
    name: "big.fail",
    description: "Throws a 1 MB message.",
    inputSchema: { type: "object" },
    effect: "read",
    execute: () => {
      throw new Error("B".repeat(1_000_000));
    },
  });
  const capped = new Switchyard({ tools: [huge], typeCheck: "off" });
  afterAll(() => capped.close());

  const expectBounded = (result: RunResult, source: string): void => {
    expect(result.error?.code).toBe("RUNTIME_ERROR");
    expect(result.error?.message.length).toBeLessThanOrEqual(MAX_ERROR_TEXT_CHARS);
    expect(result.error?.message).toContain("characters in all]");
    // What a model reads, from the agent loop and framework tools, and from the gateway.
    expect(renderRunResultForModel(result).length).toBeLessThan(MAX_ERROR_TEXT_CHARS + 1_000);
    const gateway = runResultToToolResult(result, source);
    expect(JSON.stringify(gateway).length).toBeLessThan(3 * MAX_ERROR_TEXT_CHARS);
  };

  it.each([
    ["an Error with a 20 MB message", 'throw new Error("A".repeat(2e7));', 1],
    ["a thrown 20 MB string", 'throw "A".repeat(2e7);', undefined],
    ["a 20 MB message rejected before the first await", 'Promise.reject(new Error("A".repeat(2e7)));\nreturn 1;', 1],
  ])("cuts %s to the cap, keeping its line", async (_label, source, line) => {
    const result = await capped.run(source);
    expectBounded(result, source);
    expect(result.error?.line).toBe(line);
  });

  it("names the line of an Error whose message is cut", async () => {
    const result = await capped.run('const a = 1;\nthrow new Error("A".repeat(2e7) + a);');
    expect(result.error).toMatchObject({ code: "RUNTIME_ERROR", line: 2 });
    expect(result.error?.message).toMatch(/at line 2: throw new Error/);
  });

  it("caps a failed call's message before the program sees it, behind a visible marker", async () => {
    const result = await capped.run(
      "try { await tools.big.fail({}); } catch (e) { return [(e as Error).message.length, (e as Error).message.slice(-40)]; }",
    );
    const [length, tail] = result.output as [number, string];
    expect(length).toBeLessThanOrEqual(MAX_CALL_ERROR_MESSAGE_CHARS);
    expect(tail).toContain("characters in all]");
  });
});
