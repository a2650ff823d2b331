// Renders a benchmark result: the range of savings (best case against plain grouped direct
// calls, conservative case against a lean API, with the counting band), every run with its
// billed cost, the bill split, the effects of search and code execution separated, the
// published workload on its own line, the calibration of the counting, and every constant.
// Markdown for bench/results/tokens.md, aligned text for the terminal. Pure string building.

import { describePriceRow } from "../../src/agent/model-pricing.js";
import { COUNT_BAND, changeBand, type CalibrationRow } from "./calibration.js";
import {
  BASELINE_MODE,
  DIRECT_RESULT_LIMIT_BYTES,
  EFFECT_MODES,
  LEAN_BASELINE_MODE,
  MODES,
  modeInfo,
  type ModeId,
} from "./modes.js";
import { PUBLISHED_WORKLOAD, type BenchmarkResult, type BenchmarkRow } from "./run-benchmark.js";
import { LATENCY_MODEL, MAX_OUTPUT_TOKENS } from "./settings.js";
import type { BenchTask } from "./task.js";

const RUN_HEADERS = [
  "Task",
  "Mode",
  "Req",
  "Input tok",
  "Output tok",
  "Peak ctx",
  "Est. time",
  "Billed",
  "Δ billed vs grouped",
  "Δ billed vs lean",
  "Δ input vs grouped",
  "Answer",
];

/** The row of every run as cells. */
export function tableCells(result: BenchmarkResult): string[][] {
  return result.rows.map((row, index) => {
    const first = index === 0 || result.rows[index - 1]!.task.id !== row.task.id;
    const figures = row.figures;
    return [
      first ? row.task.title : "",
      modeInfo(row.mode).label,
      String(figures.requests),
      formatInteger(figures.inputTokens),
      formatInteger(figures.outputTokens),
      `${formatInteger(figures.peakContextTokens)}${figures.overContextWindow ? " (over window)" : ""}`,
      formatSeconds(figures.estimatedEndToEndMs),
      formatUsd(figures.billed.totalUsd),
      row.mode === BASELINE_MODE ? "baseline" : changeOrNa(figures.billed.totalUsd, row.baseline?.billed.totalUsd),
      row.mode === LEAN_BASELINE_MODE
        ? "baseline"
        : changeOrNa(figures.billed.totalUsd, row.leanBaseline?.billed.totalUsd),
      row.mode === BASELINE_MODE ? "baseline" : changeOrNa(figures.inputTokens, row.baseline?.inputTokens),
      row.run.correct ? "correct" : "WRONG",
    ];
  });
}

/** The whole report as markdown. */
export function renderMarkdown(result: BenchmarkResult): string {
  const { model } = result;
  const lines: string[] = [];
  lines.push("# Token savings: direct vs programmatic tool calling", "");
  lines.push(
    `Offline run: scripted model turns through the real agent loop (\`runAgent\`), real tools, real sandbox, type check and tool search, ` +
      `real request bodies (\`buildAnthropicRequest\`, prompt-cache breakpoints included). Model row: ${describePriceRow(model)}. ` +
      `Tokens: ${result.tokenizer} on the JSON of each body (system + tools + messages) + ${model.toolUseSystemPromptTokens} hidden tool-use ` +
      `system prompt tokens per request with tools. **${model.label} counts are approximations** (no exact offline Claude tokenizer; ` +
      "see the calibration below). Cost is billed as the provider bills it: uncached input, cache writes, cache reads and output, " +
      "the cache following the adapter's breakpoints. Negative changes are savings.",
    "",
  );
  lines.push("## The range", "");
  lines.push(
    "Best case: the program against plain direct calls grouped per turn. Conservative case: against direct calls to a " +
      "lean API (field selection, server-side filters) where one would help. The band is what the counting cannot rule out " +
      `(each side anywhere in ${COUNT_BAND.low}-${COUNT_BAND.high}x of our count). Billed cost.`,
    "",
  );
  lines.push(markdownTable(RANGE_HEADERS, rangeCells(result), new Set([1, 2, 3, 4, 5])), "");
  const published = publishedLine(result);
  if (published !== undefined) lines.push(published, "");
  lines.push("## Every run", "");
  lines.push(markdownTable(RUN_HEADERS, tableCells(result), new Set([2, 3, 4, 5, 6, 7, 8, 9, 10])), "");
  lines.push("## Cost as billed", "");
  lines.push(
    `Input tokens split as billed (the cache model below), and each part's price under ${model.id}.`,
    "",
    markdownTable(BILL_HEADERS, billCells(result.rows), new Set([2, 3, 4, 5, 6, 7, 8, 9, 10])),
    "",
  );
  const effects = effectCells(result);
  if (effects.length > 0) {
    lines.push("## Separated effects: tool search and code execution", "");
    lines.push(
      "The same padded catalog (the task's tools + 224 SaaS tools) in four modes. Baseline: grouped direct calls with every " +
        "definition sent up front. Search alone: the model searches first and only found definitions join the request. " +
        "Code alone: one program whose description declares all 228 tools. Both: search, then one program. " +
        "Interaction: what both save beyond the sum of the two alone. Billed cost.",
      "",
      markdownTable(EFFECT_HEADERS, effects, new Set([1, 2, 3, 4, 5])),
      "",
    );
  }
  if (result.published !== undefined) {
    lines.push("## Anthropic's budget-compliance example at its published parameters", "");
    lines.push(...renderPublished(result).map((line) => `- ${line}`), "");
  }
  lines.push("## Counting calibration", "");
  lines.push(
    "Our count of request bodies from a few tokens to ~90K, against Anthropic's published counts where they exist. " +
      `For everything else no figure is published: the band is ${COUNT_BAND.low}-${COUNT_BAND.high}x our count ` +
      "(low: the closest published anchor is counted 4.7% high; high: Anthropic's note that the tokenizer of Claude Opus 4.7 and " +
      "later, Sonnet 5 and later, counts about 30% more tokens than earlier models, 1.0-1.35x by content). " +
      `A live run (\`--live\`) records the provider's own count of these same bodies in tokens-live.md. Source: ${COUNT_BAND.source}`,
    "",
    markdownTable(CALIBRATION_HEADERS, calibrationCells(result.calibration), new Set([1, 2, 3, 4, 5, 6])),
    "",
  );
  lines.push("## Constants", "");
  lines.push(...renderConstants(result).map((line) => `- ${line}`), "");
  lines.push("## Modes", "");
  for (const mode of MODES) lines.push(`- **${mode.label}** (\`${mode.id}\`): ${mode.description}`);
  lines.push("", "## Tasks", "");
  for (const task of uniqueTasks(result)) {
    const lean = task.createWorld().lean;
    lines.push(
      `- **${task.title}**${task.control ? " (control)" : ""}: ${task.note}. Lean API: ${lean === undefined ? "none would help (same as grouped)" : lean.note}. _${task.question}_`,
    );
  }
  const problems = renderProblems(result);
  const all = [...result.rows, ...(result.published ?? [])];
  lines.push(
    "",
    "## Grading and runs with remarks",
    "",
    `Every answer is graded by its task's checker (the text must name every fact the truth holds and nothing false), the structured answer is compared with the truth, and side effects are checked: ${all.filter((row) => row.run.correct).length} of ${all.length} runs correct.`,
    "",
    ...(problems.length === 0 ? ["No run had remarks."] : problems.map((line) => `- ${line}`)),
  );
  lines.push("", `Run time: ${(result.durationMs / 1000).toFixed(1)} s.`, "");
  return lines.join("\n");
}

/** The report for the terminal: the range, every run, the published workload, the calibration. */
export function renderText(result: BenchmarkResult): string {
  const lines: string[] = [];
  lines.push(
    `Token benchmark (offline; ${result.tokenizer}; ${result.model.label} counts approximate; billed cost; Δ vs direct grouped and vs lean API)`,
    "",
  );
  lines.push(alignedTable(RANGE_HEADERS, rangeCells(result), new Set([1, 2, 3, 4, 5])), "");
  const published = publishedLine(result);
  if (published !== undefined) lines.push(published.replace(/\*\*/g, ""), "");
  lines.push(alignedTable(RUN_HEADERS, tableCells(result), new Set([2, 3, 4, 5, 6, 7, 8, 9, 10])), "");
  const effects = effectCells(result);
  if (effects.length > 0) lines.push(alignedTable(EFFECT_HEADERS, effects, new Set([1, 2, 3, 4, 5])), "");
  lines.push(
    alignedTable(CALIBRATION_HEADERS, calibrationCells(result.calibration), new Set([1, 2, 3, 4, 5, 6])),
    "",
    "Constants:",
    ...renderConstants(result).map((line) => `  ${line}`),
  );
  const problems = renderProblems(result);
  if (problems.length > 0) lines.push("", "Runs with remarks:", ...problems.map((line) => `  ${line}`));
  lines.push("", `Run time: ${(result.durationMs / 1000).toFixed(1)} s.`);
  return lines.join("\n");
}

// ---------------------------------------------------------------------------------------
// The range

const RANGE_HEADERS = [
  "Task",
  "Best case: vs grouped",
  "band",
  "Conservative: vs lean API",
  "band",
  "Input tokens vs grouped / lean",
];

function rangeCells(result: BenchmarkResult): string[][] {
  return uniqueTasks(result).flatMap((task) => {
    const program = rowOf(result.rows, task.id, "programmatic");
    if (program === undefined) return [];
    const grouped = program.baseline;
    const lean = program.leanBaseline;
    const cost = program.figures.billed.totalUsd;
    return [
      [
        `${task.title}${program.run.correct ? "" : " (WRONG)"}`,
        changeOrNa(cost, grouped?.billed.totalUsd),
        grouped === undefined ? "" : formatBand(changeBand(cost, grouped.billed.totalUsd)),
        changeOrNa(cost, lean?.billed.totalUsd),
        lean === undefined ? "" : formatBand(changeBand(cost, lean.billed.totalUsd)),
        `${changeOrNa(program.figures.inputTokens, grouped?.inputTokens)} / ${changeOrNa(program.figures.inputTokens, lean?.inputTokens)}`,
      ],
    ];
  });
}

function publishedLine(result: BenchmarkResult): string | undefined {
  const rows = result.published;
  if (rows === undefined) return undefined;
  const program = rows.find((row) => row.mode === "programmatic");
  const grouped = rows.find((row) => row.mode === BASELINE_MODE);
  const lean = rows.find((row) => row.mode === LEAN_BASELINE_MODE);
  if (program === undefined || grouped === undefined) return undefined;
  return (
    `**Published workload** (Anthropic's budget-compliance example, ${PUBLISHED_WORKLOAD.teamSize} members x ` +
    `${PUBLISHED_WORKLOAD.linesPerMember.join("-")} expense lines): program ${changeOrNa(program.figures.billed.totalUsd, grouped.figures.billed.totalUsd)} billed vs grouped` +
    `${lean === undefined ? "" : `, ${changeOrNa(program.figures.billed.totalUsd, lean.figures.billed.totalUsd)} vs lean API`}; ` +
    `${formatKb(program.run.toolResultBytes)} of expense data stayed in the sandbox and ${formatKb(program.run.programOutputBytes)} came back ` +
    `(published: ${PUBLISHED_WORKLOAD.publishedRawKb} KB -> ${PUBLISHED_WORKLOAD.publishedResultKb} KB). Source: ${PUBLISHED_WORKLOAD.source}`
  );
}

function renderPublished(result: BenchmarkResult): string[] {
  const rows = result.published ?? [];
  const program = rows.find((row) => row.mode === "programmatic");
  const grouped = rows.find((row) => row.mode === BASELINE_MODE);
  const lines = rows.map(
    (row) =>
      `${modeInfo(row.mode).label}: ${row.figures.requests} requests, ${formatInteger(row.figures.inputTokens)} input tokens ` +
      `(peak ${formatInteger(row.figures.peakContextTokens)}), ${formatInteger(row.figures.outputTokens)} output, ${formatUsd(row.figures.billed.totalUsd)} billed; ` +
      `tool results ${formatKb(row.run.toolResultBytes)}${row.mode === "programmatic" ? ` inside the sandbox, program output ${formatKb(row.run.programOutputBytes)}` : " into the context"}; ` +
      `${row.run.correct ? "correct" : "WRONG"}.`,
  );
  if (program !== undefined && grouped !== undefined) {
    lines.push(
      `Measured: ${formatKb(grouped.run.toolResultBytes)} of raw expense data (${grouped.run.toolCalls} direct calls) against ` +
        `${formatKb(program.run.programOutputBytes)} of program output, ${formatChange(program.run.programOutputBytes, grouped.run.toolResultBytes)}; ` +
        `published: ${PUBLISHED_WORKLOAD.publishedRawKb} KB -> ${PUBLISHED_WORKLOAD.publishedResultKb} KB ` +
        `(${formatChange(PUBLISHED_WORKLOAD.publishedResultKb, PUBLISHED_WORKLOAD.publishedRawKb)}). ` +
        `The article's token figure (${formatInteger(PUBLISHED_WORKLOAD.publishedResearchTokens.before)} -> ${formatInteger(PUBLISHED_WORKLOAD.publishedResearchTokens.after)}, ` +
        `${formatChange(PUBLISHED_WORKLOAD.publishedResearchTokens.after, PUBLISHED_WORKLOAD.publishedResearchTokens.before)}) is an average over complex research tasks, a different workload, and is not reproduced here.`,
      `Source: ${PUBLISHED_WORKLOAD.source} (team size and expense lines per member as published; the tools are this benchmark's expense tools).`,
    );
  }
  return lines;
}

// ---------------------------------------------------------------------------------------
// The bill, the separated effects, the calibration

const BILL_HEADERS = [
  "Task",
  "Mode",
  "Uncached in",
  "Cache write",
  "Cache read",
  "Output",
  "$ input",
  "$ cache write",
  "$ cache read",
  "$ output",
  "$ total",
];

function billCells(rows: readonly BenchmarkRow[]): string[][] {
  return rows.map((row, index) => {
    const { cache, billed, outputTokens } = row.figures;
    return [
      index === 0 || rows[index - 1]!.task.id !== row.task.id ? row.task.title : "",
      modeInfo(row.mode).label,
      formatInteger(cache.uncached),
      formatInteger(cache.written),
      formatInteger(cache.read),
      formatInteger(outputTokens),
      formatUsd(billed.inputUsd),
      formatUsd(billed.cacheWriteUsd),
      formatUsd(billed.cacheReadUsd),
      formatUsd(billed.outputUsd),
      formatUsd(billed.totalUsd),
    ];
  });
}

const EFFECT_HEADERS = [
  "Task",
  "Direct, all 228 up front",
  "Search alone",
  "Code alone",
  "Search + code",
  "Interaction",
];

function effectCells(result: BenchmarkResult): string[][] {
  return uniqueTasks(result).flatMap((task) => {
    const cost = (mode: ModeId) => rowOf(result.rows, task.id, mode)?.figures.billed.totalUsd;
    const base = cost(EFFECT_MODES.neither);
    const search = cost(EFFECT_MODES.search);
    const code = cost(EFFECT_MODES.code);
    const both = cost(EFFECT_MODES.both);
    if (base === undefined || search === undefined || code === undefined || both === undefined) return [];
    const interaction = (both - base - (search - base) - (code - base)) / base;
    return [
      [
        task.title,
        formatUsd(base),
        formatChange(search, base),
        formatChange(code, base),
        formatChange(both, base),
        `${formatSigned(interaction * 100)} pts`,
      ],
    ];
  });
}

const CALIBRATION_HEADERS = [
  "Request",
  "Bytes",
  "Tool results",
  "Our count (body + hidden)",
  "Published",
  "Ours vs published",
  "Band for Claude",
  "Provider count (live)",
];

function calibrationCells(rows: readonly CalibrationRow[]): string[][] {
  return rows.map((row) => [
    row.name,
    formatInteger(row.bytes),
    `${Math.round(row.toolResultShare * 100)}%`,
    `${formatInteger(row.counted)} (${formatInteger(row.bodyTokens)} + ${row.hiddenTokens})`,
    row.published === undefined ? "none published" : formatInteger(row.published),
    row.relativeError === undefined ? "" : `${formatSigned(row.relativeError * 100)}%`,
    `${formatInteger(row.band[0])}-${formatInteger(row.band[1])}`,
    row.provider === undefined ? "not run" : formatInteger(row.provider),
  ]);
}

function renderConstants(result: BenchmarkResult): string[] {
  const { model } = result;
  return [
    `Model row: ${describePriceRow(model)}; context window ${formatInteger(model.contextWindowTokens)}; minimum cacheable prefix ${formatInteger(model.minCacheableTokens)} tokens.${model.notes === undefined ? "" : ` ${model.notes}`}`,
    `Hidden tool-use system prompt: ${model.toolUseSystemPromptTokens} tokens per request with tools.`,
    "Counted: the JSON of system + tools + messages of each request body; `model`, `max_tokens` and `cache_control` markers are not counted.",
    "Cache model: the adapter marks the last tool, the system prompt and the last block of each of the last two user messages. " +
      "A request reads the longest prefix an earlier request of the run wrote, found at one of its breakpoints or up to 20 blocks before one; " +
      `every breakpoint whose prefix reaches ${formatInteger(model.minCacheableTokens)} tokens is written (5-minute write price); what follows the last breakpoint is uncached. ` +
      "Each run starts cold; all its requests fall inside the 5-minute lifetime.",
    "Output tokens: what the model types — tool names and JSON arguments (programs, the re-sent transcript), the final answer. " +
      "Preamble text and thinking a real model often produces are not modelled.",
    `Est. time: measured tool + sandbox + type-check time, plus ${LATENCY_MODEL.timeToFirstTokenMs} ms per request and ${LATENCY_MODEL.outputTokensPerSecond} output tokens/s (assumed, not measured).`,
    `Grouped baselines: ${Number.isFinite(result.maxCallsPerTurn) ? `at most ${result.maxCallsPerTurn}` : "no limit on"} independent calls per turn; max_tokens ${MAX_OUTPUT_TOKENS} per request.`,
    `Direct results: up to ${DIRECT_RESULT_LIMIT_BYTES / 1024 / 1024} MB enter the context whole (plain direct calling; Switchyard's default 16 KB direct-result budget would refuse or spill them).`,
    "Programs run against the plain API in every mode; the lean API only narrows direct calls.",
    ...(result.rows.some((row) => modeInfo(row.mode).family === "hosted") ? [HOSTED_COUNTING] : []),
  ];
}

/** How the hosted rows are counted (bench/tokens/hosted-mode.ts), said where their figures are read. */
const HOSTED_COUNTING =
  "Hosted program: the provider's container is emulated offline (the task's program, its calls through Switchyard's pipeline). " +
  "The program's calls and their results go to the container, not into Claude's context, so they are left out of the counted input, " +
  "and a cache breakpoint the adapter put on one of them counts on the context block before it; the program's source is output, " +
  "its stdout input on the last request. Every continuation that only feeds the container is counted as a full request over the context " +
  "(an upper bound: the provider may bill it for less); the code execution tool's own prompt and container time are not counted.";

function renderProblems(result: BenchmarkResult): string[] {
  return [...result.rows, ...(result.published ?? [])]
    .filter((row) => row.run.problems.length > 0 || !row.run.correct)
    .map((row) => `${row.task.title} / ${modeInfo(row.mode).label}: ${row.run.problems.join("; ") || "wrong answer"}`);
}

/** The result's tasks, once each, in table order. */
export function uniqueTasks(result: BenchmarkResult): BenchTask[] {
  return [...new Map(result.rows.map((row) => [row.task.id, row.task])).values()];
}

function rowOf(rows: readonly BenchmarkRow[], taskId: string, mode: ModeId): BenchmarkRow | undefined {
  return rows.find((row) => row.task.id === taskId && row.mode === mode);
}

// ---------------------------------------------------------------------------------------
// Formatting

function markdownTable(headers: readonly string[], rows: readonly string[][], right: ReadonlySet<number>): string {
  const align = headers.map((_, index) => (right.has(index) ? "---:" : "---"));
  return [headers, align, ...rows]
    .map((cells) => `| ${cells.map((cell) => cell.replace(/\|/g, "\\|")).join(" | ")} |`)
    .join("\n");
}

function alignedTable(headers: readonly string[], rows: readonly string[][], right: ReadonlySet<number>): string {
  const widths = headers.map((header, index) =>
    Math.max(header.length, ...rows.map((row) => (row[index] ?? "").length)),
  );
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, index) => (right.has(index) ? cell.padStart(widths[index]!) : cell.padEnd(widths[index]!)))
      .join("  ")
      .trimEnd();
  return [line(headers), widths.map((width) => "-".repeat(width)).join("  "), ...rows.map(line)].join("\n");
}

export function formatInteger(value: number): string {
  return Math.round(value).toLocaleString("en-US");
}

/** Dollars with enough digits for small amounts: $13.23, $0.5223, $0.0062. */
export function formatUsd(value: number): string {
  return value >= 1 ? `$${value.toFixed(2)}` : `$${value.toFixed(4)}`;
}

function formatKb(bytes: number): string {
  return `${(bytes / 1024).toFixed(bytes < 10 * 1024 ? 1 : 0)} KB`;
}

function formatSeconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

function formatSigned(value: number): string {
  return `${value >= 0 ? "+" : ""}${value.toFixed(1)}`;
}

function formatBand([low, high]: readonly [number, number]): string {
  return `${formatSigned(low * 100)}% to ${formatSigned(high * 100)}%`;
}

/** Relative change from `baseline` to `value`, e.g. "-95.1%" or "+12.0%". */
export function formatChange(value: number, baseline: number): string {
  if (baseline === 0) return "n/a";
  return `${formatSigned((value / baseline - 1) * 100)}%`;
}

function changeOrNa(value: number, baseline: number | undefined): string {
  return baseline === undefined ? "n/a" : formatChange(value, baseline);
}
