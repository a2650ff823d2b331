// The one thing every framework's code-mode tool does when the model calls it: run the program
// in the session and hand the whole RunResult to the caller, while the framework gets what the
// model should read. Shared so the three integrations behave alike.

import type { RunResult } from "../contract.js";
import type { RunLimits } from "../sandbox/run-program.js";
import type { Switchyard } from "../switchyard.js";

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
}

/** The framework's side of one call of the tool. */
export interface CodeModeCall {
  readonly toolCallId?: string | undefined;
  readonly signal?: AbortSignal | undefined;
}

const PROGRAM_INPUT_MESSAGE = 'run_program takes { "code": string }: the TypeScript program as one string.';

/**
 * Runs the `code` of a run_program input in `yard` and reports the result to `onRun`. Resolves
 * with the RunResult whatever the program does; throws only an Error naming the expected input
 * when `code` is not a string (frameworks pass such an error to the model as the tool's error).
 */
export async function runCodeModeProgram(
  yard: Switchyard,
  input: unknown,
  call: CodeModeCall,
  options: CodeModeToolOptions,
): Promise<RunResult> {
  const code = (input as { code?: unknown } | null | undefined)?.code;
  if (typeof code !== "string") throw new Error(PROGRAM_INPUT_MESSAGE);
  const result = await yard.run(code, {
    ...(call.signal === undefined ? {} : { signal: call.signal }),
    ...(call.toolCallId === undefined ? {} : { toolCallId: call.toolCallId }),
    ...(options.limits === undefined ? {} : { limits: options.limits }),
  });
  try {
    options.onRun?.(result, { toolCallId: call.toolCallId });
  } catch {
    // An observer's failure must not change the model's result.
  }
  return result;
}
