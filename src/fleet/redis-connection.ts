// Redis connections of the fleet, through ioredis (an optional peer, loaded on first use, never
// by the package's root import). Every connection is checked at start: a Redis that cannot be
// reached is a FLEET_UNAVAILABLE error naming the address, not a hang or a stream of retries.

import type { Redis } from "ioredis";
import { SwitchyardError, messageOf } from "../errors.js";
import { importOptional } from "../optional-dependency.js";

/** Where a fleet lives: its Redis, and the queue its workers and submitters share. */
export interface FleetOptions {
  /** `redis://host:port[/db]` (or `rediss://` for TLS), with `user:password@` when needed. */
  readonly redis: string;
  /** The BullMQ queue of program jobs. Default `switchyard`; a fleet's workers and submitters use one name. */
  readonly queue?: string;
}

export const DEFAULT_QUEUE = "switchyard";
const CONNECT_TIMEOUT_MS = 5_000;

/** The queue name of `options`, checked: letters, digits, `-` and `_` (BullMQ reserves `:`). */
export function queueNameOf(options: FleetOptions): string {
  const queue = options.queue ?? DEFAULT_QUEUE;
  if (!/^[A-Za-z0-9_-]{1,100}$/.test(queue)) {
    throw new SwitchyardError(
      "OPTION_INVALID",
      `The queue name ${JSON.stringify(queue)} is not valid: use letters, digits, - and _ (at most 100).`,
    );
  }
  return queue;
}

/** How a connection's commands meet a Redis that goes away after the connection was made. */
export interface RedisConnectionOptions {
  /**
   * "wait" (default): a command waits through reconnects however long they take, as BullMQ's
   * long-lived connections need. "fail": for a command line that does one thing and exits, a
   * command fails after one reconnect attempt or 5 s without an answer (`redisStoppedAnswering`
   * says so), so a Redis that dies or freezes mid-command never leaves the command hanging.
   */
  readonly whenRedisGoesAway?: "wait" | "fail";
}

/**
 * Opens a connection to `url` and waits until Redis answers. Commands wait through a reconnect
 * (BullMQ needs `maxRetriesPerRequest: null`) unless `whenRedisGoesAway` is "fail". Throws
 * `OPTION_INVALID` for a malformed URL and `FLEET_UNAVAILABLE` when Redis does not answer within 5 s.
 */
export async function connectRedis(url: string, options: RedisConnectionOptions = {}): Promise<Redis> {
  if (!/^rediss?:\/\/[^/\s]+/.test(url)) {
    throw new SwitchyardError(
      "OPTION_INVALID",
      `The Redis address ${JSON.stringify(url)} is not a redis:// URL; give one like redis://127.0.0.1:6379.`,
    );
  }
  const { Redis } = await importOptional<typeof import("ioredis")>("ioredis");
  const failFast = options.whenRedisGoesAway === "fail";
  const client = new Redis(url, {
    lazyConnect: true,
    maxRetriesPerRequest: failFast ? 1 : null,
    connectTimeout: CONNECT_TIMEOUT_MS,
    ...(failFast ? { commandTimeout: CONNECT_TIMEOUT_MS } : {}),
    // Failing fast, the second failed reconnect ends the connection: its queued commands fail at once.
    retryStrategy: (times) => (failFast && times > 1 ? null : Math.min(times * 200, 2_000)),
  });
  // ioredis reports connection trouble as events; without a listener each one is printed.
  let lastError: unknown;
  client.on("error", (error: unknown) => {
    lastError = error;
  });
  try {
    await withTimeout(client.connect(), CONNECT_TIMEOUT_MS);
    await withTimeout(client.ping(), CONNECT_TIMEOUT_MS);
  } catch (error) {
    client.disconnect();
    throw new SwitchyardError(
      "FLEET_UNAVAILABLE",
      `Redis at ${redactUrl(url)} cannot be reached (${messageOf(lastError ?? error)}); ` +
        "start it (redis-server) or check the address.",
      { redis: redactUrl(url) },
    );
  }
  return client;
}

/**
 * Whether `error`, thrown by a command on a connection made with `whenRedisGoesAway: "fail"`, says
 * that Redis went away or stopped answering (rather than refusing the command): the connection is
 * no longer ready, or the command timed out.
 */
export function redisStoppedAnswering(error: unknown, client: Redis): boolean {
  if (client.status !== "ready") return true;
  return (
    error instanceof Error && (error.message === "Command timed out" || error.name === "MaxRetriesPerRequestError")
  );
}

/** `url` without its password, for messages. */
export function redactUrl(url: string): string {
  return url.replace(/\/\/([^:@/]*):[^@/]*@/, "//$1:***@");
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
