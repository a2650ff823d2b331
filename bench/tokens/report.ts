// Renders a benchmark result as the side-by-side table (markdown for bench/results/tokens.md,
// aligned text for the terminal), with the published-figure check, the constants every
// figure depends on, and any run that did not go cleanly. Pure string building.

import type { PublishedFigureCheck } from "./count-request.js";
import { BASELINE_MODE, DIRECT_RESULT_LIMIT_BYTES, MODES } from "./modes.js";
import type { BenchmarkResult, BenchmarkRow } from "./run-benchmark.js";
import type { BenchTask } from "./task.js";
import { LATENCY_MODEL, MAX_OUTPUT_TOKENS } from "./settings.js";

const HEADERS = [
  "Task",
  "Mode",
  "Req",
  "Input tok",
  "Peak ctx",
  "Output tok",
  "Est. time",
  "Cost",
  "Cost, cached",
  "Δ input",
  "Δ cost cached",
  "Answer",
];
const RIGHT_ALIGNED = new Set([2, 3, 4, 5, 6, 7, 8, 9, 10]);

/** The table rows as cells, one per task and mode. */
export function tableCells(result: BenchmarkResult): string[][] {
  return result.rows.map((row, index) => {
    const first = index === 0 || result.rows[index - 1]!.task.id !== row.task.id;
    const figures = row.figures;
    return [
      first ? row.task.title : "",
      modeLabel(row),
      String(figures.requests),
      formatInteger(figures.inputTokens),
      `${formatInteger(figures.peakContextTokens)}${figures.overContextWindow ? " (over window)" : ""}`,
      formatInteger(figures.outputTokens),
      formatSeconds(figures.estimatedEndToEndMs),
      formatUsd(figures.costUsd),
      formatUsd(figures.cachedCostUsd),
      row.mode === BASELINE_MODE || row.baseline === undefined
        ? "baseline"
        : formatChange(figures.inputTokens, row.baseline.inputTokens),
      row.mode === BASELINE_MODE || row.baseline === undefined
        ? "baseline"
        : formatChange(figures.cachedCostUsd, row.baseline.cachedCostUsd),
      row.run.correct ? "correct" : "WRONG",
    ];
  });
}

function modeLabel(row: BenchmarkRow): string {
  return MODES.find((mode) => mode.id === row.mode)?.label ?? row.mode;
}

/** The whole report as markdown. */
export function renderMarkdown(result: BenchmarkResult): string {
  const { profile } = result;
  const lines: string[] = [];
  lines.push("# Token savings: direct vs programmatic tool calling", "");
  lines.push(
    `Offline run: scripted model turns through the real agent loop (\`runAgent\`), real tools, real sandbox and type check, ` +
      `real request bodies (\`buildAnthropicRequest\`). Tokens: ${result.tokenizer} on the JSON of each body (system + tools + messages) ` +
      `+ ${profile.toolUseSystemPromptTokens} hidden tool-use system prompt tokens per request. **${profile.label} figures are approximations** ` +
      "(no exact offline Claude tokenizer). Δ columns compare with *direct, grouped* (independent calls in one turn), the fair baseline; " +
      "negative is fewer.",
    "",
  );
  lines.push(markdownTable(HEADERS, tableCells(result)), "");
  lines.push("## Check of the counting against a published figure", "");
  lines.push(...renderChecks(result.checks).map((line) => `- ${line}`), "");
  lines.push("## Constants", "");
  lines.push(...renderConstants(result).map((line) => `- ${line}`), "");
  lines.push("## Modes", "");
  for (const mode of MODES) lines.push(`- **${mode.label}**: ${mode.description}`);
  lines.push("", "## Tasks", "");
  for (const task of uniqueTasks(result))
    lines.push(`- **${task.title}**${task.control ? " (control)" : ""}: ${task.note}. _${task.question}_`);
  const problems = renderProblems(result);
  lines.push(
    "",
    "## Runs with remarks",
    "",
    ...(problems.length === 0
      ? ["None: every run completed and every answer matched the truth."]
      : problems.map((line) => `- ${line}`)),
  );
  lines.push("", `Run time: ${(result.durationMs / 1000).toFixed(1)} s.`, "");
  return lines.join("\n");
}

/** The report for the terminal: the table aligned, then the check and constants. */
export function renderText(result: BenchmarkResult): string {
  const lines: string[] = [];
  lines.push(
    `Token benchmark (offline; ${result.tokenizer}; ${result.profile.label} figures approximate; Δ vs direct, grouped)`,
    "",
  );
  lines.push(alignedTable(HEADERS, tableCells(result)), "");
  lines.push("Published-figure check:", ...renderChecks(result.checks).map((line) => `  ${line}`), "");
  lines.push("Constants:", ...renderConstants(result).map((line) => `  ${line}`));
  const problems = renderProblems(result);
  if (problems.length > 0) lines.push("", "Runs with remarks:", ...problems.map((line) => `  ${line}`));
  lines.push("", `Run time: ${(result.durationMs / 1000).toFixed(1)} s.`);
  return lines.join("\n");
}

/** One line per published-figure check. */
export function renderChecks(checks: readonly PublishedFigureCheck[]): string[] {
  return checks.map((check) => {
    const verdict = Number.isFinite(check.tolerance)
      ? `${check.withinTolerance ? "PASS" : "FAIL"} (tolerance ±${(check.tolerance * 100).toFixed(0)}%)`
      : "informational: JSON keys and brackets dominate a tiny request";
    return (
      `${check.name}: counted ${check.counted} (${check.bodyTokens} body + ${check.hiddenTokens} tool-use system prompt, ${check.tokenizer}) ` +
      `vs published ${check.published} input_tokens, ${formatSigned(check.relativeError * 100)}% → ${verdict}. Source: ${check.source}`
    );
  });
}

function renderConstants(result: BenchmarkResult): string[] {
  const { profile } = result;
  return [
    `Model profile: ${profile.label} (${profile.id}): $${profile.inputPerMTok} / $${profile.outputPerMTok} per MTok input / output; ` +
      `cache write ${profile.cacheWriteMultiplier}x, cache read ${profile.cacheReadMultiplier}x; minimum cacheable prefix ${profile.minCacheableTokens} tokens; ` +
      `context window ${formatInteger(profile.contextWindowTokens)}.`,
    `Hidden tool-use system prompt: ${profile.toolUseSystemPromptTokens} tokens per request with tools (Anthropic's table for Claude 4.x, tool_choice auto).`,
    "Counted: the JSON of system + tools + messages of each request body; `model`, `max_tokens` and `cache_control` markers are not counted.",
    "Caching: a request's cacheable prefix is the hidden prompt, tools, system and every message before its latest turn; written (1.25x) the first time, " +
      "read (0.1x) by later requests; prefixes under the minimum are not cached; the latest turn is always uncached.",
    "Output tokens: what the model types — tool names and JSON arguments (programs, the re-sent transcript), the final answer. " +
      "Preamble text a real model often writes before a call is not modelled.",
    `Est. time: measured tool + sandbox + type-check time, plus ${LATENCY_MODEL.timeToFirstTokenMs} ms per request and ${LATENCY_MODEL.outputTokensPerSecond} output tokens/s (assumed, not measured).`,
    `Grouped baseline: ${Number.isFinite(result.maxCallsPerTurn) ? `at most ${result.maxCallsPerTurn}` : "no limit on"} independent calls per turn; max_tokens ${MAX_OUTPUT_TOKENS} per request.`,
    `Direct results: up to ${DIRECT_RESULT_LIMIT_BYTES / 1024 / 1024} MB enter the context whole (plain direct calling; Switchyard's default 16 KB direct-result budget would refuse or spill them).`,
  ];
}

function renderProblems(result: BenchmarkResult): string[] {
  return result.rows
    .filter((row) => row.run.problems.length > 0 || !row.run.correct)
    .map((row) => `${row.task.title} / ${modeLabel(row)}: ${row.run.problems.join("; ") || "wrong answer"}`);
}

/** The result's tasks, once each, in table order. */
export function uniqueTasks(result: BenchmarkResult): BenchTask[] {
  return [...new Map(result.rows.map((row) => [row.task.id, row.task])).values()];
}

// ---------------------------------------------------------------------------------------
// Formatting

function markdownTable(headers: readonly string[], rows: readonly string[][]): string {
  const align = headers.map((_, index) => (RIGHT_ALIGNED.has(index) ? "---:" : "---"));
  return [headers, align, ...rows]
    .map((cells) => `| ${cells.map((cell) => cell.replace(/\|/g, "\\|")).join(" | ")} |`)
    .join("\n");
}

function alignedTable(headers: readonly string[], rows: readonly string[][]): string {
  const widths = headers.map((header, index) =>
    Math.max(header.length, ...rows.map((row) => (row[index] ?? "").length)),
  );
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, index) => (RIGHT_ALIGNED.has(index) ? cell.padStart(widths[index]!) : cell.padEnd(widths[index]!)))
      .join("  ")
      .trimEnd();
  return [line(headers), widths.map((width) => "-".repeat(width)).join("  "), ...rows.map(line)].join("\n");
}

export function formatInteger(value: number): string {
  return Math.round(value).toLocaleString("en-US");
}

function formatUsd(value: number): string {
  return value >= 1 ? `$${value.toFixed(2)}` : `$${value.toFixed(4)}`;
}

function formatSeconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

function formatSigned(value: number): string {
  return `${value >= 0 ? "+" : ""}${value.toFixed(1)}`;
}

/** Relative change from `baseline` to `value`, e.g. "-95.1%" or "+12.0%". */
export function formatChange(value: number, baseline: number): string {
  if (baseline === 0) return "n/a";
  return `${formatSigned((value / baseline - 1) * 100)}%`;
}
