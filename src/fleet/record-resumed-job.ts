// A fleet job whose run paused (an `ask` no worker can answer) ends with a `PAUSED` result; a
// person decides and resumes the run later with `switchyard runs resume --redis`. This writes the
// resumed run's result over the `PAUSED` one, so the batch's results tell how the job ended.

import type { Redis } from "ioredis";
import type { RunResult } from "../contract.js";
import { BatchStore } from "./batch-store.js";
import { jobResultOf } from "./job-result.js";

/** What became of a resumed run's result in its batch; `not-a-job` for a run no paused job of the queue left. */
export type ResumedJobRecord =
  | { readonly outcome: "replaced" | "kept" | "absent"; readonly batchId: string; readonly key: string }
  | { readonly outcome: "not-a-job" };

/** Names the resumed runs' results as their writer, in place of a worker's name. */
export const RESUMED_BY = "switchyard runs resume";

/**
 * Replaces the `PAUSED` result that the job of durable run `runId` wrote (the worker remembered
 * the run's batch and input, see BatchStore.markPausedRun) with `result`, the resumed run's.
 * A result written since the pause (a resubmit's) stays. Call it once the resumed run has ended
 * other than `PAUSED`.
 */
export async function recordResumedJob(
  redis: Redis,
  queueName: string,
  runId: string,
  result: RunResult,
  startedAt: number,
): Promise<ResumedJobRecord> {
  const store = new BatchStore(redis, queueName);
  const paused = await store.pausedRun(runId);
  if (paused === undefined) return { outcome: "not-a-job" };
  const { batchId, key } = paused;
  const written = jobResultOf({ ...paused, startedAt, worker: RESUMED_BY }, result);
  const outcome = await store.replacePausedResult(batchId, written);
  await store.forgetPausedRun(runId);
  return { outcome, batchId, key };
}
