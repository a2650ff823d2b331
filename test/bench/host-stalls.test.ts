// bench:host-stalls must fail when a row misses its limit (it printed MISS and exited 0), print
// each row's margin, and hold its lag rows to limits measured in the same run (the target
// stretched by the thread's slowdown, plus the idle lag), so a loaded machine does not flake it.

import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { exitCodeOf, formatVerdict, judgeLag, judgeTiming } from "../../bench/stall-verdict.js";

const BENCH = fileURLToPath(new URL("../../bench/host-stalls.ts", import.meta.url));

describe("host-stalls verdicts", () => {
  it("holds a lag row to the target times the slowdown plus the idle lag, and prints the margin", () => {
    const idle = judgeLag(40, 50, 5, 1);
    expect(idle).toMatchObject({ limitMs: 55, marginMs: 15, pass: true });
    expect(formatVerdict(idle)).toBe("40.0 ms, limit 55.0 ms (50 × 1.0 slowdown + 5.0 idle), margin 15.0 ms PASS");
    // The same block on a machine where this thread gets a quarter of a core.
    expect(judgeLag(190, 50, 5, 4)).toMatchObject({ limitMs: 205, pass: true });
    const miss = judgeLag(60, 50, 5, 1);
    expect(miss).toMatchObject({ marginMs: -5, pass: false });
    expect(formatVerdict(miss)).toMatch(/margin -5\.0 ms MISS$/);
    // A slowdown under 1 (other threads' CPU counted) never tightens the limit.
    expect(judgeLag(50, 50, 0, 0.5).pass).toBe(true);
  });

  it("holds a timing row to its least round, and exits 1 when any row missed or none ran", () => {
    expect(judgeTiming([30, 12, 25], 20)).toMatchObject({ measuredMs: 12, pass: true });
    expect(judgeTiming([30, 22], 20).pass).toBe(false);
    expect(judgeTiming([Number.NaN], 20).pass).toBe(false);
    expect(exitCodeOf([judgeLag(1, 50, 0), judgeTiming([1], 20)])).toBe(0);
    expect(exitCodeOf([judgeLag(1, 50, 0), judgeLag(99, 50, 0)])).toBe(1);
    expect(exitCodeOf([])).toBe(1);
  });

  it("exits non-zero with MISS and the margin when a row misses, for real", async () => {
    const child = spawn(
      process.execPath,
      ["--no-node-snapshot", "--import", "tsx", BENCH, "--rows", "100 KB command line", "--target-ms", "-10000"],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk));
    const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
    expect(output).toMatch(/100 KB command line.*: lag .*margin -\d+\.\d ms MISS/);
    expect(output).toMatch(/decided in CPU .* margin \d+\.\d ms PASS/);
    expect(output).toMatch(/1 MISSED/);
    expect(code).toBe(1);
  }, 120_000);
});
