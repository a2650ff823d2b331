// A fleet job whose run paused (an `ask` no worker can answer) ends with a `PAUSED` result; a
// person decides and resumes the run later (`yard.resume` on the fleet's store, `switchyard runs
// resume --redis`, the gateway's `resume_run`). This writes the resumed run's result over the
// `PAUSED` one, so the batch's results tell how the job ended.

import type { Redis } from "ioredis";
import type { RunResult } from "../contract.js";
import type { ResumedRunRecord } from "../durable/run-journal.js";
import { BatchStore } from "./batch-store.js";
import { jobResultOf } from "./job-result.js";

/** Names the resumed runs' results as their writer, in place of a worker's name. */
export const RESUMED_BY = "switchyard resume";

/**
 * Replaces the `PAUSED` result that the job of durable run `runId` wrote (the worker remembered
 * the run's batch and input, see BatchStore.writePausedResult) with `result`, the resumed run's.
 * A result written since the pause (a resubmit's) stays. Call it once the resumed run has ended
 * other than `PAUSED`; undefined for a run no paused job of the queue left.
 */
export async function recordResumedJob(
  redis: Redis,
  queueName: string,
  runId: string,
  result: RunResult,
  startedAt: number,
): Promise<ResumedRunRecord | undefined> {
  const store = new BatchStore(redis, queueName);
  const paused = await store.pausedRun(runId);
  if (paused === undefined) return undefined;
  const { batchId, key } = paused;
  const written = jobResultOf({ ...paused, startedAt, worker: RESUMED_BY }, result);
  const outcome = await store.replacePausedResult(batchId, written);
  await store.forgetPausedRun(runId);
  return { outcome, batchId, key };
}
