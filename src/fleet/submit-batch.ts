// Submitting a batch: one job per distinct input, the program stored once. Resumable: the same
// batch submitted again (same id, or the same program over the same inputs) skips every input
// that already has a result and every job still queued or running, so an interrupted submit or
// a half-finished batch continues where it stopped. Given a session (`checkWith`), the program is
// checked against it first, and a program that fails the check is refused with nothing enqueued.

import type { Diagnostic, JsonSchema, JsonValue, RunError } from "../contract.js";
import { SwitchyardError } from "../errors.js";
import { importOptional } from "../optional-dependency.js";
import { encodeProgramInput } from "../program/program-input.js";
import type { CheckOptions, CheckResult } from "../execute-program.js";
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
  /**
   * A session to check the program against before anything is enqueued: a Switchyard built like
   * the workers' (see createFleetSession), checked with `inputSchema` and an input declared. A
   * program that fails (a SYNTAX_ERROR, a TYPE_ERROR, ...) throws PROGRAM_INVALID and nothing is
   * written to Redis. Without it, the workers check the program, once per input.
   */
  readonly checkWith?: ProgramChecker;
}

/** What checks a batch's program: `Switchyard.check`, of a session built like the workers'. */
export interface ProgramChecker {
  check(source: string, options?: CheckOptions): Promise<CheckResult>;
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
  /** The check's warnings (lint findings), when the program was checked with `checkWith`. */
  readonly warnings: readonly Diagnostic[];
}

const ADD_CHUNK = 500;

/**
 * Enqueues the batch; see the module comment. Throws PROGRAM_INVALID when the program fails the
 * check of `checkWith` (before anything reaches Redis), OPTION_INVALID for a bad id, key or
 * setting, or when the batch id exists with another program; FLEET_UNAVAILABLE without Redis.
 */
/**
 * What submitting checks of each input: JSON data, nested no deeper than its key's recursive walk
 * can go (100,000 levels overflowed the stack); its size and depth against the run's limits are
 * each job's to judge, with the worker's limits.
 */
const SUBMIT_INPUT_LIMITS = { maxInputBytes: Number.MAX_SAFE_INTEGER, maxInputDepth: 1_000 };

export async function submitBatch(options: SubmitBatchOptions): Promise<SubmittedBatch> {
  const queueName = queueNameOf(options);
  const attempts = options.attempts ?? 3;
  const backoffMs = options.backoffMs ?? 1_000;
  if (!Number.isInteger(attempts) || attempts < 1)
    throw new SwitchyardError("OPTION_INVALID", `attempts must be a positive integer, got ${attempts}.`);
  if (!Number.isFinite(backoffMs) || backoffMs < 0)
    throw new SwitchyardError("OPTION_INVALID", `backoffMs must be a number of ms >= 0, got ${backoffMs}.`);
  // First: a program every job would fail is the costliest mistake, and nothing is written yet.
  const warnings = options.checkWith === undefined ? [] : await checkProgram(options.checkWith, options);

  const inputs = new Map<string, JsonValue>();
  let index = 0;
  let repeated = 0;
  for await (const given of options.inputs) {
    // As a run reads its input: JSON data only (a function, a BigInt, a cycle, NaN refused, not
    // dropped or thrown raw), so its key is made from what the program will see.
    const encoded = encodeProgramInput(given, SUBMIT_INPUT_LIMITS);
    if (!encoded.ok)
      throw new SwitchyardError("OPTION_INVALID", `Input ${index + 1} of the batch: ${encoded.error.message}`);
    const input = JSON.parse(encoded.json) as JsonValue;
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
    // Marked before the cancel flag goes and until the last job is in: the keys of a submit in
    // progress that have no job yet are not lost jobs to the readers (reconcile-batch.ts).
    await store.startSubmit(batchId);
    try {
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
        await store.renewSubmit(batchId);
      }
      const total = known.size + [...inputs.keys()].filter((key) => !known.has(key)).length;
      return { batchId, total, queued: toRun.length, skipped: inputs.size - toRun.length, repeated, warnings };
    } finally {
      await store.endSubmit(batchId);
    }
  } finally {
    await queue.close();
    await redis.quit().catch(() => redis.disconnect());
  }
}

/**
 * The check's warnings, or PROGRAM_INVALID carrying the run's error: its code and first diagnostic
 * (with line and column) in the message, the whole RunError as `details` (see programErrorOf).
 */
async function checkProgram(checker: ProgramChecker, options: SubmitBatchOptions): Promise<readonly Diagnostic[]> {
  const checked = await checker.check(options.program, {
    hasInput: true,
    ...(options.inputSchema === undefined ? {} : { inputSchema: options.inputSchema }),
  });
  if (checked.ok || checked.error === undefined) return checked.warnings;
  const error = checked.error;
  const first = error.diagnostics?.[0];
  const where =
    first === undefined
      ? error.line === undefined
        ? ""
        : ` at line ${error.line}${error.column === undefined ? "" : `, column ${error.column}`}`
      : ` at line ${first.line}, column ${first.column}`;
  const what = first?.message ?? error.message.split("\n")[0] ?? "";
  throw new SwitchyardError(
    "PROGRAM_INVALID",
    `The batch's program fails its check with ${error.code}${where}: ${what.replace(/\.$/, "")}; ` +
      "nothing was enqueued. Fix the program and submit again.",
    error as unknown as JsonValue,
  );
}

/** The RunError a PROGRAM_INVALID refusal carries (its `details`); undefined for any other error. */
export function programErrorOf(error: unknown): RunError | undefined {
  if (!SwitchyardError.isInstance(error) || error.code !== "PROGRAM_INVALID") return undefined;
  return error.details as unknown as RunError;
}
