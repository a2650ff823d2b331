// The MCP shapes of the gateway's answers: each model tool answer as a CallToolResult (text for
// the model, structuredContent for clients that read it, isError) and each model tool as an
// MCP Tool. Pure functions; the server wires them to requests.

import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";
import type { JsonValue, RunResult, ToolOutcome } from "../contract.js";
import type { ModelToolAnswer } from "../model-tools/answer-model-tool-call.js";
import type { DescribeAnswer } from "../model-tools/describe-tools-tool.js";
import type { ModelToolDefinition } from "../model-tools/model-tool-definition.js";
import {
  type CallsSummary,
  renderDescribeAnswerForModel,
  renderRunResultForModel,
  renderSearchAnswerForModel,
  renderToolOutcomeForModel,
  summarizeCalls,
} from "../model-tools/render-for-model.js";
import type { SearchToolsAnswer } from "../search/discovery.js";
import { type PausedRun, pausedRunOf } from "../model-tools/paused-run.js";

/** A model tool definition as an MCP Tool. */
export function toMcpTool(tool: ModelToolDefinition): Tool {
  return { name: tool.name, description: tool.description, inputSchema: tool.inputSchema as Tool["inputSchema"] };
}

/** What run_program's structuredContent holds: the RunResult, compacted, always an object. */
export interface RunProgramContent {
  readonly ok: boolean;
  readonly programId: string;
  readonly output: JsonValue;
  readonly error?: {
    readonly code: string;
    readonly message: string;
    readonly line?: number;
    readonly column?: number;
  };
  readonly logs: readonly string[];
  readonly warnings: readonly { readonly line: number; readonly message: string }[];
  readonly calls: CallsSummary;
  readonly stats: RunResult["stats"];
  readonly catalogVersion: number;
  /** Set when the run ended `PAUSED`: its id, why, the pending calls and the resume_run arguments. */
  readonly paused?: PausedRun;
}

/**
 * A RunResult as a CallToolResult: compact text for the model (with the failing source line
 * quoted), the structured result, and `isError` when the run failed. A paused run carries `paused`
 * (`pausedWhy` says why, when the gateway knows).
 */
export function runResultToToolResult(result: RunResult, source: string, pausedWhy?: string): CallToolResult {
  const error = result.error;
  const paused = pausedRunOf(result, pausedWhy);
  const content: RunProgramContent = {
    ok: result.ok,
    programId: result.programId,
    output: result.output,
    ...(error === undefined
      ? {}
      : {
          error: {
            code: error.code,
            message: error.message,
            ...(error.line === undefined ? {} : { line: error.line }),
            ...(error.column === undefined ? {} : { column: error.column }),
          },
        }),
    logs: result.logs,
    warnings: result.warnings.map((warning) => ({ line: warning.line, message: warning.message })),
    calls: summarizeCalls(result),
    stats: result.stats,
    catalogVersion: result.catalogVersion,
    ...(paused === undefined ? {} : { paused }),
  };
  let text = renderRunResultForModel(result, pausedWhy);
  const quoted = error?.line === undefined ? undefined : source.split("\n")[error.line - 1]?.trim().slice(0, 200);
  // Type errors already quote their lines; other errors get the line they point at.
  if (quoted !== undefined && quoted !== "" && !error!.message.includes(quoted))
    text += `\nline ${error!.line}: ${quoted}`;
  return {
    content: [{ type: "text", text }],
    structuredContent: content as unknown as Record<string, unknown>,
    isError: !result.ok,
  };
}

/** A search_tools answer: references, then the found tools' declarations. */
export function searchAnswerToToolResult(answer: SearchToolsAnswer, catalogVersion: number): CallToolResult {
  return {
    content: [{ type: "text", text: renderSearchAnswerForModel(answer) }],
    structuredContent: {
      references: answer.references.map((reference) => ({ ...reference })),
      declarations: answer.declarations,
      catalogVersion,
    },
  };
}

/** A describe_tools answer; `isError` only when no name was known. */
export function describeAnswerToToolResult(answer: DescribeAnswer, catalogVersion: number): CallToolResult {
  return {
    content: [{ type: "text", text: renderDescribeAnswerForModel(answer) }],
    structuredContent: {
      declarations: answer.declarations.trim(),
      found: [...answer.found],
      unknown: answer.unknown.map((unknown) => ({ name: unknown.name, closest: [...unknown.closest] })),
      catalogVersion,
    },
    isError: answer.found.length === 0,
  };
}

/** A direct call's outcome as a CallToolResult; the value is wrapped so the content is an object. */
export function outcomeToToolResult(outcome: ToolOutcome, catalogVersion: number): CallToolResult {
  const structured =
    outcome.status === "ok"
      ? { callId: outcome.callId, tool: outcome.tool, status: outcome.status, value: outcome.value, catalogVersion }
      : {
          callId: outcome.callId,
          tool: outcome.tool,
          status: outcome.status,
          error: { ...outcome.error },
          catalogVersion,
        };
  return {
    content: [{ type: "text", text: renderToolOutcomeForModel(outcome) }],
    structuredContent: structured,
    isError: outcome.status !== "ok",
  };
}

/** A failure as a tool error whose text is `error CODE: message`, the form models read elsewhere. */
export function errorResult(code: string, message: string): CallToolResult {
  return { content: [{ type: "text", text: `error ${code}: ${message}` }], isError: true };
}

/** Any model tool answer as the CallToolResult the gateway sends (`pausedWhy`: see runResultToToolResult). */
export function modelToolAnswerToToolResult(
  answer: ModelToolAnswer,
  catalogVersion: number,
  pausedWhy?: string,
): CallToolResult {
  switch (answer.tool) {
    case "run_program":
    case "resume_run":
      return runResultToToolResult(answer.run, answer.source, pausedWhy);
    case "search_tools":
      return searchAnswerToToolResult(answer.search, catalogVersion);
    case "describe_tools":
      return describeAnswerToToolResult(answer.describe, catalogVersion);
    case "call_tool":
      return outcomeToToolResult(answer.outcome, catalogVersion);
    case "refused":
      return errorResult(answer.error.code, answer.error.message);
  }
}
