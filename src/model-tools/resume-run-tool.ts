// The `resume_run` tool: resumes a durable run that paused because an `ask` waited for a person.
// Offered next to run_program wherever runs are durable (gateway, agent loop, framework tools);
// its input names the run the paused result named and, optionally, decisions on its pending calls.

import type { CallError, JsonSchema } from "../contract.js";
import type { ModelToolDefinition } from "./model-tool-definition.js";
import { readModelToolInput } from "./read-model-tool-input.js";

export const RESUME_RUN_TOOL = "resume_run";

/** Most decisions one resume_run call may carry. */
export const MAX_RESUME_DECISIONS = 100;

/** A decision on one pending call, as resume_run takes it. */
export interface ResumeDecisionInput {
  readonly position: number;
  readonly approved: boolean;
  readonly reason?: string;
}

/** What resume_run takes: the paused run's id and, optionally, decisions on its pending calls. */
export interface ResumeRunInput {
  readonly runId: string;
  readonly decisions?: readonly ResumeDecisionInput[];
}

const RESUME_RUN_INPUT_SCHEMA = {
  type: "object",
  properties: {
    runId: { type: "string", maxLength: 200, description: "The id of the paused run, as its PAUSED result gave it." },
    decisions: {
      type: "array",
      maxItems: MAX_RESUME_DECISIONS,
      description:
        "Optional decisions on the pending calls, by the position the PAUSED result listed. Leave out to let a person decide (the client is asked where it can be).",
      items: {
        type: "object",
        properties: {
          position: { type: "integer", minimum: 1 },
          approved: { type: "boolean" },
          reason: { type: "string", maxLength: 1000, description: "Shown to the program with a denial." },
        },
        required: ["position", "approved"],
        additionalProperties: false,
      },
    },
  },
  required: ["runId"],
  additionalProperties: false,
} as const satisfies JsonSchema;

/** The `resume_run` tool as a model or MCP client sees it. */
export function describeResumeRunTool(): ModelToolDefinition {
  return {
    name: RESUME_RUN_TOOL,
    description:
      "Resume a program run that ended PAUSED because a call waits for a person's decision. The program runs again from its journal: calls already made are not repeated; the pending calls run when approved, and a denied call throws PERMISSION_DENIED in the program. Answers like run_program (it may pause again).",
    inputSchema: RESUME_RUN_INPUT_SCHEMA,
  };
}

/** Reads a resume_run input, or `INPUT_INVALID` naming every failing path. */
export function readResumeRunRequest(
  input: unknown,
): { readonly ok: true; readonly value: ResumeRunInput } | { readonly ok: false; readonly error: CallError } {
  return readModelToolInput<ResumeRunInput>(
    RESUME_RUN_TOOL,
    RESUME_RUN_INPUT_SCHEMA,
    input,
    "{ runId: string, decisions?: { position: integer, approved: boolean, reason?: string }[] }",
  );
}
