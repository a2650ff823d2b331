// The fleet commands' mistakes: each is one line on stderr, exit 2, never a stack trace; and
// `batch submit --config`, which checks the program against the workers' session first.

import { execFile } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { Queue } from "bullmq";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectRedis } from "../../src/fleet/redis-connection.js";
import { tempFolder } from "../helpers/mcp-servers.js";
import { startRedis, type TestRedis } from "../helpers/redis-server.js";

const run = promisify(execFile);
const BIN = fileURLToPath(new URL("../../bin/switchyard.js", import.meta.url));
const TOOLS = fileURLToPath(new URL("./fixtures/stamp-tools.ts", import.meta.url));
const temp = tempFolder("fleet-cli");
let redis: TestRedis;
beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => {
  await redis?.stop();
  temp.remove();
});

async function fails(args: readonly string[]): Promise<{ code: number; stderr: string }> {
  try {
    await run(process.execPath, [BIN, ...args]);
  } catch (error) {
    const failed = error as { code: number; stderr: string };
    return { code: failed.code, stderr: failed.stderr };
  }
  throw new Error(`switchyard ${args.join(" ")} did not fail`);
}

describe("the fleet commands", () => {
  it("say in one line that Redis cannot be reached, an input line is not JSON, a batch is unknown or --workers is no count", async () => {
    const program = join(temp.path, "program.ts");
    writeFileSync(program, "return input;");
    const inputs = join(temp.path, "inputs.jsonl");
    writeFileSync(inputs, '{"n": 1}\n{"n": \n');
    const badSchema = join(temp.path, "bad.schema.json");
    writeFileSync(badSchema, JSON.stringify({ type: "object", properties: { n: { type: 5 } } }));
    const goodInputs = join(temp.path, "good-inputs.jsonl");
    writeFileSync(goodInputs, '{"n": 1}\n');
    const results = await Promise.all([
      fails(["batch", "status", "some-batch", "--redis", "redis://127.0.0.1:1"]),
      fails(["batch", "submit", "--program", program, "--inputs", inputs, "--redis", redis.url]),
      fails(["batch", "results", "no-such-batch", "--redis", redis.url]),
      fails(["batch", "submit", "--program", join(temp.path, "missing.ts"), "--inputs", inputs]),
      fails(["worker", "--config", join(temp.path, "switchyard.config.json"), "--workers", "two"]),
      fails(["batch", "submit", "--program", program, "--inputs", goodInputs, "--input-schema", badSchema]),
    ]);
    const [unreachable, notJson, unknown, missing, workers, schema] = results;
    expect(unreachable!.stderr).toMatch(/^switchyard: Redis at redis:\/\/127\.0\.0\.1:1 cannot be reached/);
    expect(notJson!.stderr).toMatch(/^switchyard: .*inputs\.jsonl line 2 is not JSON/);
    expect(unknown!.stderr).toMatch(/^switchyard: No batch "no-such-batch" on queue "switchyard"/);
    expect(missing!.stderr).toMatch(/^switchyard: the program file \(--program\) ".*missing\.ts" does not exist/);
    expect(workers!.stderr).toMatch(/^switchyard: --workers needs an integer >= 0, got "two"/);
    // Read as `run --output-schema` reads its schema: compiled before anything is enqueued.
    expect(schema!.stderr).toMatch(
      /^switchyard: the input schema \(--input-schema\) ".*bad\.schema\.json": the JSON Schema does not compile/,
    );
    for (const result of results) {
      expect(result.code).toBe(2);
      expect(result.stderr.trim().split("\n")).toHaveLength(1);
      expect(result.stderr).not.toContain("    at ");
    }
  }, 60_000);

  it("batch submit --config refuses a program that fails the check: exit 1, one error with its lines, nothing enqueued", async () => {
    const config = join(temp.path, "check.config.json");
    writeFileSync(config, JSON.stringify({ tools: [TOOLS] }));
    const program = join(temp.path, "sweep.ts");
    writeFileSync(program, "const n = input.n;\nreturn await tools.api.stamp({ n: input.count });\n");
    const inputs = join(temp.path, "check-inputs.jsonl");
    writeFileSync(inputs, '{"n": 1}\n{"n": 2}\n');
    const schema = join(temp.path, "input.schema.json");
    writeFileSync(schema, JSON.stringify({ type: "object", properties: { n: { type: "number" } }, required: ["n"] }));
    const args = ["batch", "submit", "--config", config, "--program", program, "--inputs", inputs];
    const fleet = ["--input-schema", schema, "--redis", redis.url, "--queue", "cli-check"];
    const refused = await fails([...args, ...fleet]);
    expect(refused.code).toBe(1);
    const lines = refused.stderr.trimEnd().split("\n");
    expect(lines[0]).toMatch(
      /^switchyard: the program .*sweep\.ts fails its check against .*check\.config\.json; nothing was enqueued\.$/,
    );
    expect(lines[1]).toBe("error TYPE_ERROR:");
    expect(refused.stderr).toMatch(/line 2, column \d+: Property 'count' does not exist on type 'ProgramInput'/);
    expect(refused.stderr).toContain("return await tools.api.stamp({ n: input.count });");
    expect(refused.stderr).not.toContain("    at ");
    expect(refused.stderr.match(/^switchyard:/gm)).toHaveLength(1);

    const client = await connectRedis(redis.url);
    const queue = new Queue("cli-check", { connection: client });
    try {
      expect(await client.keys("*cli-check*")).toEqual([]);
      // The same program with the bug fixed is submitted, and its jobs wait for a worker.
      writeFileSync(program, "const n = input.n;\nreturn await tools.api.stamp({ n });\n");
      const submitted = await run(process.execPath, [BIN, ...args, ...fleet]);
      expect(submitted.stdout.trim()).toMatch(/^b-[0-9a-f]{16}$/);
      expect(submitted.stderr).toContain("2 inputs, 2 queued");
      expect(await queue.getWaitingCount()).toBe(2);
    } finally {
      await queue.close();
      await client.quit();
    }
  }, 60_000);

  // Found from outside (2026-12-03): --grace-ms was read only at SIGTERM (the worker then refused
  // its own shutdown), and a Redis out of memory made every batch command a stack trace, exit 3.
  it("refuses a bad --grace-ms at start, and says in one line that Redis refuses commands when it is full", async () => {
    const grace = await fails(["worker", "--config", join(temp.path, "none.config.json"), "--grace-ms", "abc"]);
    expect(grace.stderr).toMatch(/^switchyard: --grace-ms needs an integer >= 0, got "abc"/);
    expect(grace.code).toBe(2);
    const program = join(temp.path, "full.ts");
    writeFileSync(program, "return input;");
    const inputs = join(temp.path, "full.jsonl");
    writeFileSync(inputs, '{"n": 1}\n');
    const where = ["--redis", redis.url, "--queue", "full"];
    await run(process.execPath, [
      BIN,
      "batch",
      "submit",
      "--program",
      program,
      "--inputs",
      inputs,
      "--batch",
      "full",
      ...where,
    ]);
    const client = await connectRedis(redis.url);
    try {
      await client.config("SET", "maxmemory", "1");
      const results = await Promise.all([
        fails(["batch", "status", "full", ...where]),
        fails(["batch", "submit", "--program", program, "--inputs", inputs, "--batch", "other", ...where]),
      ]);
      for (const result of results) {
        expect(result.stderr).toMatch(
          /^switchyard: Redis refused the command \((OOM|EXECABORT)[^)]*\)\. Redis is out of memory/,
        );
        expect(result.stderr.trim().split("\n")).toHaveLength(1);
        expect(result.code).toBe(2);
      }
    } finally {
      await client.config("SET", "maxmemory", "0");
      await client.quit();
    }
  }, 60_000);

  it("batch submit --help says that without --config only the workers check the program", async () => {
    const help = await run(process.execPath, [BIN, "batch", "submit", "--help"]);
    expect(help.stdout.replace(/\s+/g, " ")).toContain("without it, only the workers check the program");
  }, 60_000);
});
