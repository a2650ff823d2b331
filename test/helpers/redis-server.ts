// A real Redis for tests: Debian's redis-server started on a free loopback port, without
// persistence, stopped by the test. Never a mock (.ci/run installs the package).

import { type ChildProcess, spawn } from "node:child_process";
import { createServer } from "node:net";
import type { Redis } from "ioredis";
import { afterAll, beforeAll } from "vitest";
import { connectRedis } from "../../src/fleet/redis-connection.js";

export interface TestRedis {
  readonly port: number;
  /** `redis://127.0.0.1:<port>` */
  readonly url: string;
  /** The server's process id (a test may SIGSTOP it to freeze Redis mid-command). */
  readonly pid: number;
  /** Stops the server (SIGTERM, then SIGKILL after 2 s) and waits for it to exit. */
  stop(): Promise<void>;
}

/** A Redis server and a client of it, shared by the tests of one file. */
export interface FileRedis {
  readonly url: string;
  readonly client: Redis;
}

/**
 * Starts a Redis and connects a client before the file's tests, and quits and stops both after
 * them; call it at the top of the file. Reading `url` or `client` before the start throws.
 */
export function useRedisForFile(): FileRedis {
  let server: TestRedis | undefined;
  let client: Redis | undefined;
  beforeAll(async () => {
    server = await startRedis();
    client = await connectRedis(server.url);
  });
  afterAll(async () => {
    await client?.quit();
    await server?.stop();
  });
  const started = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error("The file's Redis is read before its beforeAll started it.");
    return value;
  };
  return {
    get url() {
      return started(server).url;
    },
    get client() {
      return started(client);
    },
  };
}

/** A port nothing listens on right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address !== null ? address.port : 0));
    });
  });
}

/** Starts redis-server and resolves once it accepts connections. */
export async function startRedis(): Promise<TestRedis> {
  const port = await freePort();
  const child = spawn(
    "redis-server",
    ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--loglevel", "warning"],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  await whenReady(child, port);
  return { port, url: `redis://127.0.0.1:${port}`, pid: child.pid ?? 0, stop: () => stopProcess(child) };
}

function whenReady(child: ChildProcess, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    let output = "";
    const collect = (chunk: Buffer): void => {
      output += chunk.toString();
    };
    child.stdout?.on("data", collect);
    child.stderr?.on("data", collect);
    const failed = (reason: string): void => {
      clearInterval(poll);
      reject(new Error(`redis-server on port ${port} did not start (${reason}): ${output.slice(-500)}`));
    };
    child.once("error", (error) => failed(error.message));
    child.once("exit", (code) => failed(`exited with ${code}`));
    const started = Date.now();
    const poll = setInterval(async () => {
      if (Date.now() - started > 10_000) failed("no answer within 10 s");
      if (await answersPing(port)) {
        clearInterval(poll);
        child.removeAllListeners("exit");
        resolve();
      }
    }, 50);
  });
}

function answersPing(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    import("node:net").then(({ connect }) => {
      const socket = connect(port, "127.0.0.1");
      socket.setTimeout(500);
      socket.once("connect", () => socket.write("PING\r\n"));
      socket.once("data", (data) => {
        socket.destroy();
        resolve(data.toString().startsWith("+PONG"));
      });
      socket.once("error", () => resolve(false));
      socket.once("timeout", () => {
        socket.destroy();
        resolve(false);
      });
    });
  });
}

/** Sends SIGTERM, then SIGKILL after `graceMs`, and resolves when the process has exited. */
export function stopProcess(child: ChildProcess, graceMs = 2_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill("SIGKILL"), graceMs);
    child.once("exit", () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill("SIGTERM");
  });
}
