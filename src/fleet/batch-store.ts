// What the fleet keeps about a batch in Redis, beside BullMQ's own job records: the program and
// settings, the input keys in order, one result per key, and which keys are running. One result
// per key is the exactly-once guarantee of the results: a job run twice (a worker killed after
// its run, before BullMQ heard of it) writes the same key twice, never two lines. Counts are
// read in O(1), so watching a batch of 100,000 inputs costs what watching 10 does.

import type { Redis } from "ioredis";
import type { JsonSchema, JsonValue, RunError } from "../contract.js";
import { SwitchyardError } from "../errors.js";
import type { CallsSummary } from "../model-tools/render-for-model.js";

/** A batch's settings, written once at submit. */
export interface BatchMeta {
  readonly batchId: string;
  readonly program: string;
  /** Runs per input at most: the first and the retries of transient failures. */
  readonly attempts: number;
  /** Delay before the first retry, in ms; doubles per retry. */
  readonly backoffMs: number;
  /** Epoch ms of the first submit. */
  readonly createdAt: number;
  /** The JSON Schema the inputs are checked against, when given. */
  readonly inputSchema?: JsonSchema;
}

/** The one result of one input, as `switchyard batch results` writes it (a JSONL line). */
export interface BatchResult {
  /** The input's idempotency key. */
  readonly key: string;
  /** The input; null in a `JOB_LOST` result, whose job (which carried the input) is gone. */
  readonly input: JsonValue;
  readonly ok: boolean;
  /** The program's return value; null when the run failed. */
  readonly output: JsonValue;
  /**
   * The run's error (its RunError code); `WORKER_LOST` for a job that kept losing its worker,
   * `JOB_LOST` for a job gone from the queue with no result (see reconcile-batch.ts).
   */
  readonly error?: {
    readonly code: RunError["code"] | "WORKER_LOST" | "JOB_LOST";
    readonly message: string;
    readonly line?: number;
  };
  readonly calls: CallsSummary;
  /** Which start of the job produced this result (1 for the first; retries and recoveries count). */
  readonly attempt: number;
  /** The run's wall time, in ms. */
  readonly wallMs: number;
  /** Epoch ms when the job was enqueued, when this run of it started, and when its result was written. */
  readonly enqueuedAt: number;
  readonly startedAt: number;
  readonly finishedAt: number;
  /** The worker that wrote it; `reconciled` when a reader recorded a failure no worker did. */
  readonly worker: string;
}

/** The input of a job whose run paused, and how its result was written (see writePausedResult). */
export interface PausedJob {
  readonly batchId: string;
  readonly key: string;
  readonly input: JsonValue;
  readonly attempt: number;
  readonly enqueuedAt: number;
}

/** Counts of a batch's inputs, from its own records. */
export interface BatchCounts {
  readonly total: number;
  /** Inputs with a result, ok or not. */
  readonly done: number;
  readonly failed: number;
  readonly running: number;
  readonly cancelled: boolean;
}

/** How long a submit's mark lasts after its last renewal, in ms (a submit renews it per chunk of jobs). */
const SUBMIT_MARK_MS = 120_000;

// KEYS: results, running, writes, failed, then keys that must not exist; ARGV: key, result JSON, ok,
// and '1' to replace a result that is there (a worker's run) rather than keep it (a recorded failure).
const WRITE_RESULT = `
for i = 5, #KEYS do
  if redis.call('EXISTS', KEYS[i]) == 1 then return -1 end
end
if ARGV[4] == '1' then
  redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
elseif redis.call('HSETNX', KEYS[1], ARGV[1], ARGV[2]) == 0 then
  return 0
end
redis.call('HDEL', KEYS[2], ARGV[1])
redis.call('HINCRBY', KEYS[3], ARGV[1], 1)
if ARGV[3] == '1' then redis.call('SREM', KEYS[4], ARGV[1]) else redis.call('SADD', KEYS[4], ARGV[1]) end
return 1
`;

// A paused job's result replaced by its resumed run's: only while the key still holds a PAUSED
// result (a later result, a resubmit's say, stays). Not a second write: the count of runs beyond
// the first is unchanged, since a resume continues the job's run rather than repeating it.
const REPLACE_PAUSED = `
local current = redis.call('HGET', KEYS[1], ARGV[1])
if not current then return -1 end
local ok, decoded = pcall(cjson.decode, current)
if not ok or type(decoded) ~= 'table' or type(decoded.error) ~= 'table' or decoded.error.code ~= 'PAUSED' then
  return 0
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
if ARGV[3] == '1' then redis.call('SREM', KEYS[2], ARGV[1]) else redis.call('SADD', KEYS[2], ARGV[1]) end
return 1
`;

// One submit fewer; the mark goes with the last (a count below 1 means a mark that had expired).
const END_SUBMIT = `
if redis.call('DECR', KEYS[1]) <= 0 then redis.call('DEL', KEYS[1]) end
return 0
`;

/** Redis operations on batches of one queue; see the module comment. */
export class BatchStore {
  constructor(
    readonly redis: Redis,
    readonly queue: string,
  ) {}

  #key(batchId: string, part: string): string {
    return `switchyard:${this.queue}:batch:${batchId}:${part}`;
  }

  /** The channel on which cancelled batch ids are announced to workers. */
  get cancelChannel(): string {
    return `switchyard:${this.queue}:cancelled`;
  }

  /** Writes the settings unless the batch exists; returns the batch's settings either way. */
  async ensureMeta(meta: BatchMeta): Promise<BatchMeta> {
    await this.redis.hsetnx(this.#key(meta.batchId, "meta"), "json", JSON.stringify(meta));
    return (await this.readMeta(meta.batchId))!;
  }

  /** The settings, or undefined for an unknown batch. */
  async readMeta(batchId: string): Promise<BatchMeta | undefined> {
    const json = await this.redis.hget(this.#key(batchId, "meta"), "json");
    return json === null ? undefined : (JSON.parse(json) as BatchMeta);
  }

  /** The settings; throws BATCH_NOT_FOUND for an unknown batch. */
  async requireMeta(batchId: string): Promise<BatchMeta> {
    const meta = await this.readMeta(batchId);
    if (meta === undefined) {
      throw new SwitchyardError(
        "BATCH_NOT_FOUND",
        `No batch ${JSON.stringify(batchId)} on queue ${JSON.stringify(this.queue)}; check the id and --queue.`,
      );
    }
    return meta;
  }

  /** Every input key of the batch, in submit order. */
  async keys(batchId: string): Promise<string[]> {
    return this.redis.lrange(this.#key(batchId, "keys"), 0, -1);
  }

  async appendKeys(batchId: string, keys: readonly string[]): Promise<void> {
    for (const slice of slicesOf(keys)) await this.redis.rpush(this.#key(batchId, "keys"), ...slice);
  }

  /** Keys with a result, and which of them failed. */
  async finishedKeys(batchId: string): Promise<{ done: Set<string>; failed: Set<string> }> {
    const [done, failed] = await Promise.all([
      this.redis.hkeys(this.#key(batchId, "results")),
      this.redis.smembers(this.#key(batchId, "failed")),
    ]);
    return { done: new Set(done), failed: new Set(failed) };
  }

  async counts(batchId: string): Promise<BatchCounts> {
    const [total, done, failed, running, cancelled] = await this.redis
      .multi()
      .llen(this.#key(batchId, "keys"))
      .hlen(this.#key(batchId, "results"))
      .scard(this.#key(batchId, "failed"))
      .hlen(this.#key(batchId, "running"))
      .exists(this.#key(batchId, "cancelled"))
      .exec()
      .then((replies) => (replies ?? []).map(([, value]) => Number(value)));
    return {
      total: total ?? 0,
      done: done ?? 0,
      failed: failed ?? 0,
      running: running ?? 0,
      cancelled: cancelled === 1,
    };
  }

  /** Results of `keys` (undefined where an input has none yet), in the same order. */
  async results(batchId: string, keys: readonly string[]): Promise<(BatchResult | undefined)[]> {
    if (keys.length === 0) return [];
    const values = await this.redis.hmget(this.#key(batchId, "results"), ...keys);
    return values.map((json) => (json === null ? undefined : (JSON.parse(json) as BatchResult)));
  }

  /**
   * Marks `key` as running on `worker` unless the batch is cancelled, in one round trip; returns
   * false (and marks nothing) for a cancelled batch.
   */
  async startRunning(batchId: string, key: string, worker: string): Promise<boolean> {
    const replies = await this.redis
      .multi()
      .exists(this.#key(batchId, "cancelled"))
      .hset(this.#key(batchId, "running"), key, worker)
      .exec();
    if (Number(replies?.[0]?.[1]) !== 1) return true;
    await this.clearRunning(batchId, key);
    return false;
  }

  async clearRunning(batchId: string, key: string): Promise<void> {
    await this.redis.hdel(this.#key(batchId, "running"), key);
  }

  /**
   * Writes the result of `key` in one atomic step: the result, its failed mark, the end of its
   * running mark, and a count of how many times a result was written for it (runs beyond the
   * first are the at-least-once repeats; the result itself stays one).
   */
  async writeResult(batchId: string, result: BatchResult): Promise<void> {
    await this.#writeResult(batchId, result, true, []);
  }

  /**
   * Writes a `PAUSED` result as writeResult does and, in the same MULTI, remembers which input of
   * which batch the durable run `runId` is, for `ttlMs` (the journal's retention): the run may be
   * resumed after the job itself is gone from the queue, and its result then replaces the `PAUSED`
   * one (record-resumed-job.ts). One step, so a worker killed at any point leaves both or neither.
   */
  async writePausedResult(batchId: string, result: BatchResult, runId: string, ttlMs: number): Promise<void> {
    const job: PausedJob = {
      batchId,
      key: result.key,
      input: result.input,
      attempt: result.attempt,
      enqueuedAt: result.enqueuedAt,
    };
    const replies = await this.redis
      .multi()
      .eval(WRITE_RESULT, 4, ...this.#resultKeys(batchId), ...this.#resultArgs(result, true))
      .set(this.#pausedKey(runId), JSON.stringify(job), "PX", Math.max(1, Math.round(ttlMs)))
      .exec();
    // MULTI reports a command's own failure in its reply, not by rejecting.
    const failed = replies?.find(([error]) => error !== null)?.[0];
    if (replies === null || failed !== undefined)
      throw failed ?? new Error("Redis discarded the paused result's MULTI");
  }

  /**
   * Writes the result of `key` as writeResult does, unless it has one: `written`, or `present`
   * when a result was there (it stays, and its count of writes does not move). `unless` adds
   * conditions checked in the same atomic step, any of which makes it `refused`: a submit of the
   * batch in progress (`submitting`), the batch cancelled (`cancelled`), the Redis key `job` (a
   * job's record) existing.
   */
  async writeResultOnce(
    batchId: string,
    result: BatchResult,
    unless: { readonly submitting?: boolean; readonly cancelled?: boolean; readonly job?: string } = {},
  ): Promise<"written" | "present" | "refused"> {
    const written = await this.#writeResult(batchId, result, false, [
      ...(unless.submitting === true ? [this.#key(batchId, "submitting")] : []),
      ...(unless.cancelled === true ? [this.#key(batchId, "cancelled")] : []),
      ...(unless.job === undefined ? [] : [unless.job]),
    ]);
    return written === 1 ? "written" : written === 0 ? "present" : "refused";
  }

  /** WRITE_RESULT on the batch's keys: 1 written, 0 present (kept), -1 refused by one of `absent`. */
  async #writeResult(batchId: string, result: BatchResult, replace: boolean, absent: string[]): Promise<number> {
    const keys = [...this.#resultKeys(batchId), ...absent];
    const written = await this.redis.eval(WRITE_RESULT, keys.length, ...keys, ...this.#resultArgs(result, replace));
    return Number(written);
  }

  /** WRITE_RESULT's first four keys: results, running, writes, failed. */
  #resultKeys(batchId: string): [string, string, string, string] {
    return [
      this.#key(batchId, "results"),
      this.#key(batchId, "running"),
      this.#key(batchId, "writes"),
      this.#key(batchId, "failed"),
    ];
  }

  /** WRITE_RESULT's arguments: the key, the result's JSON, ok, and whether to replace a result there. */
  #resultArgs(result: BatchResult, replace: boolean): [string, string, string, string] {
    return [result.key, JSON.stringify(result), result.ok ? "1" : "0", replace ? "1" : "0"];
  }

  /**
   * Replaces the result of `result.key` with `result` if it is a `PAUSED` one (a job whose run
   * waited for a person, resumed since): `replaced`, `kept` when the key holds another result,
   * `absent` when it holds none. One atomic step; the count of writes does not move.
   */
  async replacePausedResult(batchId: string, result: BatchResult): Promise<"replaced" | "kept" | "absent"> {
    const replaced = await this.redis.eval(
      REPLACE_PAUSED,
      2,
      this.#key(batchId, "results"),
      this.#key(batchId, "failed"),
      result.key,
      JSON.stringify(result),
      result.ok ? "1" : "0",
    );
    return Number(replaced) === 1 ? "replaced" : Number(replaced) === 0 ? "kept" : "absent";
  }

  /** The input a paused run belongs to (see writePausedResult); undefined when none or malformed. */
  async pausedRun(runId: string): Promise<PausedJob | undefined> {
    const json = await this.redis.get(this.#pausedKey(runId));
    if (json === null) return undefined;
    try {
      const job = JSON.parse(json) as Partial<PausedJob>;
      // Whatever is in Redis is checked before it names a key.
      if (typeof job.batchId !== "string" || typeof job.key !== "string") return undefined;
      if (!Number.isSafeInteger(job.attempt) || !Number.isSafeInteger(job.enqueuedAt)) return undefined;
      return {
        batchId: job.batchId,
        key: job.key,
        input: job.input ?? null,
        attempt: job.attempt!,
        enqueuedAt: job.enqueuedAt!,
      };
    } catch {
      return undefined;
    }
  }

  async forgetPausedRun(runId: string): Promise<void> {
    await this.redis.del(this.#pausedKey(runId));
  }

  #pausedKey(runId: string): string {
    return `switchyard:${this.queue}:paused-run:${runId}`;
  }

  /** Whether a submit of the batch is in progress (see startSubmit). */
  async submitInProgress(batchId: string): Promise<boolean> {
    return (await this.redis.exists(this.#key(batchId, "submitting"))) === 1;
  }

  /**
   * Marks a submit of the batch as in progress until endSubmit, or for SUBMIT_MARK_MS after its
   * last renewal (a submitter that died): readers do not take keys without jobs for lost jobs then.
   */
  async startSubmit(batchId: string): Promise<void> {
    const mark = this.#key(batchId, "submitting");
    await this.redis.multi().incr(mark).pexpire(mark, SUBMIT_MARK_MS).exec();
  }

  async renewSubmit(batchId: string): Promise<void> {
    await this.redis.pexpire(this.#key(batchId, "submitting"), SUBMIT_MARK_MS);
  }

  async endSubmit(batchId: string): Promise<void> {
    await this.redis.eval(END_SUBMIT, 1, this.#key(batchId, "submitting"));
  }

  /** Forgets the results of `keys` so they run again (a resubmit with retryFailed). */
  async forgetResults(batchId: string, keys: readonly string[]): Promise<void> {
    for (const slice of slicesOf(keys)) {
      await this.redis
        .multi()
        .hdel(this.#key(batchId, "results"), ...slice)
        .srem(this.#key(batchId, "failed"), ...slice)
        .exec();
    }
  }

  /** How many times a result was written per key, for keys written more than once. */
  async repeatedWrites(batchId: string): Promise<Map<string, number>> {
    const counts = await this.redis.hgetall(this.#key(batchId, "writes"));
    return new Map(
      Object.entries(counts)
        .map(([key, count]): [string, number] => [key, Number(count)])
        .filter(([, count]) => count > 1),
    );
  }

  async setCancelled(batchId: string, cancelled: boolean): Promise<void> {
    if (cancelled) await this.redis.set(this.#key(batchId, "cancelled"), "1");
    else await this.redis.del(this.#key(batchId, "cancelled"));
  }
}

/**
 * Keys a command takes at once: a call spreads them as arguments, and 125,000 spread at once
 * overflowed the JavaScript stack (a batch of that many inputs could not be submitted).
 */
const KEYS_PER_COMMAND = 10_000;

/** `keys` in slices of KEYS_PER_COMMAND; none for no keys. */
function* slicesOf(keys: readonly string[]): Generator<readonly string[]> {
  for (let start = 0; start < keys.length; start += KEYS_PER_COMMAND) yield keys.slice(start, start + KEYS_PER_COMMAND);
}
