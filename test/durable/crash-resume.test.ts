// The must-show of durable runs, with real child processes: a 2,000-call cursor sweep against a
// counting API, SIGKILLed at five random points and resumed each time with the same run id. The
// output equals an uninterrupted run's, the API saw at most 2,000 + 5 calls, and every call made
// twice carried the same idempotency key (and input) both times.

import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import type { RunResult } from "../../src/contract.js";

const CHILD = fileURLToPath(new URL("./fixtures/sweep-child.ts", import.meta.url));
const PAGES = 2_000;
const work = mkdtempSync(join(tmpdir(), "durable-crash-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function lines(file: string): string[] {
  return existsSync(file)
    ? readFileSync(file, "utf8")
        .split("\n")
        .filter((line) => line !== "")
    : [];
}

/** Starts the child; resolves when it exits, or kills it with SIGKILL once the API log has `killAt` lines. */
function runChild(runId: string, apiLog: string, resultFile: string, killAt?: number): Promise<string | null> {
  const child = spawn(
    process.execPath,
    [
      "--no-node-snapshot",
      "--import",
      import.meta.resolve("tsx"),
      CHILD,
      join(work, "runs"),
      apiLog,
      runId,
      resultFile,
    ],
    { stdio: ["ignore", "ignore", "inherit"] },
  );
  return new Promise((resolve) => {
    let poll: NodeJS.Timeout | undefined;
    if (killAt !== undefined) {
      poll = setInterval(() => {
        if (lines(apiLog).length >= killAt) child.kill("SIGKILL");
      }, 3);
    }
    child.on("exit", (_code, signal) => {
      if (poll !== undefined) clearInterval(poll);
      resolve(signal);
    });
  });
}

describe("a durable sweep killed five times", () => {
  it("resumes to an uninterrupted run's output, repeating at most the call in flight at each kill, with its key", async () => {
    const straightLog = join(work, "straight.log");
    const straightResult = join(work, "straight.json");
    expect(await runChild("straight", straightLog, straightResult)).toBeNull();
    const straight = JSON.parse(readFileSync(straightResult, "utf8")) as RunResult;
    expect(straight.ok, straight.error?.message).toBe(true);
    expect(lines(straightLog)).toHaveLength(PAGES);

    const apiLog = join(work, "killed.log");
    const resultFile = join(work, "killed.json");
    // Five distinct kill points spread over the sweep, each at a random place in its fifth.
    const killPoints = [0, 1, 2, 3, 4].map((fifth) => Math.floor(fifth * 380 + 40 + Math.random() * 300));
    let kills = 0;
    for (const killAt of killPoints) {
      const signal = await runChild("killed", apiLog, resultFile, killAt);
      if (signal === "SIGKILL") kills++;
    }
    expect(kills).toBe(5);
    expect(existsSync(resultFile)).toBe(false);
    expect(await runChild("killed", apiLog, resultFile)).toBeNull();
    const resumed = JSON.parse(readFileSync(resultFile, "utf8")) as RunResult;
    expect(resumed.ok, resumed.error?.message).toBe(true);
    expect(resumed.output).toEqual(straight.output);

    const seen = lines(apiLog);
    expect(seen.length).toBeLessThanOrEqual(PAGES + 5);
    const cursorsByKey = new Map<string, Set<string>>();
    for (const line of seen) {
      const [key, cursor] = line.split(" ") as [string, string];
      cursorsByKey.set(key, (cursorsByKey.get(key) ?? new Set()).add(cursor));
    }
    expect(cursorsByKey.size).toBe(PAGES);
    // A key repeated is the same call tried again: the same position, the same input.
    for (const [key, cursors] of cursorsByKey) expect(cursors.size, key).toBe(1);
    expect([...cursorsByKey.keys()].every((key) => /^killed:\d+$/.test(key))).toBe(true);
    // The last run replayed what the others journaled and made only the rest live.
    const replayed = resumed.calls.filter((call) => call.replayed === true).length;
    expect(replayed).toBeGreaterThanOrEqual(killPoints[4]! - 5);
    expect(resumed.calls).toHaveLength(PAGES);
  }, 120_000);
});
