// The resident checkers (one TypeScript checker kept across programs, shared by every small
// declaration set) must never change what a check says: every program, clean or not, against any
// declarations, in any order after any other, gets exactly the diagnostics a fresh ts.Program gives
// it. Programs come from the model-program corpora, each also broken in ways models break them,
// checked against whole catalogs and against the tools each uses; plus the hostile shapes the
// checker special-cases, and hostile declarations (names that clash, lib globals redeclared).

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type * as TS from "typescript";
import { afterAll, describe, expect, it } from "vitest";
import type { ContractDeclarations } from "../../src/program/contract-declarations.js";
import { NO_CONTRACT } from "../../src/program/contract-declarations.js";
import { CheckedDeclarations } from "../../src/program/checked-declarations.js";
import { lintProgram } from "../../src/program/lint-program.js";
import { parseWrappedProgram } from "../../src/program/parse-wrapped-program.js";
import type { ProgramForm } from "../../src/program/program-wrapper.js";
import { WARM_UP_PROGRAMS } from "../../src/program/shared-type-checker.js";
import { ProgramTypeChecker } from "../../src/program/type-check-program.js";
import type { ToolDefinition } from "../../src/registry/define-tool.js";
import { ToolRegistry } from "../../src/registry/tool-registry.js";
import { RUNTIME_DECLARATIONS } from "../../src/schema/generate-declarations.js";
import { Switchyard } from "../../src/switchyard.js";
import { createHelpdeskData, createHelpdeskTools } from "../model-programs/catalogs/helpdesk.js";
import { createInventoryData, createInventoryTools } from "../model-programs/catalogs/flaky-inventory.js";
import { programFiles } from "../model-programs/corpus.js";

interface Case {
  readonly name: string;
  readonly source: string;
  readonly declarations: string;
  readonly form?: ProgramForm;
  readonly contract?: ContractDeclarations;
}

const CORPUS = fileURLToPath(new URL("../model-programs/", import.meta.url));

async function declarationsOf(tools: ToolDefinition[]): Promise<string> {
  const yard = new Switchyard({ tools });
  try {
    return `${RUNTIME_DECLARATIONS}\n${yard.declarations()}`;
  } finally {
    await yard.close();
  }
}

/** Ways models break a program, each put in front of it: wrong types, unknown tools, unions in messages. */
const BREAKAGES = [
  'const wrongType: number = "text";',
  "await tools.nope.list({});",
  'const pick: "a" | "b" = Math.random() > 0.5 ? "b" : "c";',
  "const mixed: string = Math.random() > 0.5 ? 1 : [true];",
  "[1, 2].findLast((n) => n > 1);",
];

/**
 * Each corpus program, clean and broken, against its whole catalog and against the declarations of
 * the tools it uses (as a session chooses them): many small declaration sets, one shared checker.
 */
async function corpusCases(references: ProgramTypeChecker): Promise<Case[]> {
  const catalogs = [
    { folder: "helpdesk", tools: createHelpdeskTools(createHelpdeskData()).tools },
    { folder: "inventory", tools: createInventoryTools(createInventoryData()).tools },
  ];
  const cases: Case[] = [];
  for (const { folder, tools } of catalogs) {
    const declarations = await declarationsOf(tools);
    const scope = new CheckedDeclarations().scope(new ToolRegistry(tools).snapshot(), undefined);
    programFiles(folder).forEach((file, index) => {
      const source = readFileSync(join(CORPUS, folder, file), "utf8");
      const breakage = BREAKAGES[index % BREAKAGES.length] as string;
      for (const [name, text] of [
        [`${folder}/${file}`, source],
        [`${folder}/${file} broken`, `${breakage}\n${source}`],
      ] as const) {
        cases.push({ name, source: text, declarations });
        const scoped = scope.select(references.references(text), NO_CONTRACT);
        cases.push({ name: `${name} (its tools only)`, source: text, declarations: scoped });
      }
    });
  }
  return cases;
}

const SMALL = `${RUNTIME_DECLARATIONS}
interface OrdersGetOutput { id: string; total: number; status: "open" | "paid" }
declare const tools: ToolsRuntime & { orders: { get(input: { id: string }): Promise<OrdersGetOutput> } };
`;

const OUTPUT_CONTRACT: ContractDeclarations = {
  declarations: "interface ProgramOutput { total: number; ids: string[] }\ndeclare const input: { ids: string[] };\n",
  outputType: "ProgramOutput",
};

/** Shapes the checker treats specially, or that a shared checker could get wrong. */
const EDGE_CASES: readonly Omit<Case, "declarations">[] = [
  { name: "escape from the wrapper", source: "console.log('a');\n}\nfunction escaped() {" },
  { name: "escape that declares a global", source: "}\ninterface Array<T> { sneaky: T }\n{\nreturn [1].sneaky;" },
  {
    name: "escape that redeclares the tools and closes the module",
    source: "}\ndeclare const tools: any;\nexport {};\nasync function __switchyardProgram() {\nreturn tools.x;",
  },
  { name: "an unused @ts-expect-error", source: "// @ts-expect-error\nconst fine = 1;\nreturn fine;" },
  { name: "a @ts-ignore over an error", source: '// @ts-ignore\nconst n: number = "s";\nreturn n;' },
  { name: "@ts-nocheck", source: '// @ts-nocheck\nconst n: number = "s";\nreturn n;' },
  { name: "import.meta", source: "return import.meta;" },
  { name: "the wrapper's own name", source: "return __switchyardProgram;" },
  { name: "a global declared in the body", source: "declare global { interface Array<T> { x: T } }\nreturn 1;" },
  { name: "an implicit any parameter", source: "function twice(x) { return x * 2; }\nreturn twice(2);" },
  {
    name: "an untyped variable assigned in a callback",
    source: "let last;\n[1, 2].forEach((v) => { last = v; });\nreturn last.toFixed();",
  },
  {
    name: "a type instantiated too deep",
    source:
      "type Deep<T, N extends unknown[] = []> = N['length'] extends 60 ? T : Deep<Promise<T>, [...N, 1]>;\n" +
      "const d: Deep<string> = null as never;\nconst e: Deep<number> = d;\nreturn e;",
  },
  { name: "a syntax error", source: "const a = ;\nconst b: number = 'x';" },
  { name: "lib types of every kind", source: SMALL_PROGRAM() },
  {
    name: "Object.entries of an untyped value",
    source:
      "const o: any = {};\nfor (const [k, v] of Object.entries(o)) console.log(k, v.x);\nreturn structuredClone(o);",
  },
  {
    name: "an expression program",
    source: "async () => { const o = await tools.orders.get({ id: 'a' }); return o.total; }",
    form: "expression",
  },
  {
    name: "an output contract met",
    source: "const o = await tools.orders.get({ id: input.ids[0] ?? '' });\nreturn { total: o.total, ids: input.ids };",
    contract: OUTPUT_CONTRACT,
  },
  {
    name: "an output contract broken",
    source: "const o = await tools.orders.get({ id: 'a' });\nreturn { total: o.status, ids: [] };",
    contract: OUTPUT_CONTRACT,
  },
  {
    name: "an expression program with a contract",
    source: "async () => ({ total: 1, ids: input.ids })",
    form: "expression",
    contract: OUTPUT_CONTRACT,
  },
];

function SMALL_PROGRAM(): string {
  return [
    "const byStatus = new Map<string, number>();",
    "const o = await tools.orders.get({ id: 'a' });",
    "byStatus.set(o.status, (byStatus.get(o.status) ?? 0) + 1);",
    "const settled = await Promise.allSettled([tools.orders.get({ id: 'b' })]);",
    "const flat = [[1], [2]].flatMap((x) => x).at(-1);",
    "const keys = Object.keys(o).join(',') + Object.fromEntries([['a', 1]]).a;",
    "const since = new Date(Date.now()).toISOString().padStart(30);",
    "return { byStatus: [...byStatus.entries()], settled: settled.length, flat, keys, since, has: Object.hasOwn(o, 'id') };",
  ].join("\n");
}

function check(checker: ProgramTypeChecker, entry: Case): unknown {
  try {
    return checker.check(entry.source, entry.declarations, entry.form ?? "body", entry.contract ?? NO_CONTRACT);
  } catch (error) {
    return { thrown: String(error) };
  }
}

/**
 * Checks every case with `resident`, in the given order and then reversed, and expects exactly the
 * diagnostics of `expected` (a checker without residents), calling `prepareIdle` after each check as
 * the checker process does between requests, so recurring sets get checkers of their own.
 */
function expectSameInBothOrders(resident: ProgramTypeChecker, cases: Case[], expected: Map<string, unknown>): void {
  for (const order of [cases, [...cases].reverse()]) {
    for (const entry of order) {
      expect({ name: entry.name, found: check(resident, entry) }).toEqual({
        name: entry.name,
        found: expected.get(entry.name),
      });
      resident.prepareIdle();
    }
  }
}

describe("ProgramTypeChecker with a resident checker", () => {
  const checkers: ProgramTypeChecker[] = [];
  const make = (resident: boolean): ProgramTypeChecker => {
    const checker = new ProgramTypeChecker({ resident });
    checkers.push(checker);
    return checker;
  };
  afterAll(() => {
    for (const checker of checkers) checker.dispose();
  });

  it("gives every corpus program, clean or broken, exactly the diagnostics of a fresh program, in any order", {
    timeout: 240_000,
  }, async () => {
    const reference = make(false);
    const cases = [
      ...(await corpusCases(reference)),
      ...EDGE_CASES.map((entry) => ({ ...entry, declarations: SMALL })),
    ];
    // The tools-only sets differ from program to program, or the shared checker is not exercised.
    expect(new Set(cases.map((entry) => entry.declarations)).size).toBeGreaterThan(10);
    const expected = new Map(cases.map((entry) => [entry.name, check(reference, entry)]));
    // The corpus must hold both kinds, or the comparison proves little.
    expect([...expected.values()].filter((found) => Array.isArray(found) && found.length === 0).length).toBeGreaterThan(
      15,
    );
    expect([...expected.values()].filter((found) => Array.isArray(found) && found.length > 0).length).toBeGreaterThan(
      20,
    );
    const resident = make(true);
    expectSameInBothOrders(resident, cases, expected);
    // Clean programs were answered by the shared checker alone, or by a recurring set's own.
    expect(resident.stats.sharedClean).toBeGreaterThan(15);
    expect(resident.stats.residentClean).toBeGreaterThan(15);
  });

  it("is driven by a session's warm-up through enough distinct clean programs to optimise its code", () => {
    // Its code gets fast only after about 20 checks: a warm-up that reached the full check
    // instead (a comment directive in a copy, say) or repeated a cached text would leave it cold.
    expect(new Set(WARM_UP_PROGRAMS).size).toBe(WARM_UP_PROGRAMS.length);
    const checker = make(true);
    for (const program of WARM_UP_PROGRAMS) checker.check(program, RUNTIME_DECLARATIONS);
    expect(checker.stats.sharedStarts).toBe(1);
    expect(checker.stats.sharedClean).toBeGreaterThanOrEqual(24);
  });

  it("answers programs against any number of small declaration sets from one shared checker", () => {
    const checker = make(true);
    for (let round = 0; round < 5; round++) expect(checker.check(`return ${round};`, SMALL)).toEqual([]);
    for (let set = 0; set < 8; set++) {
      expect(
        checker.check("return (await tools.orders.get({ id: 'a' })).total;", `${SMALL}interface Extra${set} {}\n`),
      ).toEqual([]);
    }
    expect(checker.stats).toMatchObject({ checks: 13, sharedClean: 13, sharedStarts: 1, residentStarts: 0 });
    // Its first answer needed no service program: the declarations were parsed by no one else.
    expect(checker.stats.declarationParses).toBe(0);
  });

  it("prepares a resident checker of its own, when idle, for a declaration set used twice", () => {
    const checker = make(true);
    const set = `${SMALL}interface Recurring { a: string }\n`;
    expect(checker.check("return 1;", set)).toEqual([]);
    checker.prepareIdle();
    // Used once: nothing prepared (most new sets are one program's).
    expect(checker.stats.residentStarts).toBe(0);
    expect(checker.check("return 2;", set)).toEqual([]);
    checker.prepareIdle();
    expect(checker.stats.residentStarts).toBe(1);
    expect(checker.check("const r: Recurring = { a: 'x' };\nreturn r.a;", set)).toEqual([]);
    const broken = checker.check("const r: Recurring = { b: 'x' };\nreturn r;", set);
    expect(broken).toEqual(make(false).check("const r: Recurring = { b: 'x' };\nreturn r;", set));
    expect(checker.stats).toMatchObject({ sharedClean: 2, residentClean: 1, residentStarts: 1 });
    // Warm-ups do not count as uses: one is not prepared for after two of them.
    const warmed = `${SMALL}interface Warmed { a: string }\n`;
    checker.check("return 1;", warmed, "body", NO_CONTRACT, { warmUp: true });
    checker.check("return 2;", `${warmed}interface Other {}\n`, "body", NO_CONTRACT, { warmUp: true });
    checker.check("return 3;", warmed, "body", NO_CONTRACT, { warmUp: true });
    checker.prepareIdle();
    expect(checker.stats.residentStarts).toBe(2);
  });

  it("takes turns between the shared checker and the set's own for warm-up programs, so both get fast", () => {
    const checker = make(true);
    for (const round of [1, 2, 3, 4]) {
      expect(checker.check(`return ${round};`, SMALL, "body", NO_CONTRACT, { warmUp: true })).toEqual([]);
    }
    expect(checker.stats).toMatchObject({ sharedClean: 2, residentClean: 2, sharedStarts: 1, residentStarts: 1 });
    // A real program against the same declarations goes to their own checker.
    expect(checker.check("return 5;", SMALL)).toEqual([]);
    expect(checker.stats).toMatchObject({ sharedClean: 2, residentClean: 3 });
  });

  it("never lets one declaration set's names reach a program checked against another", () => {
    const checker = make(true);
    const reference = make(false);
    const withExtra = `${SMALL}interface Extra { a: string }\ndeclare function extra(): Extra;\n`;
    expect(checker.check("const e: Extra = extra();\nreturn e.a;", withExtra)).toEqual([]);
    const later = "const e: Extra = extra();\nreturn e.a;";
    expect(checker.check(later, SMALL)).toEqual(reference.check(later, SMALL));
    expect(checker.check(later, SMALL)).toHaveLength(2);
  });

  it("keeps the checkers of the last four declaration sets it cannot share, so programs alternating between them reuse theirs", () => {
    const checker = make(true);
    // Declarations that do not start with the runtime's get a checker of their own.
    const sets = [0, 1, 2, 3, 4].map((index) => `// own declarations\n${SMALL}\ninterface Extra${index} { a: string }`);
    for (const round of [0, 1])
      for (const set of sets.slice(0, 4)) expect(checker.check(`return ${round};`, set)).toEqual([]);
    expect(checker.stats.residentStarts).toBe(4);
    expect(checker.stats.sharedStarts).toBe(0);
    // A fifth set drops the least recently used (the first), and only that one.
    expect(checker.check("return 2;", sets[4] as string)).toEqual([]);
    expect(checker.check("return 2;", sets[3] as string)).toEqual([]);
    expect(checker.stats.residentStarts).toBe(5);
    expect(checker.check("return 2;", sets[0] as string)).toEqual([]);
    expect(checker.stats.residentStarts).toBe(6);
  });

  it("never lets a program's declarations reach a later program's scope", () => {
    const checker = make(true);
    expect(checker.check("interface Row { id: string }\nconst rows: Row[] = [];\nreturn rows;", SMALL)).toEqual([]);
    expect(checker.check("function helper() { return 1; }\nreturn helper();", SMALL)).toEqual([]);
    const later = checker.check("const row: Row = { id: 'a' };\nreturn helper() + row.id;", SMALL);
    expect(later.map((diagnostic) => diagnostic.code)).toEqual([2304, 2304]);
  });

  it("checks the very tree a new program's references and lint read, when a resident checker answers", () => {
    const checker = make(true);
    const set = `// own declarations\n${SMALL}`;
    expect(checker.check("return 0;", set)).toEqual([]);
    const source =
      "const o = await tools.orders.get({ id: 'a' });\nfor (const id of ['b', 'c']) await tools.orders.get({ id });\nreturn o.total;";
    // As the checker process answers a new program: references, check, then lint, all from one parse.
    expect(checker.references(source).members).toEqual([["orders", "get"]]);
    const tree = parseWrappedProgram(source, "body");
    expect(checker.check(source, set)).toEqual([]);
    expect(checker.stats.residentClean).toBe(2);
    // Bound by the checker (a tree of its own would be left unbound), and still the readers' tree.
    expect((tree as TS.SourceFile & { locals?: unknown }).locals).toBeDefined();
    expect(parseWrappedProgram(source, "body")).toBe(tree);
    expect(lintProgram(source).map((warning) => warning.code)).toEqual(["serial-await-in-loop"]);
    expect(checker.references(source).members).toEqual([["orders", "get"]]);
  });

  it("never checks a tree again under a new name: a broken program is never found clean on its second check", () => {
    const checker = make(true);
    const reference = make(false);
    const [first, second] = ["A", "B"].map((set) => `// own declarations ${set}\n${SMALL}`) as [string, string];
    const broken = 'const total: number = (await tools.orders.get({ id: "a" })).status;\nreturn total;';
    const expected = reference.check(broken, first);
    expect(expected.map((diagnostic) => diagnostic.code)).toEqual([2322]);
    // The same source against one set, another, then the first again: one tree from the parse cache each time.
    for (const set of [first, second, first, second]) {
      expect(parseWrappedProgram(broken, "body")).toBe(parseWrappedProgram(broken, "body"));
      expect(checker.check(broken, set)).toEqual(expected);
    }
    expect(checker.stats).toMatchObject({ residentStarts: 2, residentClean: 0 });
  });

  it("retires a checker that hit an instantiation limit", () => {
    const checker = make(true);
    checker.check("return 1;", SMALL);
    const deep = checker.check(
      "type Grow<T> = T extends [infer A] ? Grow<[[A, A]]> : never;\nconst x: Grow<[1]> = null as never;\nreturn x;",
      SMALL,
    );
    expect(deep.map((diagnostic) => diagnostic.code)).toContain(2589);
    expect(checker.check("return 2;", SMALL)).toEqual([]);
    expect(checker.stats.sharedStarts).toBe(2);
  });

  it("gives programs against hostile declarations exactly the diagnostics of a fresh program", {
    timeout: 240_000,
  }, () => {
    const reference = make(false);
    const resident = make(true);
    const cases: Case[] = [];
    for (const [name, declarations] of HOSTILE_DECLARATIONS) {
      for (const [program, source] of HOSTILE_PROGRAMS) {
        cases.push({ name: `${name} / ${program}`, source, declarations: `${RUNTIME_DECLARATIONS}\n${declarations}` });
      }
    }
    cases.push(
      ...HOSTILE_PROGRAMS.map(([program, source]) => ({
        name: `a contract that clashes / ${program}`,
        source,
        declarations: `${RUNTIME_DECLARATIONS}\n${ORDERS}`,
        contract: { declarations: "declare const input: { ids: string[] };\ninterface Row { other: number }\n" },
      })),
    );
    const expected = new Map(cases.map((entry) => [entry.name, check(reference, entry)]));
    // Both kinds again, and some hostile declarations that the full check accepts (a lib global merged).
    expect([...expected.values()].filter((found) => Array.isArray(found) && found.length === 0).length).toBeGreaterThan(
      20,
    );
    expect([...expected.values()].filter((found) => !Array.isArray(found) || found.length > 0).length).toBeGreaterThan(
      20,
    );
    expectSameInBothOrders(resident, cases, expected);
    // The plain sets went through the shared checker; the hostile ones fell back without a wrong "clean".
    expect(resident.stats.sharedClean).toBeGreaterThanOrEqual(5);
  });
});

const ORDERS = `interface Row { id: string; total: number }
interface OrdersGetOutput { id: string; total: number; status: "open" | "paid" }
declare const tools: ToolsRuntime & { orders: { get(input: { id: string }): Promise<OrdersGetOutput> }; rows: { list(): Promise<Row[]> } };
`;

/** Declarations (after the runtime's) a catalog or a host could hand the checker, each a hazard for a shared checker. */
const HOSTILE_DECLARATIONS: readonly (readonly [string, string])[] = [
  ["plain", ORDERS],
  ["a lib interface merged", `${ORDERS}interface Array<T> { sneaky: T }\n`],
  ["a lib global redeclared", `${ORDERS}declare const JSON: { parse(text: string): number };\n`],
  ["a lib type alias redeclared", `${ORDERS}type Record<K, V> = string;\n`],
  ["a runtime interface merged", `${ORDERS}interface ToolsRuntime { $extra(): Promise<number> }\n`],
  ["a runtime function redeclared", `${ORDERS}declare function sleep(ms: string): Promise<void>;\n`],
  ["console redeclared", `${ORDERS}declare const console: { log(value: number): void };\n`],
  ["globalThis redeclared", `${ORDERS}declare const globalThis: { secret: string };\n`],
  ["undefined redeclared", `${ORDERS}declare const undefined: number;\n`],
  ["the program function declared", `${ORDERS}declare function __switchyardProgram(): void;\n`],
  ["a global var", `${ORDERS}declare var shared: { count: number };\n`],
  ["a global let", `${ORDERS}declare let counter: number;\n`],
  ["an export", `export interface Exported { a: string }\n${ORDERS}`],
  ["a global augmentation", `${ORDERS}declare global { interface Array<T> { sneaky: T } }\n`],
  ["a namespace", `${ORDERS}declare namespace Helpers { const version: string }\n`],
  ["a class", `${ORDERS}declare class Rows { count: number }\n`],
  ["an enum", `${ORDERS}declare enum Status { Open, Paid }\n`],
  ["a lib reference", `/// <reference lib="dom" />\n${ORDERS}`],
  ["no default lib", `/// <reference no-default-lib="true"/>\n${ORDERS}`],
  ["an AMD module name", `/// <amd-module name="orders"/>\n${ORDERS}`],
  ["a ts-nocheck", `// @ts-nocheck\n${ORDERS}interface Broken { a: Missing }\n`],
  ["a ts-ignore over an error", `${ORDERS}// @ts-ignore\ninterface Broken { a: Missing }\n`],
  ["an error", `${ORDERS}interface Broken { a: Missing }\n`],
  ["an implicit any", `${ORDERS}declare function loose(value);\n`],
  ["an unterminated comment", `${ORDERS}/* never closed\n`],
  ["a last line comment", `${ORDERS}// ends without a newline`],
  ["an initialized constant", `${ORDERS}declare const limit = 10;\n`],
  ["a type of import.meta", `${ORDERS}declare const meta: typeof import.meta;\n`],
  ["an import type", `${ORDERS}declare const fs: typeof import("fs");\n`],
  ["tools declared twice", `${ORDERS}declare const tools: { other: number };\n`],
  ["input declared", `${ORDERS}declare const input: { ids: number[] };\n`],
  ["a destructured constant", `${ORDERS}declare const { a, b }: { a: number; b: string };\n`],
  ["duplicate interfaces merged", `${ORDERS}interface Row { extra: boolean }\n`],
  [
    "large",
    `${ORDERS}${Array.from({ length: 400 }, (_, index) => `interface Filler${index} { a${index}: string; b: Row }`).join("\n")}\n`,
  ],
  [
    "beyond the shared size",
    `${ORDERS}${Array.from({ length: 1_600 }, (_, index) => `interface Filler${index} { a${index}: string; b: Row }`).join("\n")}\n`,
  ],
];

/** Programs that read what the hostile declarations change, or declare the names they declare. */
const HOSTILE_PROGRAMS: readonly (readonly [string, string])[] = [
  ["plain", "const o = await tools.orders.get({ id: 'a' });\nreturn o.total;"],
  ["a merged lib member", "return [1, 2].sneaky;"],
  ["a lib global", "return JSON.parse('1') + 1;"],
  ["rows of its own", "interface Row { own: boolean }\nconst rows: Row[] = [{ own: true }];\nreturn rows;"],
  [
    "the catalog's rows",
    "const rows = await tools.rows.list();\nconst first: Row | undefined = rows[0];\nreturn first?.total;",
  ],
  ["a name shadowing tools", "const tools = 1;\nreturn tools;"],
  ["globals through globalThis", "return [globalThis.shared, globalThis.counter];"],
  ["a DOM global", "return document.title;"],
  ["the runtime", "await sleep(1);\nconsole.log('x');\nreturn (await tools.$budget()).callsLeft;"],
  ["an error of its own", 'const n: number = "text";\nreturn n;'],
];
