// `switchyard run --durable` and `switchyard runs ...` in real child processes (bin/switchyard.js,
// Node with --no-node-snapshot and tsx): a run whose asks nobody answers pauses; `runs list` and
// `runs show` say what it waits for; `runs approve` and `runs deny` journal decisions; `runs
// resume` finishes it with the tools of a module. A hostile run id is a usage error.

import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import type { RunResult } from "../../src/contract.js";
import { REFUNDS } from "../durable/fixtures/shop-tools.js";

const BIN = fileURLToPath(new URL("../../bin/switchyard.js", import.meta.url));
const TOOLS = fileURLToPath(new URL("../durable/fixtures/shop-tools.ts", import.meta.url));
const work = mkdtempSync(join(tmpdir(), "runs-cli-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));
const env = { ...process.env, SWITCHYARD_RUNS_DIR: join(work, "runs"), SHOP_CALLS: join(work, "calls.log") };

function cli(args: readonly string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [BIN, ...args], { cwd: work, env, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.on("close", (code) => resolve({ code, stdout, stderr })));
}

describe("switchyard runs", () => {
  it("pauses a durable run, shows it, takes one approval and one denial, and resumes it", async () => {
    writeFileSync(join(work, "refunds.ts"), REFUNDS);
    const rules = [{ tools: "shop.refund", decision: "ask", reason: "refunds need a person" }];
    writeFileSync(join(work, "shop.config.json"), JSON.stringify({ tools: [TOOLS], permissions: { rules } }));
    const paused = await cli([
      "run",
      "refunds.ts",
      "--config",
      "shop.config.json",
      "--durable",
      "cli-refunds",
      "--json",
    ]);
    expect(paused.code, paused.stdout + paused.stderr).toBe(1);
    expect((JSON.parse(paused.stdout) as RunResult).error?.code).toBe("PAUSED");
    expect((JSON.parse(paused.stdout) as RunResult).stats.typeCheckedBy).toBe("checker");

    const listed = await cli(["runs", "list"]);
    expect(listed.stdout).toMatch(/^cli-refunds {2}paused {2}2 calls .* waits for call\(s\) 3, 4$/m);
    const shown = await cli(["runs", "show", "cli-refunds"]);
    expect(shown.stdout).toContain('call 4: shop.refund {"id":2} (refunds need a person)');

    expect((await cli(["runs", "approve", "cli-refunds", "3"])).code).toBe(0);
    expect((await cli(["runs", "deny", "cli-refunds", "4", "--reason", "refunded by hand"])).code).toBe(0);
    const wrong = await cli(["runs", "approve", "cli-refunds", "9"]);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain("does not wait for call 9; it waits for call(s) 3, 4");

    const resumed = await cli(["runs", "resume", "cli-refunds", "--config", "shop.config.json", "--json"]);
    expect(resumed.code, resumed.stderr).toBe(0);
    const result = JSON.parse(resumed.stdout) as RunResult;
    expect(result.output).toMatchObject({ a: { refunded: 1 }, b: { caught: "PERMISSION_DENIED" } });
    // The program, tools and checker are those of the run's first check: the resume takes it from the journal.
    expect(result.stats.typeCheckedBy).toBe("journal");
    expect(readFileSync(env.SHOP_CALLS, "utf8").trim().split("\n")).toEqual([
      "order cli-refunds:1",
      "order cli-refunds:2",
      "refund cli-refunds:3",
    ]);
    expect((await cli(["runs", "show", "cli-refunds"])).stdout).toMatch(/^cli-refunds {2}ended ok {2}4 calls/);
  }, 180_000);

  it("shows a run as a readable summary whose journaled error cannot write to the terminal, and its records with --json", async () => {
    const program = 'await tools.shop.order({ id: 1 }); throw new Error("bad\\u001b[2J\\nline");';
    writeFileSync(join(work, "fails.ts"), program);
    writeFileSync(join(work, "plain.config.json"), JSON.stringify({ tools: [TOOLS] }));
    const failed = await cli(["run", "fails.ts", "--config", "plain.config.json", "--durable", "cli-fails"]);
    expect(failed.code, failed.stderr).toBe(1);
    const shown = await cli(["runs", "show", "cli-fails"]);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toMatch(/^cli-fails {2}ended RUNTIME_ERROR {2}1 calls/);
    expect(shown.stdout).toMatch(/^ {2}program: sha256:[0-9a-f]{32}$/m);
    expect(shown.stdout).toContain("  calls: 1 made live, none replayed");
    expect(shown.stdout).toMatch(/^ {2}last error: RUNTIME_ERROR: Error: bad \[2J line/m);
    // Neither the escape nor the newline of the program's message reaches the terminal.
    expect(shown.stdout).not.toContain("\u001b");
    const records = JSON.parse((await cli(["runs", "show", "cli-fails", "--json"])).stdout) as {
      header: { source: string };
      entries: { t: string }[];
    };
    expect(records.header.source).toBe(program);
    expect(records.entries.map((entry) => entry.t)).toEqual(["x", "end"]);
  }, 60_000);

  // Before, `runs list` left a journal it could not read out without a word.
  it("lists a damaged journal as damaged, on one line with its reason", async () => {
    writeFileSync(join(work, "runs", "cli-broken.jsonl"), '{"t":"run","v":1}\n{not json\n');
    const listed = await cli(["runs", "list"]);
    expect(listed.code, listed.stderr).toBe(0);
    const line = listed.stdout.split("\n").find((text) => text.startsWith("cli-broken"));
    expect(line).toMatch(/^cli-broken {2}damaged {2}\S.*$/);
  }, 30_000);

  it("refuses a run id that would leave the folder, before touching a file", async () => {
    const result = await cli(["runs", "show", "../../etc/passwd"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/is not a run id/);
    expect(result.stderr).not.toMatch(/at .*\.ts/);
  }, 30_000);
});
