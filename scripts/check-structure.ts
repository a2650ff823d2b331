// Facts about the shape of src/ that anyone can check: no import cycle between files, no cycle
// between folders, the session class under its line budget, and the run's and the call's steps
// numbered in one place each. Reads imports with TypeScript's own `ts.preProcessFile` (already a
// dependency; no graph library is installed), so it sees `import type` and re-exports too.
// Run it with `npx tsx scripts/check-structure.ts`; the test suite runs it as well.

import { type Dirent, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

/** Most lines `src/switchyard.ts` may have: the session keeps resources and builds contexts. */
export const MAX_SESSION_LINES = 400;

/**
 * The files that may number steps in their comments, and what they number. A file numbers steps
 * when one comment line starts with `1.`, one with `2.` and one with `3.` (`// 2.`, ` * 3.`).
 */
export const NUMBERED_PIPELINES: Readonly<Record<string, string>> = {
  "src/execute-tool-call.ts": "a tool call's steps",
  "src/execute-program.ts": "a program run's steps",
  "src/agent/run-agent.ts": "the agent loop's turn (model turns, not a run)",
};

/** The run's stations, in order, as execute-program.ts must number them. */
export const RUN_STATIONS = ["Admit", "Compile", "Check", "Approve", "Run", "Validate output", "Redact", "Record"];

/** What `checkStructure` found; every list is empty when the tree keeps the rules. */
export interface StructureReport {
  /** Files (relative to the root) that import each other in a loop, one list per loop. */
  readonly fileCycles: readonly (readonly string[])[];
  /** Folders of src/ (a file at src/'s top level counts as its own) that import each other in a loop. */
  readonly folderCycles: readonly (readonly string[])[];
  /** Lines of src/switchyard.ts. */
  readonly sessionLines: number;
  /** Files that number steps without being one of NUMBERED_PIPELINES. */
  readonly strayNumberedSteps: readonly string[];
  /** Set when execute-program.ts does not number RUN_STATIONS in order: what it numbers instead. */
  readonly runStationsMismatch: string | undefined;
}

/** Checks the tree under `root` (default: this repository). Reads files only; never throws for what it finds. */
export function checkStructure(root: string = repositoryRoot()): StructureReport {
  const files = sourceFiles(root, ["src", "runtime"]);
  const known = new Set(files);
  const imports = new Map<string, string[]>();
  for (const file of files) imports.set(file, importsOf(root, file, known));

  const fileCycles = cyclesOf(imports);
  const folderImports = new Map<string, Set<string>>();
  for (const [file, targets] of imports) {
    const from = folderOf(file);
    const edges = folderImports.get(from) ?? new Set<string>();
    folderImports.set(from, edges);
    for (const target of targets) if (folderOf(target) !== from) edges.add(folderOf(target));
  }
  const folderCycles = cyclesOf(new Map([...folderImports].map(([folder, edges]) => [folder, [...edges]])));

  const numbered = files.filter((file) => numberedSteps(readFileSync(join(root, file), "utf8")).length > 0);
  const program = numberedSteps(readSource(root, "src/execute-program.ts"));
  const stations = program.join(", ");
  return {
    fileCycles,
    folderCycles,
    sessionLines: lineCount(readSource(root, "src/switchyard.ts")),
    strayNumberedSteps: numbered.filter((file) => !(file in NUMBERED_PIPELINES)),
    runStationsMismatch:
      program.length === RUN_STATIONS.length && RUN_STATIONS.every((station, index) => program[index] === station)
        ? undefined
        : stations === ""
          ? "no numbered steps"
          : stations,
  };
}

/** One line per broken rule; empty when the tree keeps them all. */
export function structureProblems(report: StructureReport): string[] {
  const problems: string[] = [];
  for (const cycle of report.fileCycles) problems.push(`files that import each other in a loop: ${cycle.join(", ")}`);
  for (const cycle of report.folderCycles)
    problems.push(`folders that import each other in a loop: ${cycle.join(", ")}`);
  if (report.sessionLines >= MAX_SESSION_LINES) {
    problems.push(`src/switchyard.ts has ${report.sessionLines} lines; it must stay under ${MAX_SESSION_LINES}`);
  }
  for (const file of report.strayNumberedSteps) {
    problems.push(`${file} numbers steps; only ${Object.keys(NUMBERED_PIPELINES).join(", ")} may`);
  }
  if (report.runStationsMismatch !== undefined) {
    problems.push(
      `src/execute-program.ts must number the run's stations ${RUN_STATIONS.join(", ")}; it numbers: ${report.runStationsMismatch}`,
    );
  }
  return problems;
}

/**
 * The first word (or "Validate output") of each item of the first numbered list in `text`'s
 * comments, when it has items 1, 2 and 3; else nothing. An item is a comment line `1. Word...`.
 */
export function numberedSteps(text: string): string[] {
  const items = new Map<number, string>();
  for (const line of text.split("\n")) {
    const match = /^\s*(?:\/\/|\*)\s*(\d+)(?:-\d+)?[.)]\s+([A-Za-z]+(?: output)?)/.exec(line);
    if (match === null) continue;
    const number = Number(match[1]);
    if (!items.has(number)) items.set(number, match[2]!);
  }
  if (!items.has(1) || !items.has(2) || !items.has(3)) return [];
  const steps: string[] = [];
  for (let number = 1; items.has(number); number++) steps.push(items.get(number)!);
  return steps;
}

/** The folder a file counts under: `src/<folder>/` for a file in one, the file itself at src/'s top level. */
export function folderOf(file: string): string {
  const parts = file.split("/");
  return parts.length > 2 ? `${parts[0]}/${parts[1]}/` : file;
}

/** Lines as `wc -l` counts them: a final newline ends the last line rather than starting one. */
function lineCount(text: string): number {
  return text.length === 0 ? 0 : text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
}

function repositoryRoot(): string {
  return resolve(dirname(fileURLToPath(import.meta.url)), "..");
}

function readSource(root: string, file: string): string {
  try {
    return readFileSync(join(root, file), "utf8");
  } catch {
    return "";
  }
}

/** Every .ts file under the `folders` of `root`, as `/`-separated paths relative to it; symbolic links are not followed. */
function sourceFiles(root: string, folders: readonly string[]): string[] {
  const found: string[] = [];
  const walk = (folder: string): void => {
    let entries: Dirent[];
    try {
      entries = readdirSync(folder, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      const path = join(folder, entry.name);
      // A link could lead back up the tree and never end; the repository's own files are no links.
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile() && entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts")) {
        found.push(relative(root, path).split(sep).join("/"));
      }
    }
  };
  for (const folder of folders) walk(join(root, folder));
  return found;
}

/** The files of `known` that `file` imports or re-exports (static, type-only and literal dynamic imports). */
function importsOf(root: string, file: string, known: ReadonlySet<string>): string[] {
  const { importedFiles } = ts.preProcessFile(readFileSync(join(root, file), "utf8"), true, true);
  const targets = new Set<string>();
  for (const { fileName } of importedFiles) {
    if (!fileName.startsWith(".")) continue;
    const resolved = relative(root, resolve(root, dirname(file), fileName))
      .split(sep)
      .join("/");
    const candidate = resolved.replace(/\.js$/, ".ts");
    if (known.has(candidate)) targets.add(candidate);
  }
  return [...targets];
}

/** The loops of a directed graph: each strongly connected part of two or more nodes, or a node that imports itself. */
function cyclesOf(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  // Tarjan's algorithm, iterative so a deep import chain cannot overflow the stack.
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const cycles: string[][] = [];
  let next = 0;
  for (const start of graph.keys()) {
    if (index.has(start)) continue;
    const work: { node: string; edge: number }[] = [{ node: start, edge: 0 }];
    index.set(start, next);
    low.set(start, next++);
    stack.push(start);
    onStack.add(start);
    while (work.length > 0) {
      const frame = work[work.length - 1]!;
      const edges = graph.get(frame.node) ?? [];
      if (frame.edge < edges.length) {
        const target = edges[frame.edge++]!;
        if (!index.has(target)) {
          index.set(target, next);
          low.set(target, next++);
          stack.push(target);
          onStack.add(target);
          work.push({ node: target, edge: 0 });
        } else if (onStack.has(target)) {
          low.set(frame.node, Math.min(low.get(frame.node)!, index.get(target)!));
        }
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent !== undefined) low.set(parent.node, Math.min(low.get(parent.node)!, low.get(frame.node)!));
      if (low.get(frame.node) !== index.get(frame.node)) continue;
      const part: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        part.push(member);
      } while (member !== frame.node);
      if (part.length > 1 || (graph.get(frame.node) ?? []).includes(frame.node)) cycles.push(part.sort());
    }
  }
  return cycles;
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const problems = structureProblems(checkStructure());
  for (const problem of problems) console.error(problem);
  if (problems.length > 0) process.exit(1);
  console.log("structure: no import cycles between files or folders; switchyard.ts and the numbered steps in bounds");
}
