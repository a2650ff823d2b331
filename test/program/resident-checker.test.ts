// The resident checker (one TypeScript checker kept across programs) must never change what a
// check says: every program, clean or not, in any order after any other, gets exactly the
// diagnostics a fresh ts.Program gives it. Programs come from the model-program corpora, each
// also broken in ways models break them, plus the hostile shapes the checker special-cases.

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import type { ContractDeclarations } from "../../src/program/contract-declarations.js";
import { NO_CONTRACT } from "../../src/program/contract-declarations.js";
import type { ProgramForm } from "../../src/program/program-wrapper.js";
import { WARM_UP_PROGRAMS } from "../../src/program/shared-type-checker.js";
import { ProgramTypeChecker } from "../../src/program/type-check-program.js";
import type { ToolDefinition } from "../../src/registry/define-tool.js";
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

async function corpusCases(): Promise<Case[]> {
  const catalogs = [
    { folder: "helpdesk", declarations: await declarationsOf(createHelpdeskTools(createHelpdeskData()).tools) },
    { folder: "inventory", declarations: await declarationsOf(createInventoryTools(createInventoryData()).tools) },
  ];
  const cases: Case[] = [];
  for (const { folder, declarations } of catalogs) {
    programFiles(folder).forEach((file, index) => {
      const source = readFileSync(join(CORPUS, folder, file), "utf8");
      cases.push({ name: `${folder}/${file}`, source, declarations });
      const breakage = BREAKAGES[index % BREAKAGES.length] as string;
      cases.push({ name: `${folder}/${file} broken`, source: `${breakage}\n${source}`, declarations });
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
    const cases = [...(await corpusCases()), ...EDGE_CASES.map((entry) => ({ ...entry, declarations: SMALL }))];
    const reference = make(false);
    const expected = new Map(cases.map((entry) => [entry.name, check(reference, entry)]));
    // The corpus must hold both kinds, or the comparison proves little.
    expect([...expected.values()].filter((found) => Array.isArray(found) && found.length === 0).length).toBeGreaterThan(
      15,
    );
    expect([...expected.values()].filter((found) => Array.isArray(found) && found.length > 0).length).toBeGreaterThan(
      20,
    );
    const resident = make(true);
    for (const order of [cases, [...cases].reverse()]) {
      for (const entry of order)
        expect({ name: entry.name, found: check(resident, entry) }).toEqual({
          name: entry.name,
          found: expected.get(entry.name),
        });
    }
    // Clean programs were answered by the resident checker alone.
    expect(resident.stats.residentClean).toBeGreaterThan(30);
  });

  it("is driven by a session's warm-up through enough distinct clean programs to optimise its code", () => {
    // Its code gets fast only after about 20 checks: a warm-up that reached the full check
    // instead (a comment directive in a copy, say) or repeated a cached text would leave it cold.
    expect(new Set(WARM_UP_PROGRAMS).size).toBe(WARM_UP_PROGRAMS.length);
    const checker = make(true);
    for (const program of WARM_UP_PROGRAMS) checker.check(program, RUNTIME_DECLARATIONS);
    expect(checker.stats.residentStarts).toBe(1);
    expect(checker.stats.residentClean).toBeGreaterThanOrEqual(24);
  });

  it("keeps a checker across programs with the same declarations and starts one for new declarations", () => {
    const checker = make(true);
    for (let round = 0; round < 5; round++) expect(checker.check(`return ${round};`, SMALL)).toEqual([]);
    expect(checker.stats).toMatchObject({ checks: 5, residentClean: 5, residentStarts: 1 });
    expect(checker.check("return 1;", `${SMALL}\ninterface Extra { a: string }`)).toEqual([]);
    expect(checker.stats.residentStarts).toBe(2);
  });

  it("keeps the checkers of the last four declarations, so programs alternating between tool sets reuse theirs", () => {
    const checker = make(true);
    const sets = [0, 1, 2, 3, 4].map((index) => `${SMALL}\ninterface Extra${index} { a: string }`);
    for (const round of [0, 1])
      for (const set of sets.slice(0, 4)) expect(checker.check(`return ${round};`, set)).toEqual([]);
    expect(checker.stats.residentStarts).toBe(4);
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

  it("retires a checker that hit an instantiation limit", () => {
    const checker = make(true);
    checker.check("return 1;", SMALL);
    const deep = checker.check(
      "type Grow<T> = T extends [infer A] ? Grow<[[A, A]]> : never;\nconst x: Grow<[1]> = null as never;\nreturn x;",
      SMALL,
    );
    expect(deep.map((diagnostic) => diagnostic.code)).toContain(2589);
    expect(checker.check("return 2;", SMALL)).toEqual([]);
    expect(checker.stats.residentStarts).toBe(2);
  });
});
