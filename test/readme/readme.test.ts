// The README's and the guides' (docs/*.md) code runs as written. Every ts/js block is type-checked
// as a consumer's module would be (strict, NodeNext, importing `switchyard-runtime` by name; here resolved to the
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
import {
  quickStartSteps,
  readmeBlocks,
  repositoryBlocks,
  repositoryDocuments,
  repositoryReadme,
  writeReadmeBlocks,
} from "./readme-blocks.js";

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

describe("README.md and docs/*.md", () => {
  it("opens with the two commands that work on a fresh machine, and stays under 300 lines", () => {
    const readme = repositoryReadme();
    expect(readme.split("\n").slice(0, 6).join("\n")).toMatch(
      /^# Switchyard\n\n```sh\nnpm ci && npm run demo .*\nnpm test .*\n```$/,
    );
    expect(readme.split("\n").length).toBeLessThanOrEqual(300);
  });

  it("gives the quick start as files, commands and the output they print, the tarball of this version", () => {
    const steps = quickStartSteps(repositoryReadme());
    expect(steps.map((step) => (step.kind === "file" ? `file ${step.name}` : step.kind))).toEqual([
      "shell",
      "file tools.ts",
      "file program.ts",
      "shell",
      "output",
      "file app.ts",
      "shell",
      "output",
    ]);
    const { version } = require("../../package.json") as { version: string };
    expect(steps[0]?.text).toContain(`switchyard-runtime-${version}.tgz`);
  });

  it("marks few blocks as not run, each with a reason", () => {
    const all = readmeBlocks(repositoryReadme());
    const notRun = all.filter((block) => block.mode !== "run");
    expect(all.filter((block) => block.mode === "run").length).toBeGreaterThanOrEqual(2);
    // The quick start's own code states its result, so its program's type check and run are held to it.
    expect(all.find((block) => block.fileName === "app.ts")?.expectedOutput).toEqual(["true [ 2, 1 ] 2"]);
    expect(notRun.length).toBeLessThanOrEqual(1);
    // In the guides: the three framework blocks call a model (examples/<framework>/ runs the same
    // offline); the fleet block needs a Redis and a worker (test/fleet/ runs the same for real).
    const guides = repositoryBlocks().filter((block) => block.document !== "README.md");
    expect(guides.filter((block) => block.mode === "run").length).toBeGreaterThanOrEqual(10);
    expect(guides.filter((block) => block.mode !== "run").length).toBeLessThanOrEqual(7);
    for (const block of [...notRun, ...guides.filter((candidate) => candidate.mode !== "run")]) {
      expect(block.reason?.length ?? 0).toBeGreaterThan(10);
    }
  });

  it("names every block's file once across the documents", () => {
    const names = repositoryBlocks().map((block) => block.fileName);
    expect(new Set(names).size).toBe(names.length);
    expect(repositoryDocuments().length).toBeGreaterThan(10);
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
        return `${block.document}:${line}: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n")} (TS${diagnostic.code})`;
      }),
    );
    expect(problems).toEqual([]);
  }, 120_000);

  it.each(
    blocks.filter((block) => block.mode === "run").map((block) => [`${block.document}:${block.line}`, block] as const),
  )(
    "runs the block at %s to completion",
    async (_where, block) => {
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
