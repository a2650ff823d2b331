// What a model reads of a run that ended PAUSED: the run id, why it waits, each pending call
// (position, tool, a short summary of its input, the rule's reason) and the route to resume it.
// Built from the run's error details as the pipeline left them (redacted), never from the journal.

import type { JsonValue, RunResult } from "../contract.js";
import { RESUME_RUN_TOOL } from "./resume-run-tool.js";

/** Characters of a pending call's input shown to the model. */
const MAX_INPUT_SUMMARY_CHARS = 300;
/** Pending calls listed to the model; the count says how many more. */
const MAX_LISTED_PENDING = 20;

/** One call a paused run waits for. */
export interface PausedRequest {
  /** What a decision names. */
  readonly position: number;
  readonly tool: string;
  /** The input as JSON, cut at 300 characters (redacted like the rest of the result). */
  readonly input: string;
  /** The asking rule's reason, if it gave one. */
  readonly reason?: string;
}

/** A paused run as a model can act on it. */
export interface PausedRun {
  readonly runId: string;
  /** Why the run waits, in a sentence. */
  readonly why: string;
  readonly pending: readonly PausedRequest[];
  /** How to resume it: the tool and its arguments. */
  readonly resume: { readonly tool: typeof RESUME_RUN_TOOL; readonly arguments: { readonly runId: string } };
}

/** The paused run of `result`, or undefined when it did not end `PAUSED` (or its details are not a pause's). */
export function pausedRunOf(result: RunResult, why?: string): PausedRun | undefined {
  if (result.error?.code !== "PAUSED") return undefined;
  const details = result.error.details;
  if (!isObject(details) || typeof details["runId"] !== "string" || !Array.isArray(details["pending"]))
    return undefined;
  const runId = details["runId"];
  const pending = details["pending"].flatMap((entry): PausedRequest[] => {
    if (!isObject(entry) || typeof entry["position"] !== "number" || typeof entry["tool"] !== "string") return [];
    const input = JSON.stringify(entry["input"] ?? null);
    return [
      {
        position: entry["position"],
        tool: entry["tool"],
        input: input.length > MAX_INPUT_SUMMARY_CHARS ? `${input.slice(0, MAX_INPUT_SUMMARY_CHARS)}… [cut]` : input,
        ...(typeof entry["reason"] === "string" ? { reason: entry["reason"] } : {}),
      },
    ];
  });
  return {
    runId,
    why: why ?? "an `ask` was not answered in time, or its approver answered later",
    pending,
    resume: { tool: RESUME_RUN_TOOL, arguments: { runId } },
  };
}

/** A paused run as lines a model reads: the run, why, the pending calls, the route to resume. */
export function renderPausedRunForModel(paused: PausedRun): string {
  const lines = [
    `paused: run ${paused.runId} waits for a person's decision on ${paused.pending.length} call(s) (${paused.why}):`,
  ];
  for (const request of paused.pending.slice(0, MAX_LISTED_PENDING)) {
    lines.push(
      `- call ${request.position}: ${request.tool} ${request.input}${request.reason === undefined ? "" : ` (rule: ${request.reason})`}`,
    );
  }
  if (paused.pending.length > MAX_LISTED_PENDING)
    lines.push(`- and ${paused.pending.length - MAX_LISTED_PENDING} more`);
  lines.push(
    `resume: call ${RESUME_RUN_TOOL} with ${JSON.stringify(paused.resume.arguments)} once a person can decide; ` +
      "calls already made are not repeated.",
  );
  return lines.join("\n");
}

function isObject(value: JsonValue | undefined): value is { [key: string]: JsonValue } {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
