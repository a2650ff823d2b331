// The fleet's limiter on a real Redis: two limiters on separate connections (two workers, in
// effect) share one budget, hand out slots in arrival order and refuse slots past the deadline.

import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SwitchyardError } from "../../src/errors.js";
import { connectRedis } from "../../src/fleet/redis-connection.js";
import { createRedisRateLimiter, RedisRateLimiter } from "../../src/fleet/redis-rate-limiter.js";
import { compileRateLimits } from "../../src/scheduler/rate-limiter.js";
import { startRedis, type TestRedis } from "../helpers/redis-server.js";

let redis: TestRedis;
const clients: Redis[] = [];
beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => {
  await Promise.all(clients.map((client) => client.quit()));
  await redis?.stop();
});

async function limiter(prefix: string): Promise<RedisRateLimiter> {
  const client = await connectRedis(redis.url);
  clients.push(client);
  return new RedisRateLimiter(client, prefix);
}

describe("RedisRateLimiter", () => {
  it("shares one budget between limiters on separate connections: no window holds more than the limit", async () => {
    const [first, second] = [await limiter("t1"), await limiter("t1")];
    const bucket = compileRateLimits([{ tools: "api.*", limit: 5, windowMs: 200 }])[0]!.bucket;
    // Slots as epoch ms: the moment each answer arrived plus its wait (a loopback round trip off).
    const slots = await Promise.all(
      Array.from({ length: 20 }, (_, index) =>
        (index % 2 === 0 ? first : second).reserve([bucket], 10_000).then((reservation) => {
          expect(reservation.granted).toBe(true);
          return Date.now() + reservation.waitMs;
        }),
      ),
    );
    slots.sort((a, b) => a - b);
    // 20 calls at 5 per 200 ms: no window of 200 ms holds a sixth, so any six slots span 200 ms
    // (less 10 ms: each slot is read on this host's clock when its answer arrives, with its jitter),
    // and neighbours are spaced about 40 ms apart, never bunched.
    for (let index = 5; index < slots.length; index++) {
      expect(slots[index]! - slots[index - 5]!).toBeGreaterThanOrEqual(200 - 10);
    }
    for (let index = 1; index < slots.length; index++) {
      expect(slots[index]! - slots[index - 1]!).toBeGreaterThanOrEqual(40 - 15);
    }
    expect(slots.at(-1)! - slots[0]!).toBeGreaterThanOrEqual(19 * 40 - 20);
  });

  it("refuses a slot past maxWaitMs and reserves nothing for it", async () => {
    const shared = await limiter("t2");
    const bucket = compileRateLimits([{ tools: "api.*", limit: 1, windowMs: 5_000 }])[0]!.bucket;
    expect((await shared.reserve([bucket], 0)).granted).toBe(true);
    const refused = await shared.reserve([bucket], 1_000);
    expect(refused.granted).toBe(false);
    expect(refused.waitMs).toBeGreaterThan(4_000);
    const next = await shared.reserve([bucket], 10_000);
    expect(next.granted).toBe(true);
    expect(next.waitMs).toBeGreaterThan(4_000);
    expect(next.waitMs).toBeLessThanOrEqual(5_000);
  });

  it("keeps a call within every bucket at once, atomically", async () => {
    const shared = await limiter("t3");
    const [wide, narrow] = compileRateLimits([
      { tools: "api.*", limit: 10, windowMs: 1_000 },
      { tools: "api.search", limit: 1, windowMs: 100 },
    ]).map((rule) => rule.bucket);
    const waits = [];
    // Since the first reservation was sent, as the host saw it: Redis decided each later one within it.
    const since: number[] = [];
    const started = performance.now();
    for (let index = 0; index < 3; index++) {
      waits.push((await shared.reserve([wide!, narrow!], 5_000)).waitMs);
      since.push(performance.now() - started);
    }
    // Each bucket spaces its calls 100 ms apart (10 per 1 000 ms and 1 per 100 ms alike): the n-th
    // slot lies n × 100 ms after the first, so its wait is that less the time Redis's clock moved on
    // between the reservations (at most what the host measured; 1 ms for Redis's rounding up).
    expect(waits[0]).toBe(0);
    expect(waits[1]).toBeGreaterThanOrEqual(100 - since[1]! - 1);
    expect(waits[2]).toBeGreaterThanOrEqual(200 - since[2]! - 1);
    const [other] = compileRateLimits([{ tools: "api.*", limit: 1, windowMs: 300 }]).map((rule) => rule.bucket);
    expect((await shared.reserve([wide!, other!], 5_000)).waitMs).toBeGreaterThanOrEqual(250);
  });

  it("fails to start with FLEET_UNAVAILABLE, naming the address, when Redis is not there", async () => {
    const error = await createRedisRateLimiter({ redis: "redis://127.0.0.1:1" }).catch((caught: unknown) => caught);
    expect(SwitchyardError.isInstance(error)).toBe(true);
    expect((error as SwitchyardError).code).toBe("FLEET_UNAVAILABLE");
    expect((error as SwitchyardError).message).toContain("redis://127.0.0.1:1");
  });

  it("refuses an address that is not a redis:// URL", async () => {
    await expect(createRedisRateLimiter({ redis: "localhost:6379" })).rejects.toThrow(/not a redis:\/\/ URL/);
  });
});
