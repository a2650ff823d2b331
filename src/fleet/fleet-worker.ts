// A worker of the fleet: a Switchyard session built from a config, taking program jobs from the
// fleet's BullMQ queue and writing one result per input. Failures follow the failure policy
// (transient ones retried with backoff, permanent ones reported); a worker that dies mid-job has
// the job picked up by another once its lock lapses (BullMQ's stalled-job recovery). Jobs are
// durable runs journaled in Redis: a job run again replays the calls its earlier runs journaled,
// so each journaled call is made once and the call in flight at a crash at most once more, with
// the same idempotency key. Its result is written once per input. Closing finishes the jobs in
// hand within a grace period and hands the rest back to the queue.

import { hostname } from "node:os";
import { randomUUID } from "node:crypto";
import type { Job } from "bullmq";
import type { Redis } from "ioredis";
import type { RunResult } from "../contract.js";
import type { ConfiguredSwitchyard, CreateFromConfigOptions } from "../config/create-switchyard-from-config.js";
import type { LoadedConfig, SwitchyardConfig } from "../config/load-config.js";
import { SwitchyardError, messageOf } from "../errors.js";
import { importOptional } from "../optional-dependency.js";
import type { RateLimiter } from "../scheduler/rate-limiter.js";
import type { ProgramJobData } from "./batch-jobs.js";
import { type BatchMeta, BatchStore } from "./batch-store.js";
import { DEFAULT_TRANSIENT_CODES, failureCodeOf, isTransientFailure } from "./failure-policy.js";
import { buildFleetSession } from "./fleet-session.js";
import type { JobInfo } from "./job-info-tool.js";
import { connectRedis, type FleetOptions, queueNameOf } from "./redis-connection.js";
import { durableRunIdOf, retryCutOf } from "./durable-job.js";
import { jobResultOf } from "./job-result.js";
import { failedJobResult } from "./reconcile-batch.js";
import { fleetRunJournal } from "./fleet-run-journal.js";
import type { RedisRunJournal } from "./redis-run-journal.js";
import { RedisRateLimiter } from "./redis-rate-limiter.js";

export interface FleetWorkerOptions extends FleetOptions {
  /** The session's config: tools, MCP servers, permissions, limits, rate limits. */
  readonly config: SwitchyardConfig | LoadedConfig;
  /** Passed to createSwitchyardFromConfig: extra tools, an approver, session options. */
  readonly configOptions?: CreateFromConfigOptions;
  /** Jobs run at once by this worker. Default 4. */
  readonly concurrency?: number;
  /**
   * How long a job's lock lasts without renewal, in ms: a worker killed mid-job has its job run
   * again by another this long after (at most twice this with the stalled check). Default 30 000.
   */
  readonly lockDurationMs?: number;
  /** Times a job may lose its worker before it fails (`WORKER_LOST`). Default 2. */
  readonly maxStalledCount?: number;
  /** Failure codes retried with backoff; see DEFAULT_TRANSIENT_CODES. */
  readonly transientCodes?: readonly string[];
  /**
   * Whether each job is a durable run journaled in Redis (see docs/fleet.md): a retried job
   * replays its journaled calls instead of repeating them. Default true; false makes delivery
   * at least once, every call of an earlier run made again.
   */
  readonly durable?: boolean;
  /** How long a job's journal is kept in Redis after it starts, in ms (Redis's own TTL). Default 1 day. */
  readonly journalRetentionMs?: number;
  /** This worker's name in results and logs. Default `<host>:<pid>:<random>`. */
  readonly name?: string;
  /** One line per notable event (a job retried, a run handed back, a Redis error). */
  readonly log?: (line: string) => void;
}

/** A running worker. */
export interface FleetWorker {
  readonly name: string;
  /** The worker's session (its catalog, trace and scheduler). */
  readonly yard: ConfiguredSwitchyard["yard"];
  /** Jobs running now. */
  readonly running: number;
  /** Results this worker wrote. */
  readonly completed: number;
  /**
   * Stops taking jobs, lets the jobs in hand finish for `graceMs` (default 10 000), then cancels
   * the rest and hands them back to the queue (they run again elsewhere, their attempt not spent),
   * and closes the session and the connections. Safe to call twice.
   */
  close(options?: { readonly graceMs?: number }): Promise<void>;
}

const DEFAULT_GRACE_MS = 10_000;
const DEFAULT_LOCK_MS = 30_000;
const DEFAULT_JOURNAL_RETENTION_MS = 24 * 60 * 60 * 1000;
const SHUTDOWN = "shutdown";
const CANCELLED = "cancelled";

/**
 * Builds the config's session (its rate limits shared through Redis), and starts taking jobs.
 * Throws like createSwitchyardFromConfig, and FLEET_UNAVAILABLE when Redis cannot be reached.
 */
export async function startFleetWorker(options: FleetWorkerOptions): Promise<FleetWorker> {
  const queue = queueNameOf(options);
  const concurrency = options.concurrency ?? 4;
  if (!Number.isInteger(concurrency) || concurrency < 1) {
    throw new SwitchyardError("OPTION_INVALID", `concurrency must be a positive integer, got ${concurrency}.`);
  }
  const bullmq = await importOptional<typeof import("bullmq")>("bullmq");
  const connections: Redis[] = [];
  const closeConnections = async (): Promise<void> => {
    await Promise.all(connections.map((client) => client.quit().catch(() => client.disconnect())));
  };
  try {
    const commands = await connectRedis(options.redis);
    connections.push(commands);
    const subscriber = await connectRedis(options.redis);
    connections.push(subscriber);
    const limiterClient = await connectRedis(options.redis);
    connections.push(limiterClient);
    const rateLimiter: RateLimiter = new RedisRateLimiter(limiterClient, "switchyard:rate");
    const { configured, jobs } = await buildFleetSession(options.config, {
      ...options.configOptions,
      sessionOptions: {
        ...options.configOptions?.sessionOptions,
        scheduler: { rateLimiter, ...options.configOptions?.sessionOptions?.scheduler },
      },
    });
    const workerConnection = await connectRedis(options.redis);
    connections.push(workerConnection);
    const lockDurationMs = options.lockDurationMs ?? DEFAULT_LOCK_MS;
    // A job's journal lease lasts as long as its BullMQ lock, so by the time BullMQ hands a dead
    // worker's job to another, the lease has lapsed too; the new run waits out any remainder.
    const journal =
      options.durable === false
        ? undefined
        : fleetRunJournal(commands, queue, {
            leaseMs: lockDurationMs,
            // Long enough for a live worker BullMQ took for stalled (a busy event loop) to finish
            // the run; a dead one's lease lapses within one lockDurationMs.
            acquireWaitMs: 4 * lockDurationMs,
          });
    void journal?.prune().catch(() => undefined);
    const runner = new JobRunner(options, new BatchStore(commands, queue), configured, bullmq, jobs, journal);
    const worker = new bullmq.Worker<ProgramJobData>(queue, (job, token) => runner.process(job, token), {
      connection: workerConnection,
      concurrency,
      lockDuration: lockDurationMs,
      stalledInterval: lockDurationMs,
      maxStalledCount: options.maxStalledCount ?? 2,
      name: runner.name,
      autorun: false,
    });
    worker.on("failed", (job, error) => void runner.onFailed(job, error));
    worker.on("error", (error) => options.log?.(`worker error: ${messageOf(error)}`));
    await subscriber.subscribe(runner.store.cancelChannel);
    subscriber.on("message", (_channel: string, batchId: string) => runner.cancelBatch(batchId));
    void worker.run().catch((error: unknown) => options.log?.(`worker stopped: ${messageOf(error)}`));
    await worker.waitUntilReady();
    let closing: Promise<void> | undefined;
    return {
      name: runner.name,
      yard: configured.yard,
      get running() {
        return runner.running;
      },
      get completed() {
        return runner.completed;
      },
      close(closeOptions = {}) {
        closing ??= (async () => {
          const finished = worker.close();
          const grace = setTimeout(() => runner.abortAll(SHUTDOWN), closeOptions.graceMs ?? DEFAULT_GRACE_MS);
          try {
            await finished;
          } finally {
            clearTimeout(grace);
            await configured.close().catch(() => undefined);
            await closeConnections();
          }
        })();
        return closing;
      },
    };
  } catch (error) {
    await closeConnections();
    throw error;
  }
}

/** Runs one job at a time per call of `process`; the state shared by the worker's jobs. */
class JobRunner {
  readonly name: string;
  running = 0;
  completed = 0;
  readonly #batches = new Map<string, Promise<BatchMeta | undefined>>();
  /** When this worker heard each batch's cancellation, by performance.now(). */
  readonly #cancelHeardAt = new Map<string, number>();
  readonly #active = new Map<string, { readonly batchId: string; readonly controller: AbortController }>();
  readonly #transientCodes: readonly string[];

  constructor(
    readonly options: FleetWorkerOptions,
    readonly store: BatchStore,
    readonly configured: ConfiguredSwitchyard,
    readonly bullmq: typeof import("bullmq"),
    readonly jobInfo: Map<string, JobInfo>,
    readonly journal: RedisRunJournal | undefined,
  ) {
    this.name = options.name ?? `${hostname()}:${process.pid}:${randomUUID().slice(0, 4)}`;
    this.#transientCodes = options.transientCodes ?? DEFAULT_TRANSIENT_CODES;
  }

  /**
   * One job: the batch's program on the job's input. Resolves once its result is written, throws
   * to have BullMQ retry a transient failure, or hands the job back when the worker shuts down.
   */
  async process(job: Job<ProgramJobData>, token: string | undefined): Promise<null> {
    const { batchId, key, input } = job.data;
    // The cancel flag is read per job (a batch cancelled and then submitted again runs again), in
    // the round trip that marks the job running, and before the program starts: a job of a
    // cancelled batch makes no call.
    const askedAt = performance.now();
    const [meta, flagClear] = await Promise.all([
      this.#meta(batchId),
      this.store.startRunning(batchId, key, this.name),
    ]);
    // A cancel announced while the flag was being read may have been set just after it: the
    // announcement and the reply travel on separate connections, in either order.
    const started = flagClear && (this.#cancelHeardAt.get(batchId) ?? Number.NEGATIVE_INFINITY) < askedAt;
    if (meta === undefined || !started) {
      if (flagClear) await this.store.clearRunning(batchId, key);
      return null;
    }
    const controller = new AbortController();
    const jobId = job.id ?? key;
    this.#active.set(jobId, { batchId, controller });
    this.running += 1;
    const startedAt = Date.now();
    const attempt = Math.max(1, job.attemptsStarted);
    const info: JobInfo = { batchId, key, attempt, attempts: job.opts.attempts ?? 1 };
    let programId: string | undefined;
    let result: RunResult;
    const runId = this.journal === undefined ? undefined : durableRunIdOf(job);
    try {
      result = await this.configured.yard.run(meta.program, {
        signal: controller.signal,
        input,
        ...(runId === undefined
          ? {}
          : {
              durable: {
                id: runId,
                store: this.journal,
                retentionMs: this.options.journalRetentionMs ?? DEFAULT_JOURNAL_RETENTION_MS,
              },
            }),
        ...(meta.inputSchema === undefined ? {} : { inputSchema: meta.inputSchema }),
        onStart: (id) => {
          programId = id;
          this.jobInfo.set(id, info);
        },
      });
    } finally {
      this.running -= 1;
      this.#active.delete(jobId);
      if (programId !== undefined) this.jobInfo.delete(programId);
    }
    if (controller.signal.aborted) {
      await this.store.clearRunning(batchId, key);
      if (controller.signal.reason === CANCELLED) return null;
      // Shutting down: back to the queue, without spending an attempt, for another worker.
      this.options.log?.(`handing ${key} of ${batchId} back to the queue (shutting down)`);
      await job.moveToWait(token);
      throw new this.bullmq.WaitingError();
    }
    const attempts = job.opts.attempts ?? 1;
    if (!result.ok && job.attemptsMade + 1 < attempts && isTransientFailure(result, this.#transientCodes)) {
      if (runId !== undefined && result.error?.code !== "RUN_BUSY") await this.#cutForRetry(runId);
      await this.store.clearRunning(batchId, key);
      this.options.log?.(`${key} of ${batchId} failed with ${failureCodeOf(result)}; retrying with backoff`);
      throw new Error(`transient failure ${failureCodeOf(result)}: ${result.error?.message.slice(0, 200)}`);
    }
    const written = jobResultOf(
      { key, input, attempt, enqueuedAt: job.timestamp, startedAt, worker: this.name },
      result,
    );
    // RUN_BUSY for good: another worker still runs this job's run (BullMQ took it for stalled)
    // and writes its result; this one must not overwrite it with a failure.
    if (result.error?.code === "RUN_BUSY") await this.store.writeResultOnce(batchId, written);
    else if (runId !== undefined && result.error?.code === "PAUSED")
      // With what a resume needs to write the job's result again (record-resumed-job.ts).
      await this.store.writePausedResult(
        batchId,
        written,
        runId,
        this.options.journalRetentionMs ?? DEFAULT_JOURNAL_RETENTION_MS,
      );
    else await this.store.writeResult(batchId, written);
    this.completed += 1;
    return null;
  }

  /**
   * A job BullMQ failed for good: it lost its worker more often than allowed (a program that
   * kills its worker every time), or our own processing threw. It still gets its one result,
   * unless it has one; if this write is lost too, the batch's readers write it (reconcile-batch.ts).
   */
  async onFailed(job: Job<ProgramJobData> | undefined, error: Error): Promise<void> {
    if (job === undefined) return;
    try {
      if (!(await job.isFailed())) return;
      await this.store.writeResultOnce(
        job.data.batchId,
        failedJobResult(job, job.failedReason || error.message, this.name),
      );
    } catch (failure) {
      this.options.log?.(`could not record the failure of job ${job.id}: ${messageOf(failure)}`);
    }
  }

  /** Cuts a failed run's journal back so its retry makes the failed call again (see retryCutOf). */
  async #cutForRetry(runId: string): Promise<void> {
    try {
      await this.journal!.truncate(runId, (journal) => retryCutOf(journal, this.#transientCodes));
    } catch (error) {
      // The retry then replays the failure, and fails the same way: reported, never hidden.
      this.options.log?.(`could not cut back the journal of run ${runId} for its retry: ${messageOf(error)}`);
    }
  }

  /** Stops this worker's runs of a cancelled batch (its jobs not yet started see the flag). */
  cancelBatch(batchId: string): void {
    this.#cancelHeardAt.set(batchId, performance.now());
    if (this.#cancelHeardAt.size > 1_000) this.#cancelHeardAt.delete(this.#cancelHeardAt.keys().next().value!);
    for (const active of this.#active.values()) if (active.batchId === batchId) active.controller.abort(CANCELLED);
  }

  abortAll(reason: string): void {
    for (const active of this.#active.values()) active.controller.abort(reason);
  }

  #meta(batchId: string): Promise<BatchMeta | undefined> {
    let meta = this.#batches.get(batchId);
    if (meta === undefined) {
      meta = this.store.readMeta(batchId);
      // A few recent batches are enough: a worker sees one batch after another.
      if (this.#batches.size >= 64) this.#batches.delete(this.#batches.keys().next().value!);
      this.#batches.set(batchId, meta);
      meta.catch(() => this.#batches.delete(batchId));
    }
    return meta;
  }
}
