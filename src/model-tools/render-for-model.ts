// How Switchyard's answers read in a model's context: a run's result, a direct call's outcome,
// a search. Compact on purpose (this is what the model pays for) and the same on every
// surface: the agent loop, the gateway and the framework tools all render through here.

import type { JsonValue, RunResult, ToolOutcome } from "../contract.js";
import type { SearchToolsAnswer } from "../search/discovery.js";
import type { ModelToolAnswer } from "./answer-model-tool-call.js";
import type { DescribeAnswer } from "./describe-tools-tool.js";
import { pausedRunOf, renderPausedRunForModel } from "./paused-run.js";

const MAX_RENDERED_OUTPUT_CHARS = 64 * 1024;

/** A run's calls counted by status and code ("ok", "error TOOL_ERROR", ...), in order of first appearance. */
export function countCallsByStatus(result: RunResult): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const call of result.calls) {
    const key = call.code === undefined ? call.status : `${call.status} ${call.code}`;
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return counts;
}

/** A run's calls in brief: the total, the counts of countCallsByStatus, and the first failed calls. */
export interface CallsSummary {
  readonly total: number;
  /** Counts by status, with the code for failures: `{ "ok": 3, "cancelled CANCELLED": 1 }`. */
  readonly byStatus: Readonly<Record<string, number>>;
  /** The first failed calls (id, tool, status, code). */
  readonly failed: readonly {
    readonly id: string;
    readonly tool: string;
    readonly status: string;
    readonly code?: string;
  }[];
}

const MAX_LISTED_FAILURES = 20;

/** Summarizes a run's calls, listing at most 20 failed ones. */
export function summarizeCalls(result: RunResult): CallsSummary {
  const failed = result.calls
    .filter((call) => call.status !== "ok")
    .slice(0, MAX_LISTED_FAILURES)
    .map((call) => ({
      id: call.id,
      tool: call.tool,
      status: call.status,
      ...(call.code === undefined ? {} : { code: call.code }),
    }));
  return { total: result.stats.toolCalls, byStatus: countCallsByStatus(result), failed };
}

/**
 * A RunResult rendered for a model: the output as JSON, bounded logs, the error with its
 * source line, warnings, and one line summarizing the calls. Compact on purpose: this is
 * what enters the context. A `PAUSED` run reads as its pending calls and the route to resume it
 * (`pausedWhy`, when the surface knows why it paused).
 */
export function renderRunResultForModel(result: RunResult, pausedWhy?: string): string {
  const lines: string[] = [];
  const paused = pausedRunOf(result, pausedWhy);
  if (paused !== undefined) {
    lines.push(renderPausedRunForModel(paused));
  } else if (result.ok) {
    const output = JSON.stringify(result.output);
    lines.push(
      `output: ${output.length > MAX_RENDERED_OUTPUT_CHARS ? `${output.slice(0, MAX_RENDERED_OUTPUT_CHARS)}… [cut]` : output}`,
    );
  } else if (result.error !== undefined) {
    const { line, column, code } = result.error;
    // A syntax error's column matters (one long line); elsewhere the line is enough.
    const where =
      line === undefined
        ? ""
        : ` at line ${line}${code === "SYNTAX_ERROR" && column !== undefined ? `, column ${column}` : ""}`;
    lines.push(`error ${result.error.code}${where}: ${result.error.message}`);
  }
  for (const warning of result.warnings) lines.push(`warning line ${warning.line}: ${warning.message}`);
  if (result.logs.length > 0) lines.push("logs:", ...result.logs);
  const summary = Object.entries(countCallsByStatus(result))
    .map(([key, count]) => `${count} ${key}`)
    .join(", ");
  lines.push(
    `calls: ${result.stats.toolCalls}${summary === "" ? "" : ` (${summary})`}, ${Math.round(result.stats.wallMs)} ms`,
  );
  return lines.join("\n");
}

const MAX_DETAILS_CHARS = 4_000;

/**
 * A direct call's outcome as the model reads it: the value as JSON (a string value as is),
 * or `error CODE: message` with the details as JSON on the next line, cut at 4 000 characters.
 */
export function renderToolOutcomeForModel(outcome: ToolOutcome): string {
  if (outcome.status === "ok") {
    return typeof outcome.value === "string" ? outcome.value : (JSON.stringify(outcome.value as JsonValue) ?? "null");
  }
  const lines = [`error ${outcome.error.code}: ${outcome.error.message}`];
  if (outcome.error.details !== undefined) {
    const details = JSON.stringify(outcome.error.details);
    lines.push(
      `details: ${details.length > MAX_DETAILS_CHARS ? `${details.slice(0, MAX_DETAILS_CHARS)}… [cut]` : details}`,
    );
  }
  return lines.join("\n");
}

/** A search_tools answer as a model reads it: one line per tool found, then their declarations. */
export function renderSearchAnswerForModel(answer: SearchToolsAnswer): string {
  const lines =
    answer.references.length === 0
      ? ["No tools found; try other words or a pattern."]
      : [`Found ${answer.references.length} tools:`];
  for (const reference of answer.references) lines.push(`- ${reference.name}: ${reference.summary}`);
  if (answer.declarations.trim() !== "") lines.push("", "```ts", answer.declarations.trim(), "```");
  return lines.join("\n");
}

/** A describe_tools answer as a model reads it: the declarations found, then one line per unknown name. */
export function renderDescribeAnswerForModel(answer: DescribeAnswer): string {
  const declarations = answer.declarations.trim();
  const lines: string[] = [];
  if (declarations !== "") lines.push("```ts", declarations, "```");
  for (const unknown of answer.unknown) {
    const hint =
      unknown.closest.length > 0 ? ` Did you mean ${unknown.closest.join(", ")}?` : " Find names with search_tools.";
    lines.push(`Unknown tool "${unknown.name}".${hint}`);
  }
  return lines.join("\n");
}

/**
 * Any model tool answer as the text a model reads and whether it is an error: a run that
 * failed, a direct call that failed, a describe that found nothing, or a refusal
 * (`error CODE: message`, the form models read everywhere).
 */
export function renderModelToolAnswer(answer: ModelToolAnswer): { readonly text: string; readonly isError: boolean } {
  switch (answer.tool) {
    case "run_program":
    case "resume_run":
      return { text: renderRunResultForModel(answer.run), isError: !answer.run.ok };
    case "search_tools":
      return { text: renderSearchAnswerForModel(answer.search), isError: false };
    case "describe_tools":
      return { text: renderDescribeAnswerForModel(answer.describe), isError: answer.describe.found.length === 0 };
    case "call_tool":
      return { text: renderToolOutcomeForModel(answer.outcome), isError: answer.outcome.status !== "ok" };
    case "refused":
      return { text: `error ${answer.error.code}: ${answer.error.message}`, isError: true };
  }
}
