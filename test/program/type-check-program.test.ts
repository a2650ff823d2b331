import { describe, expect, it } from "vitest";
import { SwitchyardError } from "../../src/errors.js";
import { ProgramTypeChecker, typeCheckProgram } from "../../src/program/type-check-program.js";

const DECLARATIONS = `
interface OrdersSearchInput { customerId: string; cursor?: string; pageSize?: number }
interface OrdersSearchOutput { orders: { id: string; amount: number }[]; nextCursor: string | null }
declare const console: { log(...args: unknown[]): void; info(...args: unknown[]): void; warn(...args: unknown[]): void; error(...args: unknown[]): void };
declare const tools: { orders: { search(input: OrdersSearchInput): Promise<OrdersSearchOutput>; get(input: { id: string }): Promise<{ id: string; total: number }> } };
`;

// One checker for the file: the first check pays the cold start once.
const checker = new ProgramTypeChecker();
const check = (source: string) => checker.check(source, DECLARATIONS);

describe("ProgramTypeChecker", () => {
  it("reports a misspelled input field at its line and column in the model's source", () => {
    const source = [
      "const customerId = 'c-1';",
      "const page = await tools.orders.search({",
      "  customerId,",
      "  pageSze: 20,",
      "});",
      "return page.orders;",
    ].join("\n");
    const diagnostics = check(source);
    expect(diagnostics).toHaveLength(1);
    expect(diagnostics[0]).toMatchObject({ line: 4, column: 3, severity: "error" });
    expect([2353, 2561]).toContain(diagnostics[0]?.code);
    expect(diagnostics[0]?.message).toContain("pageSze");
  });

  it("allows top-level await and return", () => {
    expect(check("const order = await tools.orders.get({ id: 'o-1' });\nreturn order.total * 2;")).toEqual([]);
  });

  it("rejects a call of an unknown tool or namespace", () => {
    const diagnostics = check("await tools.orders.cancel({ id: 'o-1' });\nawait tools.billing.get({ id: 'b' });");
    expect(diagnostics.map((diagnostic) => [diagnostic.line, diagnostic.code])).toEqual([
      [1, 2339],
      [2, 2339],
    ]);
    expect(diagnostics[0]?.message).toContain("cancel");
  });

  it("reports a wrong result type used downstream", () => {
    const diagnostics = check(
      "const page = await tools.orders.search({ customerId: 'c' });\nconst first: string = page.orders[0].amount;",
    );
    expect(diagnostics.map((diagnostic) => diagnostic.line)).toContain(2);
  });

  it("accepts the ECMAScript 2022 built-ins and the declared console", () => {
    const source = [
      "const totals = new Map<string, number>();",
      "totals.set('a', Math.round(Math.random() * 10));",
      "const when = new Date().toISOString();",
      "const settled = await Promise.allSettled([tools.orders.get({ id: 'o-1' })]);",
      "const ok = settled.filter((result) => result.status === 'fulfilled').length;",
      "console.log(JSON.stringify({ when, ok }), [...totals.keys()].at(-1), Object.hasOwn({}, 'x'));",
      "try { await tools.orders.get({ id: 'x' }); } catch (error) { console.error(error.message); }",
      "return { ok, sum: [1, 2, 3].reduce((a, b) => a + b, 0) };",
    ].join("\n");
    expect(check(source)).toEqual([]);
  });

  it.each(["process.env.HOME", "require('fs')", "document.title", "window.location", "fetch('https://example.com')"])(
    "rejects the host global in `%s`",
    (expression) => {
      const diagnostics = check(`const value = ${expression};`);
      expect(diagnostics).toHaveLength(1);
      expect(diagnostics[0]).toMatchObject({ line: 1, column: 15, severity: "error" });
      expect(diagnostics[0]?.message).toMatch(/^Cannot find name '\w+'/);
    },
  );

  it("explains missing Node and DOM globals in terms of the sandbox, not a tsconfig", () => {
    const [diagnostic] = check("require('fs');");
    expect(diagnostic?.message).toContain("sandbox");
    expect(diagnostic?.message).not.toMatch(/tsconfig|npm i|@types/);
  });

  it("rejects library methods newer than ES2022 with a message naming the sandbox's level", () => {
    const [diagnostic] = check("return [1, 2].findLast((n) => n > 1);");
    expect(diagnostic?.code).toBe(2550);
    expect(diagnostic?.message).toContain("ECMAScript 2022");
    expect(diagnostic?.message).not.toContain("'lib' compiler option");
  });

  it("reports only the syntax errors when the program does not parse", () => {
    const diagnostics = check("const a = ;\nconst b: number = 'not a number';");
    expect(diagnostics.length).toBeGreaterThan(0);
    expect(diagnostics.every((diagnostic) => typeof diagnostic.code === "number" && diagnostic.code < 2000)).toBe(true);
  });

  it("places an unclosed block's error on the model's last line, not in the wrapper", () => {
    const diagnostics = check("if (true) {\n  console.log('x');");
    expect(diagnostics).toEqual([expect.objectContaining({ line: 2, code: 1005 })]);
  });

  it("rejects an extra closing brace that would leave the program's body", () => {
    const diagnostics = check("console.log('a');\n}\nfunction escaped() {");
    expect(diagnostics).toEqual([expect.objectContaining({ line: 2, column: 1, code: 1128 })]);
    expect(diagnostics[0]?.message).not.toContain("__switchyard");
  });

  it("does not blame the declarations for a program that redeclares their names", () => {
    expect(() => check("}\ndeclare const tools: number;\n{")).not.toThrow();
  });

  it("never mentions the wrapper function in a message", () => {
    const sources = ["return __switchyardProgram;", "const x: number = __switchyardProgram();", "this.x = 1;", "}"];
    for (const source of sources) {
      for (const diagnostic of check(source)) expect(diagnostic.message).not.toContain("__switchyardProgram");
    }
  });

  it.each([
    ["NUL and control characters", "\u0000\u0001\u0002 garbage \u0007"],
    ["an unterminated template", "const s = `${tools.orders"],
    ["absurd nesting", "(".repeat(100_000)],
    ["deeply nested blocks", "{".repeat(20_000) + "}".repeat(20_000)],
    ["100 KB of random printable characters", randomText(100_000, 7)],
    ["an empty program", ""],
    ["only a comment", "// nothing to do"],
  ])("returns diagnostics without throwing for %s", (_name, source) => {
    const diagnostics = check(source);
    expect(Array.isArray(diagnostics)).toBe(true);
    expect(diagnostics.length).toBeLessThanOrEqual(50);
    for (const diagnostic of diagnostics) {
      expect(diagnostic.line).toBeGreaterThanOrEqual(1);
      expect(diagnostic.column).toBeGreaterThanOrEqual(1);
    }
    // The checker stays usable after garbage.
    expect(check("return 1;")).toEqual([]);
  });

  it("turns a compiler crash into one CHECK_FAILED diagnostic", () => {
    expect(check("(".repeat(100_000))).toEqual([expect.objectContaining({ code: "CHECK_FAILED", line: 1, column: 1 })]);
  });

  it("parses unchanged declarations once and changed ones again", () => {
    const fresh = new ProgramTypeChecker();
    fresh.check("return 1;", DECLARATIONS);
    fresh.check("return 2;", DECLARATIONS);
    fresh.check("const x = await tools.orders.get({ id: 'a' });", DECLARATIONS);
    expect(fresh.stats).toMatchObject({ checks: 3, declarationParses: 1 });
    fresh.check("return 3;", `${DECLARATIONS}\ninterface Extra { a: string }`);
    expect(fresh.stats.declarationParses).toBe(2);
    fresh.dispose();
  });

  it("throws CONFIG_INVALID when the declarations themselves do not compile", () => {
    const broken = `${DECLARATIONS}\ndeclare const extra: MissingType;`;
    let thrown: unknown;
    try {
      checker.check("return 1;", broken);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(SwitchyardError);
    expect(thrown).toMatchObject({ code: "CONFIG_INVALID" });
    expect((thrown as Error).message).toContain("MissingType");
    // Valid declarations still work afterwards.
    expect(check("return 1;")).toEqual([]);
  });

  it("exposes a process-wide checker as typeCheckProgram", () => {
    expect(typeCheckProgram("return tools.orders.get({ id: 'a' });", DECLARATIONS)).toEqual([]);
  });
});

/** Deterministic pseudo-random printable text (a tiny LCG; no dependency on Math.random). */
function randomText(length: number, seed: number): string {
  let state = seed;
  let text = "";
  for (let index = 0; index < length; index++) {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    text += String.fromCharCode(32 + (state % 95));
    if (state % 61 === 0) text += "\n";
  }
  return text;
}
