// The journal store of one fleet queue: a RedisRunJournal under the queue's prefix that also knows
// the queue's batches, so a run its worker paused and somebody resumed (`yard.resume`, `switchyard
// runs resume --redis`, the gateway's `resume_run`) writes its result into the job's batch.

import type { Redis } from "ioredis";
import type { RunResult } from "../contract.js";
import type { ResumedRunRecord } from "../durable/run-journal.js";
import { recordResumedJob } from "./record-resumed-job.js";
import { RedisRunJournal, type RedisRunJournalOptions } from "./redis-run-journal.js";

/** A fleet queue's journals; see the module comment. Create with `fleetRunJournal`. */
export class FleetRunJournal extends RedisRunJournal {
  /** The queue whose workers write these journals and whose batches hold their jobs' results. */
  readonly queue: string;

  constructor(client: Redis, queue: string, options: Omit<RedisRunJournalOptions, "prefix"> = {}) {
    super(client, { ...options, prefix: `switchyard:${queue}:runs` });
    this.queue = queue;
  }

  /** Writes the resumed run's result over its job's `PAUSED` one (record-resumed-job.ts). */
  recordResumed(id: string, result: RunResult, startedAt: number): Promise<ResumedRunRecord | undefined> {
    return recordResumedJob(this.client, this.queue, id, result, startedAt);
  }
}

/**
 * The journal store of a fleet's queue `queue` (checked by `queueNameOf`): what its workers write
 * and `switchyard runs --redis --queue` reads. Options as `RedisRunJournal`'s, without the prefix.
 */
export function fleetRunJournal(
  client: Redis,
  queue: string,
  options: Omit<RedisRunJournalOptions, "prefix"> = {},
): FleetRunJournal {
  return new FleetRunJournal(client, queue, options);
}
