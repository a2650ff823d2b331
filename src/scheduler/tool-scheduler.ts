// Step 4 of the pipeline (numbered in execute-tool-call.ts): decides which calls may run at
// the same time. A tool's effect and declared resources become locks: reads share, writes to
// one resource take turns in call order (a write waiting for approval keeps its place), a write never overlaps a read of the same resource,
// and writes that declare no resources are serialized per namespace. Reads overlap up to a
// per-run, per-namespace limit. Rate limits (rate-limiter.ts) then give each call of a limited
// tool its start slot.

import type { ToolCall } from "../contract.js";
import { SwitchyardError } from "../errors.js";
import type { ToolDefinition } from "../registry/define-tool.js";
import { type LockRequest, type LockReservation, LockTable, type ReleaseLocks } from "./lock-table.js";
import {
  compileRateLimits,
  InProcessRateLimiter,
  type CompiledRateLimit,
  type RateLimitBucket,
  type RateLimiter,
  type RateLimitReservation,
  type RateLimitRule,
} from "./rate-limiter.js";

/** Reads of one namespace in flight at once per run, unless `maxConcurrentReads` says otherwise. */
export const DEFAULT_MAX_CONCURRENT_READS = 64;

export interface SchedulerOptions {
  /** Reads of one namespace in flight at once, per run (or for direct calls). Default 64. */
  readonly maxConcurrentReads?: number;
  /**
   * Rate limits per tool pattern: at most `limit` calls to the matching tools start in any window
   * of `windowMs` (default 1 000). A call over the limit waits for its slot (queued time, bounded
   * by its own timeout and the run's and session's budgets; cancellable) instead of failing; a
   * call whose slot would come later than that ends `TOOL_TIMEOUT` at once. A tool that matches
   * several rules keeps within all of them. Default: none.
   */
  readonly rateLimits?: readonly RateLimitRule[];
  /**
   * Where the slots come from. Default: an in-process limiter (this session only); the fleet's
   * `createRedisRateLimiter` (switchyard-runtime/fleet) shares the budget across processes.
   */
  readonly rateLimiter?: RateLimiter;
}

/** Schedules calls of one session; share one instance between every run of a session. */
export class ToolScheduler {
  readonly #locks = new LockTable();
  readonly #maxConcurrentReads: number;
  readonly #rateLimits: readonly CompiledRateLimit[];
  readonly #rateLimiter: RateLimiter;
  readonly #bucketsByTool = new WeakMap<ToolDefinition, readonly RateLimitBucket[]>();
  readonly #cache = new WeakMap<
    ToolDefinition,
    { readonly programKey: string; readonly locks: readonly LockRequest[] }
  >();

  /** Throws `OPTION_INVALID` when `maxConcurrentReads` is not a positive integer (0 would hang every read). */
  constructor(options: SchedulerOptions = {}) {
    const maxConcurrentReads = options.maxConcurrentReads ?? DEFAULT_MAX_CONCURRENT_READS;
    if (!Number.isInteger(maxConcurrentReads) || maxConcurrentReads < 1) {
      throw new SwitchyardError(
        "OPTION_INVALID",
        `scheduler.maxConcurrentReads must be a positive integer, got ${String(maxConcurrentReads)}.`,
      );
    }
    this.#maxConcurrentReads = maxConcurrentReads;
    this.#rateLimits = compileRateLimits(options.rateLimits ?? []);
    this.#rateLimiter = options.rateLimiter ?? new InProcessRateLimiter();
  }

  /** The rate-limit buckets `tool` draws from (cached per tool); empty for an unlimited tool. */
  rateLimitsFor(tool: ToolDefinition): readonly RateLimitBucket[] {
    if (this.#rateLimits.length === 0) return NO_BUCKETS;
    let buckets = this.#bucketsByTool.get(tool);
    if (buckets === undefined) {
      buckets = this.#rateLimits
        .filter((rule) => rule.patterns.some((pattern) => pattern.test(tool.name)))
        .map((rule) => rule.bucket);
      this.#bucketsByTool.set(tool, buckets.length === 0 ? NO_BUCKETS : buckets);
    }
    return buckets;
  }

  /** Reserves a start slot in `buckets` within `maxWaitMs`; see RateLimiter.reserve. */
  reserveSlot(
    buckets: readonly RateLimitBucket[],
    maxWaitMs: number,
  ): RateLimitReservation | Promise<RateLimitReservation> {
    return this.#rateLimiter.reserve(buckets, maxWaitMs);
  }

  /** Reads of one namespace this scheduler runs at once per run (the rest queue). */
  get maxConcurrentReads(): number {
    return this.#maxConcurrentReads;
  }

  /**
   * Waits until `call` may run and resolves with the release function. Rejects with the
   * signal's reason when `signal` aborts while the call is queued.
   */
  admit(
    tool: ToolDefinition,
    call: ToolCall,
    resourceKeys: readonly string[],
    signal?: AbortSignal,
  ): Promise<ReleaseLocks> {
    return this.#locks.acquire(this.locksFor(tool, call, resourceKeys), signal);
  }

  /**
   * Takes `call`'s place in line now, for a call that runs only once approved: writes behind it
   * in its namespace (or on its resources) wait for it, so writes start in the order the program
   * made them, approvals included. `acquire` or `cancel` the reservation, once.
   */
  reserve(tool: ToolDefinition, call: ToolCall, resourceKeys: readonly string[]): LockReservation {
    return this.#locks.reserve(this.locksFor(tool, call, resourceKeys));
  }

  /** Admits `call` at once when nothing is in its way (no waiting, no queue); else undefined. */
  tryAdmit(tool: ToolDefinition, call: ToolCall, resourceKeys: readonly string[]): ReleaseLocks | undefined {
    return this.#locks.tryAcquire(this.locksFor(tool, call, resourceKeys));
  }

  /** The locks a call needs; exposed so tests can state the policy directly. */
  locksFor(tool: ToolDefinition, call: ToolCall, resourceKeys: readonly string[]): readonly LockRequest[] {
    if (resourceKeys.length > 0) return this.#computeLocks(tool, call, resourceKeys);
    // Without resources the locks depend only on the tool and the run; a run calls the same
    // tools many times, so the last run's locks are kept per tool (bounded: one entry each).
    const programKey = call.programId ?? "";
    const cached = this.#cache.get(tool);
    if (cached?.programKey === programKey) return cached.locks;
    const locks = this.#computeLocks(tool, call, resourceKeys);
    this.#cache.set(tool, { programKey, locks });
    return locks;
  }

  #computeLocks(tool: ToolDefinition, call: ToolCall, resourceKeys: readonly string[]): LockRequest[] {
    const namespaceKey = `namespace:${tool.namespace ?? ""}`;
    if (tool.effect === "read") {
      return [
        { key: namespaceKey, mode: "shared" },
        {
          key: `reads:${call.programId ?? "direct"}:${tool.namespace ?? ""}`,
          mode: "slot",
          capacity: this.#maxConcurrentReads,
        },
        ...unique(resourceKeys).map((key): LockRequest => ({ key: `resource:${key}`, mode: "shared" })),
      ];
    }
    // Unknown resources mean the write may touch anything in its namespace.
    if (resourceKeys.length === 0) return [{ key: namespaceKey, mode: "exclusive" }];
    return [
      { key: namespaceKey, mode: "shared" },
      ...unique(resourceKeys).map((key): LockRequest => ({ key: `resource:${key}`, mode: "exclusive" })),
    ];
  }
}

const NO_BUCKETS: readonly RateLimitBucket[] = Object.freeze([]);

function unique(keys: readonly string[]): string[] {
  return [...new Set(keys)];
}
