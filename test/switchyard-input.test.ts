// Program inputs end to end: `yard.run(source, { input, inputSchema })` through the type check,
// the JSON copy into a real isolate, and the schema check that runs before anything else.

import { afterAll, describe, expect, it } from "vitest";
import type { JsonSchema } from "../src/contract.js";
import { defineTool } from "../src/registry/define-tool.js";
import { Switchyard } from "../src/switchyard.js";

const BATCH_SCHEMA = {
  type: "object",
  properties: {
    customerId: { type: "string" },
    orderIds: { type: "array", items: { type: "string" }, maxItems: 100 },
  },
  required: ["customerId", "orderIds"],
  additionalProperties: false,
} as const satisfies JsonSchema;

const lookups: unknown[] = [];
const lookup = defineTool({
  name: "orders.get",
  description: "Gets one order.",
  effect: "read",
  inputSchema: { type: "object", properties: { id: { type: "string" } }, required: ["id"] },
  execute: (request: { id: string }) => {
    lookups.push(request);
    return { id: request.id, total: request.id.length };
  },
});

const yards: Switchyard[] = [];
function createYard(options: ConstructorParameters<typeof Switchyard>[0] = {}): Switchyard {
  const yard = new Switchyard({ tools: [lookup], ...options });
  yards.push(yard);
  return yard;
}
afterAll(async () => {
  await Promise.all(yards.map((yard) => yard.close()));
});

const BATCH = { customerId: "c1", orderIds: ["o1", "o22", "o333"] };

describe("Switchyard.run with an input", () => {
  it.each([
    [
      "a body",
      "const orders = await Promise.all(input.orderIds.map((id) => tools.orders.get({ id })));\nreturn orders.map((order) => order.total);",
    ],
    [
      "an async arrow function",
      "async () => {\n  const orders = await Promise.all(input.orderIds.map((id) => tools.orders.get({ id })));\n  return orders.map((order) => order.total);\n}",
    ],
    [
      "an async function main",
      "async function main() {\n  const orders = await Promise.all(input.orderIds.map((id) => tools.orders.get({ id })));\n  return orders.map((order) => order.total);\n}",
    ],
  ])("hands the input to %s as the constant `input`, typed from inputSchema", async (_form, source) => {
    const yard = createYard();
    const result = await yard.run(source, { input: BATCH, inputSchema: BATCH_SCHEMA });
    expect(result.error).toBeUndefined();
    expect(result.output).toEqual([2, 3, 4]);
  });

  it("refuses a misspelled input field with TYPE_ERROR at its line when inputSchema types it", async () => {
    const yard = createYard();
    const result = await yard.run("const count = input.orderIds.length;\nreturn input.customerID;", {
      input: BATCH,
      inputSchema: BATCH_SCHEMA,
    });
    expect(result.error).toMatchObject({ code: "TYPE_ERROR", line: 2 });
    expect(result.error?.message).toContain("customerID");
    expect(result.error?.message).toContain("ProgramInput");
  });

  it("declares `input` as any without an inputSchema, so any use of it type-checks", async () => {
    const yard = createYard();
    const result = await yard.run("return input.deeply.nested.value * 2;", {
      input: { deeply: { nested: { value: 21 } } },
    });
    expect(result.error).toBeUndefined();
    expect(result.output).toBe(42);
  });

  it("fails with INPUT_INVALID and every failing path before anything runs when the input breaks its schema", async () => {
    const yard = createYard();
    lookups.length = 0;
    const result = await yard.run("await tools.orders.get({ id: 'x' });\nreturn input.orderIds;", {
      input: { customerId: 7, orderIds: ["o1", 2], extra: true },
      inputSchema: BATCH_SCHEMA,
    });
    expect(result.ok).toBe(false);
    expect(result.error?.code).toBe("INPUT_INVALID");
    expect(result.error?.details).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ path: "/customerId", expected: "type string" }),
        expect.objectContaining({ path: "/orderIds/1", expected: "type string" }),
        expect.objectContaining({ path: "/extra" }),
      ]),
    );
    expect(result.error?.message).toMatch(/\/orderIds\/1: expected type string, received number 2/);
    expect(result.calls).toEqual([]);
    expect(lookups).toEqual([]);
  });

  it("fails with INPUT_INVALID when an inputSchema is given without an input", async () => {
    const yard = createYard();
    const result = await yard.run("return 1;", { inputSchema: BATCH_SCHEMA });
    expect(result.error?.code).toBe("INPUT_INVALID");
    expect(result.error?.message).toMatch(/no input/);
  });

  it("throws SCHEMA_INVALID for an inputSchema ajv cannot compile, before the run starts", async () => {
    const yard = createYard();
    const started: string[] = [];
    await expect(
      yard.run("return 1;", { input: 1, inputSchema: { type: "nope" }, onStart: (id) => started.push(id) }),
    ).rejects.toMatchObject({ code: "SCHEMA_INVALID" });
    expect(started).toEqual([]);
  });

  it("leaves `input` undefined in a run without one: a TYPE_ERROR that says so, a ReferenceError unchecked", async () => {
    const yard = createYard();
    const checked = await yard.run("return input;");
    expect(checked.error?.code).toBe("TYPE_ERROR");
    expect(checked.error?.message).toMatch(/this run was given no input/);
    const unchecked = await yard.run("return typeof input;", { typeCheck: "off" });
    expect(unchecked.output).toBe("undefined");
  });

  it("gives the program its own copy: changes inside never reach the caller's object", async () => {
    const yard = createYard();
    const mine = { list: [1, 2, 3] };
    const result = await yard.run("input.list.push(4);\nreturn input.list;", { input: mine });
    expect(result.output).toEqual([1, 2, 3, 4]);
    expect(mine).toEqual({ list: [1, 2, 3] });
  });

  it("binds `input` like a const: assigning is a TYPE_ERROR, and unchecked it does not change", async () => {
    const yard = createYard();
    const checked = await yard.run("input = 2;\nreturn input;", { input: 1 });
    expect(checked.error).toMatchObject({ code: "TYPE_ERROR", line: 1 });
    const unchecked = await yard.run(
      "try { input = 2; } catch {}\ntry { delete globalThis.input; } catch {}\nreturn input;",
      {
        input: 1,
        typeCheck: "off",
      },
    );
    expect(unchecked.output).toBe(1);
  });

  it("treats a __proto__ key as data to drop: neither the isolate's nor the host's prototypes change", async () => {
    const yard = createYard();
    const hostile = JSON.parse(
      '{"__proto__": {"polluted": "yes"}, "list": [{"__proto__": {"polluted": "yes"}}]}',
    ) as unknown;
    const result = await yard.run(
      "return { own: Object.keys(input), proto: Object.getPrototypeOf(input) === Object.prototype, item: Object.keys(input.list[0]), polluted: ({} as any).polluted ?? null };",
      { input: hostile },
    );
    expect(result.output).toEqual({ own: ["list"], proto: true, item: [], polluted: null });
    expect(({} as Record<string, unknown>)["polluted"]).toBeUndefined();
  });

  it("refuses an input over maxInputBytes with INPUT_TOO_LARGE, and takes it once the limit is raised", async () => {
    const yard = createYard();
    const big = { rows: Array.from({ length: 20_000 }, (_, index) => ({ id: `row-${index}`, text: "x".repeat(60) })) };
    const refused = await yard.run("return input.rows.length;", { input: big });
    expect(refused.error?.code).toBe("INPUT_TOO_LARGE");
    expect(refused.error?.message).toMatch(/1048576-byte limit/);
    const taken = await yard.run("return input.rows.length;", {
      input: big,
      limits: { maxInputBytes: 4 * 1024 * 1024 },
    });
    expect(taken.output).toBe(20_000);
  });

  it("refuses an input nested past maxInputDepth with INPUT_TOO_LARGE, however deep", async () => {
    const yard = createYard();
    for (const depth of [65, 100_000]) {
      let value: unknown = 0;
      for (let level = 0; level < depth; level++) value = [value];
      const result = await yard.run("return 1;", { input: value });
      expect(result.error?.code).toBe("INPUT_TOO_LARGE");
    }
  });

  it("keeps each concurrent run's input its own", async () => {
    const yard = createYard();
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, index) =>
        yard.run("return input.index * 10;", {
          input: { index },
          inputSchema: { type: "object", properties: { index: { type: "integer" } }, required: ["index"] },
        }),
      ),
    );
    expect(results.map((result) => result.output)).toEqual(Array.from({ length: 12 }, (_, index) => index * 10));
  });

  it("names the input's type apart from a tool's type of the same name", async () => {
    const program = defineTool({
      name: "program",
      description: "A bare tool whose input type is also called ProgramInput.",
      effect: "read",
      inputSchema: { type: "object", properties: { flag: { type: "boolean" } }, required: ["flag"] },
      execute: () => "ran",
    });
    const yard = createYard({ tools: [program] });
    const result = await yard.run("const ran = await tools.program({ flag: true });\nreturn `${ran} ${input.label}`;", {
      input: { label: "ok" },
      inputSchema: { type: "object", properties: { label: { type: "string" } }, required: ["label"] },
    });
    expect(result.error).toBeUndefined();
    expect(result.output).toBe("ran ok");
    const mixedUp = await yard.run("return await tools.program({ label: 'x' });", {
      input: { label: "ok" },
      inputSchema: { type: "object", properties: { label: { type: "string" } }, required: ["label"] },
    });
    expect(mixedUp.error?.code).toBe("TYPE_ERROR");
  });

  it("redacts secrets the input carried out of INPUT_INVALID's message and details", async () => {
    const secret = "correct-horse-battery-staple";
    const yard = createYard({ redaction: { secrets: [{ value: secret, kind: "db-password" }] } });
    const result = await yard.run("return 1;", {
      input: { password: secret },
      inputSchema: { type: "object", properties: { password: { type: "number" } } },
    });
    expect(result.error?.code).toBe("INPUT_INVALID");
    expect(JSON.stringify(result.error)).not.toContain(secret);
    expect(JSON.stringify(result.error?.details)).toContain("[REDACTED:db-password]");
  });
});
