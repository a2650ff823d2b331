// Host event-loop lag while hostile input is processed: each row feeds one input that once
// stalled the host (issue 14) through the path a model or client uses, and records the
// longest event-loop delay seen meanwhile; the last row is a new session's warm-up in a fresh
// process. Target: every row ≤ 50 ms, stretched by the slowdown and plus the idle lag the same
// process shows in the same run (a loaded machine stretches every block and delays every timer);
// the parser rows ≤ 20 ms of CPU for their least round. Each row prints its margin; any miss exits
// 1 (see stall-verdict.ts). Run with `npm run bench:host-stalls`; `--rows <text>` keeps the rows whose
// name holds the text, `--target-ms` and `--parser-target-ms` change the targets.

import { availableParallelism, loadavg } from "node:os";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { shellPermissionRules } from "../src/builtins/shell-tool.js";
import { answerModelToolCall } from "../src/model-tools/answer-model-tool-call.js";
import { MAX_ANALYZED_LENGTH } from "../src/permissions/command-classifier.js";
import { defineTool } from "../src/registry/define-tool.js";
import { Switchyard } from "../src/switchyard.js";
import { measureStartUpLag } from "./session-start-lag.js";
import {
  exitCodeOf,
  formatVerdict,
  judgeLag,
  judgeTiming,
  measureSlowdown,
  type StallVerdict,
} from "./stall-verdict.js";

/** The value after `--name` on the command line, as a number, or `fallback`. */
function numberOption(name: string, fallback: number): number {
  const at = process.argv.indexOf(name);
  const value = at < 0 ? Number.NaN : Number(process.argv[at + 1]);
  return Number.isFinite(value) ? value : fallback;
}

const TARGET_MS = numberOption("--target-ms", 50);
const ROUNDS = 5;
const TIMED_WARM_UPS = 10;
// Idle rounds for the baseline, each as long as a typical row.
const IDLE_ROUNDS = 5;
const IDLE_ROUND_MS = 200;

// Inputs are built once, outside the measured time: a client's bytes arrive already made.
const FENCED_PROGRAM = `\`\`\`\n${" ".repeat(40_000)}x`;
const HUGE_PROGRAM = `\`\`\`\n${" \t".repeat(2_000_000)}`;

// The shell.run permission rules (they load the parser now, as a session does when it is made)
// and command lines for them: 100 KB, and the longest line parsed, of short pipelines.
const SHELL_RULES = shellPermissionRules();
const PARSER_TARGET_MS = numberOption("--parser-target-ms", 20);
const LONG_COMMAND = `grep -n x ${"src/file.ts ".repeat(9_000)}`.slice(0, 100_000);
const LONGEST_PARSED = "ls -la 'a b' | grep \"x$y\" > /dev/null; ".repeat(300).slice(0, MAX_ANALYZED_LENGTH);

/** Which rule the gate would apply to `command`; the CPU time deciding took (a fresh input: no cache) goes to `timings`. */
function shellDecision(command: string, timings: number[]): string {
  const started = process.cpuUsage();
  const rule = SHELL_RULES.find((candidate) => candidate.when?.({ command }, undefined as never) === true);
  const used = process.cpuUsage(started);
  timings.push((used.user + used.system) / 1000);
  return rule?.decision ?? "none";
}

interface Row {
  readonly what: string;
  /** Runs the row once; a timed row pushes its own duration (ms) to `timings`. */
  readonly work: (yard: Switchyard, timings: number[]) => Promise<string>;
  /** A target for the row's own timing, besides the lag target. */
  readonly timingTargetMs?: number;
}

const ROWS: readonly Row[] = [
  {
    what: "shell.run permission check of a 100 KB command line (classifier; not parsed past 2 KiB)",
    work: async (_yard, timings) => shellDecision(LONG_COMMAND, timings),
    timingTargetMs: PARSER_TARGET_MS,
  },
  {
    what: `shell.run permission check of a ${MAX_ANALYZED_LENGTH}-character line of pipelines (the longest parsed)`,
    work: async (_yard, timings) => shellDecision(LONGEST_PARSED, timings),
    timingTargetMs: PARSER_TARGET_MS,
  },
  {
    what: "regex `.{0,99}.{0,99}.{0,99}.{0,99}~` via search_tools, 1,000 tools",
    work: async (yard) => {
      const answer = await answerModelToolCall(yard, {
        name: "search_tools",
        input: { pattern: ".{0,99}.{0,99}.{0,99}.{0,99}~" },
      });
      return answer.tool === "refused" ? answer.error.code : "answered";
    },
  },
  {
    what: "fenced program: opening fence and 40 KB of spaces (quadratic before)",
    work: async (yard) => {
      const answer = await answerModelToolCall(yard, {
        name: "run_program",
        input: { code: FENCED_PROGRAM },
      });
      return answer.tool === "run_program" ? (answer.run.error?.code ?? "ok") : answer.tool;
    },
  },
  {
    what: "run_program with 4 MB of code (refused before any work on it)",
    work: async (yard) => {
      const answer = await answerModelToolCall(yard, {
        name: "run_program",
        input: { code: HUGE_PROGRAM },
      });
      return answer.tool === "run_program" ? (answer.run.error?.code ?? "ok") : answer.tool;
    },
  },
  {
    what: "999 calls to unknown 250-character tool names, 1,000 tools registered",
    work: async (yard) => {
      const result = await yard.run(
        `const name = "y".repeat(240); let refused = 0;
        for (let i = 0; i < 999; i++) { try { await (tools as any).ns1[name + i]({}); } catch { refused++; } }
        return refused;`,
        { typeCheck: "off" },
      );
      return `${result.output} refused`;
    },
  },
  // Names as long as the catalog's are the costly ones: an edit distance is computed against every tool.
  {
    what: "999 calls to unknown names of the catalog's length (`ns1.operation_numbex_1000`...)",
    work: async (yard) => {
      const result = await yard.run(
        `let refused = 0;
        for (let i = 0; i < 999; i++) { try { await (tools as any).ns1["operation_numbex_" + (1000 + i)]({}); } catch { refused++; } }
        return refused;`,
        { typeCheck: "off" },
      );
      return `${result.output} refused`;
    },
  },
  {
    what: "999 tools.$describe of unknown names of the catalog's length",
    work: async (yard) => {
      const result = await yard.run(
        `let refused = 0;
        for (let i = 0; i < 999; i++) { try { await tools.$describe("ns1.operation_numbex_" + (1000 + i)); } catch { refused++; } }
        return refused;`,
        { typeCheck: "off" },
      );
      return `${result.output} refused`;
    },
  },
  {
    what: "describe_tools with 50 unknown names of the catalog's length",
    work: async (yard) => {
      const names = Array.from({ length: 50 }, (_, index) => `ns1.operation_numbex_${1000 + index}`);
      const answer = await answerModelToolCall(yard, { name: "describe_tools", input: { names } });
      return answer.tool === "describe_tools" ? `${answer.describe.unknown.length} unknown` : answer.tool;
    },
  },
];

const START_UP_ROW = "a new session's warm-up, fresh process, 40 tools, through one model turn";

function catalog(): ReturnType<typeof defineTool>[] {
  return Array.from({ length: 1_000 }, (_, index) =>
    defineTool({
      name: `ns${index % 20}.operation_number_${index}`,
      description: `Performs operation ${index} on records of kind ${index % 37}; returns a page of results.`,
      inputSchema: { type: "object", properties: { id: { type: "string" }, cursor: { type: "string" } } },
      effect: "read",
      execute: () => ({ ok: true }),
    }),
  );
}

/** Longest event-loop delay while `work` runs, and the host CPU time it took, in ms. */
async function maxLagDuring(work: () => Promise<unknown>): Promise<{ lagMs: number; cpuMs: number }> {
  const histogram = monitorEventLoopDelay({ resolution: 1 });
  histogram.enable();
  // The monitor's first tick only starts its clock: a block before it is never recorded, and
  // every row's work starts with a synchronous part (input checks, compile, lookups).
  await new Promise((resolve) => setTimeout(resolve, 10));
  const cpu = process.cpuUsage();
  await work();
  const used = process.cpuUsage(cpu);
  // A block that lasted until the work ended is only recorded when the timer fires next.
  await new Promise((resolve) => setTimeout(resolve, 5));
  histogram.disable();
  return { lagMs: histogram.max / 1e6, cpuMs: (used.user + used.system) / 1000 };
}

/** The text after `--rows` (a row runs when its name holds it), or "" to run every row. */
function rowFilter(): string {
  const at = process.argv.indexOf("--rows");
  return at < 0 ? "" : (process.argv[at + 1] ?? "");
}

/** The rows to run: all, or those whose name holds the text after `--rows`. */
function selectedRows(): readonly Row[] {
  return ROWS.filter((row) => row.what.includes(rowFilter()));
}

/** The worst event-loop lag of IDLE_ROUNDS idle rounds: what the machine alone costs this process now. */
async function idleLag(): Promise<number> {
  let worst = 0;
  for (let round = 0; round < IDLE_ROUNDS; round++) {
    const idle = await maxLagDuring(() => new Promise((resolve) => setTimeout(resolve, IDLE_ROUND_MS)));
    worst = Math.max(worst, idle.lagMs);
  }
  return worst;
}

async function main(): Promise<void> {
  const rows = selectedRows();
  const yard = new Switchyard({ tools: catalog(), discovery: { defer: true } });
  // Warm the paths (type checker, regex worker, esbuild), so rows measure steady work; the parser
  // (mvdan/sh compiled to JavaScript) needs several runs before the JIT settles (100 ms, then ~10).
  for (const row of rows) {
    for (let warm = 0; warm < (row.timingTargetMs === undefined ? 1 : TIMED_WARM_UPS); warm++) await row.work(yard, []);
  }
  const idleMs = await idleLag();
  const slowdown = measureSlowdown();
  console.log(
    `host event-loop lag, max over ${ROUNDS} rounds, and the host CPU time of the slowest round; limit ${TARGET_MS} ms ` +
      `× this thread's slowdown (${slowdown.toFixed(2)}: wall over CPU time of a busy spin) + this process's idle lag ` +
      `(${idleMs.toFixed(1)} ms: worst of ${IDLE_ROUNDS} idle rounds of ${IDLE_ROUND_MS} ms), both measured now; ` +
      `load average ${loadavg()[0]?.toFixed(1)} on ${availableParallelism()} cores`,
  );
  let worst = 0;
  const verdicts: StallVerdict[] = [];
  for (const row of rows) {
    const rounds: { lagMs: number; cpuMs: number }[] = [];
    const timings: number[] = [];
    let outcome = "";
    for (let round = 0; round < ROUNDS; round++) {
      rounds.push(
        await maxLagDuring(async () => {
          outcome = await row.work(yard, timings);
        }),
      );
    }
    const max = Math.max(...rounds.map((round) => round.lagMs));
    const cpuMs = Math.max(...rounds.map((round) => round.cpuMs));
    if (process.argv.includes("--verbose"))
      console.log(`    rounds: ${rounds.map((round) => round.lagMs.toFixed(1)).join(", ")} ms`);
    worst = Math.max(worst, max);
    const lag = judgeLag(max, TARGET_MS, idleMs, slowdown);
    verdicts.push(lag);
    console.log(`  ${row.what}: lag ${formatVerdict(lag)}, CPU ${cpuMs.toFixed(0)} ms (${outcome})`);
    if (row.timingTargetMs !== undefined) {
      const timing = judgeTiming(timings, row.timingTargetMs);
      verdicts.push(timing);
      console.log(`    decided in CPU ${formatVerdict(timing)}`);
    }
  }
  await yard.close();
  if (START_UP_ROW.includes(rowFilter())) {
    // A fresh process per sample (the warm-ups run once per process), judged by its own idle lag
    // and slowdown, measured in that process after its warm-up: the worst sample's margin counts.
    const samples = await measureStartUpLag(ROUNDS);
    const judged = samples.map((sample) => judgeLag(sample.lagMs, TARGET_MS, sample.idleMs, sample.slowdown));
    const startUp = judged.reduce((worstSample, sample) =>
      sample.marginMs < worstSample.marginMs ? sample : worstSample,
    );
    verdicts.push(startUp);
    worst = Math.max(worst, startUp.measuredMs);
    console.log(`  ${START_UP_ROW}: lag ${formatVerdict(startUp)}`);
  }
  const misses = verdicts.filter((result) => !result.pass).length;
  const margin = Math.min(...verdicts.map((result) => result.marginMs));
  console.log(
    `host stalls: worst event-loop lag ${worst.toFixed(1)} ms, target ≤ ${TARGET_MS} ms × ${slowdown.toFixed(2)} slowdown + ${idleMs.toFixed(1)} ms idle; ` +
      `smallest margin ${margin.toFixed(1)} ms; ${misses === 0 ? "every row within its limit" : `${misses} MISSED`}`,
  );
  process.exitCode = exitCodeOf(verdicts);
}

await main();
