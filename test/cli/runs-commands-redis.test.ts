// `switchyard runs --redis` in real child processes against a real Redis: a fleet's paused run
// (journaled under the queue's prefix, as the workers journal it) is listed, shown, approved, denied
// and resumed from the command line. The hostile sides: a malformed or unreachable Redis, both
// stores at once, run ids and positions that are not ones, and two people deciding one call at once.

import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import type { RunResult } from "../../src/contract.js";
import { readBatchResults } from "../../src/fleet/batch-results.js";
import { fleetRunJournal } from "../../src/fleet/fleet-run-journal.js";
import { submitBatch } from "../../src/fleet/submit-batch.js";
import { watchBatch } from "../../src/fleet/watch-batch.js";
import { Switchyard } from "../../src/switchyard.js";
import { REFUNDS, shopPermissions, shopTools } from "../durable/fixtures/shop-tools.js";
import { freePort, useRedisForFile } from "../helpers/redis-server.js";
import { startShopWorker } from "../fleet/fixtures/shop-worker.js";

const BIN = fileURLToPath(new URL("../../bin/switchyard.js", import.meta.url));
const TOOLS = fileURLToPath(new URL("../durable/fixtures/shop-tools.ts", import.meta.url));
const redis = useRedisForFile();
const work = mkdtempSync(join(tmpdir(), "runs-cli-redis-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));
const callsFile = join(work, "calls.log");
// No folder store is meant: one under `work` stays empty, so a command that read it would find nothing.
const env = { ...process.env, SWITCHYARD_RUNS_DIR: join(work, "runs"), SHOP_CALLS: callsFile };

function cli(args: readonly string[], extraEnv: Record<string, string> = {}) {
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd: work,
    env: { ...env, ...extraEnv },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.on("close", (code) => resolve({ code, stdout, stderr })),
  );
}

/** A run of REFUNDS paused on both refunds, journaled in the fleet store of queue `queue`. */
async function pauseInRedis(queue: string, id: string): Promise<void> {
  process.env["SHOP_CALLS"] = callsFile;
  const store = fleetRunJournal(redis.client, queue);
  const yard = new Switchyard({ tools: shopTools, permissions: shopPermissions, typeCheck: "off", runJournal: store });
  try {
    const paused = await yard.run(REFUNDS, { durable: { id } });
    expect(paused.error?.code).toBe("PAUSED");
  } finally {
    await yard.close();
  }
}

function decisionsIn(queue: string, id: string) {
  return redis.client
    .lrange(fleetRunJournal(redis.client, queue).keysOf(id)[0], 0, -1)
    .then((lines) => lines.map((line) => JSON.parse(line) as { t: string }).filter((entry) => entry.t === "decision"));
}

describe("switchyard runs --redis", () => {
  it("lists, shows, approves, denies and resumes a fleet's paused run held in Redis", async () => {
    await pauseInRedis("orders", "job-7-abc");
    const where = ["--redis", redis.url, "--queue", "orders"];
    const listed = await cli(["runs", "list", ...where]);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toMatch(/^job-7-abc {2}paused {2}2 calls .* waits for call\(s\) 3, 4$/m);
    // The folder store knows nothing of it: the run is read from Redis, not a file.
    expect((await cli(["runs", "list"])).stdout.trim()).toBe("no durable runs");
    // Without a URL, --redis takes the fleet commands' $SWITCHYARD_REDIS.
    const shown = await cli(["runs", "show", "job-7-abc", "--redis", "--queue", "orders"], {
      SWITCHYARD_REDIS: redis.url,
    });
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain('call 4: shop.refund {"id":2} (refunds need a person)');
    // Another queue is another fleet's store.
    const elsewhere = await cli(["runs", "show", "job-7-abc", "--redis", redis.url, "--queue", "other"]);
    expect(elsewhere.code).toBe(2);
    expect(elsewhere.stderr).toMatch(
      /^switchyard: no durable run job-7-abc in the Redis at redis:\/\/127\.0\.0\.1:\d+ \(queue other\)\.$/m,
    );

    expect((await cli(["runs", "approve", "job-7-abc", "3", ...where])).code).toBe(0);
    expect((await cli(["runs", "deny", "job-7-abc", "4", "--reason", "refunded by hand", ...where])).code).toBe(0);
    writeFileSync(join(work, "shop.config.json"), JSON.stringify({ tools: [TOOLS], permissions: shopPermissions }));
    const resumed = await cli(["runs", "resume", "job-7-abc", "--config", "shop.config.json", "--json", ...where]);
    expect(resumed.code, resumed.stderr).toBe(0);
    const result = JSON.parse(resumed.stdout) as RunResult;
    expect(result.output).toMatchObject({ a: { refunded: 1 }, b: { caught: "PERMISSION_DENIED" } });
    // No job of the queue started it: no batch is touched or named.
    expect(resumed.stderr).toBe("");
    // Each call once over both processes: the two reads replayed, the approved refund made live.
    expect(readFileSync(callsFile, "utf8").trim().split("\n")).toEqual([
      "order job-7-abc:1",
      "order job-7-abc:2",
      "refund job-7-abc:3",
    ]);
    expect((await cli(["runs", "show", "job-7-abc", ...where])).stdout).toMatch(/^job-7-abc {2}ended ok {2}4 calls/);
  }, 120_000);

  it("says in one line that a Redis address is malformed or unreachable, or that two stores were named", async () => {
    const malformed = await cli(["runs", "list", "--redis", "http://127.0.0.1:6379"]);
    expect(malformed.code).toBe(2);
    expect(malformed.stderr).toMatch(
      /^switchyard: The Redis address "http:\/\/127\.0\.0\.1:6379" is not a redis:\/\/ URL/,
    );
    const port = await freePort();
    const unreachable = await cli(["runs", "show", "some-run", "--redis", `redis://user:secret@127.0.0.1:${port}`]);
    expect(unreachable.code).toBe(2);
    expect(unreachable.stderr).toMatch(
      new RegExp(`^switchyard: Redis at redis://user:\\*\\*\\*@127\\.0\\.0\\.1:${port} cannot be reached`),
    );
    expect(unreachable.stderr).not.toContain("secret");
    const both = await cli(["runs", "list", "--dir", work, "--redis", redis.url]);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain("give --dir or --redis, not both");
    const queue = await cli(["runs", "list", "--redis", redis.url, "--queue", "a:b*"]);
    expect(queue.code).toBe(2);
    expect(queue.stderr).toMatch(/queue name "a:b\*" is not valid/);
    for (const run of [malformed, unreachable, both, queue]) {
      expect(run.stderr.trim().split("\n")).toHaveLength(1);
      expect(run.stderr).not.toMatch(/^\s+at /m);
    }
  }, 60_000);

  it("refuses run ids with path separators, key patterns, Unicode or 10,000 characters, and bad positions, touching no key", async () => {
    const before = (await redis.client.keys("*")).sort();
    const hostile = ["../../etc/passwd", "a/b", "runs:*", "{tag}", "рун", "a\nb", "x".repeat(10_000)];
    for (const id of hostile) {
      const decide = id === "a/b" || id.length > 1_000;
      for (const args of [["runs", "show", id], ...(decide ? [["runs", "approve", id, "1"]] : [])]) {
        const result = await cli([...args, "--redis", redis.url]);
        expect(result.code, id.slice(0, 20)).toBe(2);
        expect(result.stderr).toMatch(/^switchyard: durable\.id .* is not a run id/);
        // The id is shown cut, never 10,000 characters back to the terminal.
        expect(result.stderr.length).toBeLessThan(400);
      }
    }
    await pauseInRedis("positions", "pos-run");
    // "3e0", " 3" and "0x3" read as 3 by Number(): before, each approved call 3.
    for (const position of ["3abc", "0", "1e999", "3.5", "3e0", " 3", "0x3", "03"]) {
      const result = await cli(["runs", "approve", "pos-run", position, "--redis", redis.url, "--queue", "positions"]);
      expect(result.code, position).toBe(2);
      expect(result.stderr, position).toMatch(/is not a call's position/);
    }
    const absent = await cli(["runs", "approve", "pos-run", "99", "--redis", redis.url, "--queue", "positions"]);
    expect(absent.stderr).toContain("does not wait for call 99; it waits for call(s) 3, 4");
    expect(await decisionsIn("positions", "pos-run")).toEqual([]);
    const after = (await redis.client.keys("*")).filter((key) => !key.startsWith("switchyard:positions:"));
    expect(after.sort()).toEqual(before);
  }, 180_000);

  it("journals one decision when two processes decide the same call at once; the other is told", async () => {
    await pauseInRedis("twice", "twice-run");
    const where = ["--redis", redis.url, "--queue", "twice"];
    const results = await Promise.all([
      cli(["runs", "approve", "twice-run", "3", ...where]),
      cli(["runs", "deny", "twice-run", "3", ...where]),
      cli(["runs", "approve", "twice-run", "3", ...where]),
    ]);
    const accepted = results.filter((result) => result.code === 0);
    expect(accepted).toHaveLength(1);
    for (const refused of results.filter((result) => result.code !== 0)) {
      expect(refused.code).toBe(2);
      expect(refused.stderr).toMatch(/has already been decided|is being run by another writer/);
    }
    const decisions = await decisionsIn("twice", "twice-run");
    expect(decisions).toHaveLength(1);
    // Later, in turn: the call is decided; the other call still waits.
    const late = await cli(["runs", "deny", "twice-run", "3", ...where]);
    expect(late.stderr).toContain("call 3 of run twice-run has already been decided");
    const long = `\u001b[2J${"r".repeat(5_000)}`;
    expect((await cli(["runs", "deny", "twice-run", "4", "--reason", long, ...where])).code).toBe(0);
    const journaled = (await decisionsIn("twice", "twice-run")) as { reason?: string }[];
    expect(journaled).toHaveLength(2);
    expect(journaled[1]!.reason).toHaveLength(1_000);
  }, 120_000);

  it("shows a journal planted in Redis without letting its tool name or reason write to the terminal", async () => {
    await pauseInRedis("planted", "planted-run");
    const [key, , bytes] = fleetRunJournal(redis.client, "planted").keysOf("planted-run");
    const lines = await redis.client.lrange(key, 0, -1);
    const at = lines.findIndex((line) => line.startsWith('{"t":"pause"'));
    const planted = lines[at]!.replace('"tool":"shop.refund"', '"tool":"shop\\u001b[2J\\u001b]0;owned\\u0007"');
    await redis.client.lset(key, at, planted);
    await redis.client.incrby(bytes, planted.length - lines[at]!.length);
    const shown = await cli(["runs", "show", "planted-run", "--redis", redis.url, "--queue", "planted"]);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain("call 3: shop [2J ]0;owned ");
    expect(shown.stdout).not.toMatch(/[\u0000-\u0008\u000b-\u001f]/);
  }, 120_000);
  it("writes a fleet job's resumed run over the PAUSED result its job left in the batch", async () => {
    // Last in the file: the worker's queue keeps BullMQ keys of its own, which the tests above
    // that compare every key in Redis would see come and go.
    // A real worker runs the job; refunds need a person, whom no worker has: the run pauses.
    const queue = "paused-jobs";
    const worker = await startShopWorker(redis.url, queue);
    const read = async (batchId: string) => {
      for await (const progress of watchBatch({ redis: redis.url, queue, batchId, intervalMs: 50 })) {
        if (progress.finished) break;
      }
      const results = [];
      for await (const result of readBatchResults({ redis: redis.url, queue, batchId })) results.push(result);
      return results;
    };
    try {
      const batch = await submitBatch({ redis: redis.url, queue, program: REFUNDS, inputs: [{ shop: 1 }] });
      const [paused] = await read(batch.batchId);
      expect(paused).toMatchObject({ ok: false, error: { code: "PAUSED" } });
      const where = ["--redis", redis.url, "--queue", queue];
      const listed = await cli(["runs", "list", ...where]);
      const id = /^(\S+) {2}paused/m.exec(listed.stdout)?.[1] as string;
      expect(id, listed.stdout).toBeDefined();
      expect((await cli(["runs", "approve", id, "3", ...where])).code).toBe(0);
      expect((await cli(["runs", "deny", id, "4", ...where])).code).toBe(0);
      writeFileSync(join(work, "shop.config.json"), JSON.stringify({ tools: [TOOLS], permissions: shopPermissions }));
      const writesBefore = await redis.client.hgetall(`switchyard:${queue}:batch:${batch.batchId}:writes`);

      const resumed = await cli(["runs", "resume", id, "--config", "shop.config.json", "--json", ...where]);
      expect(resumed.code, resumed.stderr).toBe(0);
      expect(JSON.parse(resumed.stdout)).toMatchObject({ ok: true });
      expect(resumed.stderr).toBe(
        `input "${paused!.key}" of batch ${batch.batchId}: its PAUSED result is replaced by this run's.\n`,
      );
      const [finished] = await read(batch.batchId);
      expect(finished).toMatchObject({
        key: paused!.key,
        input: { shop: 1 },
        ok: true,
        output: { a: { refunded: 1 }, b: { caught: "PERMISSION_DENIED" } },
        attempt: paused!.attempt,
        worker: "switchyard resume",
      });
      expect(finished).not.toHaveProperty("error");
      // Not counted as a second run of the job (the batch's repeats), and no longer failed.
      expect(await redis.client.hgetall(`switchyard:${queue}:batch:${batch.batchId}:writes`)).toEqual(writesBefore);
      expect(await redis.client.smembers(`switchyard:${queue}:batch:${batch.batchId}:failed`)).toEqual([]);
    } finally {
      await worker.close();
    }
  }, 120_000);
});
