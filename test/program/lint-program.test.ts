import { describe, expect, it } from "vitest";
import { lintProgram } from "../../src/program/lint-program.js";

const codes = (source: string) => lintProgram(source).map((warning) => [warning.line, warning.code]);

describe("lintProgram: serial-await-in-loop", () => {
  it("warns about a tool call awaited once per iteration of independent items", () => {
    const source = [
      "const ids = ['o-1', 'o-2', 'o-3'];",
      "const orders = [];",
      "for (const id of ids) {",
      "  const order = await tools.orders.get({ id });",
      "  orders.push(order);",
      "}",
      "return orders;",
    ].join("\n");
    const warnings = lintProgram(source);
    expect(warnings).toEqual([
      expect.objectContaining({ line: 4, column: 17, code: "serial-await-in-loop", severity: "warning" }),
    ]);
    expect(warnings[0]?.message).toContain("Promise.all");
    expect(warnings[0]?.message).toContain("tools.orders.get");
  });

  it.each([
    ["for", "for (let i = 0; i < 3; i++) { await tools.orders.get({ id: String(i) }); }"],
    ["for-in", "for (const key in { a: 1, b: 2 }) { const r = await tools.orders.get({ id: key }); console.log(r); }"],
    ["while with a counter", "let i = 0;\nwhile (i < 3) { await tools.orders.get({ id: String(i) }); i++; }"],
    [
      "an accumulator the calls do not read",
      "let total = 0;\nfor (const id of ['a', 'b']) { const o = await tools.orders.get({ id }); total += o.total; }",
    ],
  ])("warns in a %s loop", (_kind, source) => {
    expect(lintProgram(source).map((warning) => warning.code)).toEqual(["serial-await-in-loop"]);
  });

  it("says the host bounds the concurrency, and asks for no batching", () => {
    const [warning] = lintProgram("for (const id of ids) await tools.orders.get({ id });");
    expect(warning?.message).toContain("the host already bounds how many run at once");
    expect(warning?.message).not.toMatch(/batch/);
  });

  it.each([
    ["an array literal of one element", "for (const id of ['a']) { await tools.orders.get({ id }); }"],
    ["an empty array literal", "for (const id of []) { await tools.orders.get({ id }); }"],
    ["a const bound to one element", "const ids = ['a'];\nfor (const id of ids) { await tools.orders.get({ id }); }"],
    ["an object literal of one key", "for (const key in { a: 1 }) { await tools.orders.get({ id: key }); }"],
    ["a counting for of one step", "for (let i = 0; i < 1; i++) { await tools.orders.get({ id: String(i) }); }"],
    [
      "a counting for of one step, inclusive",
      "for (let i = 1; i <= 1; i += 1) { await tools.orders.get({ id: `${i}` }); }",
    ],
    ["do ... while (false)", "do { await tools.orders.get({ id: 'a' }); } while (false);"],
    ["while (false)", "while (false) { await tools.orders.get({ id: 'a' }); }"],
  ])("stays silent on a loop that provably runs at most once: %s", (_kind, source) => {
    expect(lintProgram(source)).toEqual([]);
  });

  it.each([
    [
      "a const pushed to later",
      "const ids = ['a'];\nids.push('b');\nfor (const id of ids) { await tools.orders.get({ id }); }",
    ],
    ["a spread element", "for (const id of [...more]) { await tools.orders.get({ id }); }"],
    ["a counter moved by the body", "for (let i = 0; i < 1; i++) { await tools.orders.get({ id: String(i) }); i--; }"],
    ["two steps", "for (let i = 0; i < 2; i++) { await tools.orders.get({ id: String(i) }); }"],
    [
      "a let bound to one element",
      "let ids = ['a'];\nids = more;\nfor (const id of ids) { await tools.orders.get({ id }); }",
    ],
  ])("still warns when the single run is not provable: %s", (_kind, source) => {
    expect(lintProgram(source).map((warning) => warning.code)).toEqual(["serial-await-in-loop"]);
  });

  it("stays silent on an inner loop a labeled break leaves, and on tools.$budget() checked in a loop", () => {
    const source = [
      "outer: for (const page of pages) {",
      "  for (const id of page.ids) {",
      "    const budget = await tools.$budget();",
      "    if (budget.callsLeft < 5) break outer;",
      "    await tools.orders.get({ id });",
      "  }",
      "}",
    ].join("\n");
    expect(lintProgram(source)).toEqual([]);
    const ownLabel =
      "for (const id of ids) {\n  inner: for (const x of xs) { break inner; }\n  await tools.orders.get({ id });\n}";
    expect(codes(ownLabel)).toEqual([[3, "serial-await-in-loop"]]);
  });

  it("stays silent on a loop paced with sleep, as a backoff or a rate limit is", () => {
    const source = ["for (const id of ids) {", "  await tools.orders.get({ id });", "  await sleep(250);", "}"].join(
      "\n",
    );
    expect(lintProgram(source)).toEqual([]);
  });

  it("stays silent on Promise.all over a mapped array", () => {
    expect(
      lintProgram("const ids = ['a', 'b'];\nreturn await Promise.all(ids.map((id) => tools.orders.get({ id })));"),
    ).toEqual([]);
    expect(
      lintProgram(
        "const ids = ['a'];\nreturn await Promise.all(ids.map(async (id) => { const o = await tools.orders.get({ id }); return o.total; }));",
      ),
    ).toEqual([]);
  });

  it("stays silent on batches awaited with Promise.all inside a loop", () => {
    const source =
      "for (const batch of [['a'], ['b']]) {\n  await Promise.all(batch.map((id) => tools.orders.get({ id })));\n}";
    expect(lintProgram(source)).toEqual([]);
  });

  it("stays silent on a cursor-following pagination loop", () => {
    const whileLoop = [
      "let cursor: string | null = null;",
      "const all = [];",
      "do {",
      "  const page = await tools.orders.search({ customerId: 'c-1', ...(cursor ? { cursor } : {}) });",
      "  all.push(...page.orders);",
      "  cursor = page.nextCursor;",
      "} while (cursor);",
      "return all;",
    ].join("\n");
    expect(lintProgram(whileLoop)).toEqual([]);
    const conditionOnly = [
      "let hasMore = true;",
      "let pageNumber = 0;",
      "while (hasMore) {",
      "  const page = await tools.orders.search({ customerId: 'c-1', pageSize: 50, page: pageNumber++ });",
      "  hasMore = page.nextCursor !== null;",
      "}",
    ].join("\n");
    expect(lintProgram(conditionOnly)).toEqual([]);
  });

  it("stays silent when a call's input depends on the previous iteration's result", () => {
    const source = [
      "let remaining = 100;",
      "for (const customerId of ['a', 'b']) {",
      "  const page = await tools.orders.search({ customerId, pageSize: remaining });",
      "  remaining -= page.orders.length;",
      "}",
    ].join("\n");
    expect(lintProgram(source)).toEqual([]);
  });

  it("stays silent on a search loop that stops at the first hit", () => {
    const source =
      "for (const id of ['a', 'b']) {\n  const o = await tools.orders.get({ id });\n  if (o.total > 100) break;\n}";
    expect(lintProgram(source)).toEqual([]);
  });

  it("still warns when the only break belongs to an inner switch", () => {
    const source =
      "for (const id of ['a', 'b']) {\n  const o = await tools.orders.get({ id });\n  switch (o.id) { case 'x': break; }\n}";
    expect(codes(source)).toEqual([[2, "serial-await-in-loop"]]);
  });

  it("stays silent on an await that is not a tool call", () => {
    expect(lintProgram("for (const p of [Promise.resolve(1)]) { await p; }")).toEqual([]);
  });
});

describe("lintProgram: floating-tool-call", () => {
  it("warns about a tool call used as a statement", () => {
    const warnings = lintProgram("console.log('start');\ntools.orders.get({ id: 'o-1' });\nreturn 1;");
    expect(warnings).toEqual([
      expect.objectContaining({ line: 2, column: 1, code: "floating-tool-call", severity: "warning" }),
    ]);
    expect(warnings[0]?.message).toContain("never awaited");
  });

  it("warns about a dropped call inside a block, a comma and a conditional", () => {
    const source = [
      "if (Math.random() > 0.5) {",
      "  tools.orders.get({ id: 'a' });",
      "}",
      "(tools.orders.get({ id: 'b' }), 1);",
      "Math.random() > 0.5 ? tools.orders.get({ id: 'c' }) : tools.orders.get({ id: 'd' });",
    ].join("\n");
    expect(codes(source)).toEqual([
      [2, "floating-tool-call"],
      [4, "floating-tool-call"],
      [5, "floating-tool-call"],
      [5, "floating-tool-call"],
    ]);
  });

  it("warns about a tool call whose promise forEach drops", () => {
    expect(codes("['a'].forEach(async (id) => {\n  await tools.orders.get({ id });\n});")).toEqual([
      [2, "floating-tool-call"],
    ]);
    expect(codes("['a'].forEach((id) => tools.orders.get({ id }));")).toEqual([[1, "floating-tool-call"]]);
  });

  it("stays silent on awaited, returned, stored, passed and chained calls", () => {
    const source = [
      "const order = await tools.orders.get({ id: '1' });",
      "const pending = [tools.orders.get({ id: '2' })];",
      "pending.push(tools.orders.get({ id: '3' }));",
      "let later;",
      "later = tools.orders.get({ id: '4' });",
      "tools.orders.get({ id: '5' }).then((o) => console.log(o)).catch(() => undefined);",
      "tools.orders.get({ id: '6' }).catch(() => undefined);",
      "void tools.orders.get({ id: '7' });",
      "const settled = await Promise.allSettled([tools.orders.get({ id: '8' }), later, ...pending]);",
      "const mapped = await Promise.all(['9'].map((id) => tools.orders.get({ id })));",
      "const store = { first: tools.orders.get({ id: '10' }) };",
      "console.log(order, settled, mapped, await store.first);",
      "return tools.orders.get({ id: '11' });",
    ].join("\n");
    expect(lintProgram(source)).toEqual([]);
  });

  it("ignores calls of things other than tools", () => {
    expect(lintProgram("const other = { get: async () => 1 };\nother.get();\nconsole.log('x');")).toEqual([]);
  });
});

describe("lintProgram", () => {
  it("maps positions to the model's source and sorts warnings by position", () => {
    const source =
      "\n\n  tools.orders.get({ id: 'a' });\nfor (const id of ['a', 'b']) { await tools.orders.get({ id }); }";
    expect(lintProgram(source).map((warning) => [warning.line, warning.column, warning.code])).toEqual([
      [3, 3, "floating-tool-call"],
      [4, 32, "serial-await-in-loop"],
    ]);
  });

  it("returns no warnings instead of throwing on garbage", () => {
    expect(lintProgram("(".repeat(100_000))).toEqual([]);
    expect(() => lintProgram("\u0000 }}} for (")).not.toThrow();
  });
});
