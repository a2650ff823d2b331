// Token benchmark entry point: runs every task in every mode offline, prints the side-by-side
// table and the published-figure check, and writes bench/results/tokens.md and tokens.svg.
// With --live, also runs the tasks through the real Anthropic API (needs ANTHROPIC_API_KEY)
// and writes bench/results/tokens-live.md beside the offline estimate.
// Run: npm run bench:tokens   (node --no-node-snapshot --import tsx bench/tokens/run.ts)
// Options: --live  --model <id>  --tasks <id,id>  --modes <id,id>  --max-calls-per-turn <n>  --out <dir>

import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { renderChartSvg } from "./chart-svg.js";
import { LiveModeUnavailableError, renderLiveMarkdown, runLive } from "./live.js";
import { MODES, type ModeId } from "./modes.js";
import { renderMarkdown, renderText } from "./report.js";
import { runTokenBenchmark } from "./run-benchmark.js";
import { CLAUDE_SONNET_4_5, modelProfile } from "./settings.js";
import { TASKS } from "./tasks/index.js";

interface CliOptions {
  live: boolean;
  model: string;
  tasks: string[] | undefined;
  modes: ModeId[] | undefined;
  maxCallsPerTurn: number | undefined;
  out: string;
}

function parseArguments(argv: readonly string[]): CliOptions {
  const options: CliOptions = {
    live: false,
    model: CLAUDE_SONNET_4_5.id,
    tasks: undefined,
    modes: undefined,
    maxCallsPerTurn: undefined,
    out: "bench/results",
  };
  for (let index = 0; index < argv.length; index++) {
    const argument = argv[index]!;
    const value = () => {
      const next = argv[++index];
      if (next === undefined) throw new Error(`${argument} needs a value.`);
      return next;
    };
    if (argument === "--live") options.live = true;
    else if (argument === "--model") options.model = value();
    else if (argument === "--tasks") options.tasks = value().split(",");
    else if (argument === "--modes") options.modes = value().split(",") as ModeId[];
    else if (argument === "--max-calls-per-turn") options.maxCallsPerTurn = Number(value());
    else if (argument === "--out") options.out = value();
    else throw new Error(`Unknown option ${argument}.`);
  }
  for (const id of options.tasks ?? [])
    if (!TASKS.some((task) => task.id === id))
      throw new Error(`Unknown task ${id}; known: ${TASKS.map((task) => task.id).join(", ")}.`);
  for (const id of options.modes ?? [])
    if (!MODES.some((mode) => mode.id === id))
      throw new Error(`Unknown mode ${id}; known: ${MODES.map((mode) => mode.id).join(", ")}.`);
  return options;
}

/** Runs the benchmark with command-line arguments (as `npm run bench:tokens` and `switchyard bench tokens`). */
export async function main(argv: readonly string[] = process.argv.slice(2)): Promise<void> {
  const options = parseArguments(argv);
  const profile = modelProfile(options.model);
  const tasks = options.tasks === undefined ? TASKS : TASKS.filter((task) => options.tasks!.includes(task.id));
  const result = await runTokenBenchmark({
    tasks,
    profile,
    ...(options.modes === undefined ? {} : { modes: options.modes }),
    ...(options.maxCallsPerTurn === undefined ? {} : { maxCallsPerTurn: options.maxCallsPerTurn }),
  });
  console.log(renderText(result));
  await mkdir(options.out, { recursive: true });
  await writeFile(join(options.out, "tokens.md"), renderMarkdown(result));
  await writeFile(join(options.out, "tokens.svg"), renderChartSvg(result));
  console.log(`\nWrote ${join(options.out, "tokens.md")} and ${join(options.out, "tokens.svg")}.`);

  if (options.live) {
    try {
      const rows = await runLive(tasks, profile);
      const offline = (taskId: string, mode: ModeId) =>
        result.rows.find((row) => row.task.id === taskId && row.mode === mode)?.figures.inputTokens;
      const markdown = renderLiveMarkdown(rows, offline, profile);
      console.log(`\n${markdown}`);
      await writeFile(join(options.out, "tokens-live.md"), markdown);
    } catch (error) {
      if (!(error instanceof LiveModeUnavailableError)) throw error;
      console.error(`\n${error.message}`);
      process.exitCode = 2;
    }
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await main();
  // The type checker's worker thread would keep the process alive.
  process.exit(process.exitCode ?? 0);
}
