// The README's code runs as written. Every ts/js block is type-checked as a consumer's module
// would be (strict, NodeNext, importing `switchyard-runtime` by name; here resolved to the
// sources, in CI's consumer test to the published declarations), and every block not marked
// otherwise runs to completion. See readme-blocks.ts for the markers.

import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { promisify } from "node:util";
import type * as TS from "typescript";
import { afterAll, describe, expect, it } from "vitest";
import { readmeBlocks, repositoryReadme, writeReadmeBlocks } from "./readme-blocks.js";

const require = createRequire(import.meta.url);
const ts = require("typescript") as typeof TS;
const TSX = pathToFileURL(require.resolve("tsx")).href;
const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const TSCONFIG = join(ROOT, "tsconfig.json");

// Inside the repository, so the blocks are ES modules (its package.json) and see its node_modules.
const folder = mkdtempSync(join(ROOT, ".readme-blocks-"));
const workFolder = mkdtempSync(join(tmpdir(), "switchyard-readme-"));
afterAll(() => {
  rmSync(folder, { recursive: true, force: true });
  rmSync(workFolder, { recursive: true, force: true });
});

const blocks = writeReadmeBlocks(folder);

/** tsconfig.json's `paths` (the package's entry points), made absolute. */
function entryPaths(): Record<string, string[]> {
  const config = ts.readConfigFile(TSCONFIG, ts.sys.readFile).config as {
    compilerOptions: { paths: Record<string, string[]> };
  };
  return Object.fromEntries(
    Object.entries(config.compilerOptions.paths).map(([name, targets]) => [
      name,
      targets.map((target) => join(ROOT, target)),
    ]),
  );
}

describe("README.md", () => {
  it("marks few blocks as not run, each with a reason", () => {
    const all = readmeBlocks(repositoryReadme());
    const notRun = all.filter((block) => block.mode !== "run");
    expect(all.filter((block) => block.mode === "run").length).toBeGreaterThanOrEqual(2);
    // The first example states its result, so its program's type check and run are held to it.
    expect(all.find((block) => block.mode === "run")?.expectedOutput).toEqual(["true 0"]);
    // The three framework blocks call a model; examples/<framework>/ runs the same offline. The
    // fleet block needs a Redis and a worker; test/fleet/ runs the same against a real one.
    expect(notRun.length).toBeLessThanOrEqual(7);
    for (const block of notRun) expect(block.reason?.length ?? 0).toBeGreaterThan(10);
  });

  it("type-checks every block as a consumer's strict module", () => {
    const files = blocks.map((block) => join(folder, block.fileName));
    const program = ts.createProgram(files, {
      strict: true,
      noEmit: true,
      target: ts.ScriptTarget.ES2022,
      lib: ["lib.es2022.d.ts"],
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      types: ["node"],
      skipLibCheck: true,
      allowJs: true,
      checkJs: true,
      paths: entryPaths(),
    });
    const problems = files.flatMap((file) =>
      ts.getPreEmitDiagnostics(program, program.getSourceFile(file)).map((diagnostic) => {
        const block = blocks.find((candidate) => file.endsWith(candidate.fileName))!;
        const position =
          diagnostic.file === undefined || diagnostic.start === undefined
            ? undefined
            : diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start);
        const line = position === undefined ? block.line : block.line + position.line + 1;
        return `README.md:${line}: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n")} (TS${diagnostic.code})`;
      }),
    );
    expect(problems).toEqual([]);
  }, 120_000);

  it.each(blocks.filter((block) => block.mode === "run").map((block) => [block.line, block] as const))(
    "runs the block at line %i to completion",
    async (_line, block) => {
      const { stdout, stderr } = await promisify(execFile)(
        process.execPath,
        ["--no-node-snapshot", "--import", TSX, join(folder, block.fileName)],
        { cwd: workFolder, env: { ...process.env, TSX_TSCONFIG_PATH: TSCONFIG }, timeout: 90_000 },
      );
      expect(stderr).toBe("");
      const printed = stdout
        .trimEnd()
        .split("\n")
        .filter((line) => line !== "");
      expect(printed).toEqual(block.expectedOutput);
    },
    120_000,
  );
});
