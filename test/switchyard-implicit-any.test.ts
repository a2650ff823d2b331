// The type check's rule for untyped values: a result of a tool without an outputSchema (or an
// `input` without a schema) is `any`, and so is every value derived from it, callback
// parameters included; no noImplicitAny diagnostic ever fails a run. Every check that catches a
// real mistake stays: unknown tools, wrong input shapes, misspelled fields of typed results,
// wrong output shapes.

import { afterAll, describe, expect, it } from "vitest";
import { defineTool } from "../src/registry/define-tool.js";
import { Switchyard } from "../src/switchyard.js";

// The README's "Use it" tool: no outputSchema, so its result is `any` in the declarations.
const ordersSearch = defineTool({
  name: "orders.search",
  description: "Search a customer's orders in a time range, one page at a time.",
  inputSchema: {
    type: "object",
    properties: { customerId: { type: "string" }, cursor: { type: "string" } },
    required: ["customerId"],
    additionalProperties: false,
  },
  effect: "read",
  execute: () => ({
    orders: [
      { id: "o1", total: 30, lines: [{ sku: "a", qty: 2 }] },
      { id: "o2", total: 5, lines: [{ sku: "b", qty: 1 }] },
    ],
    nextCursor: null,
  }),
});

// A typed tool, so a misspelled field of its result must still be caught.
const customersGet = defineTool({
  name: "customers.get",
  description: "Gets a customer.",
  inputSchema: {
    type: "object",
    properties: { id: { type: "string" } },
    required: ["id"],
    additionalProperties: false,
  },
  outputSchema: {
    type: "object",
    properties: { id: { type: "string" }, name: { type: "string" }, tier: { type: "string" } },
    required: ["id", "name", "tier"],
  },
  effect: "read",
  execute: (input: { id: string }) => ({ id: input.id, name: "Ada", tier: "gold" }),
});

// observedTypes off: every run sees the tool untyped, as a model's first program does.
const yard = new Switchyard({ tools: [ordersSearch, customersGet], observedTypes: false });
afterAll(() => yard.close());

describe("implicit any in programs", () => {
  it("runs the README's program that maps over an untyped result with an unannotated callback (was TS7006)", async () => {
    const result = await yard.run(`const page = await tools.orders.search({ customerId: "c_1" });
return page.orders.map((o) => o.id);`);
    expect(result.error, result.error?.message).toBeUndefined();
    expect(result.output).toEqual(["o1", "o2"]);
  });

  // One program per diagnostic of the noImplicitAny family, each written as a model writes it.
  const family: Record<string, string> = {
    "TS7005/7034 (a variable without a type, assigned in a callback)": `let last;
const page = await tools.orders.search({ customerId: "c" });
page.orders.forEach((order) => { last = order; });
return last.id;`,
    "a variable set to null first, then to the best item inside a callback": `let best = null;
const page = await tools.orders.search({ customerId: "c" });
page.orders.forEach((order) => { if (best === null || order.total > best.total) best = order; });
return best.id;`,
    "TS7006 (a callback parameter over an untyped value)": `const page = await tools.orders.search({ customerId: "c" });
return page.orders.filter((order) => order.total > 10).map((order) => order.id);`,
    "TS7008 (a class member without a type)": `class Tally { seen; add(id) { (this.seen ??= []).push(id); } }
const tally = new Tally();
tally.add("a");
return tally.seen;`,
    "TS7010/7011 (a function whose return type is implicitly any)": `const page = await tools.orders.search({ customerId: "c" });
function firstOf(list) { return list[0]; }
const pick = (list) => list[list.length - 1];
return [firstOf(page.orders).id, pick(page.orders).id];`,
    "TS7019 (a rest parameter)": `function sum(...values) { return values.reduce((a, b) => a + b, 0); }
return sum(1, 2, 3);`,
    "TS7031 (a destructured parameter)": `const page = await tools.orders.search({ customerId: "c" });
return page.orders.map(({ id, lines }) => ({ id, units: lines.reduce((n, { qty }) => n + qty, 0) }));`,
    "an array that starts empty and evolves as it is filled": `const closed = [];
const page = await tools.orders.search({ customerId: "c" });
closed.push(...page.orders.filter((order) => order.total > 10));
const ids: string[] = closed.map((order) => order.id);
return ids;`,
    "Object.entries and Object.values over an untyped result (TS18046)": `const page = await tools.orders.search({ customerId: "c" });
const byId = Object.fromEntries(page.orders.map((order) => [order.id, order]));
const totals = Object.entries(byId).map(([id, order]) => ({ id, total: order.total }));
const sum = Object.values(byId).reduce((all, order) => all + order.total, 0);
return { totals, sum };`,
    "TS7053 (indexing an object literal with a string)": `const counts = {};
const page = await tools.orders.search({ customerId: "c" });
for (const order of page.orders) counts[order.id] = (counts[order.id] ?? 0) + 1;
return counts;`,
  };
  for (const [name, source] of Object.entries(family)) {
    it(`passes the check and runs: ${name}`, async () => {
      const checked = await yard.check(source);
      expect(checked.error?.message).toBeUndefined();
      expect(checked.warnings).toEqual([]);
      const result = await yard.run(source);
      expect(result.error, result.error?.message).toBeUndefined();
      expect(result.ok).toBe(true);
    });
  }
});

describe("the checks that catch real mistakes stay errors", () => {
  it("refuses an unknown tool, and runs nothing", async () => {
    const result = await yard.run(`const page = await tools.orders.serch({ customerId: "c" });
return page.orders.map((o) => o.id);`);
    expect(result.error).toMatchObject({ code: "TYPE_ERROR", line: 1 });
    expect(result.error?.message).toContain("serch");
    expect(result.calls).toEqual([]);
  });

  it("refuses an unknown namespace", async () => {
    const result = await yard.run(`return await tools.billing.search({ customerId: "c" });`);
    expect(result.error).toMatchObject({ code: "TYPE_ERROR", line: 1 });
  });

  it("refuses a wrong input shape: a misspelled field, a missing required field, a wrong type", async () => {
    const misspelled = await yard.run(`return await tools.orders.search({ customerID: "c" });`);
    expect(misspelled.error?.code).toBe("TYPE_ERROR");
    expect(misspelled.error?.message).toContain("customerID");
    const missing = await yard.run(`return await tools.orders.search({ cursor: "x" });`);
    expect(missing.error?.code).toBe("TYPE_ERROR");
    const wrongType = await yard.run(`return await tools.customers.get({ id: 42 });`);
    expect(wrongType.error?.code).toBe("TYPE_ERROR");
    expect([misspelled.calls, missing.calls, wrongType.calls]).toEqual([[], [], []]);
  });

  it("refuses a misspelled field of a typed result, even inside an unannotated callback", async () => {
    const direct = await yard.run(`const customer = await tools.customers.get({ id: "c" });
return customer.nmae;`);
    expect(direct.error).toMatchObject({ code: "TYPE_ERROR", line: 2 });
    expect(direct.error?.message).toContain("nmae");
    const inCallback =
      await yard.run(`const customers = await Promise.all(["a", "b"].map((id) => tools.customers.get({ id })));
return customers.map((c) => c.teir);`);
    expect(inCallback.error).toMatchObject({ code: "TYPE_ERROR", line: 2 });
    expect(inCallback.error?.message).toContain("teir");
  });

  it("refuses an untyped value where a typed tool input needs a string", async () => {
    const result = await yard.run(`const page = await tools.orders.search({ customerId: "c" });
const [first] = Object.values(page.orders[0]);
return await tools.customers.get({ id: first });`);
    expect(result.error).toMatchObject({ code: "TYPE_ERROR", line: 3 });
  });

  it("refuses a wrong output shape against the run's outputSchema", async () => {
    const result = await yard.run(
      `const page = await tools.orders.search({ customerId: "c" });
return { count: String(page.orders.length) };`,
      { outputSchema: { type: "object", properties: { count: { type: "number" } }, required: ["count"] } },
    );
    expect(result.error).toMatchObject({ code: "TYPE_ERROR", line: 2 });
    expect(result.calls).toEqual([]);
  });

  it("still refuses what strict mode catches besides implicit any: a possibly undefined value of a typed tool", async () => {
    const result =
      await yard.run(`const found = [await tools.customers.get({ id: "c" })].find((c) => c.tier === "gold");
return found.name;`);
    expect(result.error).toMatchObject({ code: "TYPE_ERROR", line: 2 });
  });
});
