// Token benchmark entry point: runs every task in every mode offline, prints the range, every
// run, the published workload and the calibration, and writes tokens.md and tokens.svg to a
// fresh folder (bench/out/tokens-<time>/) unless --out names one: the committed
// bench/results/ is only rewritten when asked (`--out bench/results`). With --live, also runs
// the tasks through a real model API and writes tokens-live.md beside the offline table.
// Run: npm run bench:tokens   (node --no-node-snapshot --import tsx bench/tokens/run.ts)

import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { createPriceTable, loadPriceRows } from "../../src/agent/model-pricing.js";
import { calibrationSamples } from "./calibration.js";
import { SwitchyardError } from "../../src/errors.js";
import { benchConditions, currentLoad, writeBenchResult } from "../bench-result.js";
import { renderChartSvg } from "./chart-svg.js";
import {
  checkLiveReady,
  DEFAULT_LIVE_MODES,
  LIVE_MODES,
  LiveModeUnavailableError,
  renderLiveMarkdown,
  runLive,
  type LiveMode,
} from "./live.js";
import { MODES, type ModeId } from "./modes.js";
import { renderMarkdown, renderText } from "./report.js";
import { tokenResultFigures } from "./result-figures.js";
import { runTokenBenchmark } from "./run-benchmark.js";
import { benchModel, DEFAULT_BENCH_MODEL } from "./settings.js";
import { TASKS } from "./tasks/index.js";

export const USAGE = `Usage: bench tokens [options]
  --model <id>              model row for offline prices and cache rules; any id the provider serves with --live
                            (default ${DEFAULT_BENCH_MODEL.id})
  --pricing <file>          price rows (JSON) merged over src/agent/model-pricing.json
  --tasks <id,id>           tasks (default all): ${TASKS.map((task) => task.id).join(", ")}
  --modes <id,id>           offline modes (default all): ${MODES.map((mode) => mode.id).join(", ")}
  --max-calls-per-turn <n>  most calls in one grouped direct turn (default unlimited)
  --out <dir>               where to write tokens.md, tokens.svg (default: a fresh bench/out/tokens-<time>/)
  --live                    also run through the real API: needs ANTHROPIC_API_KEY or OPENAI_API_KEY
  --provider <name>         anthropic | openai for --live (default: the model row's provider)
  --live-modes <id,id>      live modes (default ${DEFAULT_LIVE_MODES.join(",")}): ${LIVE_MODES.join(", ")}
  --trials <n>              live trials per task and mode (default 3)
  --max-spend-usd <usd>     live spend cap (default 5)`;

export interface CliOptions {
  live: boolean;
  model: string;
  pricing: string | undefined;
  provider: "anthropic" | "openai" | undefined;
  tasks: string[] | undefined;
  modes: ModeId[] | undefined;
  liveModes: LiveMode[] | undefined;
  maxCallsPerTurn: number | undefined;
  trials: number;
  maxSpendUsd: number;
  out: string | undefined;
}

/** Parses the benchmark's arguments; throws with the usage for anything it does not know. */
export function parseArguments(argv: readonly string[]): CliOptions {
  const options: CliOptions = {
    live: false,
    model: DEFAULT_BENCH_MODEL.id,
    pricing: undefined,
    provider: undefined,
    tasks: undefined,
    modes: undefined,
    liveModes: undefined,
    maxCallsPerTurn: undefined,
    trials: 3,
    maxSpendUsd: 5,
    out: undefined,
  };
  const number = (argument: string, text: string, integer: boolean): number => {
    const value = Number(text);
    if (!Number.isFinite(value) || value <= 0 || (integer && !Number.isInteger(value)))
      throw new SwitchyardError(
        "OPTION_INVALID",
        `${argument} needs a positive ${integer ? "integer" : "number"}, got "${text}"; see switchyard bench tokens --help-bench.`,
      );
    return value;
  };
  for (let index = 0; index < argv.length; index++) {
    const argument = argv[index]!;
    const value = () => {
      const next = argv[++index];
      if (next === undefined)
        throw new SwitchyardError(
          "OPTION_INVALID",
          `${argument} needs a value; see switchyard bench tokens --help-bench.`,
        );
      return next;
    };
    if (argument === "--live") options.live = true;
    else if (argument === "--model") options.model = value();
    else if (argument === "--pricing") options.pricing = value();
    else if (argument === "--provider") {
      const provider = value();
      if (provider !== "anthropic" && provider !== "openai")
        throw new SwitchyardError(
          "OPTION_INVALID",
          `Unknown provider ${provider}; see switchyard bench tokens --help-bench.`,
        );
      options.provider = provider;
    } else if (argument === "--tasks") options.tasks = value().split(",");
    else if (argument === "--modes") options.modes = value().split(",") as ModeId[];
    else if (argument === "--live-modes") options.liveModes = value().split(",") as LiveMode[];
    else if (argument === "--max-calls-per-turn") options.maxCallsPerTurn = number(argument, value(), true);
    else if (argument === "--trials") options.trials = number(argument, value(), true);
    else if (argument === "--max-spend-usd") options.maxSpendUsd = number(argument, value(), false);
    else if (argument === "--out") options.out = value();
    else
      throw new SwitchyardError(
        "OPTION_INVALID",
        `Unknown option ${argument}; see switchyard bench tokens --help-bench.`,
      );
  }
  for (const id of options.tasks ?? [])
    if (!TASKS.some((task) => task.id === id))
      throw new SwitchyardError(
        "OPTION_INVALID",
        `Unknown task ${id}; known: ${TASKS.map((task) => task.id).join(", ")}.`,
      );
  for (const id of options.modes ?? [])
    if (!MODES.some((mode) => mode.id === id))
      throw new SwitchyardError(
        "OPTION_INVALID",
        `Unknown mode ${id}; known: ${MODES.map((mode) => mode.id).join(", ")}.`,
      );
  for (const id of options.liveModes ?? [])
    if (!(LIVE_MODES as readonly string[]).includes(id))
      throw new SwitchyardError("OPTION_INVALID", `Unknown live mode ${id}; known: ${LIVE_MODES.join(", ")}.`);
  return options;
}

/** A folder name that no earlier run used: bench/out/tokens-2026-12-01T10-20-30-123Z. */
export function freshOutFolder(now: Date = new Date()): string {
  return join("bench", "out", `tokens-${now.toISOString().replace(/[:.]/g, "-")}`);
}

/** Runs the benchmark with command-line arguments (as `npm run bench:tokens` and `switchyard bench tokens`). */
export async function main(argv: readonly string[] = process.argv.slice(2)): Promise<void> {
  const options = parseArguments(argv);
  const prices = createPriceTable(
    options.pricing === undefined ? {} : { prices: await loadPriceRows(options.pricing) },
  );
  const tasks = options.tasks === undefined ? TASKS : TASKS.filter((task) => options.tasks!.includes(task.id));
  const priced = prices.find(options.model);
  const provider = options.provider ?? (priced?.provider === "openai" ? "openai" : "anthropic");
  if (options.live) {
    try {
      checkLiveReady({ provider, model: options.model, prices });
    } catch (error) {
      if (!(error instanceof LiveModeUnavailableError)) throw error;
      console.error(error.message);
      process.exitCode = 2;
      return;
    }
  }
  // An OpenAI model is priced by its own row, but the offline bodies are Anthropic's: they are
  // counted and cache-modelled with the Anthropic default row unless the model is Anthropic's.
  const model =
    priced?.provider === "anthropic"
      ? priced
      : priced === undefined
        ? benchModel(options.model, prices)
        : DEFAULT_BENCH_MODEL;
  const out = options.out ?? freshOutFolder();
  const startLoad = currentLoad();
  const result = await runTokenBenchmark({
    tasks,
    model,
    ...(options.modes === undefined ? {} : { modes: options.modes }),
    ...(options.maxCallsPerTurn === undefined ? {} : { maxCallsPerTurn: options.maxCallsPerTurn }),
    publishedWorkload: options.tasks === undefined,
  });
  console.log(renderText(result));
  await mkdir(out, { recursive: true });
  await writeFile(join(out, "tokens.md"), renderMarkdown(result));
  await writeFile(join(out, "tokens.svg"), renderChartSvg(result));
  console.log(`\nModel: ${model.id}. Wrote ${join(out, "tokens.md")} and ${join(out, "tokens.svg")}.`);
  // The docs quote the full offline run with the default model only: a subset or another model
  // would put figures of a different run behind the same markers.
  const fullRun =
    options.tasks === undefined &&
    options.modes === undefined &&
    options.maxCallsPerTurn === undefined &&
    model.id === DEFAULT_BENCH_MODEL.id;
  if (fullRun) {
    const written = writeBenchResult("tokens", benchConditions(startLoad), tokenResultFigures(result), [
      "Offline and deterministic: a scripted model, token counts with o200k; bench/results/tokens.md (npm run bench:tokens -- --out bench/results) is the full table these figures summarise.",
    ]);
    console.log(`Wrote ${written}.`);
  }

  if (options.live) {
    try {
      const calibration = calibrationSamples(result.rows.map((row) => row.run));
      const live = await runLive({
        tasks,
        model: options.model,
        provider,
        prices,
        trials: options.trials,
        maxSpendUsd: options.maxSpendUsd,
        calibration,
        ...(options.liveModes === undefined ? {} : { modes: options.liveModes }),
        onTrial: (trial) =>
          console.error(
            `live ${trial.taskId} / ${trial.mode} / ${trial.trial}: ${trial.status}, ${trial.correct ? "correct" : "not correct"}`,
          ),
      });
      const offline = (taskId: string, mode: ModeId) => {
        const row = result.rows.find((candidate) => candidate.task.id === taskId && candidate.mode === mode);
        return row === undefined
          ? undefined
          : { inputTokens: row.figures.inputTokens, billedUsd: row.figures.billed.totalUsd };
      };
      const markdown = renderLiveMarkdown(live, offline, result.calibration);
      console.log(`\n${markdown}`);
      await writeFile(join(out, "tokens-live.md"), markdown);
      console.log(`Wrote ${join(out, "tokens-live.md")}.`);
    } catch (error) {
      if (!(error instanceof LiveModeUnavailableError)) throw error;
      console.error(`\n${error.message}`);
      process.exitCode = 2;
    }
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  try {
    await main();
  } catch (error) {
    console.error(error instanceof Error ? error.message : String(error));
    process.exitCode = 2;
  }
  // The type checker's worker thread would keep the process alive.
  process.exit(process.exitCode ?? 0);
}
