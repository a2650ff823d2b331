// The scheduler's RateLimiter for a fleet: start slots handed out by one Redis for every worker
// process, so a limit of 10 per second holds for all of them together. Same algorithm as the
// in-process limiter (slots evenly spaced, `windowMs / limit` apart), run as one Lua script on
// Redis's own clock: a reservation is atomic across buckets and processes and costs one round
// trip, and a call then sleeps locally until its slot, with no polling and no thundering herd.
//
// Why not rate-limiter-flexible: its Redis limiter counts fixed windows of whole seconds (a burst
// of twice the limit fits across a window edge), and its queue of waiting callers lives in one
// process, without cancellation and with deadlines in whole seconds. A reservation expresses
// "wait until allowed, but never past this call's deadline" directly.

import type { Redis } from "ioredis";
import type { RateLimitBucket, RateLimiter, RateLimitReservation } from "../scheduler/rate-limiter.js";
import { connectRedis } from "./redis-connection.js";

// KEYS: the earliest next slot of each bucket (epoch ms). ARGV: the longest wait allowed (ms),
// then limit and windowMs per bucket. Returns { granted 0|1, wait ms }; nothing is reserved when
// the slot lies beyond the wait allowed.
const RESERVE_SCRIPT = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + tonumber(time[2]) / 1000
local slot = now
for i, key in ipairs(KEYS) do
  local next = tonumber(redis.call('GET', key))
  if next and next > slot then slot = next end
end
local wait = math.ceil(slot - now)
if wait > tonumber(ARGV[1]) then return { 0, wait } end
for i, key in ipairs(KEYS) do
  local interval = tonumber(ARGV[2 * i + 1]) / tonumber(ARGV[2 * i])
  redis.call('SET', key, string.format('%.3f', now + wait + interval), 'PX', math.ceil(wait + interval) + 1000)
end
return { 1, wait }
`;

/** Redis's largest exact integer in a Lua number is far beyond this; "no deadline" becomes ~30 years. */
const NO_DEADLINE_MS = 1e12;

export interface RedisRateLimiterOptions {
  /** `redis://host:port`; the limiter opens its own connection. */
  readonly redis: string;
  /** Prefix of the bucket keys. Default `switchyard:rate`: every fleet on this Redis with the same rule shares it. */
  readonly prefix?: string;
}

type ReserveCommand = (numberOfKeys: number, ...args: string[]) => Promise<[number, number]>;

/**
 * Connects to Redis and returns the fleet's limiter; pass it as `scheduler.rateLimiter`.
 * Throws FLEET_UNAVAILABLE when Redis cannot be reached. `close()` ends its connection.
 */
export async function createRedisRateLimiter(options: RedisRateLimiterOptions): Promise<RateLimiter> {
  const client = await connectRedis(options.redis);
  return new RedisRateLimiter(client, options.prefix ?? "switchyard:rate", true);
}

/** The limiter over a connection; `ownsClient` decides whether `close()` ends it. */
export class RedisRateLimiter implements RateLimiter {
  readonly #client: Redis;
  readonly #prefix: string;
  readonly #ownsClient: boolean;
  readonly #reserve: ReserveCommand;

  constructor(client: Redis, prefix: string, ownsClient = false) {
    this.#client = client;
    this.#prefix = prefix;
    this.#ownsClient = ownsClient;
    if (typeof (client as unknown as Record<string, unknown>)["switchyardReserveSlot"] !== "function") {
      client.defineCommand("switchyardReserveSlot", { lua: RESERVE_SCRIPT });
    }
    const command = (client as unknown as Record<string, ReserveCommand>)["switchyardReserveSlot"]!;
    this.#reserve = command.bind(client);
  }

  async reserve(buckets: readonly RateLimitBucket[], maxWaitMs: number): Promise<RateLimitReservation> {
    const args: string[] = [];
    for (const bucket of buckets) args.push(`${this.#prefix}:${bucket.key}`);
    args.push(String(Math.floor(Math.min(Math.max(maxWaitMs, 0), NO_DEADLINE_MS))));
    for (const bucket of buckets) args.push(String(bucket.limit), String(bucket.windowMs));
    const [granted, waitMs] = await this.#reserve(buckets.length, ...args);
    return { granted: granted === 1, waitMs: Math.max(0, waitMs) };
  }

  async close(): Promise<void> {
    if (this.#ownsClient) await this.#client.quit().catch(() => this.#client.disconnect());
  }
}
