// Rate limits of tool calls per tool pattern, part of step 4 (scheduling): at most `limit` calls
// to the tools a rule names start in any window of `windowMs`, evenly spaced. A limiter hands out
// start slots in arrival order; a call waits for its slot (queued time, cancellable) and takes
// none when the slot would fall after its deadline. Two implementations share the contract: this in-process one for a
// single session, and the Redis one of switchyard-runtime/fleet, shared by every worker of a fleet.

import { SwitchyardError } from "../errors.js";
import { globToRegExp } from "../permissions/permission-gate.js";

/** One rate limit: the tools it covers share one budget of `limit` calls per `windowMs`. */
export interface RateLimitRule {
  /** Globs over full tool names, as in permission rules (`github.*`, `billing.charge`). */
  readonly tools: string | readonly string[];
  /** Calls that may start in any window of `windowMs`; a positive integer. */
  readonly limit: number;
  /** Length of the window in ms. Default 1 000 (a limit per second). */
  readonly windowMs?: number;
}

/**
 * A rule as a limiter sees it. `key` is derived from the rule's globs, so every process of a fleet
 * that has the same rule in its config shares the same budget.
 */
export interface RateLimitBucket {
  readonly key: string;
  readonly limit: number;
  readonly windowMs: number;
  /** How messages name it: `"github.*" (10 per 1000 ms)`. */
  readonly label: string;
}

/**
 * A limiter's answer: `granted` with the wait until the reserved slot (0: start now), or not
 * granted, with the wait the earliest slot would have needed; nothing is reserved then.
 */
export interface RateLimitReservation {
  readonly granted: boolean;
  readonly waitMs: number;
}

/** Hands out start slots; see the module comment. */
export interface RateLimiter {
  /**
   * Reserves the earliest start time at which every bucket stays within its limit, in one atomic
   * step, if it is at most `maxWaitMs` from now. May answer synchronously. Rejects only when the
   * limiter cannot be reached (the call then ends `RATE_LIMIT_UNAVAILABLE`, never unlimited).
   */
  reserve(buckets: readonly RateLimitBucket[], maxWaitMs: number): RateLimitReservation | Promise<RateLimitReservation>;
  /** Releases what the limiter holds (connections); the in-process one holds nothing. */
  close?(): Promise<void>;
}

/** A rule checked and compiled: its bucket and the patterns that select its tools. */
export interface CompiledRateLimit {
  readonly bucket: RateLimitBucket;
  readonly patterns: readonly RegExp[];
}

const DEFAULT_WINDOW_MS = 1_000;

/** Checks and compiles rules; throws `OPTION_INVALID` naming the bad rule. */
export function compileRateLimits(
  rules: readonly RateLimitRule[],
  label = "scheduler.rateLimits",
): CompiledRateLimit[] {
  return rules.map((rule, index) => {
    const where = `${label}[${index}]`;
    const globs = typeof rule.tools === "string" ? [rule.tools] : [...(rule.tools ?? [])];
    if (globs.length === 0 || globs.some((glob) => typeof glob !== "string" || glob === "")) {
      throw new SwitchyardError("OPTION_INVALID", `${where}.tools must name at least one tool glob.`);
    }
    if (!Number.isInteger(rule.limit) || rule.limit < 1) {
      throw new SwitchyardError(
        "OPTION_INVALID",
        `${where}.limit must be a positive integer, got ${JSON.stringify(rule.limit)}.`,
      );
    }
    const windowMs = rule.windowMs ?? DEFAULT_WINDOW_MS;
    if (typeof windowMs !== "number" || !Number.isFinite(windowMs) || windowMs <= 0) {
      throw new SwitchyardError(
        "OPTION_INVALID",
        `${where}.windowMs must be a positive number of ms, got ${JSON.stringify(rule.windowMs)}.`,
      );
    }
    const named = globs.map((glob) => JSON.stringify(glob)).join(", ");
    return {
      bucket: {
        key: JSON.stringify(globs),
        limit: rule.limit,
        windowMs,
        label: `${named} (${rule.limit} per ${windowMs} ms)`,
      },
      patterns: globs.map(globToRegExp),
    };
  });
}

/**
 * The limiter of one process. Calls of a bucket start at least `windowMs / limit` apart (evenly
 * spaced, in arrival order), which keeps every window of `windowMs` within `limit` even when a
 * call starts a little after its slot: a late start adds at most one call to a window, where a
 * burst of `limit` at once followed by one late call would put `limit + 1` in the next window.
 */
export class InProcessRateLimiter implements RateLimiter {
  /** The earliest next slot of each bucket, epoch ms. */
  readonly #next = new Map<string, number>();
  readonly #now: () => number;

  constructor(options: { readonly now?: () => number } = {}) {
    this.#now = options.now ?? Date.now;
  }

  reserve(buckets: readonly RateLimitBucket[], maxWaitMs: number): RateLimitReservation {
    const now = this.#now();
    let slot = now;
    for (const bucket of buckets) slot = Math.max(slot, this.#next.get(bucket.key) ?? slot);
    const waitMs = Math.ceil(slot - now);
    if (waitMs > maxWaitMs) return { granted: false, waitMs };
    // Spaced from the start the call is told (whole ms), so rounding never brings two closer.
    for (const bucket of buckets) this.#next.set(bucket.key, now + waitMs + bucket.windowMs / bucket.limit);
    return { granted: true, waitMs };
  }
}
