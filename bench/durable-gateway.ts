// Durable runs through the gateway, seen from an MCP client (the SDK's, over its in-memory
// transport): a 200-call run_program plain and durable (file store), the time a run that meets an
// unanswered `ask` takes to answer PAUSED, and a resume_run that replays the 200 calls and makes
// the approved one. Medians of rounds. Run: node --no-node-snapshot --import tsx bench/durable-gateway.ts

import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { FileRunJournal } from "../src/durable/file-run-journal.js";
import { createGatewayServer, type GatewayServerOptions } from "../src/gateway/gateway-server.js";
import { defineTool } from "../src/registry/define-tool.js";
import { Switchyard } from "../src/switchyard.js";
import { median } from "./stats.js";

const CALLS = 200;
const ROUNDS = 7;
const folder = mkdtempSync(join(tmpdir(), "bench-durable-gateway-"));
const store = new FileRunJournal({ folder });
const tools = [
  defineTool({
    name: "api.page",
    description: "One page.",
    effect: "read",
    inputSchema: { type: "object", properties: { n: { type: "integer" } }, required: ["n"] },
    execute: (input: { n: number }) => ({ n: input.n }),
  }),
  defineTool({
    name: "api.commit",
    description: "Commits the sweep.",
    effect: "write",
    inputSchema: { type: "object", properties: { sum: { type: "integer" } }, required: ["sum"] },
    execute: (input: { sum: number }) => ({ committed: input.sum }),
  }),
];
const SWEEP = `let sum = 0;\nfor (let n = 1; n <= ${CALLS}; n++) sum += (await tools.api.page({ n })).n;\nreturn sum;`;
const ASKING = `${SWEEP.replace("return sum;", "return await tools.api.commit({ sum });")}`;

async function connect(options: GatewayServerOptions): Promise<{ client: Client; close: () => Promise<void> }> {
  const yard = new Switchyard({
    tools,
    typeCheck: "off",
    permissions: { rules: [{ tools: "api.commit", decision: "ask" }] },
  });
  const gateway = createGatewayServer(yard, options);
  const client = new Client({ name: "bench", version: "1.0.0" });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await gateway.server.connect(serverSide);
  await client.connect(clientSide);
  return { client, close: async () => (await client.close(), await gateway.close(), await yard.close()) };
}

async function timed(work: () => Promise<CallToolResult>): Promise<[number, CallToolResult]> {
  const started = performance.now();
  const result = await work();
  return [performance.now() - started, result];
}

const load = loadavg()[0]!;
const plain = await connect({});
const durable = await connect({ askClient: true, durable: { store, modelApprovals: true } });
const rows: Record<string, number[]> = { plain: [], durable: [], paused: [], resumed: [] };
for (let round = 0; round < ROUNDS; round++) {
  rows["plain"]!.push(
    (await timed(() => plain.client.callTool({ name: "run_program", arguments: { code: SWEEP } }) as never))[0],
  );
  rows["durable"]!.push(
    (await timed(() => durable.client.callTool({ name: "run_program", arguments: { code: SWEEP } }) as never))[0],
  );
  const [pausedMs, paused] = await timed(
    () => durable.client.callTool({ name: "run_program", arguments: { code: ASKING } }) as never,
  );
  const { runId } = (paused.structuredContent as { paused: { runId: string } }).paused;
  const decisions = [{ position: CALLS + 1, approved: true }];
  const [resumedMs, resumed] = await timed(
    () => durable.client.callTool({ name: "resume_run", arguments: { runId, decisions } }) as never,
  );
  if (resumed.isError) throw new Error(JSON.stringify(resumed.content));
  rows["paused"]!.push(pausedMs);
  rows["resumed"]!.push(resumedMs);
}
await plain.close();
await durable.close();
rmSync(folder, { recursive: true, force: true });
const ms = (name: string): string => median(rows[name]!).toFixed(1);
console.log(
  `node ${process.version}, load ${load.toFixed(2)} at start, ${loadavg()[0]!.toFixed(2)} at end, ${ROUNDS} rounds`,
);
console.log(
  `durable gateway: run_program ${CALLS} calls ${ms("plain")} ms plain, ${ms("durable")} ms durable; ` +
    `PAUSED answer ${ms("paused")} ms; resume_run (replay ${CALLS} + 1 live) ${ms("resumed")} ms`,
);
