import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { SwitchyardError } from "../../src/errors.js";
import {
  compileRateLimits,
  InProcessRateLimiter,
  type RateLimitBucket,
  type RateLimitRule,
} from "../../src/scheduler/rate-limiter.js";
import { busiestWindow } from "../helpers/busiest-window.js";

function bucketOf(rule: RateLimitRule): RateLimitBucket {
  return compileRateLimits([rule])[0]!.bucket;
}

describe("InProcessRateLimiter", () => {
  it("never lets more than `limit` slots fall in any window, whatever the arrival times", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 8 }),
        fc.integer({ min: 1, max: 500 }),
        fc.array(fc.integer({ min: 0, max: 300 }), { minLength: 1, maxLength: 60 }),
        (limit, windowMs, gaps) => {
          let now = 0;
          const limiter = new InProcessRateLimiter({ now: () => now });
          const bucket = bucketOf({ tools: "api.*", limit, windowMs });
          const slots: number[] = [];
          for (const gap of gaps) {
            now += gap;
            const reservation = limiter.reserve([bucket], Number.POSITIVE_INFINITY);
            expect(reservation.granted).toBe(true);
            expect(reservation.waitMs).toBeGreaterThanOrEqual(0);
            slots.push(now + reservation.waitMs);
          }
          expect(busiestWindow(slots, windowMs)).toBeLessThanOrEqual(limit);
          // Slots are handed out in arrival order.
          expect([...slots].sort((a, b) => a - b)).toEqual(slots);
        },
      ),
      { numRuns: 500 },
    );
  });

  it("spaces the slots of a bucket windowMs / limit apart, so a late start cannot crowd a window", () => {
    const limiter = new InProcessRateLimiter({ now: () => 1_000 });
    const bucket = bucketOf({ tools: "api.*", limit: 4, windowMs: 100 });
    const waits = Array.from({ length: 6 }, () => limiter.reserve([bucket], 10_000).waitMs);
    expect(waits).toEqual([0, 25, 50, 75, 100, 125]);
  });

  it("refuses a slot beyond maxWaitMs and reserves nothing, so the next caller gets that slot", () => {
    const limiter = new InProcessRateLimiter({ now: () => 0 });
    const bucket = bucketOf({ tools: "api.*", limit: 1, windowMs: 1_000 });
    expect(limiter.reserve([bucket], 0)).toEqual({ granted: true, waitMs: 0 });
    expect(limiter.reserve([bucket], 999)).toEqual({ granted: false, waitMs: 1_000 });
    expect(limiter.reserve([bucket], 1_000)).toEqual({ granted: true, waitMs: 1_000 });
  });

  it("keeps a call within every bucket that covers it, at one slot for all", () => {
    let now = 0;
    const limiter = new InProcessRateLimiter({ now: () => now });
    const perSecond = bucketOf({ tools: "api.*", limit: 2, windowMs: 1_000 });
    const perTenth = bucketOf({ tools: "api.search", limit: 1, windowMs: 100 });
    expect(limiter.reserve([perSecond, perTenth], 5_000).waitMs).toBe(0);
    // The per-second bucket spaces its calls 500 ms apart, the stricter of the two.
    expect(limiter.reserve([perSecond, perTenth], 5_000).waitMs).toBe(500);
    // A call in the narrow bucket alone waits only for that bucket's next slot, at 600.
    now = 150;
    expect(limiter.reserve([perTenth], 5_000).waitMs).toBe(450);
    expect(limiter.reserve([perSecond], 5_000).waitMs).toBe(850);
  });

  it("keeps separate budgets for separate rules", () => {
    const limiter = new InProcessRateLimiter({ now: () => 0 });
    const github = bucketOf({ tools: "github.*", limit: 1 });
    const slack = bucketOf({ tools: "slack.*", limit: 1 });
    expect(limiter.reserve([github], 0).granted).toBe(true);
    expect(limiter.reserve([slack], 0).granted).toBe(true);
    expect(limiter.reserve([github], 0).granted).toBe(false);
  });
});

describe("compileRateLimits", () => {
  it("derives the same bucket key from the same globs, so processes with one config share a budget", () => {
    const [first] = compileRateLimits([{ tools: ["github.*", "gitlab.*"], limit: 10 }]);
    const [second] = compileRateLimits([{ tools: ["github.*", "gitlab.*"], limit: 10 }]);
    expect(first!.bucket.key).toBe(second!.bucket.key);
    expect(first!.bucket).toMatchObject({
      limit: 10,
      windowMs: 1_000,
      label: '"github.*", "gitlab.*" (10 per 1000 ms)',
    });
  });

  it.each([
    [{ tools: [], limit: 1 }, "tools"],
    [{ tools: "", limit: 1 }, "tools"],
    [{ tools: "a.*", limit: 0 }, "limit"],
    [{ tools: "a.*", limit: 1.5 }, "limit"],
    [{ tools: "a.*", limit: Number.NaN }, "limit"],
    [{ tools: "a.*", limit: 1, windowMs: 0 }, "windowMs"],
    [{ tools: "a.*", limit: 1, windowMs: Number.POSITIVE_INFINITY }, "windowMs"],
  ] as const)("refuses %j with OPTION_INVALID naming %s", (rule, field) => {
    let thrown: unknown;
    try {
      compileRateLimits([rule as RateLimitRule]);
    } catch (error) {
      thrown = error;
    }
    expect(SwitchyardError.isInstance(thrown)).toBe(true);
    expect((thrown as SwitchyardError).code).toBe("OPTION_INVALID");
    expect((thrown as SwitchyardError).message).toContain(`scheduler.rateLimits[0].${field}`);
  });
});
