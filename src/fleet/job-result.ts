// The one result a fleet job writes for its input, made from its run's RunResult: by the worker
// that ran the job, and by `switchyard runs resume --redis` for a job whose run paused and was
// resumed from the command line (record-resumed-job.ts).

import type { JsonValue, RunResult } from "../contract.js";
import { summarizeCalls } from "../model-tools/render-for-model.js";
import type { BatchResult } from "./batch-store.js";

/** Where and when a job's run ran, beside its RunResult. */
export interface JobRun {
  readonly key: string;
  readonly input: JsonValue;
  /** Which start of the job this is (1 for the first). */
  readonly attempt: number;
  /** Epoch ms: when the job was enqueued (its BullMQ timestamp) and when this run started. */
  readonly enqueuedAt: number;
  readonly startedAt: number;
  /** The worker's name, or what else wrote the result. */
  readonly worker: string;
}

/** The batch result of a job's run: the program's output or error, its calls and its timing. */
export function jobResultOf(run: JobRun, result: RunResult): BatchResult {
  return {
    key: run.key,
    input: run.input,
    ok: result.ok,
    output: result.output,
    ...(result.error === undefined
      ? {}
      : {
          error: {
            code: result.error.code,
            message: result.error.message,
            ...(result.error.line === undefined ? {} : { line: result.error.line }),
          },
        }),
    calls: summarizeCalls(result),
    attempt: run.attempt,
    wallMs: result.stats.wallMs,
    enqueuedAt: run.enqueuedAt,
    startedAt: run.startedAt,
    finishedAt: Date.now(),
    worker: run.worker,
  };
}
