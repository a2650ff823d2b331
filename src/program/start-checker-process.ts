// Starts the type checker's child process (type-check-worker.ts) for whichever form this package
// runs as, with its own heap limit and an IPC channel, and keeps the tail of what it writes to
// stderr so a crash can say why (V8 reports a heap limit there, and only there).
// It inherits none of the host's Node flags: an `--inspect` port or `--no-node-snapshot` is the host's.

import { type ChildProcess, fork } from "node:child_process";
import { createRequire } from "node:module";
import { fileURLToPath, pathToFileURL } from "node:url";

/** The argument the entry is started with; without it, importing the entry does nothing. */
export const CHECKER_PROCESS_FLAG = "--switchyard-type-checker";

/** Young-generation semi-space of the checker process, in MB. */
const SEMI_SPACE_MB = 32;

/**
 * Compiles each function to Sparkplug's baseline code on its first call instead of interpreting it
 * first. A new program's check runs TypeScript's checker before TurboFan has optimised most of it
 * (the first few dozen checks of a process): there it took about a fifth less of the process's main
 * thread (15 new 37-line programs: 195-210 ms against 240-270, medians of 6 processes each), the
 * first check no more CPU, and RSS within 10 MB. Only where V8 builds Sparkplug in (x64, arm64):
 * elsewhere the flag is read-only, and a flag V8 refuses stops the process before it starts.
 */
const BASELINE_FLAGS: readonly string[] =
  process.arch === "x64" || process.arch === "arm64" ? ["--always-sparkplug"] : [];

/** Most characters of the process's stderr kept for a crash report. */
const MAX_STDERR_CHARS = 4_096;

/** A started checker process and what it last wrote to stderr. */
export interface CheckerProcess {
  readonly child: ChildProcess;
  /** The last 4 KB the process wrote to stderr. */
  stderrTail(): string;
}

/**
 * Forks the checker entry with `--max-old-space-size=memoryLimitMb`. Compiled JavaScript forks
 * the sibling .js entry; TypeScript source (vitest, `node --import tsx`) forks the .ts entry
 * under tsx's loader, resolved from this package so the host's own flags are not needed.
 * Throws when the process cannot be created (say, too many processes).
 */
export function startCheckerProcess(memoryLimitMb: number): CheckerProcess {
  const fromSource = new URL(import.meta.url).pathname.endsWith(".ts");
  const entry = new URL(fromSource ? "./type-check-worker.ts" : "./type-check-worker.js", import.meta.url);
  // A check allocates many short-lived objects: a 32 MB semi-space (16 by default) cut a new
  // program's check by about a quarter of its CPU time here (fewer scavenges), for up to ~50 MB more RSS.
  const execArgv = [
    `--max-old-space-size=${memoryLimitMb}`,
    `--max-semi-space-size=${SEMI_SPACE_MB}`,
    ...BASELINE_FLAGS,
  ];
  if (fromSource) execArgv.push("--import", tsxLoaderUrl());
  const child = fork(fileURLToPath(entry), [CHECKER_PROCESS_FLAG], {
    execArgv,
    stdio: ["ignore", "ignore", "pipe", "ipc"],
    // Diagnostics and requests are plain data; V8's serializer copies long strings faster than JSON.
    serialization: "advanced",
  });
  let tail = "";
  child.stderr?.setEncoding("utf8");
  child.stderr?.on("data", (chunk: string) => {
    tail = (tail + chunk).slice(-MAX_STDERR_CHARS);
  });
  return { child, stderrTail: () => tail };
}

function tsxLoaderUrl(): string {
  return pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;
}
