// Which failed runs are worth running again. A transient failure (a server that was down, a run
// that ran out of time, a sandbox process that died) is retried with backoff up to the batch's
// attempts; a permanent one (a type error, a bug in the program, a denied call) would fail the
// same way again and is reported at once.

import type { RunResult } from "../contract.js";

/**
 * Codes retried by default: a run's own code (`TIMEOUT`, `SANDBOX_CRASHED`, `RUN_BUSY`: the
 * job's durable run was still held by a worker BullMQ had given up on, and `JOURNAL_WRITE_FAILED`:
 * Redis refused the journal for a while; the retry replays what it took), or the code of the tool
 * call whose uncaught error ended the run (`SOURCE_UNAVAILABLE`, `RATE_LIMIT_UNAVAILABLE`).
 */
export const DEFAULT_TRANSIENT_CODES: readonly string[] = Object.freeze([
  "SOURCE_UNAVAILABLE",
  "TIMEOUT",
  "SANDBOX_CRASHED",
  "RATE_LIMIT_UNAVAILABLE",
  "RUN_BUSY",
  "JOURNAL_WRITE_FAILED",
]);

/** The code a failed run is judged by: the failing call's code when a call's error ended it. */
export function failureCodeOf(result: RunResult): string | undefined {
  const error = result.error;
  if (error === undefined) return undefined;
  if (error.code === "RUNTIME_ERROR") {
    // The guest names an uncaught tool error as "(CODE from tools.name)" (runtime/guest-runtime.ts).
    const fromCall = /\(([A-Z][A-Z0-9_]*) from tools\.[^)\n]*\)/.exec(error.message.split("\n")[0] ?? "");
    if (fromCall !== null) return fromCall[1];
  }
  return error.code;
}

/** Whether `result` failed in a way another run may not. */
export function isTransientFailure(result: RunResult, transientCodes: readonly string[]): boolean {
  const code = failureCodeOf(result);
  return code !== undefined && transientCodes.includes(code);
}
