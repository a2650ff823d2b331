import { afterEach, describe, expect, it } from "vitest";
import type { JsonSchema } from "../../src/contract.js";
import { defineTool, type ToolDefinition } from "../../src/registry/define-tool.js";
import { ToolRegistry } from "../../src/registry/tool-registry.js";
import {
  compileSchema,
  formatViolations,
  prepareSchema,
  schemaCompileCount,
} from "../../src/schema/schema-validator.js";
import { Switchyard } from "../../src/switchyard.js";
import { configErrorOf } from "../helpers/config-error.js";

const ORDER_SCHEMA = {
  type: "object",
  properties: {
    customerId: { type: "string" },
    pageSize: { type: "integer", minimum: 1, maximum: 100 },
    status: { enum: ["open", "closed"] },
    ref: { $ref: "#/$defs/code" },
  },
  required: ["customerId"],
  additionalProperties: false,
  $defs: { code: { type: "string", pattern: "^[A-Z]{3}$" } },
} as const;

function tool(name: string, inputSchema: JsonSchema, extra: Partial<ToolDefinition> = {}): ToolDefinition {
  return defineTool({ name, description: `${name} for tests.`, inputSchema, execute: () => "ran", ...extra });
}

const sessions: Switchyard[] = [];
afterEach(async () => {
  await Promise.all(sessions.splice(0).map((session) => session.close()));
});

describe("schemas compiled on first use", () => {
  it("registers 2,000 tools without one ajv compile, then compiles a schema once, on its first call", async () => {
    const tools = Array.from({ length: 2_000 }, (_, index) =>
      tool(`svc${Math.floor(index / 100)}.op${index % 100}`, structuredClone(ORDER_SCHEMA) as JsonSchema),
    );
    const before = schemaCompileCount();
    const session = new Switchyard({ tools, typeCheck: "off" });
    sessions.push(session);
    expect(schemaCompileCount()).toBe(before);

    const first = await session.callTool("svc3.op7", { customerId: "c1", ref: "ABC" });
    expect(first).toMatchObject({ status: "ok", value: "ran" });
    expect(schemaCompileCount()).toBe(before + 1);
    await session.callTool("svc3.op7", { customerId: "c2" });
    expect(schemaCompileCount()).toBe(before + 1);
  });

  it("gives a failing first call the same INPUT_INVALID text an eagerly compiled schema gives", async () => {
    const input = { pageSize: 500, status: "lost", extra: 1, ref: "abcd" };
    const session = new Switchyard({ tools: [tool("orders.search", structuredClone(ORDER_SCHEMA) as JsonSchema)] });
    sessions.push(session);
    const outcome = await session.callTool("orders.search", input);
    expect(outcome.status).toBe("invalid");
    const eager = compileSchema(structuredClone(ORDER_SCHEMA) as JsonSchema, "eager")(input);
    expect(eager.length).toBe(5);
    const error = (outcome as { error: { code: string; message: string; details: unknown } }).error;
    expect(error.code).toBe("INPUT_INVALID");
    expect(error.message).toBe(formatViolations("Invalid input for orders.search", eager));
    expect(error.details).toEqual(eager);
  });

  it("still rejects at registration, with SCHEMA_INVALID and ajv's own text, every schema ajv cannot compile", () => {
    const invalid: JsonSchema[] = [
      { type: "nonsense" },
      { minimum: "ten" },
      { properties: { a: { required: "a" } } },
      { $ref: "#/$defs/missing" },
      { properties: { a: { $ref: "#/properties/b" } } },
      { $ref: "other.json#/x" },
      { type: "string", pattern: "[unclosed" },
      { patternProperties: { "(": { type: "string" } } },
      { $schema: "http://json-schema.org/draft-04/schema#", type: "object" },
      { $schema: "http://json-schema.org/draft-07/schema#", items: [{ type: "string" }], additionalItems: 3 },
      // What draft-07's meta-schema allows and ajv's compile refuses: an empty enum, a cycle of bare references.
      { properties: { a: { enum: [] } } },
      { properties: { a: { $ref: "#/properties/a" } } },
      { $defs: { x: { $ref: "#/$defs/y" }, y: { $ref: "#/$defs/x" } }, properties: { a: { $ref: "#/$defs/x" } } },
    ];
    for (const schema of invalid) {
      const eager = configErrorOf(() => compileSchema(structuredClone(schema), 'Tool "x.y" inputSchema'));
      const registered = configErrorOf(() => new ToolRegistry([tool("x.y", structuredClone(schema))]));
      expect(registered.code, JSON.stringify(schema)).toBe("SCHEMA_INVALID");
      expect(registered.message).toBe(eager.message);
    }
    const output = configErrorOf(
      () => new ToolRegistry([tool("x.y", { type: "object" }, { outputSchema: { type: 3 } })]),
    );
    expect(output.code).toBe("SCHEMA_INVALID");
    expect(output.message).toContain('Tool "x.y" outputSchema');
  });

  it("compiles now a schema whose references the meta-schema cannot vouch for, and accepts it when it is valid", () => {
    const before = schemaCompileCount();
    const valid: JsonSchema[] = [
      // "$ref" inside data the walk cannot tell from a schema, and nested $ids: both compile fine with ajv.
      { dependentRequired: { a: ["b"] }, default: { $ref: "#/nowhere" } },
      { $defs: { inner: { $id: "https://example.com/inner", type: "string" } }, properties: { x: { $id: "x" } } },
    ];
    for (const schema of valid) prepareSchema(schema, "valid");
    expect(schemaCompileCount()).toBe(before + valid.length);
    // Plain local references that resolve (an escaped pointer too) are vouched for without a compile.
    prepareSchema({ $defs: { s: { type: "string" } }, $ref: "#/$defs/s" }, "local");
    const escaped = prepareSchema(
      { $defs: { "a/b": { type: "string" } }, properties: { x: { $ref: "#/$defs/a~1b" } } },
      "escaped",
    );
    expect(schemaCompileCount()).toBe(before + valid.length);
    expect(escaped({ x: 3 })).toEqual([{ path: "/x", expected: "type string", received: "number 3" }]);
  });

  it("ends on hostile schemas: a cyclic object and one nested 100,000 deep throw SCHEMA_INVALID like a compile", () => {
    const cyclic: Record<string, unknown> = { type: "object", properties: {} };
    (cyclic["properties"] as Record<string, unknown>)["self"] = cyclic;
    let deep: Record<string, unknown> = { type: "string" };
    for (let depth = 0; depth < 100_000; depth++) deep = { type: "object", properties: { a: deep } };
    for (const schema of [cyclic, deep] as JsonSchema[]) {
      const eager = configErrorOf(() => compileSchema(schema, "eager"));
      expect(eager.code).toBe("SCHEMA_INVALID");
      expect(configErrorOf(() => prepareSchema(schema, "lazy")).code).toBe("SCHEMA_INVALID");
    }
  });

  it("checks inputExamples at registration, compiling that schema then; a bad one is EXAMPLE_INVALID", () => {
    const schema = () => structuredClone(ORDER_SCHEMA) as JsonSchema;
    const bad = configErrorOf(
      () => new ToolRegistry([tool("a.x", schema(), { inputExamples: [{ customerId: "ok" }, { customerId: 7 }] })]),
    );
    expect(bad.code).toBe("EXAMPLE_INVALID");
    expect(bad.message).toContain("inputExamples[1]");
    expect(bad.message).toContain("/customerId");
    const before = schemaCompileCount();
    const other = { ...(schema() as object), title: "another shape" } as JsonSchema;
    new ToolRegistry([tool("a.y", other, { inputExamples: [{ customerId: "fine", ref: "XYZ" }] })]);
    expect(schemaCompileCount()).toBe(before + 1);
  });

  it("compiles one schema object once however many tools and checks share it", () => {
    const shared = { ...structuredClone(ORDER_SCHEMA), title: "shared by two tools" } as JsonSchema;
    const before = schemaCompileCount();
    const registry = new ToolRegistry([tool("s.a", shared), tool("s.b", shared)]);
    for (const registered of registry.snapshot().tools) registered.validateInput({ customerId: "c" });
    expect(schemaCompileCount()).toBe(before + 1);
  });

  // Attack: a schema the registration check passes but ajv's code generator cannot compile (a chain
  // of $refs deeper than its recursion), so the first call is where it fails. Before, callTool
  // rejected (and left an unhandled rejection that ends a default Node process) and a program's
  // call failed "Internal error in the host pipeline".
  it("answers every call of a tool whose schema fails its first-call compile with TOOL_ERROR saying so, never a rejection", async () => {
    const links = 2_000;
    const $defs = Object.fromEntries(
      Array.from({ length: links }, (_, index) => [
        `D${index}`,
        { type: "object", properties: { next: { $ref: `#/$defs/D${(index + 1) % links}` } } },
      ]),
    );
    let executed = 0;
    const chain = tool(
      "chain.tool",
      { type: "object", $defs, properties: { root: { $ref: "#/$defs/D0" } } },
      {
        execute: () => ++executed,
      },
    );
    const yard = new Switchyard({ tools: [chain], typeCheck: "off" });
    sessions.push(yard);
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown): void => void unhandled.push(reason);
    process.on("unhandledRejection", onUnhandled);
    try {
      const first = await yard.callTool("chain.tool", {}, { callId: "c-1" });
      const second = await yard.callTool("chain.tool", {}, { callId: "c-2" });
      for (const [outcome, id] of [
        [first, "c-1"],
        [second, "c-2"],
      ] as const) {
        expect(outcome).toMatchObject({ callId: id, status: "error", error: { code: "TOOL_ERROR" } });
        expect(outcome.status === "error" ? outcome.error.message : "").toMatch(
          /^The call was not made: Tool "chain.tool" inputSchema: the JSON Schema does not compile: .+\. The tool's author has to fix the schema\.$/,
        );
      }
      const run = await yard.run(
        "try { await tools.chain.tool({}); return 'made'; } catch (error) { return isToolCallError(error) ? error.code : 'other'; }",
      );
      expect(run.output).toBe("TOOL_ERROR");
      expect(run.calls.map((call) => [call.status, call.code])).toEqual([["error", "TOOL_ERROR"]]);
      await new Promise((resolve) => setImmediate(resolve));
      expect(unhandled).toEqual([]);
      expect(executed).toBe(0);
    } finally {
      process.off("unhandledRejection", onUnhandled);
    }
  });
});
