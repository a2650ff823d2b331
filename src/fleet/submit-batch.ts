// Submitting a batch: one job per distinct input, the program stored once. Resumable: the same
// batch submitted again (same id, or the same program over the same inputs) skips every input
// that already has a result and every job still queued or running, so an interrupted submit or
// a half-finished batch continues where it stopped.

import type { JsonSchema, JsonValue } from "../contract.js";
import { SwitchyardError } from "../errors.js";
import { importOptional } from "../optional-dependency.js";
import { checkBatchId, contentKeyOf, derivedBatchId, jobIdOf, PROGRAM_JOB, type ProgramJobData } from "./batch-jobs.js";
import { type BatchMeta, BatchStore } from "./batch-store.js";
import { connectRedis, type FleetOptions, queueNameOf } from "./redis-connection.js";

export interface SubmitBatchOptions extends FleetOptions {
  /** The program every input runs through (TypeScript, as for `yard.run`). */
  readonly program: string;
  /** The inputs, each a JSON value: one job each (repeated inputs run once). */
  readonly inputs: Iterable<JsonValue> | AsyncIterable<JsonValue>;
  /** The batch's id. Default: derived from the program and the inputs' keys, so a rerun finds it. */
  readonly batchId?: string;
  /** An input's idempotency key. Default: a hash of its JSON with sorted object keys. */
  readonly keyOf?: (input: JsonValue, index: number) => string;
  /** Runs per input at most (the first plus retries of transient failures). Default 3. */
  readonly attempts?: number;
  /** Delay before the first retry, in ms, doubled per retry. Default 1 000. */
  readonly backoffMs?: number;
  /**
   * JSON Schema every input must match, checked by the worker before the program runs (an input
   * that does not is an `INPUT_INVALID` result); the program's `input` is typed from it.
   */
  readonly inputSchema?: JsonSchema;
  /** Also run again the inputs whose result is a failure. Default false: every result is kept. */
  readonly retryFailed?: boolean;
}

/** What a submit did. */
export interface SubmittedBatch {
  readonly batchId: string;
  /** Distinct inputs in the batch (over every submit of it). */
  readonly total: number;
  /** Inputs handed to the queue now (some may have been queued already). */
  readonly queued: number;
  /** Inputs skipped because they have a result. */
  readonly skipped: number;
  /** Input lines that repeated an earlier input's key, and so run once. */
  readonly repeated: number;
}

const ADD_CHUNK = 500;

/**
 * Enqueues the batch; see the module comment. Throws OPTION_INVALID for a bad id, key or
 * setting, or when the batch id exists with another program; FLEET_UNAVAILABLE without Redis.
 */
export async function submitBatch(options: SubmitBatchOptions): Promise<SubmittedBatch> {
  const queueName = queueNameOf(options);
  const attempts = options.attempts ?? 3;
  const backoffMs = options.backoffMs ?? 1_000;
  if (!Number.isInteger(attempts) || attempts < 1)
    throw new SwitchyardError("OPTION_INVALID", `attempts must be a positive integer, got ${attempts}.`);
  if (!Number.isFinite(backoffMs) || backoffMs < 0)
    throw new SwitchyardError("OPTION_INVALID", `backoffMs must be a number of ms >= 0, got ${backoffMs}.`);

  const inputs = new Map<string, JsonValue>();
  let index = 0;
  let repeated = 0;
  for await (const input of options.inputs) {
    const key = options.keyOf === undefined ? contentKeyOf(input) : options.keyOf(input, index);
    if (typeof key !== "string" || key === "" || key.length > 512) {
      throw new SwitchyardError(
        "OPTION_INVALID",
        `The key of input ${index + 1} is ${JSON.stringify(key)}: ` +
          "a key is a non-empty string of at most 512 characters.",
      );
    }
    if (inputs.has(key)) repeated += 1;
    else inputs.set(key, input);
    index += 1;
  }
  const batchId = checkBatchId(options.batchId ?? derivedBatchId(options.program, [...inputs.keys()]));

  const { Queue } = await importOptional<typeof import("bullmq")>("bullmq");
  const redis = await connectRedis(options.redis);
  const queue = new Queue<ProgramJobData>(queueName, { connection: redis });
  try {
    const store = new BatchStore(redis, queueName);
    const meta: BatchMeta = {
      batchId,
      program: options.program,
      attempts,
      backoffMs,
      createdAt: Date.now(),
      ...(options.inputSchema === undefined ? {} : { inputSchema: options.inputSchema }),
    };
    const existing = await store.ensureMeta(meta);
    if (existing.program !== options.program) {
      throw new SwitchyardError(
        "OPTION_INVALID",
        `The batch ${batchId} exists with another program; submit under a new batch id to run this one.`,
      );
    }
    await store.setCancelled(batchId, false);
    const known = new Set(await store.keys(batchId));
    await store.appendKeys(
      batchId,
      [...inputs.keys()].filter((key) => !known.has(key)),
    );
    const { done, failed } = await store.finishedKeys(batchId);
    const rerun = options.retryFailed === true ? [...failed].filter((key) => inputs.has(key)) : [];
    if (rerun.length > 0) {
      // Their old jobs may linger in BullMQ's failed set, which would make the new add a no-op.
      await Promise.all(rerun.map((key) => queue.remove(jobIdOf(batchId, key)).catch(() => 0)));
      await store.forgetResults(batchId, rerun);
      for (const key of rerun) done.delete(key);
    }
    const toRun = [...inputs].filter(([key]) => !done.has(key));
    for (let start = 0; start < toRun.length; start += ADD_CHUNK) {
      await queue.addBulk(
        toRun.slice(start, start + ADD_CHUNK).map(([key, input]) => ({
          name: PROGRAM_JOB,
          data: { batchId, key, input },
          opts: {
            jobId: jobIdOf(batchId, key),
            attempts: existing.attempts,
            backoff: { type: "exponential", delay: existing.backoffMs },
            removeOnComplete: true,
          },
        })),
      );
    }
    const total = known.size + [...inputs.keys()].filter((key) => !known.has(key)).length;
    return { batchId, total, queued: toRun.length, skipped: inputs.size - toRun.length, repeated };
  } finally {
    await queue.close();
    await redis.quit().catch(() => redis.disconnect());
  }
}
