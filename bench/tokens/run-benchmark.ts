// Runs every task in every mode offline and collects the figures, side by side with the two
// direct baselines (plain grouped calls, and the lean API), then Anthropic's budget-compliance
// workload at its published parameters, and the calibration of the counting itself.
// Deterministic except wall times; no network.

import { defineTool } from "../../src/registry/define-tool.js";
import { Switchyard } from "../../src/switchyard.js";
import { calibrate, calibrationSamples, type CalibrationRow } from "./calibration.js";
import { TOKENIZER } from "./count-request.js";
import { BASELINE_MODE, LEAN_BASELINE_MODE, MODES, runMode, type ModeId, type ModeRun } from "./modes.js";
import { type BenchModel, DEFAULT_BENCH_MODEL } from "./settings.js";
import { summarizeRun, type RunFigures } from "./summarize-run.js";
import type { BenchTask } from "./task.js";
import { publishedBudgetCompliance } from "./tasks/expense-budgets.js";
import { TASKS } from "./tasks/index.js";

/** Where the published workload comes from, and what was published. */
export const PUBLISHED_WORKLOAD = {
  source: "https://www.anthropic.com/engineering/advanced-tool-use",
  teamSize: 20,
  linesPerMember: [50, 100] as const,
  /** "200KB of raw expense data" reduced to "1KB of results" with programmatic tool calling. */
  publishedRawKb: 200,
  publishedResultKb: 1,
  /** The article's average on complex research tasks (a different workload): 43,588 -> 27,297 tokens. */
  publishedResearchTokens: { before: 43_588, after: 27_297 },
  modes: ["direct-grouped", "direct-lean", "programmatic"] as readonly ModeId[],
} as const;

export interface BenchmarkOptions {
  readonly tasks?: readonly BenchTask[];
  readonly modes?: readonly ModeId[];
  readonly model?: BenchModel;
  readonly maxCallsPerTurn?: number;
  /** Run the published budget-compliance workload too. Default true. */
  readonly publishedWorkload?: boolean;
  /** Called after each run, e.g. to print progress. */
  readonly onRun?: (row: BenchmarkRow) => void;
}

export interface BenchmarkRow {
  readonly task: BenchTask;
  readonly mode: ModeId;
  readonly run: ModeRun;
  readonly figures: RunFigures;
  /** The same task's plain grouped-direct figures, when that mode ran. */
  readonly baseline: RunFigures | undefined;
  /** The same task's lean-API direct figures, when that mode ran. */
  readonly leanBaseline: RunFigures | undefined;
}

export interface BenchmarkResult {
  readonly rows: readonly BenchmarkRow[];
  /** Anthropic's budget-compliance example at its published parameters (undefined when not run). */
  readonly published: readonly BenchmarkRow[] | undefined;
  readonly calibration: readonly CalibrationRow[];
  readonly model: BenchModel;
  readonly tokenizer: string;
  readonly maxCallsPerTurn: number;
  readonly durationMs: number;
}

/** Runs the benchmark; see the module comment. */
export async function runTokenBenchmark(options: BenchmarkOptions = {}): Promise<BenchmarkResult> {
  const started = performance.now();
  const model = options.model ?? DEFAULT_BENCH_MODEL;
  const tasks = options.tasks ?? TASKS;
  const modes = options.modes ?? MODES.map((mode) => mode.id);
  const maxCallsPerTurn = options.maxCallsPerTurn ?? Number.POSITIVE_INFINITY;
  await warmUpTypeChecker();
  const rows: BenchmarkRow[] = [];
  for (const task of tasks) rows.push(...(await runTask(task, modes, model, maxCallsPerTurn, options.onRun)));
  const published =
    options.publishedWorkload === false
      ? undefined
      : await runTask(publishedBudgetCompliance, PUBLISHED_WORKLOAD.modes, model, maxCallsPerTurn, options.onRun);
  return {
    rows,
    published,
    calibration: calibrate(calibrationSamples(rows.map((row) => row.run)), model),
    model,
    tokenizer: TOKENIZER,
    maxCallsPerTurn,
    durationMs: performance.now() - started,
  };
}

/** One task in `modes`; every row carries the task's baselines (rows in `modes` order, progress as they finish). */
async function runTask(
  task: BenchTask,
  modes: readonly ModeId[],
  model: BenchModel,
  maxCallsPerTurn: number,
  onRun: ((row: BenchmarkRow) => void) | undefined,
): Promise<BenchmarkRow[]> {
  const runs = new Map<ModeId, { run: ModeRun; figures: RunFigures }>();
  for (const mode of modes) {
    const run = await runMode(task, mode, { model, maxCallsPerTurn });
    runs.set(mode, { run, figures: summarizeRun(run, model) });
  }
  const baseline = runs.get(BASELINE_MODE)?.figures;
  const leanBaseline = runs.get(LEAN_BASELINE_MODE)?.figures;
  return modes.map((mode) => {
    const row: BenchmarkRow = { task, mode, ...runs.get(mode)!, baseline, leanBaseline };
    onRun?.(row);
    return row;
  });
}

/** The type checker runs in a worker started on first use: start it before anything is timed. */
async function warmUpTypeChecker(): Promise<void> {
  const yard = new Switchyard({
    tools: [
      defineTool({
        name: "warm.up",
        description: "Warm-up.",
        inputSchema: { type: "object" },
        effect: "read",
        execute: () => 1,
      }),
    ],
  });
  await yard.run("return await tools.warm.up({});");
}
