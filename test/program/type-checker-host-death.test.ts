import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { TypeChecker } from "../../src/program/type-checker.js";

const HOST = fileURLToPath(new URL("../helpers/checker-host.ts", import.meta.url));
const TSX = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;

/** Whether `pid` names a process that still runs (a zombie waiting to be reaped does not). */
function isRunning(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return !/^\d+ \(.*\) Z/.test(stat);
  } catch {
    return false;
  }
}

async function waitUntil(condition: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (condition()) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return condition();
}

/** Starts the host script and resolves with it and the id of its checker process. */
async function startHost(mode: "idle" | "busy"): Promise<{ host: ChildProcess; checkerPid: number }> {
  const host = spawn(process.execPath, ["--import", TSX, HOST, mode], { stdio: ["ignore", "pipe", "inherit"] });
  hosts.push(host);
  let output = "";
  host.stdout?.setEncoding("utf8");
  const line = await new Promise<string>((resolve, reject) => {
    host.stdout?.on("data", (chunk: string) => {
      output += chunk;
      if (output.includes("\n")) resolve(output.split("\n")[0] ?? "");
    });
    host.once("exit", (code) => reject(new Error(`host exited with ${code} before it started its checker`)));
  });
  const { checkerPid } = JSON.parse(line) as { checkerPid: number };
  return { host, checkerPid };
}

const hosts: ChildProcess[] = [];
const checkers: number[] = [];
afterEach(() => {
  for (const host of hosts.splice(0)) host.kill("SIGKILL");
  for (const pid of checkers.splice(0)) if (isRunning(pid)) process.kill(pid, "SIGKILL");
});

describe("TypeChecker's process when its host dies", () => {
  it("exits when its host is SIGKILLed while it is idle, leaving no orphan", async () => {
    const { host, checkerPid } = await startHost("idle");
    checkers.push(checkerPid);
    expect(isRunning(checkerPid)).toBe(true);
    host.kill("SIGKILL");
    expect(await waitUntil(() => !isRunning(checkerPid), 5_000)).toBe(true);
  }, 60_000);

  it("exits when its host is SIGKILLed in the middle of a long check, leaving no orphan", async () => {
    const { host, checkerPid } = await startHost("busy");
    checkers.push(checkerPid);
    expect(isRunning(checkerPid)).toBe(true);
    host.kill("SIGKILL");
    // The check would run for a long time: only the process's own watch on its parent ends it.
    expect(await waitUntil(() => !isRunning(checkerPid), 5_000)).toBe(true);
  }, 60_000);

  it("does not keep a host alive once its checks are done, and closes an idle checker to the end", async () => {
    const script = `import { TypeChecker } from ${JSON.stringify(new URL("../../src/program/type-checker.ts", import.meta.url).href)};
const checker = new TypeChecker();
// A check that waits behind a warm-up holds the host until it is answered; the warm-up alone does not.
void checker.warmUp("declare const y: string;", ["return y;", "return y.length;"]);
const diagnostics = await checker.check("const a: string = 1;", "declare const console: { log(...args: unknown[]): void };");
void checker.warmUp("declare const x: number;", ["return x;"]);
console.log(diagnostics.length);
await checker.close();
console.log("closed");`;
    const started = Date.now();
    const child = spawn(process.execPath, ["--import", TSX, "--input-type=module", "-e", script], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    hosts.push(child);
    let output = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
    expect(code).toBe(0);
    // Closing an idle checker waits for its process to exit: the host's loop does not end first.
    expect(output.trim().split("\n")).toEqual(["1", "closed"]);
    expect(Date.now() - started).toBeLessThan(30_000);
  }, 60_000);

  it("is never started by a checker that was only created and closed", async () => {
    const checker = new TypeChecker();
    await checker.close();
    expect(checker.stats.workerStarts).toBe(0);
  });
});
