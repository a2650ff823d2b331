// Scale benchmark: what a session costs as its catalog grows (10/100/1,000/5,000 tools), side by
// side in one run: construction time, the longest event-loop stall around it, memory per tool,
// the first check of a 2-call program, and searchTools (first search and p99). Tools are the
// search bench's SaaS catalog replicated under numbered namespaces, each with its own schema objects.
// The summary's first-check ratio is the median of paired rounds of new sessions (10 and 5,000
// tools, each checked once its background is done), not the table's single samples.
// Then the run curves of bench/scale-runs.ts (calls per program, result size, concurrent runs,
// program size) against their floors; writes bench/results/scale.json.
// Run: npm run bench:scale [-- --quick]   (compiled with tsc into dist-bench/ first; --expose-gc for RSS).
// SCALE_ONLY=runs measures the concurrency rows alone (cells picked with SCALE_CLIENTS, SCALE_DELAYS,
// SCALE_CELL_MS; see settingsFromEnvironment) and writes no result file. SCALE_ONLY=catalog (or
// `-- --catalog`) measures the catalog rows alone (with the 20,000 and 50,000 rows unless --quick).

import { execFileSync } from "node:child_process";
import { loadavg } from "node:os";
import { fileURLToPath, pathToFileURL } from "node:url";
import { Switchyard } from "../src/switchyard.js";
import { benchConditions, currentLoad, writeBenchResult } from "./bench-result.js";
import {
  cpuPerRun,
  FULL_SETTINGS,
  measureConcurrencyCurve,
  measureRunCurves,
  QUICK_SETTINGS,
  type RunCurves,
  runsPerSecond,
  settingsFromEnvironment,
} from "./scale-runs.js";
import { catalogOf } from "./scale-catalog.js";
import { median, percentile } from "./stats.js";

const SIZES = [10, 100, 1_000, 5_000] as const;
const QUICK_SIZES = [10, 5_000] as const;
/** Catalogs measured without checks (a company gateway's size): the stall must not grow with them. */
const LARGEST_CATALOGS = [20_000, 50_000] as const;
const SEARCHES = 200;
const QUERIES = ["create contact", "list invoices", "send email", "refund payment", "upload file", "schedule meeting"];
// Calls two tools of the catalog (its last two, so no size answers from another size's check).
const PROGRAM = (first: string, second: string): string =>
  `const a = await tools.${first}({});\nconst b = await tools.${second}({});\nreturn [a, b];`;
// Reads `tools` whole: checked against every tool's declarations (the fallback of a scoped check).
const WHOLE_PROGRAM = (size: number): string => `const names = Object.keys(tools);\nreturn names.length + ${size};`;

/** One catalog size's measurements. */
export interface CatalogRow {
  readonly tools: number;
  readonly constructMs: number;
  /** The longest the event loop was held during construction and the second after it. */
  readonly maxStallMs: number;
  /** Heap after a full GC, per tool (RSS keeps pages freed by smaller catalogs, so it under-reads). */
  readonly heapBytesPerTool: number;
  readonly rssBytesPerTool: number;
  readonly firstCheckMs: number;
  /** The first check of a program that uses `tools` whole, after the 2-call one. */
  readonly wholeCheckMs: number;
  readonly firstSearchMs: number;
  readonly searchP50Ms: number;
  readonly searchP99Ms: number;
}

/** The longest gap between 1 ms timers over `ms`, i.e. the longest the loop was held. */
async function longestGap(ms: number): Promise<number> {
  let longest = 0;
  let last = performance.now();
  const end = last + ms;
  while (performance.now() < end) {
    await new Promise((resolve) => setTimeout(resolve, 1));
    const now = performance.now();
    longest = Math.max(longest, now - last - 1);
    last = now;
  }
  return longest;
}

function collect(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

async function measureSize(size: number): Promise<CatalogRow> {
  const tools = catalogOf(size);
  const [first, second] = [tools.at(-2)!.name, tools.at(-1)!.name];
  collect();
  const { rss: rssBefore, heapUsed: heapBefore } = process.memoryUsage();
  const started = performance.now();
  const yard = new Switchyard({ tools });
  const constructMs = performance.now() - started;
  const after = await longestGap(1_000);
  // Memory is counted with the search index built (an empty query waits for the build, warming nothing).
  await yard.discovery.find("");
  collect();
  const memory = process.memoryUsage();
  const rssBytesPerTool = (memory.rss - rssBefore) / size;
  const heapBytesPerTool = (memory.heapUsed - heapBefore) / size;

  const checkStarted = performance.now();
  const checked = await yard.check(PROGRAM(first, second));
  const firstCheckMs = performance.now() - checkStarted;
  if (!checked.ok) throw new Error(`check failed at ${size} tools: ${checked.error?.message}`);
  const wholeStarted = performance.now();
  const wholeChecked = await yard.check(WHOLE_PROGRAM(size));
  const wholeCheckMs = performance.now() - wholeStarted;
  if (!wholeChecked.ok) throw new Error(`whole check failed at ${size} tools: ${wholeChecked.error?.message}`);

  let searchStarted = performance.now();
  yard.searchTools(QUERIES[0]!);
  const firstSearchMs = performance.now() - searchStarted;
  const searchMs: number[] = [];
  for (let index = 0; index < SEARCHES; index++) {
    searchStarted = performance.now();
    yard.searchTools(QUERIES[index % QUERIES.length]!);
    searchMs.push(performance.now() - searchStarted);
  }
  await yard.close();
  return {
    tools: size,
    constructMs,
    maxStallMs: Math.max(constructMs, after),
    heapBytesPerTool,
    rssBytesPerTool,
    firstCheckMs,
    wholeCheckMs,
    firstSearchMs,
    searchP50Ms: percentile(searchMs, 0.5),
    searchP99Ms: percentile(searchMs, 0.99),
  };
}

/** Paired rounds of FIRST_CHECK_ROUNDS: the first check of a new session at the small and the large size. */
interface FirstCheckRounds {
  readonly smallMs: readonly number[];
  readonly largeMs: readonly number[];
  /** The median of the rounds' large/small ratios. */
  readonly ratio: number;
}

/** Rounds of the paired first-check measurement (one sample per size is mostly noise at 5-10 ms). */
const FIRST_CHECK_ROUNDS = 5;

/**
 * The first check of a 2-call program in a new session of `small` and of `large` tools, in
 * FIRST_CHECK_ROUNDS alternating rounds, each session's tools named for its round. Each check
 * comes once the session's background (its search index) is done and the loop has been idle a
 * moment, as a model's first program does, seconds after the session starts.
 */
async function measureFirstChecks(small: number, large: number): Promise<FirstCheckRounds> {
  const firstCheck = async (size: number, round: number): Promise<number> => {
    const tools = catalogOf(size, round);
    const yard = new Switchyard({ tools });
    while (!yard.discovery.backgroundDone) await new Promise((resolve) => setTimeout(resolve, 50));
    await new Promise((resolve) => setTimeout(resolve, 300));
    const started = performance.now();
    const checked = await yard.check(PROGRAM(tools.at(-2)!.name, tools.at(-1)!.name));
    const ms = performance.now() - started;
    await yard.close();
    if (!checked.ok) throw new Error(`check failed at ${size} tools: ${checked.error?.message}`);
    return ms;
  };
  const smallMs: number[] = [];
  const largeMs: number[] = [];
  const ratios: number[] = [];
  for (let round = 0; round < FIRST_CHECK_ROUNDS; round++) {
    smallMs.push(await firstCheck(small, 2 * round));
    largeMs.push(await firstCheck(large, 2 * round + 1));
    ratios.push(largeMs[round]! / smallMs[round]!);
  }
  return { smallMs, largeMs, ratio: median(ratios) };
}

/** A catalog measured without checks: registration, a model search during the index build, searches after. */
interface RegistrationRow {
  readonly constructMs: number;
  readonly maxStallMs: number;
  readonly heapBytesPerTool: number;
  /** A model's search (`discovery.find`) started right after construction: it waits for the index build. */
  readonly buildSearchMs: number;
  readonly searchP99Ms: number;
}

/** Construction, the longest stall around it and the index build, memory and search p99 for a large catalog. */
async function measureRegistration(size: number): Promise<RegistrationRow> {
  const tools = catalogOf(size);
  collect();
  const heapBefore = process.memoryUsage().heapUsed;
  const started = performance.now();
  const yard = new Switchyard({ tools, typeCheck: "off" });
  const constructMs = performance.now() - started;
  const finding = yard.discovery.find(QUERIES[0]!).then(() => performance.now() - started);
  const [after, buildSearchMs] = await Promise.all([longestGap(2_000), finding]);
  collect();
  const heapBytesPerTool = (process.memoryUsage().heapUsed - heapBefore) / size;
  const searchMs: number[] = [];
  for (let index = 0; index < SEARCHES; index++) {
    const searchStarted = performance.now();
    yard.searchTools(QUERIES[index % QUERIES.length]!);
    searchMs.push(performance.now() - searchStarted);
  }
  await yard.close();
  return {
    constructMs,
    maxStallMs: Math.max(constructMs, after),
    heapBytesPerTool,
    buildSearchMs,
    searchP99Ms: percentile(searchMs, 0.99),
  };
}

/** A process's first session of a large catalog, measured in its own process (bench/scale-first-session.ts). */
interface FirstSession {
  readonly constructMs: number;
  readonly longestGapMs: number;
  readonly backgroundMs: number;
}

/** Processes the first-session row starts, one after the other. */
const FIRST_SESSION_PROCESSES = 3;

/** Runs bench/scale-first-session.js for `size` tools in a new process; what it measured. */
function measureFirstSession(size: number): FirstSession {
  const child = fileURLToPath(new URL("./scale-first-session.js", import.meta.url));
  const output = execFileSync(process.execPath, ["--no-node-snapshot", child, String(size)], { encoding: "utf8" });
  return JSON.parse(output.trim().split("\n").at(-1) ?? "{}") as FirstSession;
}

/** The catalog rows, and the paired first checks of the smallest and the largest size. */
export interface CatalogCurve {
  readonly rows: readonly CatalogRow[];
  readonly firstChecks: FirstCheckRounds;
  /** The largest size as new processes' first session. */
  readonly firstSessions: readonly FirstSession[];
}

/** Measures every catalog size (`sizes`, smallest first) in one process and prints the table. */
export async function measureScale(sizes: readonly number[] = SIZES): Promise<CatalogCurve> {
  // The type checker is shared by every session of a process: start it once so each size's
  // first check measures the catalog, not the checker's start-up.
  const warm = new Switchyard({ tools: catalogOf(2) });
  await warm.check(PROGRAM(catalogOf(2)[0]!.name, catalogOf(2)[1]!.name));
  await warm.close();

  const rows: CatalogRow[] = [];
  for (const size of sizes) rows.push(await measureSize(size));
  const loads = loadavg()
    .map((load) => load.toFixed(2))
    .join(" ");
  console.log(`scale: catalog curve (load ${loads}, gc ${typeof globalThis.gc === "function" ? "on" : "off"})`);
  console.log(
    "  tools  session ms  max stall ms  heap/tool KB  RSS/tool KB  first check ms  whole check ms" +
      "  first search ms  search p50/p99 ms",
  );
  for (const row of rows) {
    const cells = [
      String(row.tools).padStart(5),
      row.constructMs.toFixed(1).padStart(10),
      row.maxStallMs.toFixed(1).padStart(12),
      (row.heapBytesPerTool / 1024).toFixed(1).padStart(12),
      (row.rssBytesPerTool / 1024).toFixed(1).padStart(11),
      row.firstCheckMs.toFixed(1).padStart(14),
      row.wholeCheckMs.toFixed(1).padStart(14),
      row.firstSearchMs.toFixed(1).padStart(15),
      `${row.searchP50Ms.toFixed(2)}/${row.searchP99Ms.toFixed(2)}`.padStart(17),
    ];
    console.log(`  ${cells.join("  ")}`);
  }
  const small = sizes[0]!;
  const large = sizes.at(-1)!;
  const firstChecks = await measureFirstChecks(small, large);
  const list = (values: readonly number[]): string => values.map((value) => value.toFixed(1)).join(", ");
  console.log(
    `  first check of a new session, ${FIRST_CHECK_ROUNDS} paired rounds: ${small} tools ${list(firstChecks.smallMs)} ms; ` +
      `${large} tools ${list(firstChecks.largeMs)} ms; median ratio ${firstChecks.ratio.toFixed(2)}×`,
  );
  const sessions = Array.from({ length: FIRST_SESSION_PROCESSES }, () => measureFirstSession(large));
  const column = (field: keyof FirstSession): string => sessions.map((one) => one[field].toFixed(0)).join(", ");
  console.log(
    `  ${large} tools as a new process's first session (${FIRST_SESSION_PROCESSES} processes): construction ${column("constructMs")} ms, ` +
      `then the loop held at most ${column("longestGapMs")} ms until its background was done (at ${column("backgroundMs")} ms)`,
  );
  // The full curve only: a quick run skips the largest catalogs.
  if (sizes === SIZES) {
    for (const size of LARGEST_CATALOGS) {
      const row = await measureRegistration(size);
      console.log(
        `  ${String(size).padStart(5)}  ${row.constructMs.toFixed(1).padStart(10)}  ${row.maxStallMs.toFixed(1).padStart(12)}` +
          `  ${(row.heapBytesPerTool / 1024).toFixed(1).padStart(12)}  (no check; a model search during the index build ` +
          `answered at ${row.buildSearchMs.toFixed(0)} ms, then search p99 ${row.searchP99Ms.toFixed(2)} ms)`,
      );
    }
  }
  return { rows, firstChecks, firstSessions: sessions };
}

/** The concurrency cell the summary line quotes: 64 runs at once, 2 ms tools. */
const SUMMARY_CLIENTS = 64;
const SUMMARY_DELAY_MS = 2;

/** The figures bench/results/scale.json keeps, each as the docs would print it. */
function figuresOf(
  rows: readonly CatalogRow[],
  firstSessions: readonly FirstSession[],
  curves: RunCurves,
  summary: string,
): Record<string, string> {
  const figures: Record<string, string> = { summary };
  const large = rows.at(-1);
  figures[`catalog-${large?.tools}-first-session`] =
    `construction ${firstSessions.map((one) => one.constructMs.toFixed(0)).join(", ")} ms, longest stall after it ` +
    `${firstSessions.map((one) => one.longestGapMs.toFixed(0)).join(", ")} ms (new processes)`;
  for (const row of rows) {
    figures[`catalog-${row.tools}`] =
      `session ${row.constructMs.toFixed(0)} ms, max stall ${row.maxStallMs.toFixed(0)} ms, ` +
      `heap ${(row.heapBytesPerTool / 1024).toFixed(1)} KB/tool, first check ${row.firstCheckMs.toFixed(0)} ms, ` +
      `first search ${row.firstSearchMs.toFixed(1)} ms, search p99 ${row.searchP99Ms.toFixed(2)} ms`;
  }
  for (const { clients, delayMs, yard, bare, plain } of curves.concurrency) {
    figures[`runs-c${clients}-${delayMs}ms`] =
      `${runsPerSecond(yard).toFixed(1)} runs/s (${(runsPerSecond(yard) / runsPerSecond(bare)).toFixed(2)}× bare ` +
      `${runsPerSecond(bare).toFixed(1)}; plain JS ${runsPerSecond(plain).toFixed(1)}), CPU ` +
      `${cpuPerRun(yard).toFixed(2)} ms/run (${(cpuPerRun(yard) / cpuPerRun(bare)).toFixed(2)}× bare ${cpuPerRun(bare).toFixed(2)})`;
  }
  for (const point of curves.calls) {
    figures[`calls-${point.size}`] =
      `${point.yardMs.toFixed(2)} ms (${(point.yardMs / point.bareMs).toFixed(2)}× bare ${point.bareMs.toFixed(2)} ms)`;
  }
  for (const point of curves.resultSize) {
    figures[`result-${point.size}`] =
      `${point.yardMs.toFixed(2)} ms (${(point.yardMs / point.bareMs).toFixed(2)}× bare ${point.bareMs.toFixed(2)} ms)`;
  }
  for (const point of curves.programSize) {
    figures[`program-${point.lines}-lines`] =
      `typeCheck off ${point.uncheckedMs.toFixed(1)} ms, default check ` +
      `${Number.isNaN(point.checkedMs) ? "not measured" : `${point.checkedMs.toFixed(1)} ms`}, ` +
      `bare ${point.bareMs.toFixed(1)} ms`;
  }
  return figures;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const quick = process.argv.includes("--quick");
  const settings = quick ? QUICK_SETTINGS : FULL_SETTINGS;
  if (process.env.SCALE_ONLY === "runs") {
    await measureConcurrencyCurve(settingsFromEnvironment(settings));
    process.exit(0);
  }
  const startLoad = currentLoad();
  // The catalog rows only: no run curves, no summary, nothing written.
  if (process.env.SCALE_ONLY === "catalog" || process.argv.includes("--catalog")) {
    await measureScale(quick ? QUICK_SIZES : SIZES);
    process.exit(0);
  }
  const curves = await measureRunCurves(settings);
  const { rows, firstChecks, firstSessions } = await measureScale(quick ? QUICK_SIZES : SIZES);
  const small = rows[0]!;
  const large = rows.at(-1)!;
  const io = curves.concurrency.find((cell) => cell.clients === SUMMARY_CLIENTS && cell.delayMs === SUMMARY_DELAY_MS)!;
  const summary =
    `scale: ${large.tools} tools session ${large.constructMs.toFixed(0)} ms, ` +
    `first check ${firstChecks.ratio.toFixed(2)}× of ${small.tools} tools, ` +
    `search p99 ${large.searchP99Ms.toFixed(1)} ms, ` +
    `io-bound C=${SUMMARY_CLIENTS} ${(runsPerSecond(io.yard) / runsPerSecond(io.bare)).toFixed(2)}× bare`;
  const notes = [
    `${quick ? "A --quick run (fewer points, shorter cells)" : "A full run"}; io-bound = runs of 20 sequential calls ` +
      `to a ${SUMMARY_DELAY_MS} ms tool from ${SUMMARY_CLIENTS} closed-loop clients, runs/s against the bare floor: the same ` +
      "program on bare isolated-vm (a fresh isolate per run, one Reference.apply per call; bench/bare-floor.ts).",
    "CPU per run is this process's CPU time (every thread, isolated-vm's included) over the runs.",
  ];
  writeBenchResult("scale", benchConditions(startLoad), figuresOf(rows, firstSessions, curves, summary), notes);
  console.log(summary);
}
