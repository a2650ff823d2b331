import { afterAll, describe, expect, it } from "vitest";
import { defineTool } from "../../src/registry/define-tool.js";
import { Switchyard } from "../../src/switchyard.js";

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
