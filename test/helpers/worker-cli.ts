// `switchyard worker` as a user starts it, for the fleet's end-to-end tests: a child process of the
// built CLI against a test Redis, resolved once its log says it takes jobs.

import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll } from "vitest";
import { tempFolder } from "./mcp-servers.js";
import { startRedis, stopProcess, type TestRedis } from "./redis-server.js";

const BIN = fileURLToPath(new URL("../../bin/switchyard.js", import.meta.url));

export interface WorkerCliOptions {
  readonly config: string;
  readonly redisUrl: string;
  readonly queue: string;
  readonly concurrency: number;
  readonly lockMs: number;
  /** Added to the environment (the fixture tools read their output file from it). */
  readonly env: Readonly<Record<string, string>>;
  readonly extraArgs?: readonly string[] | undefined;
}

export interface WorkerCli {
  readonly child: ChildProcess;
  /** The worker's name in results and logs, `<host>:<pid>:<random>`. */
  readonly name: string;
  readonly pid: number;
  /** Its stderr so far. */
  log(): string;
}

/**
 * Starts `switchyard worker` and resolves once it takes jobs; rejects with its log if it exits
 * first. The child is pushed on `started` at once, so the file's afterAll stops it either way.
 */
export function startWorkerCli(options: WorkerCliOptions, started: ChildProcess[]): Promise<WorkerCli> {
  const child = spawn(
    process.execPath,
    [
      BIN,
      "worker",
      "--config",
      options.config,
      "--redis",
      options.redisUrl,
      "--queue",
      options.queue,
      "--concurrency",
      String(options.concurrency),
      "--lock-ms",
      String(options.lockMs),
      ...(options.extraArgs ?? []),
    ],
    { env: { ...process.env, ...options.env }, stdio: ["ignore", "ignore", "pipe"] },
  );
  started.push(child);
  let log = "";
  return new Promise((resolve, reject) => {
    child.stderr?.on("data", (chunk: Buffer) => {
      log += chunk.toString();
      const taking = /switchyard worker: (\S+:(\d+):\w+) taking jobs/.exec(log);
      if (taking !== null) resolve({ child, name: taking[1]!, pid: Number(taking[2]), log: () => log });
    });
    child.once("exit", (code) => reject(new Error(`the worker exited with ${code} before taking jobs:\n${log}`)));
  });
}

/** What a fleet end-to-end test file shares: a temp folder, a Redis, and the workers it started. */
export interface FleetForFile {
  readonly temp: { readonly path: string; remove(): void };
  /** Pass to `startWorkerCli`: every worker on it is stopped after the file's tests. */
  readonly workers: ChildProcess[];
  /** The file's Redis; reading `url` before its beforeAll started it throws. */
  readonly redis: { readonly url: string };
}

/**
 * Starts a Redis before the file's tests and, after them, stops every worker started, then Redis,
 * and removes the temp folder; call it at the top of the file.
 */
export function useFleetForFile(prefix: string): FleetForFile {
  const temp = tempFolder(prefix);
  const workers: ChildProcess[] = [];
  let server: TestRedis | undefined;
  beforeAll(async () => {
    server = await startRedis();
  });
  afterAll(async () => {
    await Promise.all(workers.map((worker) => stopProcess(worker)));
    await server?.stop();
    temp.remove();
  });
  return {
    temp,
    workers,
    redis: {
      get url() {
        if (server === undefined) throw new Error("The file's Redis is read before its beforeAll started it.");
        return server.url;
      },
    },
  };
}
