// `tools.fleet.job()`: what a program run by a fleet worker can learn about its job, above all
// its attempt number. In a durable job (the default) its answer is journaled like any call's, so
// a replay gets the attempt of the run that first asked; a non-durable job is delivered at least
// once, and a program reads `attempt` to know whether an earlier run may have made its calls.
// Registered only in worker sessions.

import { ToolError } from "../errors.js";
import { defineTool, type ToolDefinition } from "../registry/define-tool.js";

/** What `tools.fleet.job()` returns. */
export interface JobInfo {
  readonly batchId: string;
  /** The input's idempotency key: the same across every run of this input. */
  readonly key: string;
  /**
   * 1 for the job's first start; a retry or a run after a lost worker counts up. In a durable job,
   * the attempt when this call was first answered (a replay answers it from the journal).
   */
  readonly attempt: number;
  /** Runs the batch allows per input for transient failures. */
  readonly attempts: number;
}

/** The tool and the table of the runs it answers for, by program id. */
export function createJobInfoTool(): { readonly tool: ToolDefinition; readonly runs: Map<string, JobInfo> } {
  const runs = new Map<string, JobInfo>();
  const tool = defineTool({
    name: "fleet.job",
    description:
      "This run's job in its batch: batchId, the input's idempotency key, attempt (1 for the first run; " +
      "higher when the input runs again after a failure or a lost worker, so its earlier calls may have " +
      "happened) and attempts allowed.",
    effect: "read",
    callers: ["program"],
    inputSchema: { type: "object", properties: {}, additionalProperties: false },
    outputSchema: {
      type: "object",
      properties: {
        batchId: { type: "string" },
        key: { type: "string" },
        attempt: { type: "integer", minimum: 1 },
        attempts: { type: "integer", minimum: 1 },
      },
      required: ["batchId", "key", "attempt", "attempts"],
      additionalProperties: false,
    },
    execute: (_input, context) => {
      const info = context.programId === undefined ? undefined : runs.get(context.programId);
      if (info === undefined) throw new ToolError("This run is not a fleet job.", { code: "NOT_A_JOB" });
      return info;
    },
  });
  return { tool, runs };
}
