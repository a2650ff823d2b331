// The run curves of bench:scale, each against the floors of bench/bare-floor.ts (bare isolated-vm
// and plain JavaScript in the host) on the same program and tool functions: calls per program,
// result size, concurrent runs (closed-loop clients, tools of 0/2/5 ms) and program size. CPU is
// this process's (process.cpuUsage: every thread, isolated-vm's included) per run.

import { loadavg } from "node:os";
import { defineTool, type ToolDefinition } from "../src/registry/define-tool.js";
import { Switchyard } from "../src/switchyard.js";
import { BareIsolateRunner, type BareTool, plainRunner } from "./bare-floor.js";
import { median, percentile } from "./stats.js";

/** How long and how often the curves measure; `quick` for a short run. */
export interface RunCurveSettings {
  readonly concurrency: readonly number[];
  readonly delaysMs: readonly number[];
  /** Wall time each variant spends on one concurrency cell, split over two interleaved rounds. */
  readonly cellMs: number;
  /** Runs per point of the one-at-a-time curves (calls, result size) after one warm-up run; the median is kept. */
  readonly repeats: number;
  readonly programLines: readonly number[];
  readonly programRepeats: number;
}

export const FULL_SETTINGS: RunCurveSettings = {
  concurrency: [1, 8, 64, 256],
  delaysMs: [0, 2, 5],
  cellMs: 1_200,
  repeats: 15,
  programLines: [10, 100, 1_000, 5_000],
  programRepeats: 3,
};

export const QUICK_SETTINGS: RunCurveSettings = {
  concurrency: [1, 64],
  delaysMs: [0, 2],
  cellMs: 400,
  repeats: 5,
  programLines: [10, 1_000],
  programRepeats: 1,
};

/** Runs of 20 sequential calls to one tool: a paginated sweep's shape (bench:throughput's I/O-bound program). */
const SWEEP = `let pages = 0;
for (let page = 0; page < 20; page++) {
  const answer = await tools.api.page({ page });
  pages += answer.page === page ? 1 : 0;
}
return pages;`;

/** Per-run memory limit and the queue's budget: 256 runs at once fit, so the queue never holds a client back. */
const MEMORY_LIMIT_MB = 16;
const MEMORY_BUDGET_MB = 256 * MEMORY_LIMIT_MB + 256;

/** The three ways a curve runs its program: Switchyard, bare isolated-vm, plain JavaScript. */
interface Variants {
  readonly yard: () => Promise<unknown>;
  readonly bare: () => Promise<unknown>;
  readonly plain: () => Promise<unknown>;
  readonly close: () => Promise<void>;
}

/** The floors' tools as Switchyard tools, each calling the same function. */
function definitionsOf(tools: ReadonlyMap<string, BareTool>): ToolDefinition[] {
  return [...tools].map(([name, execute]) =>
    defineTool({
      name,
      description: `Bench tool ${name}.`,
      effect: "read",
      inputSchema: { type: "object" },
      execute: (input: unknown) => execute(input),
    }),
  );
}

function variantsOf(body: string, tools: ReadonlyMap<string, BareTool>): Variants {
  const yard = new Switchyard({
    tools: definitionsOf(tools),
    typeCheck: "off",
    limits: { memoryLimitMb: MEMORY_LIMIT_MB, maxToolCalls: 10_000 },
    runQueue: { memoryBudgetMb: MEMORY_BUDGET_MB, maxQueuedRuns: 1_024 },
  });
  const bare = new BareIsolateRunner(body, tools, MEMORY_LIMIT_MB);
  const plain = plainRunner(body, tools);
  return {
    yard: async () => {
      const result = await yard.run(body);
      if (result.error !== undefined) throw new Error(`${result.error.code}: ${result.error.message}`);
      return result.output;
    },
    bare: () => bare.run(),
    plain,
    close: () => yard.close(),
  };
}

/** `api.page`: answers with the page asked for, synchronously (0 ms) or after `delayMs`. */
function pageTool(delayMs: number): BareTool {
  const answer = (input: unknown) => ({ page: (input as { page: number }).page, items: [] });
  if (delayMs === 0) return answer;
  return (input) => new Promise((resolve) => setTimeout(() => resolve(answer(input)), delayMs));
}

function cpuMsNow(): number {
  const used = process.cpuUsage();
  return (used.user + used.system) / 1_000;
}

/** What one variant did over one measurement. */
export interface Tally {
  runs: number;
  failed: number;
  wallMs: number;
  cpuMs: number;
  readonly latenciesMs: number[];
}

const emptyTally = (): Tally => ({ runs: 0, failed: 0, wallMs: 0, cpuMs: 0, latenciesMs: [] });

/** `clients` closed-loop clients, each sending its next run when the last ends, until `durationMs` has passed. */
async function closedLoop(run: () => Promise<unknown>, clients: number, durationMs: number, into: Tally) {
  const started = performance.now();
  const cpuBefore = cpuMsNow();
  const end = started + durationMs;
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (performance.now() < end) {
        const begin = performance.now();
        try {
          if ((await run()) !== 20) into.failed++;
        } catch {
          into.failed++;
        }
        into.latenciesMs.push(performance.now() - begin);
        into.runs++;
      }
    }),
  );
  into.wallMs += performance.now() - started;
  into.cpuMs += cpuMsNow() - cpuBefore;
}

/** One cell of the concurrency curve: the three variants' tallies. */
export interface ConcurrencyCell {
  readonly clients: number;
  readonly delayMs: number;
  readonly yard: Tally;
  readonly bare: Tally;
  readonly plain: Tally;
}

export const runsPerSecond = (tally: Tally): number => (tally.runs / tally.wallMs) * 1_000;
export const cpuPerRun = (tally: Tally): number => tally.cpuMs / Math.max(1, tally.runs);

async function measureConcurrency(settings: RunCurveSettings): Promise<ConcurrencyCell[]> {
  const cells: ConcurrencyCell[] = [];
  for (const delayMs of settings.delaysMs) {
    const variants = variantsOf(SWEEP, new Map([["api.page", pageTool(delayMs)]]));
    const order = ["yard", "bare", "plain"] as const;
    // Warm-up: code paths compiled, spare isolates made, the code cache warmed; not counted.
    for (const name of order) await closedLoop(variants[name], 8, 300, emptyTally());
    for (const clients of settings.concurrency) {
      const cell = { clients, delayMs, yard: emptyTally(), bare: emptyTally(), plain: emptyTally() };
      // Two rounds in rotated order, so load that comes and goes on the shared machine falls on all three.
      for (let round = 0; round < 2; round++) {
        for (let index = 0; index < order.length; index++) {
          const name = order[(index + round) % order.length]!;
          await closedLoop(variants[name], clients, settings.cellMs / 2, cell[name]);
        }
      }
      cells.push(cell);
    }
    await variants.close();
  }
  return cells;
}

/** A point of a one-at-a-time curve: median wall and CPU ms per run of each variant. */
export interface SerialPoint {
  readonly size: number;
  readonly yardMs: number;
  readonly yardCpuMs: number;
  readonly bareMs: number;
  readonly bareCpuMs: number;
  readonly plainMs: number;
}

async function timeOne(run: () => Promise<unknown>): Promise<{ wallMs: number; cpuMs: number }> {
  const cpuBefore = cpuMsNow();
  const started = performance.now();
  await run();
  return { wallMs: performance.now() - started, cpuMs: cpuMsNow() - cpuBefore };
}

/** Runs `variants` one run at a time, interleaved, `repeats` times after one warm-up each. */
async function serialPoint(size: number, variants: Variants, repeats: number): Promise<SerialPoint> {
  const samples = { yard: [] as number[], yardCpu: [] as number[], bare: [] as number[], bareCpu: [] as number[] };
  const plain: number[] = [];
  for (let round = -1; round < repeats; round++) {
    const yard = await timeOne(variants.yard);
    const bare = await timeOne(variants.bare);
    const direct = await timeOne(variants.plain);
    if (round < 0) continue;
    samples.yard.push(yard.wallMs);
    samples.yardCpu.push(yard.cpuMs);
    samples.bare.push(bare.wallMs);
    samples.bareCpu.push(bare.cpuMs);
    plain.push(direct.wallMs);
  }
  return {
    size,
    yardMs: median(samples.yard),
    yardCpuMs: median(samples.yardCpu),
    bareMs: median(samples.bare),
    bareCpuMs: median(samples.bareCpu),
    plainMs: median(plain),
  };
}

async function measureCallsPerProgram(settings: RunCurveSettings): Promise<SerialPoint[]> {
  const points: SerialPoint[] = [];
  for (const calls of [1, 10, 100, 1_000]) {
    const body = `let n = 0; for (let i = 0; i < ${calls}; i++) n += (await tools.api.page({ page: i })).page === i ? 1 : 0; return n;`;
    const variants = variantsOf(body, new Map([["api.page", pageTool(0)]]));
    points.push(await serialPoint(calls, variants, settings.repeats));
    await variants.close();
  }
  return points;
}

async function measureResultSize(settings: RunCurveSettings): Promise<SerialPoint[]> {
  const points: SerialPoint[] = [];
  const blob: BareTool = (input) => ({ data: "x".repeat((input as { bytes: number }).bytes) });
  for (const bytes of [1_024, 10_240, 102_400, 1_048_576]) {
    const body = `const answer = await tools.api.blob({ bytes: ${bytes} }); return answer.data.length;`;
    const variants = variantsOf(body, new Map([["api.blob", blob]]));
    points.push(await serialPoint(bytes, variants, settings.repeats));
    await variants.close();
  }
  return points;
}

/** Lines up to which the program-size curve also measures the default check. */
const CHECKED_LINES = 1_000;

/** A point of the program-size curve: a new program each run (never cached), checked or not. */
export interface ProgramPoint {
  readonly lines: number;
  readonly uncheckedMs: number;
  readonly checkedMs: number;
  readonly bareMs: number;
}

function programOf(lines: number, nonce: number): string {
  // Plain JavaScript that type-checks whatever the tool's declared result: the bare isolate runs it as it is.
  const body = [
    `// run ${nonce}`,
    "const first = JSON.stringify(await tools.api.page({ page: 1 })).length;",
    "let total = 0;",
  ];
  for (let line = 0; line < lines; line++) body.push(`total += (${line} * first) % 7;`);
  body.push("return total;");
  return body.join("\n");
}

async function measureProgramSize(settings: RunCurveSettings): Promise<ProgramPoint[]> {
  const tools = new Map([["api.page", pageTool(0)]]);
  // 5,000 lines are about 150 KB of source, over the default 100 KB limit.
  const limits = { maxSourceBytes: 1024 * 1024 };
  const yardOff = new Switchyard({ tools: definitionsOf(tools), typeCheck: "off", limits });
  const yardChecked = new Switchyard({ tools: definitionsOf(tools), limits });
  const run = async (yard: Switchyard, source: string): Promise<void> => {
    const result = await yard.run(source);
    if (result.error !== undefined)
      throw new Error(`program-size run failed: ${result.error.code} ${result.error.message}`);
  };
  // The checker starts once per process: start it before the curve, as a long-lived host has.
  await run(yardChecked, programOf(1, -1));
  await run(yardOff, programOf(1, -2));
  await new BareIsolateRunner(programOf(1, -3), tools, MEMORY_LIMIT_MB).run();
  const points: ProgramPoint[] = [];
  let nonce = 0;
  for (const lines of settings.programLines) {
    const samples = { unchecked: [] as number[], checked: [] as number[], bare: [] as number[] };
    for (let round = 0; round < settings.programRepeats; round++) {
      nonce++;
      const off = await timeOne(() => run(yardOff, programOf(lines, nonce)));
      // The check of a long new program takes seconds today (bench:first-check's area): measured up
      // to CHECKED_LINES only, so the bench keeps to its few minutes.
      const on = lines <= CHECKED_LINES ? await timeOne(() => run(yardChecked, programOf(lines, nonce))) : undefined;
      const bare = new BareIsolateRunner(programOf(lines, nonce), tools, MEMORY_LIMIT_MB);
      const floor = await timeOne(() => bare.run());
      samples.unchecked.push(off.wallMs);
      if (on !== undefined) samples.checked.push(on.wallMs);
      samples.bare.push(floor.wallMs);
    }
    points.push({
      lines,
      uncheckedMs: median(samples.unchecked),
      checkedMs: samples.checked.length === 0 ? Number.NaN : median(samples.checked),
      bareMs: median(samples.bare),
    });
  }
  await yardOff.close();
  await yardChecked.close();
  return points;
}

/** Every run curve, measured in one process. */
export interface RunCurves {
  readonly concurrency: ConcurrencyCell[];
  readonly calls: SerialPoint[];
  readonly resultSize: SerialPoint[];
  readonly programSize: ProgramPoint[];
}

const load = (): string =>
  loadavg()
    .map((value) => value.toFixed(2))
    .join(" ");

const cell = (value: number, width: number, digits = 1): string => value.toFixed(digits).padStart(width);

/**
 * `settings` narrowed by the environment, for iterating on one cell: SCALE_CLIENTS and SCALE_DELAYS
 * (comma-separated) pick the concurrency cells, SCALE_CELL_MS sets their length.
 */
export function settingsFromEnvironment(settings: RunCurveSettings): RunCurveSettings {
  const list = (name: string): number[] | undefined =>
    process.env[name]
      ?.split(",")
      .map(Number)
      .filter((value) => Number.isFinite(value) && value >= 0);
  const cellMs = Number(process.env.SCALE_CELL_MS);
  return {
    ...settings,
    concurrency: list("SCALE_CLIENTS") ?? settings.concurrency,
    delaysMs: list("SCALE_DELAYS") ?? settings.delaysMs,
    cellMs: cellMs > 0 ? cellMs : settings.cellMs,
  };
}

/** Measures and prints the concurrency curve alone. */
export async function measureConcurrencyCurve(settings: RunCurveSettings): Promise<ConcurrencyCell[]> {
  console.log(`\nscale: concurrent runs of 20 sequential calls (load ${load()})`);
  const concurrency = await measureConcurrency(settings);
  console.log(
    "  runs  tool ms  yard runs/s  bare runs/s  plain runs/s  yard/bare  yard p99 ms  bare p99 ms  yard CPU/run  bare CPU/run  CPU ratio",
  );
  for (const { clients, delayMs, yard, bare, plain } of concurrency) {
    const failed = yard.failed + bare.failed + plain.failed;
    console.log(
      `  ${String(clients).padStart(4)}  ${String(delayMs).padStart(7)}  ${cell(runsPerSecond(yard), 11)}  ${cell(runsPerSecond(bare), 11)}  ${cell(runsPerSecond(plain), 12)}  ${cell(runsPerSecond(yard) / runsPerSecond(bare), 8, 2)}×  ${cell(percentile(yard.latenciesMs, 0.99), 11)}  ${cell(percentile(bare.latenciesMs, 0.99), 11)}  ${cell(cpuPerRun(yard), 12, 2)}  ${cell(cpuPerRun(bare), 12, 2)}  ${cell(cpuPerRun(yard) / cpuPerRun(bare), 8, 2)}×${failed > 0 ? `  (${failed} failed)` : ""}`,
    );
  }
  console.log(`  (load ${load()})`);
  return concurrency;
}

/** Measures and prints every run curve. */
export async function measureRunCurves(settings: RunCurveSettings): Promise<RunCurves> {
  const concurrency = await measureConcurrencyCurve(settings);

  console.log("\nscale: calls per program (sequential calls to a synchronous tool, one run at a time, medians)");
  const calls = await measureCallsPerProgram(settings);
  printSerial("calls", calls);
  console.log("\nscale: result size (one call returning a string of that many bytes, one run at a time, medians)");
  const resultSize = await measureResultSize(settings);
  printSerial("bytes", resultSize);

  console.log("\nscale: program size (a new program each run: lines of arithmetic after one call, medians)");
  const programSize = await measureProgramSize(settings);
  console.log("  lines  typeCheck off ms  default check ms  bare isolate ms  off/bare  checked/bare");
  for (const point of programSize) {
    console.log(
      `  ${String(point.lines).padStart(5)}  ${cell(point.uncheckedMs, 16)}  ${cell(point.checkedMs, 16)}  ${cell(point.bareMs, 15)}  ${cell(point.uncheckedMs / point.bareMs, 7, 2)}×  ${cell(point.checkedMs / point.bareMs, 11, 2)}×`,
    );
  }
  console.log(`  (load ${load()})`);
  return { concurrency, calls, resultSize, programSize };
}

function printSerial(label: string, points: readonly SerialPoint[]): void {
  console.log(`  ${label.padStart(7)}  yard ms  bare ms  plain ms  yard/bare  yard CPU ms  bare CPU ms`);
  for (const point of points) {
    console.log(
      `  ${String(point.size).padStart(7)}  ${cell(point.yardMs, 7, 2)}  ${cell(point.bareMs, 7, 2)}  ${cell(point.plainMs, 8, 3)}  ${cell(point.yardMs / point.bareMs, 8, 2)}×  ${cell(point.yardCpuMs, 11, 2)}  ${cell(point.bareCpuMs, 11, 2)}`,
    );
  }
  console.log(`  (load ${load()})`);
}
