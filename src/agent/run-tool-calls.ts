// Runs the tool calls of one model turn and returns exactly one result per call, in call
// order. Calls start together (the session's scheduler orders what must not overlap); each
// resolves whatever happens (denied, invalid, cancelled), so the turn's results always pair
// up with its calls. A name that was not offered in this mode is answered, never run. A call
// a provider's hosted program made takes the same pipeline as `caller: "hosted-program"`.

import {
  statusForCode,
  type CallerKind,
  type CallErrorCode,
  type HostedCaller,
  type RunResult,
  type ToolDefinedCode,
  type ToolOutcome,
} from "../contract.js";
import { answerModelToolCall } from "../model-tools/answer-model-tool-call.js";
import { renderModelToolAnswer, renderToolOutcomeForModel } from "../model-tools/render-for-model.js";
import type { ModelDurableOptions } from "../model-tools/model-durable-runs.js";
import { RESUME_RUN_TOOL } from "../model-tools/resume-run-tool.js";
import { RUN_PROGRAM_TOOL } from "../model-tools/run-program-tool.js";
import { readSearchRequest, SEARCH_TOOLS_TOOL } from "../model-tools/search-tools-tool.js";
import type { Switchyard } from "../switchyard.js";
import type { AgentEventListener } from "./agent-events.js";
import type { AgentToolset } from "./agent-toolset.js";
import type { ToolCallBlock, ToolResultBlock } from "./transcript.js";

export interface ToolCallRunContext {
  readonly yard: Switchyard;
  readonly toolset: AgentToolset;
  readonly signal: AbortSignal;
  readonly step: number;
  readonly emit: AgentEventListener;
  /** Receives every program run, in completion order. */
  readonly onRun: (result: RunResult) => void;
  /** run_program runs durably and resume_run resumes (RunAgentOptions.durable). */
  readonly durable?: ModelDurableOptions | undefined;
}

/** Runs `calls` concurrently; resolves with their results in the order of `calls`. Never rejects. */
export function runToolCalls(calls: readonly ToolCallBlock[], context: ToolCallRunContext): Promise<ToolResultBlock[]> {
  return Promise.all(calls.map((call) => runOneCall(call, context)));
}

async function runOneCall(call: ToolCallBlock, context: ToolCallRunContext): Promise<ToolResultBlock> {
  const target = context.toolset.resolve(call.name);
  const hostedCaller: HostedCaller | undefined =
    call.hostedCaller === undefined
      ? undefined
      : { provider: call.hostedCaller.provider, toolId: call.hostedCaller.toolId };
  if ((target?.kind === "program" || target?.kind === "resume") && hostedCaller === undefined)
    return runProgramCall(call, target.kind === "program" ? RUN_PROGRAM_TOOL : RESUME_RUN_TOOL, context);

  const tool = target?.kind === "tool" ? target.tool : undefined;
  const caller: CallerKind = hostedCaller === undefined ? "direct" : "hosted-program";
  const started = Date.now();
  context.emit({
    type: "tool-call-start",
    step: context.step,
    callId: call.id,
    name: call.name,
    tool,
    caller,
    ...(hostedCaller === undefined ? {} : { hostedCaller }),
  });
  let outcome: ToolOutcome;
  let toolReferences: string[] | undefined;
  if (target === undefined || (hostedCaller !== undefined && target.kind !== "tool")) {
    outcome = notOffered(call, context, hostedCaller !== undefined && target !== undefined);
  } else if (call.input === undefined) {
    outcome = failure(call, "INPUT_INVALID", "The tool arguments were not valid JSON; send a JSON object.");
  } else if (target.kind === "tool-search") {
    const answer = await searchForProvider(call, context);
    outcome = answer.outcome;
    toolReferences = answer.references;
  } else if (target.kind === "tool") {
    outcome = await context.yard.callTool(target.tool, call.input, {
      callId: call.id,
      signal: context.signal,
      ...(hostedCaller === undefined ? {} : { hostedCaller }),
    });
  } else {
    outcome = await searchForProgram(call, context);
  }
  const isError = outcome.status !== "ok";
  context.emit({
    type: "tool-call-end",
    step: context.step,
    callId: call.id,
    name: call.name,
    tool,
    caller,
    ...(hostedCaller === undefined ? {} : { hostedCaller }),
    status: outcome.status,
    isError,
    durationMs: Date.now() - started,
  });
  return {
    type: "tool_result",
    callId: call.id,
    content: renderToolOutcomeForModel(outcome),
    isError,
    ...(toolReferences === undefined ? {} : { toolReferences }),
  };
}

function notOffered(call: ToolCallBlock, context: ToolCallRunContext, onlyForTheModel: boolean): ToolOutcome {
  if (onlyForTheModel) {
    return failure(
      call,
      "TOOL_NOT_FOUND",
      `"${call.name.slice(0, 200)}" is one of Switchyard's own tools for the model; a hosted program cannot call it.`,
    );
  }
  const offered = context.toolset.names.providerNames();
  return failure(
    call,
    "TOOL_NOT_FOUND",
    `No tool named "${call.name.slice(0, 200)}" is offered. Available tools: ${offered.join(", ") || "none"}.`,
  );
}

/** Switchyard's `search_tools`: references and the found tools' declarations, for programs. */
async function searchForProgram(call: ToolCallBlock, context: ToolCallRunContext): Promise<ToolOutcome> {
  const answer = await answerModelToolCall(context.yard, { name: SEARCH_TOOLS_TOOL, input: call.input });
  const rendered = renderModelToolAnswer(answer);
  return rendered.isError
    ? failure(call, answer.tool === "refused" ? answer.error.code : "TOOL_ERROR", rendered.text)
    : { callId: call.id, tool: call.name, status: "ok", value: rendered.text };
}

/**
 * The provider's client-executed tool search, answered by Switchyard's own search: the deferred
 * offered tools it finds, as provider names the adapter sends as references (Anthropic
 * `tool_reference`, OpenAI `tool_search_output`), so the request prefix never changes. The
 * query is the model's, so it goes through the model-facing search (a regex off the event loop).
 */
async function searchForProvider(
  call: ToolCallBlock,
  context: ToolCallRunContext,
): Promise<{ outcome: ToolOutcome; references?: string[] }> {
  const read = readSearchRequest(call.input);
  if (!read.ok) return { outcome: failure(call, read.error.code, read.error.message) };
  const result = await context.yard.discovery.find(read.request.text, read.request.options);
  if (!result.ok) return { outcome: failure(call, result.error.code, result.error.message) };
  const deferred = new Set(
    context.toolset.definitions
      .filter((definition) => definition.deferLoading === true)
      .map((definition) => definition.name),
  );
  const found = result.references.flatMap((reference) => {
    const providerName = context.toolset.names.toProvider(reference.name);
    return providerName !== undefined && deferred.has(providerName)
      ? [{ providerName, summary: reference.summary }]
      : [];
  });
  const text =
    found.length === 0
      ? "No more tools found; try other words or a pattern, or use the tools already loaded."
      : [`Loaded ${found.length} tools:`, ...found.map((tool) => `- ${tool.providerName}: ${tool.summary}`)].join("\n");
  return {
    outcome: { callId: call.id, tool: call.name, status: "ok", value: text },
    references: found.map((tool) => tool.providerName),
  };
}

/** A run_program call, or a resume_run call (its run's events read like a program's). */
async function runProgramCall(
  call: ToolCallBlock,
  name: typeof RUN_PROGRAM_TOOL | typeof RESUME_RUN_TOOL,
  context: ToolCallRunContext,
): Promise<ToolResultBlock> {
  const answer = await answerModelToolCall(context.yard, {
    name,
    input: call.input,
    callId: call.id,
    signal: context.signal,
    durable: context.durable,
    // Only a call whose input held a program starts one (resume_run's is in the run's journal).
    onStart: () => {
      const { code } = call.input as { code?: unknown };
      context.emit({
        type: "run-program-start",
        step: context.step,
        callId: call.id,
        sourceBytes: typeof code === "string" ? Buffer.byteLength(code) : 0,
      });
    },
  });
  if (answer.tool === RUN_PROGRAM_TOOL || answer.tool === RESUME_RUN_TOOL) {
    context.onRun(answer.run);
    context.emit({ type: "run-program-end", step: context.step, callId: call.id, result: answer.run });
  }
  const { text, isError } = renderModelToolAnswer(answer);
  return { type: "tool_result", callId: call.id, content: text, isError };
}

/** An outcome the loop answers itself, before or instead of the pipeline; no details, so it renders as one line. */
function failure(call: ToolCallBlock, code: CallErrorCode | ToolDefinedCode, message: string): ToolOutcome {
  return { callId: call.id, tool: call.name, status: statusForCode(code), error: { code, message } };
}
