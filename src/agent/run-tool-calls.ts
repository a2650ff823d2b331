// Runs the tool calls of one model turn and returns exactly one result per call, in call
// order. Calls start together (the session's scheduler orders what must not overlap); each
// resolves whatever happens (denied, invalid, cancelled), so the turn's results always pair
// up with its calls. A name that was not offered in this mode is answered, never run.

import {
  statusForCode,
  type CallErrorCode,
  type RunResult,
  type ToolDefinedCode,
  type ToolOutcome,
} from "../contract.js";
import { ToolError } from "../errors.js";
import type { Switchyard } from "../switchyard.js";
import type { AgentEventListener } from "./agent-events.js";
import type { AgentToolset } from "./agent-toolset.js";
import { renderRunResultForModel, renderSearchAnswerForModel, renderToolOutcomeForModel } from "../program-tool.js";
import type { ToolCallBlock, ToolResultBlock } from "./transcript.js";

export interface ToolCallRunContext {
  readonly yard: Switchyard;
  readonly toolset: AgentToolset;
  readonly signal: AbortSignal;
  readonly step: number;
  readonly emit: AgentEventListener;
  /** Receives every program run, in completion order. */
  readonly onRun: (result: RunResult) => void;
}

/** Runs `calls` concurrently; resolves with their results in the order of `calls`. Never rejects. */
export function runToolCalls(calls: readonly ToolCallBlock[], context: ToolCallRunContext): Promise<ToolResultBlock[]> {
  return Promise.all(calls.map((call) => runOneCall(call, context)));
}

async function runOneCall(call: ToolCallBlock, context: ToolCallRunContext): Promise<ToolResultBlock> {
  const target = context.toolset.resolve(call.name);
  if (target?.kind === "program") return runProgramCall(call, context);

  const tool = target?.kind === "tool" ? target.tool : undefined;
  const started = Date.now();
  context.emit({ type: "tool-call-start", step: context.step, callId: call.id, name: call.name, tool });
  let outcome: ToolOutcome;
  if (target === undefined) {
    const offered = context.toolset.names.providerNames();
    outcome = failure(
      call,
      "TOOL_NOT_FOUND",
      `No tool named "${call.name.slice(0, 200)}" is offered. Available tools: ${offered.join(", ") || "none"}.`,
    );
  } else if (call.input === undefined) {
    outcome = failure(call, "INPUT_INVALID", "The tool arguments were not valid JSON; send a JSON object.");
  } else if (target.kind === "search") {
    outcome = searchCall(call, context.yard);
  } else {
    outcome = await context.yard.callTool(target.tool, call.input, { callId: call.id, signal: context.signal });
  }
  const isError = outcome.status !== "ok";
  context.emit({
    type: "tool-call-end",
    step: context.step,
    callId: call.id,
    name: call.name,
    tool,
    status: outcome.status,
    isError,
    durationMs: Date.now() - started,
  });
  return { type: "tool_result", callId: call.id, content: renderToolOutcomeForModel(outcome), isError };
}

async function runProgramCall(call: ToolCallBlock, context: ToolCallRunContext): Promise<ToolResultBlock> {
  const code = (call.input as { code?: unknown } | undefined)?.code;
  if (typeof code !== "string") {
    const outcome = failure(
      call,
      "INPUT_INVALID",
      'run_program takes { "code": string }: the TypeScript program as one string.',
    );
    return { type: "tool_result", callId: call.id, content: renderToolOutcomeForModel(outcome), isError: true };
  }
  context.emit({
    type: "run-program-start",
    step: context.step,
    callId: call.id,
    sourceBytes: Buffer.byteLength(code),
  });
  const result = await context.yard.run(code, { signal: context.signal, toolCallId: call.id });
  context.onRun(result);
  context.emit({ type: "run-program-end", step: context.step, callId: call.id, result });
  return { type: "tool_result", callId: call.id, content: renderRunResultForModel(result), isError: !result.ok };
}

function searchCall(call: ToolCallBlock, yard: Switchyard): ToolOutcome {
  const { query, pattern, limit } = (typeof call.input === "object" && call.input !== null ? call.input : {}) as Record<
    string,
    unknown
  >;
  const text = typeof pattern === "string" ? pattern : query;
  if (typeof text !== "string" || text.trim() === "") {
    return failure(call, "INPUT_INVALID", "search_tools needs a query (words) or a pattern (a regular expression).");
  }
  try {
    const answer = yard.searchAndLoad(text, {
      mode: typeof pattern === "string" ? "regex" : "bm25",
      ...(typeof limit === "number" ? { limit } : {}),
    });
    return { callId: call.id, tool: call.name, status: "ok", value: renderSearchAnswerForModel(answer) };
  } catch (error) {
    if (error instanceof ToolError) return failure(call, error.code, error.message);
    throw error;
  }
}

/** An outcome the loop answers itself, before or instead of the pipeline; no details, so it renders as one line. */
function failure(call: ToolCallBlock, code: CallErrorCode | ToolDefinedCode, message: string): ToolOutcome {
  return { callId: call.id, tool: call.name, status: statusForCode(code), error: { code, message } };
}
