// The one thing every framework's code-mode tool does when the model calls it: run the program
// (or resume a paused durable run) in the session and hand the whole RunResult to the caller,
// while the framework gets what the model should read. Shared so the three integrations behave alike.

import type { RunResult } from "../contract.js";
import { SwitchyardError } from "../errors.js";
import { answerModelToolCall, type ModelToolHost } from "../model-tools/answer-model-tool-call.js";
import type { ModelToolDefinition } from "../model-tools/model-tool-definition.js";
import { renderModelToolAnswer } from "../model-tools/render-for-model.js";
import { type ModelDurableOptions, resolveModelDurable } from "../model-tools/model-durable-runs.js";
import { describeResumeRunTool, RESUME_RUN_TOOL } from "../model-tools/resume-run-tool.js";
import { RUN_PROGRAM_TOOL } from "../model-tools/run-program-tool.js";
import type { RunLimits } from "../sandbox/run-program.js";

/** What a framework's code-mode tool needs of a session: the run_program tool, and runs (a Switchyard fits). */
export interface CodeModeHost extends ModelToolHost {
  programTool(): ModelToolDefinition;
}

/** Options of a framework's code-mode (run_program) tool. */
export interface CodeModeToolOptions {
  /**
   * Receives every run's whole RunResult (output, logs, error, every call's record, stats) with
   * the framework's id of the tool call. Called before the model sees the result; an error it
   * throws is ignored, so a broken observer cannot change what the model is told.
   */
  readonly onRun?: (result: RunResult, call: { readonly toolCallId: string | undefined }) => void;
  /** Limits of each run; default the session's. */
  readonly limits?: Partial<RunLimits>;
  /**
   * Run every program durably (`true` for the defaults) under an id the tool mints: an `ask`
   * nobody answers in time ends the run PAUSED, and the model reads its id, pending calls and
   * the route (`resume_run`, from `createResumeRunTool` with the same options). Default off.
   */
  readonly durable?: ModelDurableOptions | boolean;
}

/** The framework's side of one call of the tool. */
export interface CodeModeCall {
  readonly toolCallId?: string | undefined;
  readonly signal?: AbortSignal | undefined;
}

/**
 * A framework's run_program answer before the framework wraps it, its durable options resolved
 * once, when the tool is made (throws SwitchyardError OPTION_INVALID for a prefix that is not
 * one). It runs the `code` of a run_program input in `yard` (through `answerModelToolCall`, as
 * every surface does) and reports the result to `onRun`; it resolves with the RunResult whatever
 * the program does, and throws an Error with the model-facing refusal (`error INPUT_INVALID: …`)
 * when the input is not `{ code: string }` (frameworks pass such an error to the model as the
 * tool's error).
 */
export function createCodeModeRunner(
  yard: CodeModeHost,
  options: CodeModeToolOptions,
): (input: unknown, call: CodeModeCall) => Promise<RunResult> {
  const durable = resolveModelDurable(options.durable);
  return (input, call) => answerForFramework(yard, RUN_PROGRAM_TOOL, input, call, options, durable);
}

async function answerForFramework(
  yard: CodeModeHost,
  name: typeof RUN_PROGRAM_TOOL | typeof RESUME_RUN_TOOL,
  input: unknown,
  call: CodeModeCall,
  options: CodeModeToolOptions,
  durable: ModelDurableOptions | undefined,
): Promise<RunResult> {
  const answer = await answerModelToolCall(yard, {
    name,
    input,
    offered: [name],
    ...(call.toolCallId === undefined ? {} : { callId: call.toolCallId }),
    ...(call.signal === undefined ? {} : { signal: call.signal }),
    ...(options.limits === undefined ? {} : { limits: options.limits }),
    ...(durable === undefined ? {} : { durable }),
  });
  if (answer.tool !== RUN_PROGRAM_TOOL && answer.tool !== RESUME_RUN_TOOL)
    throw new Error(renderModelToolAnswer(answer).text);
  try {
    options.onRun?.(answer.run, { toolCallId: call.toolCallId });
  } catch {
    // An observer's failure must not change the model's result.
  }
  return answer.run;
}

/** A framework's resume_run tool before the framework wraps it: its definition and its answer. */
export interface CodeModeResumeTool {
  readonly definition: ModelToolDefinition;
  /**
   * Resumes the paused durable run a resume_run input names (`{ runId, decisions? }`), through
   * `answerModelToolCall` like a run, and reports it to `onRun`. Throws an Error with the refusal
   * (`error RUN_NOT_FOUND: …`, `error PERMISSION_DENIED: …`) when nothing was resumed.
   */
  readonly resume: (input: unknown, call: CodeModeCall) => Promise<RunResult>;
}

/**
 * The framework-neutral half of `createResumeRunTool`, its durable options resolved once, when the
 * tool is made: throws SwitchyardError OPTION_INVALID when they are off (a resume tool without
 * durable runs resumes nothing) or name a prefix that is not one.
 */
export function createCodeModeResumeTool(yard: CodeModeHost, options: CodeModeToolOptions): CodeModeResumeTool {
  const durable = resolveModelDurable(options.durable);
  if (durable === undefined)
    throw new SwitchyardError(
      "OPTION_INVALID",
      "createResumeRunTool needs `durable` (the same options as createCodeModeTool's): without durable runs there is nothing to resume.",
    );
  return {
    definition: describeResumeRunTool(),
    resume: (input, call) => answerForFramework(yard, RESUME_RUN_TOOL, input, call, options, durable),
  };
}
