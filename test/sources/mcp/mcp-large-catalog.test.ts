import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { connectMcpSource, type McpSource } from "../../../src/sources/mcp/mcp-source.js";
import { Switchyard } from "../../../src/switchyard.js";
import { watchEventLoop } from "../../helpers/event-loop-gaps.js";

const FIXTURE = fileURLToPath(new URL("./fixtures/mcp-test-server.mjs", import.meta.url));
const TOOLS = 3_000;

const opened: { source?: McpSource; yard: Switchyard }[] = [];
afterAll(async () => {
  for (const { source, yard } of opened) {
    await source?.close();
    await yard.close();
  }
});

describe("an MCP server with thousands of tools", () => {
  it("registers its 3,000 tools, each findable by a model's search and callable by name", {
    timeout: 60_000,
  }, async () => {
    const yard = new Switchyard({ typeCheck: "off" });
    const entry: { source?: McpSource; yard: Switchyard } = { yard };
    opened.push(entry);
    const loop = watchEventLoop(1);
    const source = await connectMcpSource(yard.registry, {
      namespace: "ledger",
      transport: { kind: "stdio", command: process.execPath, args: [FIXTURE, "--many-tools", String(TOOLS)] },
    });
    entry.source = source;
    // A model's search straight after the listing waits for the index, and finds the last tool listed.
    const found = await yard.discovery.find(`bulk operation ${TOOLS - 1}`, { limit: 3 });
    loop.stop();
    expect(source.tools.length).toBe(TOOLS + 5);
    expect(found.ok && found.references.map((reference) => reference.name)).toContain(`ledger.bulk_${TOOLS - 1}`);
    await expect(yard.callTool(`ledger.bulk_${TOOLS - 1}`, {})).resolves.toMatchObject({ status: "ok" });
    // Printed, not asserted: the machine may be shared (see bench:scale for measured rows).
    console.info(
      `longest event-loop gap while listing and indexing ${TOOLS} MCP tools: ${loop.longestGapMs.toFixed(0)} ms`,
    );
  });
});
