// A program checked against the declarations of the tools it references gets exactly the
// diagnostics a check against the whole catalog gives: each case here is checked both ways.

import { describe, expect, it } from "vitest";
import { CheckedDeclarations } from "../../src/program/checked-declarations.js";
import { NO_CONTRACT } from "../../src/program/contract-declarations.js";
import { ProgramTypeChecker } from "../../src/program/type-check-program.js";
import { defineTool, type ToolDefinition } from "../../src/registry/define-tool.js";
import { ToolRegistry } from "../../src/registry/tool-registry.js";
import { declarationsOf } from "../../src/search/discovery.js";
import { ObservedOutputTypes } from "../../src/schema/observed-output-types.js";
import { RUNTIME_DECLARATIONS } from "../../src/schema/generate-declarations.js";

const tool = (name: string, properties: Record<string, unknown> = { id: { type: "string" } }, extra = {}) =>
  defineTool({
    name,
    description: `The ${name} tool.`,
    inputSchema: { type: "object", properties, required: Object.keys(properties).slice(0, 1) },
    execute: () => ({}),
    ...extra,
  });

/** 120 tools in 12 namespaces, plus tools whose type names collide in the whole text. */
function catalog(): ToolDefinition[] {
  const tools: ToolDefinition[] = [];
  for (let namespace = 0; namespace < 12; namespace++) {
    for (const name of ["create_contact", "get_contact", "list_contacts", "delete_contact", "search", "update"]) {
      tools.push(tool(`crm${namespace}.${name}`));
    }
    for (const name of ["get_order", "list_orders", "refund", "cancel"]) {
      tools.push(
        tool(
          `shop${namespace}.${name}`,
          { orderId: { type: "string" }, amount: { type: "number" } },
          {
            outputSchema: { type: "object", properties: { status: { type: "string" }, total: { type: "number" } } },
          },
        ),
      );
    }
  }
  // `a_b.c` and `a.b_c` both make type names `ABC...`; `d.get` and `d.get_input` make `DGetInput`.
  tools.push(tool("a_b.c", { first: { type: "string" } }), tool("a.b_c", { second: { type: "number" } }));
  tools.push(tool("d.get", { x: { type: "string" } }), tool("d.get_input", { y: { type: "boolean" } }));
  return tools;
}

const checker = new ProgramTypeChecker();
const registry = new ToolRegistry(catalog());

/** Diagnostics against the whole text and against the selected one, and the selected text. */
function checkBothWays(source: string, declarations = new CheckedDeclarations(), observed?: ObservedOutputTypes) {
  const snapshot = registry.snapshot();
  const types = observed?.snapshot();
  const whole = `${RUNTIME_DECLARATIONS}\n${declarationsOf(snapshot.tools, types)}`;
  const selected = declarations.scope(snapshot, types).select(checker.references(source), NO_CONTRACT);
  return { whole: checker.check(source, whole), scoped: checker.check(source, selected), selected, full: whole };
}

describe("CheckedDeclarations", () => {
  it("gives a program the diagnostics of the whole catalog from the declarations of the tools it uses", () => {
    for (const source of [
      "const a = await tools.crm3.create_contact({ id: 'x' });\nconst b = await tools.shop7.get_order({ orderId: 'o' });\nreturn [a, b.total];",
      "const order = await tools.shop2.refund({ orderId: 1 });\nreturn order.totl;",
      "await tools.crm1.create_contact({ idd: 'x' });",
      "await tools.crm1.craete_contact({ id: 'x' });",
      "const { crm4 } = tools;\nawait crm4.serch({ id: 'x' });",
      "const shop = tools.shop5;\nconst r = await shop.cancel({ orderId: 'o' });\nreturn r.status.toFixed(2);",
      "await tools.a_b.c({ second: 1 });\nawait tools.a.b_c({ first: 'x' });",
      "await tools.d.get_input({ x: 'x' });",
      "const args: Shop3RefundInput = { orderId: 'o', amount: '3' };\nreturn tools.shop3.refund(args);",
      "const args: ABCInput2 = { second: 'no' };\nreturn args;",
      "let x: Shop3RefundInptu | undefined;\nreturn x;",
      "await tools.$search('refund');\nconst t = await tools.$budget();\nreturn t.callsLeftt;",
    ]) {
      const { whole, scoped, selected, full } = checkBothWays(source);
      expect(scoped, source).toEqual(whole);
      if (!source.startsWith("const a =")) expect(whole.length, source).toBeGreaterThan(0);
      if (!source.includes("Inptu")) expect(selected.length, source).toBeLessThan(full.length / 4);
    }
  });

  it("suggests names from the whole catalog for an unknown namespace, type or key: it checks against all of it", () => {
    const declarations = new CheckedDeclarations();
    for (const [source, suggestion] of [
      ["await tools.crm13.get_contact({ id: 'x' });", "Did you mean 'crm1'?"],
      ["await tools.shopp2.get_order({ orderId: 'x' });", "Did you mean 'shop2'?"],
      ["let args: Shop3RefunInput | undefined;\nreturn args;", "Did you mean 'Shop3RefundInput'?"],
      ["await tools.$serch('refund');", "Did you mean '$search'?"],
    ] as const) {
      const { whole, scoped, selected, full } = checkBothWays(source, declarations);
      expect(selected, source).toBe(full);
      expect(scoped, source).toEqual(whole);
      expect(whole[0]?.message, source).toContain(suggestion);
    }
    expect(declarations.stats.wholeCatalog).toBe(4);
  });

  it("declares a tool with a colliding base name under the name the whole text gives it", () => {
    const { selected, full } = checkBothWays("await tools.a.b_c({ second: 1 });");
    expect(full).toMatch(/interface ABCInput2 \{\n\s+second: number;/);
    expect(selected).toMatch(/interface ABCInput2 \{\n\s+second: number;/);
    expect(selected).not.toContain("first: string");
    expect(selected).not.toContain("crm0");
  });

  it("renders each tool once, and again only when its own observed type changes", () => {
    // Another tool's new observed type is rendered once (the whole text's budget counts it); the
    // text of a program that does not use it stays the same, and so does its check's cache key.
    const observed = new ObservedOutputTypes();
    const declarations = new CheckedDeclarations();
    const snapshot = registry.snapshot();
    const select = (source: string) =>
      declarations.scope(snapshot, observed.snapshot()).select(checker.references(source), NO_CONTRACT);
    const usesB = "return (await tools.crm2.get_contact({ id: 'x' })).name;";
    const first = select(usesB);
    const renders = declarations.stats.renders;
    expect(select(usesB)).toBe(first);
    expect(declarations.stats.renders).toBe(renders);

    observed.observe("crm1.search", { hits: [1, 2] });
    expect(select(usesB)).toBe(first);
    expect(declarations.stats.renders).toBe(renders + 1);
    expect(select(usesB)).toBe(first);
    expect(declarations.stats.renders).toBe(renders + 1);

    observed.observe("crm2.get_contact", { name: "Ada" });
    const typed = select(usesB);
    expect(typed).toMatch(/interface Crm2GetContactObserved \{\n\s+name: string;/);
    expect(declarations.stats.renders).toBe(renders + 2);
    const { whole, scoped } = checkBothWays(
      "return (await tools.crm2.get_contact({ id: 'x' })).nme;",
      declarations,
      observed,
    );
    expect(scoped).toEqual(whole);
    expect(scoped[0]?.message).toContain("Property 'nme' does not exist on type 'Crm2GetContactObserved'");
  });

  it("leaves out the observed types the whole text's budget leaves out, even from a text of one tool", () => {
    const observed = new ObservedOutputTypes();
    const wide = (seed: number) =>
      Object.fromEntries(Array.from({ length: 30 }, (_, key) => [`column_${"c".repeat(40)}_${seed}_${key}`, "x"]));
    for (let namespace = 0; namespace < 12; namespace++) {
      for (const name of ["create_contact", "get_contact", "list_contacts", "search"]) {
        observed.observe(`crm${namespace}.${name}`, wide(namespace));
      }
    }
    const source = "return (await tools.crm11.search({ id: 'x' })).nothing;";
    const { whole, scoped, selected, full } = checkBothWays(source, new CheckedDeclarations(), observed);
    expect(full).toContain("Its observed result type is not shown");
    expect(selected).toContain("Its observed result type is not shown");
    expect(selected.length).toBeLessThan(full.length / 4);
    expect(scoped).toEqual(whole);
  });

  it("keeps prototype-named keys as plain lookups: they resolve to nothing and select the whole catalog", () => {
    for (const source of [
      "await tools.__proto__.constructor({});",
      "await tools['constructor'].call({});",
      "await tools.hasOwnProperty('crm0');",
    ]) {
      const { whole, scoped, selected, full } = checkBothWays(source);
      expect(selected, source).toBe(full);
      expect(scoped, source).toEqual(whole);
    }
    const { selected } = checkBothWays("await tools.crm0.__proto__({});");
    expect(selected).toContain("crm0: {");
    expect(selected).not.toContain("crm1: {");
    expect(({} as Record<string, unknown>).crm0).toBeUndefined();
  });

  it("selects from an index built a few tools per step exactly what an index built at once selects", () => {
    const snapshot = registry.snapshot();
    const sources = [
      "return await tools.crm3.get_contact({ id: 'a' });",
      "const o = await tools.shop11.refund({ orderId: 'a', amount: 1 });\nreturn o.total;",
      "const a: ABCInput = { first: 'x' };\nreturn await tools.a_b.c(a);",
      "return await tools.d.get_input({ y: true });",
      "return Object.keys(tools);",
    ];
    const stepped = new CheckedDeclarations();
    let steps = 1;
    while (!stepped.prepare(snapshot, 7)) steps += 1;
    // 124 tools, 7 a step: the index was built over many steps, not in the first.
    expect(steps).toBe(Math.ceil(snapshot.tools.length / 7));
    expect(stepped.prepare(snapshot, 7)).toBe(true);
    const atOnce = new CheckedDeclarations();
    for (const source of sources) {
      const references = checker.references(source);
      expect(stepped.scope(snapshot, undefined).select(references, NO_CONTRACT), source).toBe(
        atOnce.scope(snapshot, undefined).select(references, NO_CONTRACT),
      );
    }
  });

  // The whole text at 5,000 tools took 176 ms of the event loop at a session's first program that
  // used `tools` whole: its parts are now rendered by the warm-up, a few tools a step.
  it("renders every tool's part in warm-up steps, after which the whole text renders nothing", () => {
    const snapshot = registry.snapshot();
    const warmed = new CheckedDeclarations();
    let steps = 0;
    while (!warmed.warmUpStep(snapshot, undefined)) steps += 1;
    // 124 tools, 100 parts a step: more than one step.
    expect(steps).toBeGreaterThan(0);
    const rendered = warmed.stats.renders;
    expect(rendered).toBeGreaterThan(0);
    const whole = warmed.whole(snapshot, undefined);
    expect(warmed.stats.renders).toBe(rendered);
    expect(whole).toBe(new CheckedDeclarations().whole(snapshot, undefined));
    expect(warmed.prepareParts(snapshot, undefined)).toBe(true);
  });

  it("indexes the new catalog when it changed while an index was being prepared", () => {
    const changing = new ToolRegistry(catalog());
    const declarations = new CheckedDeclarations();
    expect(declarations.prepare(changing.snapshot(), 10)).toBe(false);
    changing.addAll([tool("late.added", { note: { type: "string" } })]);
    const source = "return await tools.late.added({ note: 'x' });";
    const selected = declarations.scope(changing.snapshot(), undefined).select(checker.references(source), NO_CONTRACT);
    expect(selected).toContain("late: {");
    expect(checker.check(source, selected)).toEqual([]);
  });
});
