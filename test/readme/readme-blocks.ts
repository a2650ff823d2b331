// The TypeScript and JavaScript blocks of README.md and docs/*.md, as a consumer would copy them.
// A block runs unless the line before its fence says otherwise:
//   <!-- type-check-only: reason -->   type-checked, not run (it needs a key, a network, a client)
//   <!-- not-run: reason -->           neither (it is not a module, e.g. a program for run_program)
// A line `console.log(...); // text` states what it prints: the test holds the block to it.
// The README's quick start marks its steps, one line above the fence (or above the mode marker):
//   <!-- quick-start: shell -->        commands a user types, in order
//   <!-- quick-start: file NAME -->    a file the user writes (blocks import it as ./NAME)
//   <!-- quick-start: output -->       what the last command prints (times in ms vary)
// Used by test/readme/readme.test.ts (against the sources) and .ci/consumer-test.sh (against the
// published declarations): `node --import tsx test/readme/readme-blocks.ts <folder>` writes the
// blocks, `... readme-blocks.ts --quick-start <folder>` the quick start's files and steps.
// The consumer test installs no optional peer, so there a block that imports anything but the
// package's core entries and Node's modules (a framework, a provider SDK) is left out.

import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { pathToFileURL } from "node:url";

/** What a block is for: run (and type-check), type-check only, or neither. */
export type BlockMode = "run" | "type-check" | "skip";

export interface ReadmeBlock {
  /** The markdown file, relative to the repository: `README.md`, `docs/programs.md`. */
  readonly document: string;
  /** 1-based line of the opening fence in the document. */
  readonly line: number;
  readonly language: "ts" | "js";
  readonly code: string;
  readonly mode: BlockMode;
  /** The marker's reason, for blocks that do not run. */
  readonly reason?: string;
  /** A file name for the block: its quick-start name, else `<document>-<line>.ts` (or `.mjs`). */
  readonly fileName: string;
  /** What the block's `console.log(...); // text` lines say they print, in order. */
  readonly expectedOutput: readonly string[];
}

const LANGUAGES: Record<string, "ts" | "js"> = { ts: "ts", typescript: "ts", js: "js", javascript: "js" };
const MARKER = /^<!--\s*(type-check-only|not-run)\s*:\s*(.+?)\s*-->$/;
const QUICK_START = /^<!--\s*quick-start:\s*(shell|output|file\s+(\S+))\s*-->$/;
const STATED_OUTPUT = /^\s*console\.log\(.*\);\s*\/\/\s*(.+?)\s*$/;

/** One step of the README's quick start: a file to write, commands to type, or what they print. */
export type QuickStartStep =
  | { readonly kind: "file"; readonly name: string; readonly text: string }
  | { readonly kind: "shell"; readonly text: string }
  | { readonly kind: "output"; readonly text: string };

/** The quick-start marker of the fence at `index`: on the line above it, or above its mode marker. */
function quickStartMarker(lines: readonly string[], index: number): RegExpExecArray | null {
  const above = (lines[index - 1] ?? "").trim();
  return QUICK_START.exec(MARKER.test(above) ? (lines[index - 2] ?? "").trim() : above);
}

/** The quick start's steps, in the order the README gives them. */
export function quickStartSteps(markdown: string): QuickStartStep[] {
  const lines = markdown.split("\n");
  const steps: QuickStartStep[] = [];
  for (let index = 0; index < lines.length; index++) {
    const open = /^(`{3,})(\w*)\s*$/.exec(lines[index]!);
    if (open === null) continue;
    const end = lines.findIndex((line, at) => at > index && line.trim() === open[1]);
    if (end === -1) break;
    const marker = quickStartMarker(lines, index);
    const text = `${lines.slice(index + 1, end).join("\n")}\n`;
    if (marker !== null) {
      if (marker[2] !== undefined) steps.push({ kind: "file", name: marker[2], text });
      else steps.push({ kind: marker[1] === "shell" ? "shell" : "output", text });
    }
    index = end;
  }
  return steps;
}

/** Every ts/js block of `markdown`, in order, with its mode. */
export function readmeBlocks(markdown: string, document = "README.md"): ReadmeBlock[] {
  const prefix = document === "README.md" ? "readme" : `docs-${basename(document, ".md").toLowerCase()}`;
  const lines = markdown.split("\n");
  const blocks: ReadmeBlock[] = [];
  for (let index = 0; index < lines.length; index++) {
    const open = /^(`{3,})(\w*)\s*$/.exec(lines[index]!);
    if (open === null) continue;
    const end = lines.findIndex((line, at) => at > index && line.startsWith(open[1]!) && line.trim() === open[1]);
    if (end === -1) break;
    const language = LANGUAGES[open[2]!.toLowerCase()];
    if (language !== undefined) {
      const marker = MARKER.exec((lines[index - 1] ?? "").trim());
      const mode: BlockMode = marker === null ? "run" : marker[1] === "not-run" ? "skip" : "type-check";
      const code = lines.slice(index + 1, end);
      const named = quickStartMarker(lines, index)?.[2];
      blocks.push({
        document,
        line: index + 1,
        language,
        code: `${code.join("\n")}\n`,
        mode,
        ...(marker === null ? {} : { reason: marker[2]! }),
        fileName: named ?? `${prefix}-${index + 1}.${language === "ts" ? "ts" : "mjs"}`,
        expectedOutput: code.flatMap((line) => STATED_OUTPUT.exec(line)?.[1] ?? []),
      });
    }
    index = end;
  }
  return blocks;
}

/** README.md of this repository. */
export function repositoryReadme(): string {
  return readFileSync(new URL("../../README.md", import.meta.url), "utf8");
}

/** README.md and every docs/*.md, as `[document, markdown]` pairs (documents relative to the repository). */
export function repositoryDocuments(): [string, string][] {
  const docs = readdirSync(new URL("../../docs/", import.meta.url))
    .filter((name) => name.endsWith(".md"))
    .sort()
    .map((name): [string, string] => [
      `docs/${name}`,
      readFileSync(new URL(`../../docs/${name}`, import.meta.url), "utf8"),
    ]);
  return [["README.md", repositoryReadme()], ...docs];
}

/** The blocks of README.md and docs/*.md. */
export function repositoryBlocks(): ReadmeBlock[] {
  return repositoryDocuments().flatMap(([document, markdown]) => readmeBlocks(markdown, document));
}

/** Writes the blocks that are type-checked (or run) into `folder`; returns them. */
export function writeReadmeBlocks(folder: string, blocks = repositoryBlocks()): ReadmeBlock[] {
  mkdirSync(folder, { recursive: true });
  const written = blocks.filter((block) => block.mode !== "skip");
  for (const block of written) writeFileSync(join(folder, block.fileName), block.code);
  return written;
}

const CORE_IMPORTS = /^(switchyard-runtime(\/(agent|gateway|testing))?|node:.+)$/;

/** Whether `block` imports only the package's core entries and Node's own modules. */
export function needsOnlyTheCore(block: ReadmeBlock): boolean {
  const imported = [...block.code.matchAll(/\bfrom\s+["']([^"']+)["']/g)].map((match) => match[1]!);
  return imported.every((name) => CORE_IMPORTS.test(name));
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const quickStart = process.argv[2] === "--quick-start";
  const folder = process.argv[quickStart ? 3 : 2];
  if (folder === undefined) throw new Error("usage: readme-blocks.ts [--quick-start] <folder>");
  if (quickStart) {
    // The steps as files a shell script can follow: step-<n>.sh, the named files, expected-output.txt.
    mkdirSync(folder, { recursive: true });
    quickStartSteps(repositoryReadme()).forEach((step, index) => {
      const name =
        step.kind === "file" ? step.name : step.kind === "shell" ? `step-${index}.sh` : `expected-output-${index}.txt`;
      writeFileSync(join(folder, name), step.text);
      process.stdout.write(`${step.kind} ${name}\n`);
    });
    process.exit(0);
  }
  const core = repositoryBlocks().filter((block) => block.mode !== "skip" && needsOnlyTheCore(block));
  mkdirSync(folder, { recursive: true });
  for (const block of core) {
    writeFileSync(join(folder, block.fileName), block.code);
    process.stdout.write(`${block.mode} ${block.fileName}\n`);
  }
}
