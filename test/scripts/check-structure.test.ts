import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  checkStructure,
  MAX_SESSION_LINES,
  numberedSteps,
  RUN_STATIONS,
  structureProblems,
} from "../../scripts/check-structure.js";

const RUN_STEPS = RUN_STATIONS.map((station, index) => ` * ${index + 1}. ${station}: ...`).join("\n");

let roots: string[] = [];
afterEach(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true });
  roots = [];
});

/** A tree of `files` (path -> text) that keeps every rule unless a test's files break one. */
function tree(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), "structure-"));
  roots.push(root);
  const all: Record<string, string> = {
    "src/switchyard.ts": 'import { run } from "./execute-program.js";\n',
    "src/execute-program.ts": `/**\n${RUN_STEPS}\n */\nexport const run = 1;\n`,
    ...files,
  };
  for (const [path, text] of Object.entries(all)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

describe("checkStructure", () => {
  it("finds no import cycle, no folder cycle, a session under its line budget and run steps numbered once in this repository", () => {
    const report = checkStructure();
    expect(structureProblems(report)).toEqual([]);
    expect(report.sessionLines).toBeLessThan(MAX_SESSION_LINES);
  });

  it("reports two files that import each other, through a type-only import and a re-export too", () => {
    const root = tree({
      "src/a/x.ts": 'import type { Y } from "./y.js";\nexport type X = Y;\n',
      "src/a/y.ts": 'export { X as Y } from "./x.js";\n',
    });
    expect(checkStructure(root).fileCycles).toEqual([["src/a/x.ts", "src/a/y.ts"]]);
  });

  it("reports a loop of folders even when no two files import each other", () => {
    const root = tree({
      "src/low/a.ts": 'import { b } from "../high/b.js";\nexport const a = b;\n',
      "src/high/b.ts": "export const b = 1;\n",
      "src/high/c.ts": 'import { a } from "../low/a.js";\nexport const c = a;\n',
    });
    const report = checkStructure(root);
    expect(report.fileCycles).toEqual([]);
    expect(report.folderCycles).toEqual([["src/high/", "src/low/"]]);
    expect(structureProblems(report)).toEqual(["folders that import each other in a loop: src/high/, src/low/"]);
  });

  it("follows a dynamic import with a literal path", () => {
    const root = tree({
      "src/a.ts": 'export const load = () => import("./b.js");\n',
      "src/b.ts": 'import { load } from "./a.js";\nexport const b = load;\n',
    });
    expect(checkStructure(root).fileCycles).toEqual([["src/a.ts", "src/b.ts"]]);
  });

  it("does not follow a symbolic link that leads back up the tree", () => {
    const root = tree({ "src/a/x.ts": "export const x = 1;\n" });
    symlinkSync(join(root, "src"), join(root, "src/a/loop"));
    expect(structureProblems(checkStructure(root))).toEqual([]);
  });

  it("refuses a session of 400 lines", () => {
    const root = tree({ "src/switchyard.ts": "line\n".repeat(MAX_SESSION_LINES) });
    expect(checkStructure(tree({ "src/switchyard.ts": "line\n".repeat(MAX_SESSION_LINES - 1) })).sessionLines).toBe(
      MAX_SESSION_LINES - 1,
    );
    expect(structureProblems(checkStructure(root))).toEqual([
      `src/switchyard.ts has ${MAX_SESSION_LINES} lines; it must stay under ${MAX_SESSION_LINES}`,
    ]);
  });

  it("refuses numbered steps in any other file, in // comments as in doc comments", () => {
    const root = tree({ "src/session/runner.ts": "// 1. Admit.\n// 2. Compile.\nconst x = 1;\n// 3. Run.\n" });
    expect(checkStructure(root).strayNumberedSteps).toEqual(["src/session/runner.ts"]);
  });

  it("refuses execute-program.ts numbering the stations in another order, or not at all", () => {
    const swapped = [...RUN_STATIONS];
    [swapped[1], swapped[2]] = [swapped[2]!, swapped[1]!];
    const steps = swapped.map((station, index) => ` * ${index + 1}. ${station}.`).join("\n");
    expect(checkStructure(tree({ "src/execute-program.ts": `/**\n${steps}\n */\n` })).runStationsMismatch).toBe(
      swapped.join(", "),
    );
    expect(checkStructure(tree({ "src/execute-program.ts": "export {};\n" })).runStationsMismatch).toBe(
      "no numbered steps",
    );
  });
});

describe("numberedSteps", () => {
  it("reads a list only when it has items 1, 2 and 3, and ignores numbers in code and prose", () => {
    expect(numberedSteps("// 1. One.\n// 2. Two.\n")).toEqual([]);
    expect(numberedSteps("const steps = [1. , 2.];\n// see step 3. of the call\n")).toEqual([]);
    expect(numberedSteps(" * 1. Admit: x\n * 2-3. Compile and check\n * 3. Check\n")).toEqual([
      "Admit",
      "Compile",
      "Check",
    ]);
  });
});
