// What makes a fleet job durable: the run id its journal lives under, derived from the BullMQ
// job (so every attempt of one job replays one journal, and a resubmitted input starts afresh),
// and the cut a retry after a transient failure makes, so the retry makes the failed call again
// instead of replaying its failure.

import { createHash } from "node:crypto";
import { isRunId } from "../durable/run-id.js";
import type { StoredJournal } from "../durable/run-journal.js";

/** The parts of a BullMQ job the run id is made from; all of it comes from Redis, none is trusted. */
export interface DurableJobIdentity {
  readonly id?: string | undefined;
  /** When the job was added, epoch ms: a job added again (a resubmit) is another run. */
  readonly timestamp: number;
  readonly data: { readonly batchId: unknown; readonly key: unknown };
}

/**
 * The durable run id of a job: `<job id>-<timestamp in base 36>` when that is a run id (the job
 * ids submitBatch makes are), else `job-` and a hash of the job's id, batch and key: a hostile
 * payload (`../`, `*`, `{`, a newline, 10 KB) never reaches a key or a file name as it is.
 */
export function durableRunIdOf(job: DurableJobIdentity): string {
  const stamp = Number.isSafeInteger(job.timestamp) ? job.timestamp.toString(36) : "0";
  const plain = `${job.id}-${stamp}`;
  if (typeof job.id === "string" && isRunId(plain)) return plain;
  const hash = createHash("sha256")
    .update(JSON.stringify([String(job.id), String(job.data.batchId), String(job.data.key), stamp]))
    .digest("hex");
  return `job-${hash.slice(0, 40)}`;
}

/**
 * How many entries (the header counts as one) a retry of `journal` keeps: everything before the
 * first crossing that carried a call failing with one of `transientCodes` (that call, and those
 * answered with it, are made again with their idempotency keys), and never the failed run's end.
 * Undefined when there is nothing to cut.
 */
export function retryCutOf(journal: StoredJournal, transientCodes: readonly string[]): number | undefined {
  const { entries } = journal;
  let keep = entries.length;
  const failed = entries.findIndex(
    (entry) =>
      entry.t === "x" &&
      entry.answers.some((answer) => answer.r?.code !== undefined && transientCodes.includes(answer.r.code)),
  );
  if (failed >= 0) keep = failed;
  while (keep > 0 && entries[keep - 1]!.t === "end") keep--;
  return keep === entries.length ? undefined : keep + 1;
}
