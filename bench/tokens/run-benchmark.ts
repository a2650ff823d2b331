// Runs every task in every mode offline and collects the figures, side by side with the
// grouped direct baseline, plus the published-figure check of the counting itself.
// Deterministic except wall times; no network.

import { defineTool } from "../../src/registry/define-tool.js";
import { Switchyard } from "../../src/switchyard.js";
import { checkPublishedFigures, TOKENIZER, type PublishedFigureCheck } from "./count-request.js";
import { BASELINE_MODE, MODES, runMode, type ModeId, type ModeRun } from "./modes.js";
import { CLAUDE_SONNET_4_5, type ModelProfile } from "./settings.js";
import { summarizeRun, type RunFigures } from "./summarize-run.js";
import type { BenchTask } from "./task.js";
import { TASKS } from "./tasks/index.js";

export interface BenchmarkOptions {
  readonly tasks?: readonly BenchTask[];
  readonly modes?: readonly ModeId[];
  readonly profile?: ModelProfile;
  readonly maxCallsPerTurn?: number;
  /** Called after each run, e.g. to print progress. */
  readonly onRun?: (row: BenchmarkRow) => void;
}

export interface BenchmarkRow {
  readonly task: BenchTask;
  readonly mode: ModeId;
  readonly run: ModeRun;
  readonly figures: RunFigures;
  /** The same task's baseline figures, when the baseline mode ran. */
  readonly baseline: RunFigures | undefined;
}

export interface BenchmarkResult {
  readonly rows: readonly BenchmarkRow[];
  readonly checks: readonly PublishedFigureCheck[];
  readonly profile: ModelProfile;
  readonly tokenizer: string;
  readonly maxCallsPerTurn: number;
  readonly durationMs: number;
}

/** Runs the benchmark; see the module comment. */
export async function runTokenBenchmark(options: BenchmarkOptions = {}): Promise<BenchmarkResult> {
  const started = performance.now();
  const profile = options.profile ?? CLAUDE_SONNET_4_5;
  const tasks = options.tasks ?? TASKS;
  const modes = options.modes ?? MODES.map((mode) => mode.id);
  const maxCallsPerTurn = options.maxCallsPerTurn ?? Number.POSITIVE_INFINITY;
  await warmUpTypeChecker();
  const rows: BenchmarkRow[] = [];
  for (const task of tasks) {
    // The baseline runs first so every row of the task can be compared with it.
    const ordered = [...modes].sort((a, b) => Number(b === BASELINE_MODE) - Number(a === BASELINE_MODE));
    const taskRows = new Map<ModeId, BenchmarkRow>();
    let baseline: RunFigures | undefined;
    for (const mode of ordered) {
      const run = await runMode(task, mode, { profile, maxCallsPerTurn });
      const figures = summarizeRun(run, profile);
      if (mode === BASELINE_MODE) baseline = figures;
      const row: BenchmarkRow = { task, mode, run, figures, baseline };
      taskRows.set(mode, row);
      options.onRun?.(row);
    }
    for (const mode of modes) rows.push(taskRows.get(mode)!);
  }
  return {
    rows,
    checks: checkPublishedFigures(profile),
    profile,
    tokenizer: TOKENIZER,
    maxCallsPerTurn,
    durationMs: performance.now() - started,
  };
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
