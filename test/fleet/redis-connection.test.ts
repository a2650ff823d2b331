// How a connection's commands meet a Redis that goes away after the connection was made, on a real
// redis-server: the fleet's long-lived connections wait through an outage (BullMQ needs it); a
// command line's connection ("fail") gives up within seconds, so `switchyard runs --redis` never
// hangs on a Redis that was killed or frozen mid-command.

import { afterEach, describe, expect, it } from "vitest";
import type { Redis } from "ioredis";
import { connectRedis, redisStoppedAnswering } from "../../src/fleet/redis-connection.js";
import { startRedis, type TestRedis } from "../helpers/redis-server.js";

let server: TestRedis | undefined;
let client: Redis | undefined;
afterEach(async () => {
  if (server !== undefined) {
    try {
      process.kill(server.pid, "SIGCONT");
    } catch {
      // Already gone.
    }
    await server.stop();
  }
  client?.disconnect();
  server = undefined;
  client = undefined;
});

async function settledWithin(promise: Promise<unknown>): Promise<{ error: unknown; ms: number }> {
  const started = performance.now();
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  return { error, ms: performance.now() - started };
}

describe("a connection made for one command (whenRedisGoesAway: fail)", () => {
  it("fails a command at once when Redis is killed after the connection was made, and says Redis went away", async () => {
    server = await startRedis();
    client = await connectRedis(server.url, { whenRedisGoesAway: "fail" });
    expect(await client.ping()).toBe("PONG");
    process.kill(server.pid, "SIGKILL");
    const { error, ms } = await settledWithin(client.get("anything"));
    expect(error).toBeInstanceOf(Error);
    expect(redisStoppedAnswering(error, client)).toBe(true);
    expect(ms).toBeLessThan(4_000);
  });

  it("fails a command within its 5 s when Redis freezes mid-command (SIGSTOP), instead of hanging", async () => {
    server = await startRedis();
    client = await connectRedis(server.url, { whenRedisGoesAway: "fail" });
    process.kill(server.pid, "SIGSTOP");
    const { error, ms } = await settledWithin(client.get("anything"));
    expect((error as Error).message).toBe("Command timed out");
    expect(redisStoppedAnswering(error, client)).toBe(true);
    expect(ms).toBeGreaterThan(4_000);
    expect(ms).toBeLessThan(9_000);
  }, 15_000);

  it("does not take Redis's refusal of a command for Redis going away", async () => {
    server = await startRedis();
    client = await connectRedis(server.url, { whenRedisGoesAway: "fail" });
    await client.set("text", "not a list");
    const { error } = await settledWithin(client.lpush("text", "x"));
    expect((error as Error).message).toMatch(/WRONGTYPE/);
    expect(redisStoppedAnswering(error, client)).toBe(false);
  });
});

describe("a fleet connection (the default)", () => {
  it("waits through a Redis frozen for 6 s and answers once it is back", async () => {
    server = await startRedis();
    client = await connectRedis(server.url);
    process.kill(server.pid, "SIGSTOP");
    const answer = client.ping();
    await new Promise((resolve) => setTimeout(resolve, 6_000));
    process.kill(server.pid, "SIGCONT");
    expect(await answer).toBe("PONG");
  }, 20_000);
});
