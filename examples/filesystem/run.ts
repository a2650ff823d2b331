// The filesystem story: server-filesystem, confined to a temp folder of generated notes, is
// connected as an MCP source; one program lists the folder, reads every note in parallel and
// returns word counts. The notes' text stays in the sandbox; only the summary comes back.
// Run it: node --no-node-snapshot --import tsx examples/filesystem/run.ts

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { connectMcpSource, Switchyard, type McpSource, type RunResult } from "switchyard-runtime";

/** What the program returns. */
export interface NotesSummary {
  readonly files: number;
  readonly totalWords: number;
  readonly perFile: readonly { readonly name: string; readonly words: number }[];
  readonly top: readonly { readonly word: string; readonly count: number }[];
}

export interface FilesystemExampleResult {
  readonly result: RunResult;
  /** The summary computed on the host from the generated files, to check the program against. */
  readonly expected: NotesSummary;
  readonly program: string;
  /** Time to start server-filesystem and list its tools, in ms. */
  readonly serverStartMs: number;
  readonly toolCount: number;
}

const WORDS = "switch yard track signal train freight engine rail depot cargo line junction platform".split(" ");

/** Generates `count` notes with a deterministic mix of words (a small LCG, no Math.random). */
export function generateNotes(count = 12, wordsPerNote = 400): Map<string, string> {
  let seed = 7;
  const next = (): number => (seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648);
  const notes = new Map<string, string>();
  for (let index = 1; index <= count; index++) {
    const words = Array.from({ length: wordsPerNote - index * 10 }, () => WORDS[next() % WORDS.length]!);
    notes.set(`note-${String(index).padStart(2, "0")}.txt`, `${words.join(" ")}\n`);
  }
  return notes;
}

/** The program the model would write; `root` is the folder to summarize. */
export function summaryProgram(root: string): string {
  return `const root = ${JSON.stringify(root)};
const listing = await tools.fs.list_directory({ path: root });
const names = listing.content.split("\\n")
  .filter((line) => line.startsWith("[FILE] ") && line.endsWith(".txt"))
  .map((line) => line.slice("[FILE] ".length));
// Every read is in flight at once; read-only MCP tools run in parallel.
const texts = await Promise.all(names.map((name) => tools.fs.read_text_file({ path: root + "/" + name })));
const counts = new Map<string, number>();
const perFile = names.map((name, index) => {
  const words = texts[index]!.content.toLowerCase().match(/[a-z]+/g) ?? [];
  for (const word of words) counts.set(word, (counts.get(word) ?? 0) + 1);
  return { name, words: words.length };
});
const top = [...counts.entries()]
  .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
  .slice(0, 5)
  .map(([word, count]) => ({ word, count }));
return { files: perFile.length, totalWords: perFile.reduce((sum, file) => sum + file.words, 0), perFile, top };`;
}

/** Generates the notes, connects server-filesystem on their folder, runs the program, cleans up. */
export async function runFilesystemExample(): Promise<FilesystemExampleResult> {
  const folder = mkdtempSync(join(tmpdir(), "switchyard-filesystem-example-"));
  const notes = generateNotes();
  for (const [name, text] of notes) writeFileSync(join(folder, name), text);
  const yard = new Switchyard();
  let source: McpSource | undefined;
  try {
    const started = Date.now();
    source = await connectMcpSource(yard.registry, {
      namespace: "fs",
      transport: { kind: "stdio", command: process.execPath, args: [serverFilesystemScript(), folder] },
    });
    const serverStartMs = Date.now() - started;
    const program = summaryProgram(folder);
    const result = await yard.run(program);
    return { result, expected: summarize(notes), program, serverStartMs, toolCount: source.tools.length };
  } finally {
    await source?.close();
    // The session holds a spare isolate, and its spill folder, until it is closed.
    await yard.close();
    rmSync(folder, { recursive: true, force: true });
  }
}

function summarize(notes: ReadonlyMap<string, string>): NotesSummary {
  const counts = new Map<string, number>();
  const perFile = [...notes].map(([name, text]) => {
    const words = text.toLowerCase().match(/[a-z]+/g) ?? [];
    for (const word of words) counts.set(word, (counts.get(word) ?? 0) + 1);
    return { name, words: words.length };
  });
  const top = [...counts.entries()]
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .slice(0, 5)
    .map(([word, count]) => ({ word, count }));
  return { files: perFile.length, totalWords: perFile.reduce((sum, file) => sum + file.words, 0), perFile, top };
}

/** The bin script of @modelcontextprotocol/server-filesystem, from its package.json. */
function serverFilesystemScript(): string {
  const manifestPath = createRequire(import.meta.url).resolve("@modelcontextprotocol/server-filesystem/package.json");
  const manifest = JSON.parse(readFileSync(manifestPath, "utf8")) as { bin: Record<string, string> };
  return join(dirname(manifestPath), Object.values(manifest.bin)[0]!);
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { result, serverStartMs, toolCount } = await runFilesystemExample();
  process.stdout.write(`server-filesystem: ${toolCount} tools, started in ${serverStartMs} ms\n`);
  process.stdout.write(`output:\n${JSON.stringify(result.output, null, 2)}\n`);
  if (!result.ok) process.stdout.write(`error ${result.error?.code}: ${result.error?.message}\n`);
  const { stats } = result;
  process.stdout.write(
    `calls: ${stats.toolCalls}, wall: ${stats.wallMs} ms\n` +
      `bytes of tool results kept in the sandbox: ${stats.bytesIn}; bytes returned to the model: ${stats.bytesOut} ` +
      `(${(stats.bytesIn / Math.max(1, stats.bytesOut)).toFixed(1)}x less)\n`,
  );
  process.exitCode = result.ok ? 0 : 1;
}

export const EXAMPLE_PATH = fileURLToPath(import.meta.url);
