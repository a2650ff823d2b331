// The TypeScript and JavaScript blocks of README.md, as a consumer would copy them. A block
// runs unless the line before its fence says otherwise:
//   <!-- type-check-only: reason -->   type-checked, not run (it needs a key, a network, a client)
//   <!-- not-run: reason -->           neither (it is not a module, e.g. a program for run_program)
// A line `console.log(...); // text` states what it prints: the test holds the block to it.
// Used by test/readme/readme.test.ts (against the sources) and .ci/consumer-test.sh (against the
// published declarations): `node --import tsx test/readme/readme-blocks.ts <folder>` writes them.
// The consumer test installs no optional peer, so there a block that imports anything but the
// package's core entries and Node's modules (a framework, a provider SDK) is left out.

import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

/** What a block is for: run (and type-check), type-check only, or neither. */
export type BlockMode = "run" | "type-check" | "skip";

export interface ReadmeBlock {
  /** 1-based line of the opening fence in README.md. */
  readonly line: number;
  readonly language: "ts" | "js";
  readonly code: string;
  readonly mode: BlockMode;
  /** The marker's reason, for blocks that do not run. */
  readonly reason?: string;
  /** A file name for the block: `readme-<line>.ts` (or `.mjs`). */
  readonly fileName: string;
  /** What the block's `console.log(...); // text` lines say they print, in order. */
  readonly expectedOutput: readonly string[];
}

const LANGUAGES: Record<string, "ts" | "js"> = { ts: "ts", typescript: "ts", js: "js", javascript: "js" };
const MARKER = /^<!--\s*(type-check-only|not-run)\s*:\s*(.+?)\s*-->$/;
const STATED_OUTPUT = /^\s*console\.log\(.*\);\s*\/\/\s*(.+?)\s*$/;

/** Every ts/js block of `markdown`, in order, with its mode. */
export function readmeBlocks(markdown: string): ReadmeBlock[] {
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
      blocks.push({
        line: index + 1,
        language,
        code: `${code.join("\n")}\n`,
        mode,
        ...(marker === null ? {} : { reason: marker[2]! }),
        fileName: `readme-${index + 1}.${language === "ts" ? "ts" : "mjs"}`,
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

/** Writes the blocks that are type-checked (or run) into `folder`; returns them. */
export function writeReadmeBlocks(folder: string, markdown = repositoryReadme()): ReadmeBlock[] {
  mkdirSync(folder, { recursive: true });
  const written = readmeBlocks(markdown).filter((block) => block.mode !== "skip");
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
  const folder = process.argv[2];
  if (folder === undefined) throw new Error("usage: readme-blocks.ts <folder>");
  const core = readmeBlocks(repositoryReadme()).filter((block) => block.mode !== "skip" && needsOnlyTheCore(block));
  mkdirSync(folder, { recursive: true });
  for (const block of core) {
    writeFileSync(join(folder, block.fileName), block.code);
    process.stdout.write(`${block.mode} ${block.fileName}\n`);
  }
}
