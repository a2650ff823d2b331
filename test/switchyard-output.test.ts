// Output contracts end to end: `yard.run(source, { outputSchema })` declares the program's return
// type to the checker (a wrong shape is a TYPE_ERROR at the model's line, nothing runs) and
// validates the value once the program has returned (OUTPUT_INVALID), in every program form.

import { afterAll, describe, expect, it } from "vitest";
import type { JsonSchema } from "../src/contract.js";
import { TypeChecker } from "../src/program/type-checker.js";
import { defineTool } from "../src/registry/define-tool.js";
import { Switchyard } from "../src/switchyard.js";

const REPORT_SCHEMA = {
  type: "object",
  properties: {
    checked: { type: "integer" },
    failed: { type: "array", items: { type: "string" } },
    complete: { type: "boolean" },
  },
  required: ["checked", "failed", "complete"],
  additionalProperties: false,
} as const satisfies JsonSchema;

const calls: unknown[] = [];
const list = defineTool({
  name: "orders.list",
  description: "Lists order ids; no outputSchema, so its result is any.",
  effect: "read",
  inputSchema: { type: "object", properties: {} },
  execute: () => {
    calls.push("list");
    return { ids: ["o1", "o2"], total: "2" };
  },
});

const yards: Switchyard[] = [];
function createYard(options: ConstructorParameters<typeof Switchyard>[0] = {}): Switchyard {
  const yard = new Switchyard({ tools: [list], ...options });
  yards.push(yard);
  return yard;
}
afterAll(async () => {
  await Promise.all(yards.map((yard) => yard.close()));
});

// The same program in each form; line 3 (of the body) returns a string where a number is declared.
const FORMS: readonly (readonly [string, (body: string) => string, number])[] = [
  ["a body", (body) => body, 0],
  ["an async arrow function", (body) => `async () => {\n${body}\n}`, 1],
  ["an async function main", (body) => `async function main() {\n${body}\n}`, 1],
  ["a parenthesized async arrow", (body) => `(async () => {\n${body}\n});`, 1],
];

const WRONG = `const page = await tools.orders.list({});
const failed: string[] = [];
if (page.ids.length === 0) return { checked: "none", failed, complete: true };
return { checked: page.ids.length, failed, complete: true };`;

const RIGHT = `const page = await tools.orders.list({});
return { checked: page.ids.length, failed: [], complete: true };`;

describe("Switchyard.run with an outputSchema", () => {
  it.each(FORMS)(
    "refuses a wrong return shape in %s with TYPE_ERROR at that return's line, running nothing",
    async (_form, wrap, offset) => {
      const yard = createYard();
      calls.length = 0;
      const result = await yard.run(wrap(WRONG), { outputSchema: REPORT_SCHEMA });
      expect(result.error).toMatchObject({ code: "TYPE_ERROR", line: 3 + offset });
      expect(result.error?.diagnostics?.[0]?.column).toBe(37);
      expect(result.error?.message).toMatch(/Type 'string' is not assignable to type 'number'/);
      expect(calls).toEqual([]);
      expect(result.calls).toEqual([]);
    },
  );

  it.each(FORMS)("runs a program in %s that returns the declared shape", async (_form, wrap) => {
    const yard = createYard();
    const result = await yard.run(wrap(RIGHT), { outputSchema: REPORT_SCHEMA });
    expect(result.error).toBeUndefined();
    expect(result.output).toEqual({ checked: 2, failed: [], complete: true });
  });

  it("reports a column exactly on the line where the checker annotated an arrow's return type", async () => {
    const yard = createYard();
    const result = await yard.run("async () => ({ checked: 1, failed: [], complete: true, extra: 1 })", {
      outputSchema: REPORT_SCHEMA,
    });
    expect(result.error).toMatchObject({ code: "TYPE_ERROR", line: 1, column: 56 });
    expect(result.error?.message).toContain("'extra' does not exist in type 'ProgramOutput'");
    // Named in a message, the type is quoted: the model never saw ProgramOutput declared.
    expect(result.error?.message).toContain("interface ProgramOutput");
  });

  it("checks a non-async arrow and a function's own annotation against the declared type", async () => {
    const yard = createYard();
    const sync = await yard.run("() => ({ checked: 'x', failed: [], complete: true })", {
      outputSchema: REPORT_SCHEMA,
    });
    expect(sync.error).toMatchObject({ code: "TYPE_ERROR", line: 1, column: 10 });
    const annotated = await yard.run("async (): Promise<number> => {\n  return 1;\n}", { outputSchema: REPORT_SCHEMA });
    expect(annotated.error?.code).toBe("TYPE_ERROR");
  });

  it.each([
    ["a body", "const page = await tools.orders.list({});\nconsole.log(page);", 2],
    ["an async function main", "async function main() {\n  await tools.orders.list({});\n}", 3],
  ])("says %s must return the declared type when it can end without returning", async (_form, source, line) => {
    const yard = createYard();
    const result = await yard.run(source, { outputSchema: REPORT_SCHEMA });
    expect(result.error).toMatchObject({ code: "TYPE_ERROR", line });
    expect(result.error?.message).toMatch(/must return a ProgramOutput \(the run's outputSchema\) on every path/);
  });

  it("validates the value after the run: an `any` that slipped past the check ends OUTPUT_INVALID with the path", async () => {
    const yard = createYard();
    calls.length = 0;
    // `page.total` is any (no outputSchema on the tool): the checker trusts it; the value is a string.
    const result = await yard.run(
      "const page = await tools.orders.list({});\nreturn { checked: page.total, failed: [], complete: true };",
      { outputSchema: REPORT_SCHEMA },
    );
    expect(result.ok).toBe(false);
    expect(result.output).toBeNull();
    expect(result.error?.code).toBe("OUTPUT_INVALID");
    expect(result.error?.details).toEqual([{ path: "/checked", expected: "type integer", received: 'string "2"' }]);
    expect(result.error?.message).toMatch(/\/checked: expected type integer, received string "2"/);
    // The program ran: its call has its record.
    expect(calls).toEqual(["list"]);
    expect(result.calls).toHaveLength(1);
  });

  it("validates in warn and off modes too, where a wrong shape is not refused before the run", async () => {
    const yard = createYard();
    for (const typeCheck of ["warn", "off"] as const) {
      const result = await yard.run(WRONG.replace("=== 0", ">= 0"), { outputSchema: REPORT_SCHEMA, typeCheck });
      expect(result.error?.code).toBe("OUTPUT_INVALID");
      expect(result.error?.details).toEqual([expect.objectContaining({ path: "/checked" })]);
    }
    const nothing = await yard.run("const x = 1;", { outputSchema: REPORT_SCHEMA, typeCheck: "off" });
    expect(nothing.error?.code).toBe("OUTPUT_INVALID");
    expect(nothing.error?.message).toMatch(/\(root\): expected type object, received null/);
  });

  it("throws SCHEMA_INVALID for an outputSchema ajv cannot compile, before the run starts", async () => {
    const yard = createYard();
    await expect(yard.run("return 1;", { outputSchema: { type: "integer", minimum: "zero" } })).rejects.toMatchObject({
      code: "SCHEMA_INVALID",
    });
  });

  it("declares input and output types side by side, and checks again when only the output type changes", async () => {
    const checker = new TypeChecker();
    const yard = createYard({ typeChecker: checker });
    try {
      const inputSchema = { type: "object", properties: { ids: { type: "array", items: { type: "string" } } } };
      const program = "return { checked: input.ids?.length ?? 0, failed: [], complete: true };";
      const first = await yard.run(program, { input: { ids: ["a"] }, inputSchema, outputSchema: REPORT_SCHEMA });
      expect(first.output).toEqual({ checked: 1, failed: [], complete: true });
      const checked = checker.stats.checked;
      const narrower = { ...REPORT_SCHEMA, properties: { ...REPORT_SCHEMA.properties, checked: { type: "string" } } };
      const other = await yard.run(program, { input: { ids: ["a"] }, inputSchema, outputSchema: narrower });
      expect(other.error?.code).toBe("TYPE_ERROR");
      expect(checker.stats.checked).toBe(checked + 1);
    } finally {
      await checker.close();
    }
  });

  it("redacts secrets the output carried out of OUTPUT_INVALID's details", async () => {
    const secret = "correct-horse-battery-staple";
    const yard = createYard({ redaction: { secrets: [{ value: secret, kind: "db-password" }] } });
    const result = await yard.run(`return { checked: "${secret}", failed: [], complete: true };`, {
      outputSchema: REPORT_SCHEMA,
      typeCheck: "off",
    });
    expect(result.error?.code).toBe("OUTPUT_INVALID");
    expect(JSON.stringify(result.error)).not.toContain(secret);
    expect(JSON.stringify(result.error?.details)).toContain("[REDACTED:db-password]");
  });
});
