// The result file a bench commits, so the figures the docs quote come from a measurement and not
// from memory: bench/results/<name>.json holds when, on what machine, under what load and which
// Node line it was measured, and each figure as the docs print it. scripts/render-figures.mjs
// writes them into the docs; test/docs/figures.test.ts fails when a doc and its result disagree.

import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { cpus, loadavg, platform, release, totalmem } from "node:os";
import { fileURLToPath } from "node:url";

/** Where and under what conditions a bench ran. */
export interface BenchConditions {
  readonly date: string;
  readonly machine: { readonly cpu: string; readonly cores: number; readonly memoryGb: number; readonly os: string };
  /** 1-minute load average at the start and at the end of the bench. */
  readonly loadAverage: { readonly start: number; readonly end: number };
  readonly node: string;
  readonly npm: string;
}

/** Above this 1-minute load per core, the machine was busy and the file says so. */
const HIGH_LOAD_PER_CORE = 1;

/** The conditions now; pass the load average read when the bench started. */
export function benchConditions(startLoad: number): BenchConditions {
  let npm = "unknown";
  try {
    npm = execFileSync("npm", ["--version"], { encoding: "utf8" }).trim();
  } catch {
    // No npm on PATH: the figure stands without it.
  }
  return {
    date: new Date().toISOString(),
    machine: {
      cpu: cpus()[0]?.model.trim() ?? "unknown",
      cores: cpus().length,
      memoryGb: Math.round(totalmem() / 1024 ** 3),
      os: `${platform()} ${release()}`,
    },
    loadAverage: { start: round2(startLoad), end: round2(loadavg()[0] ?? 0) },
    node: process.version,
    npm,
  };
}

/** The 1-minute load average now. */
export function currentLoad(): number {
  return loadavg()[0] ?? 0;
}

/**
 * Writes bench/results/<name>.json: the conditions, notes (what a reader must know to read the
 * figures: offline install, high load), and the figures by key, each a string as the docs show it.
 */
export function writeBenchResult(
  name: string,
  conditions: BenchConditions,
  figures: Readonly<Record<string, string>>,
  notes: readonly string[],
): string {
  const busy = Math.max(conditions.loadAverage.start, conditions.loadAverage.end) / conditions.machine.cores;
  const allNotes =
    busy > HIGH_LOAD_PER_CORE
      ? [
          ...notes,
          `The machine was shared and busy (load average ${conditions.loadAverage.start}-${conditions.loadAverage.end} on ${conditions.machine.cores} cores): wall times are high; CPU times are steadier.`,
        ]
      : notes;
  const path = fileURLToPath(new URL(`${name}.json`, resultsFolder()));
  writeFileSync(path, `${JSON.stringify({ bench: name, ...conditions, notes: allNotes, figures }, null, 2)}\n`);
  return path;
}

/**
 * bench/results/ of the checkout, from the sources (run by tsx) or compiled: benches compiled with
 * tsconfig.bench.json run from dist-bench/bench/, two levels below the checkout, and write there too.
 */
function resultsFolder(): URL {
  const compiled = import.meta.url.includes("/dist-bench/bench/");
  return new URL(compiled ? "../../bench/results/" : "./results/", import.meta.url);
}

function round2(value: number): number {
  return Math.round(value * 100) / 100;
}
