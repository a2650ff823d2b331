// The model-program corpus: programs written as a capable model would write them from nothing
// but the run_program description of their catalog (yard.programTool()), each run through the
// real session against its tools and held to its answer. The programs live in
// `<catalog>/*.program.ts`, one task each (its first line); a catalog's programs run in file
// order in one session, as one conversation would, so a later program may rely on the types
// an earlier one's results gave a tool. When the instructions or declarations change, the
// committed description (`<catalog>/run-program.md`) must be rewritten (UPDATE_DESCRIPTIONS=1)
// and the programs reread against it: this corpus is their regression net.

import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunResult } from "../../src/contract.js";
import type { RunLimits } from "../../src/sandbox/run-program.js";
import type { Switchyard } from "../../src/switchyard.js";

/** What a program must answer, and how the answer is held to it. */
export interface CorpusEntry<Context> {
  /** The answer, computed from the catalog's own data before the program runs. */
  readonly expected: (context: Context) => unknown;
  /** Compares the output with `expected`; default deep equality. */
  readonly check?: (output: unknown, expected: unknown, result: RunResult, context: Context) => void;
  /** Limits the task was run with. */
  readonly limits?: Partial<RunLimits>;
  /** Warning codes the run is expected to carry (default: none). */
  readonly warnings?: readonly string[];
}

export interface CorpusCatalog<Context> {
  /** The folder of its programs under test/model-programs. */
  readonly folder: string;
  /** Builds the session and the context its entries read; `close` ends both. */
  readonly open: () => Promise<{ yard: Switchyard; context: Context; close: () => Promise<void> }>;
  /** One entry per program file, by file name. */
  readonly entries: Readonly<Record<string, CorpusEntry<Context>>>;
}

const ROOT = fileURLToPath(new URL(".", import.meta.url));

/** The `*.program.ts` files of a catalog folder, in order. */
export function programFiles(folder: string): string[] {
  return readdirSync(join(ROOT, folder))
    .filter((name) => name.endsWith(".program.ts"))
    .sort();
}

/** The task a program answers: its first line, without the `// Task:` prefix. */
function taskOf(source: string): string {
  return (source.split("\n")[0] ?? "").replace(/^\/\/\s*Task:\s*/, "");
}

/** Runs a catalog's corpus as one describe block. */
export function describeCorpus<Context>(name: string, catalog: CorpusCatalog<Context>): void {
  describe(`model programs: ${name}`, () => {
    let session: Awaited<ReturnType<CorpusCatalog<Context>["open"]>>;
    let description = "";
    beforeAll(async () => {
      session = await catalog.open();
      description = session.yard.programTool().description;
    }, 60_000);
    afterAll(async () => {
      await session?.close();
    });

    const files = programFiles(catalog.folder);

    it("has an entry for every program and a program for every entry", () => {
      expect(files.length).toBeGreaterThan(0);
      expect(Object.keys(catalog.entries).sort()).toEqual(files);
    });

    it("was written against the run_program description committed beside it", () => {
      const path = join(ROOT, catalog.folder, "run-program.md");
      if (process.env["UPDATE_DESCRIPTIONS"] === "1" || !existsSync(path)) writeFileSync(path, `${description}\n`);
      expect(
        `${description}\n`,
        `run_program's description changed: rerun with UPDATE_DESCRIPTIONS=1, then reread ${catalog.folder}/*.program.ts against it`,
      ).toBe(readFileSync(path, "utf8"));
    });

    for (const file of files) {
      const source = readFileSync(join(ROOT, catalog.folder, file), "utf8");
      it(`${file}: ${taskOf(source)}`, async () => {
        const entry = catalog.entries[file];
        if (entry === undefined) throw new Error(`no corpus entry for ${file}`);
        const expected = entry.expected(session.context);
        const result = await session.yard.run(source, entry.limits === undefined ? {} : { limits: entry.limits });
        expect(result.error, result.error?.message).toBeUndefined();
        expect(result.ok).toBe(true);
        expect(result.warnings.map((warning) => `${warning.code}: ${warning.message}`)).toEqual(
          (entry.warnings ?? []).map((code) => expect.stringMatching(new RegExp(`^${code}: `))),
        );
        if (entry.check === undefined) expect(result.output).toEqual(expected);
        else entry.check(result.output, expected, result, session.context);
      });
    }
  });
}
