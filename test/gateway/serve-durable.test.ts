// `switchyard serve --durable` as a real MCP client sees it, with a person on the command line: a
// run paused on two refunds answers PAUSED; `switchyard runs approve` and `runs deny` (other
// processes) decide; `resume_run` resumes it in the serving process, each call made once.

import { execFile } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, describe, expect, it } from "vitest";
import type { PausedRun } from "../../src/model-tools/paused-run.js";
import { REFUNDS } from "../durable/fixtures/shop-tools.js";
import { tempFolder } from "../helpers/mcp-servers.js";

const BIN = fileURLToPath(new URL("../../bin/switchyard.js", import.meta.url));
const SHOP = fileURLToPath(new URL("../durable/fixtures/shop-tools.ts", import.meta.url));
const temp = tempFolder("serve-durable");
const runsFolder = join(temp.path, "runs");
const callsFile = join(temp.path, "calls.log");
const env = { ...process.env, SWITCHYARD_RUNS_DIR: runsFolder, SHOP_CALLS: callsFile } as Record<string, string>;
afterAll(() => temp.remove());

async function switchyard(...args: string[]): Promise<string> {
  const { stdout } = await promisify(execFile)(process.execPath, [BIN, ...args], { env, timeout: 60_000 });
  return stdout;
}

describe("switchyard serve --durable", () => {
  it("pauses a run the client cannot approve, and resumes it after a person decided on the command line", async () => {
    const configPath = join(temp.path, "switchyard.config.json");
    writeFileSync(
      configPath,
      JSON.stringify({
        tools: [SHOP],
        permissions: { rules: [{ tools: "shop.refund", decision: "ask", reason: "refunds need a person" }] },
      }),
    );
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [BIN, "serve", "--config", configPath, "--durable", "--log-file", join(temp.path, "serve.log")],
      env,
      stderr: "pipe",
    });
    const client = new Client({ name: "no-elicitation", version: "1.0.0" });
    await client.connect(transport);
    try {
      expect((await client.listTools()).tools.map((tool) => tool.name)).toContain("resume_run");
      const first = (await client.callTool({ name: "run_program", arguments: { code: REFUNDS } })) as CallToolResult;
      const paused = (first.structuredContent as { paused: PausedRun }).paused;
      expect(paused.pending.map((request) => request.position)).toEqual([3, 4]);
      const { runId } = paused;

      expect(await switchyard("runs", "approve", runId, "3")).toContain(`call 3 approved`);
      expect(await switchyard("runs", "deny", runId, "4", "--reason", "refunded by hand")).toContain("call 4 denied");
      const resumed = (await client.callTool({ name: "resume_run", arguments: { runId } })) as CallToolResult;
      expect(resumed.isError).toBe(false);
      expect(resumed.structuredContent).toMatchObject({
        ok: true,
        output: { a: { refunded: 1 }, b: { caught: "PERMISSION_DENIED", message: expect.stringContaining("by hand") } },
      });
      const calls = readFileSync(callsFile, "utf8").split("\n").filter(Boolean);
      expect(calls).toEqual([`order ${runId}:1`, `order ${runId}:2`, `refund ${runId}:3`]);
      expect(await switchyard("runs", "show", runId)).toContain("ended");
    } finally {
      await client.close();
    }
  }, 120_000);
});
