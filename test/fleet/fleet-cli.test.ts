// The fleet commands' mistakes: each is one line on stderr, exit 2, never a stack trace.

import { execFile } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tempFolder } from "../helpers/mcp-servers.js";
import { startRedis, type TestRedis } from "../helpers/redis-server.js";

const run = promisify(execFile);
const BIN = fileURLToPath(new URL("../../bin/switchyard.js", import.meta.url));
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
    const results = await Promise.all([
      fails(["batch", "status", "some-batch", "--redis", "redis://127.0.0.1:1"]),
      fails(["batch", "submit", "--program", program, "--inputs", inputs, "--redis", redis.url]),
      fails(["batch", "results", "no-such-batch", "--redis", redis.url]),
      fails(["batch", "submit", "--program", join(temp.path, "missing.ts"), "--inputs", inputs]),
      fails(["worker", "--config", join(temp.path, "switchyard.config.json"), "--workers", "two"]),
    ]);
    const [unreachable, notJson, unknown, missing, workers] = results;
    expect(unreachable!.stderr).toMatch(/^switchyard: Redis at redis:\/\/127\.0\.0\.1:1 cannot be reached/);
    expect(notJson!.stderr).toMatch(/^switchyard: .*inputs\.jsonl line 2 is not JSON/);
    expect(unknown!.stderr).toMatch(/^switchyard: No batch "no-such-batch" on queue "switchyard"/);
    expect(missing!.stderr).toMatch(/^switchyard: the program file \(--program\) ".*missing\.ts" does not exist/);
    expect(workers!.stderr).toMatch(/^switchyard: --workers needs an integer >= 0, got "two"/);
    for (const result of results) {
      expect(result.code).toBe(2);
      expect(result.stderr.trim().split("\n")).toHaveLength(1);
      expect(result.stderr).not.toContain("    at ");
    }
  }, 60_000);
});
