import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { SWEEP_PROGRAM } from "../../examples/orders/sweep-program.js";
import { startServer } from "./agent-fixtures.js";

const run = promisify(execFile);
const EXAMPLE = fileURLToPath(new URL("../../examples/agent/orders-agent.ts", import.meta.url));
const ROOT = fileURLToPath(new URL("../..", import.meta.url));

function runExample(env: Record<string, string>) {
  const base = { ...process.env };
  delete base["ANTHROPIC_API_KEY"];
  delete base["ANTHROPIC_BASE_URL"];
  return run(process.execPath, ["--no-node-snapshot", "--import", "tsx", EXAMPLE], {
    cwd: ROOT,
    env: { ...base, ...env },
    timeout: 60_000,
  });
}

describe("examples/agent/orders-agent.ts", () => {
  it("prints how to run it and exits 0 when ANTHROPIC_API_KEY is not set", async () => {
    const { stdout } = await runExample({});
    expect(stdout).toContain("export ANTHROPIC_API_KEY=");
    expect(stdout).toContain("switchyard agent --provider anthropic");
    expect(stdout).toContain("nothing was sent");
  });

  it("with a key, runs the task in programmatic mode and prints the answer, the usage and the runs' stats", async () => {
    const server = await startServer({
      script: [
        {
          content: [{ type: "tool_use", name: "run_program", input: { code: SWEEP_PROGRAM } }],
          usage: { inputTokens: 2000, outputTokens: 900 },
        },
        {
          content: [{ type: "text", text: "Duplicate charges found; two lookups kept failing." }],
          usage: { inputTokens: 400, cacheReadTokens: 2000, outputTokens: 60 },
        },
      ],
    });
    const { stdout } = await runExample({ ANTHROPIC_API_KEY: "test-key", ANTHROPIC_BASE_URL: server.url });
    expect(stdout).toContain("Duplicate charges found; two lookups kept failing.");
    expect(stdout).toContain("status: completed after 2 model requests");
    expect(stdout).toContain("usage: 4400 input tokens (2000 read from cache, 0 written), 960 output tokens");
    expect(stdout).toMatch(/run \S+: ok, \d+ tool calls in \d+ ms/);
    expect(server.turnRequests[0]!.body.tools.map((tool: { name: string }) => tool.name)).toEqual(["run_program"]);
  });
});
