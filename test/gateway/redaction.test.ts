// The gateway's answers carry no canary secret: the credentials live in a real downstream MCP
// server (server-memory, over stdio), and an MCP SDK client asks for them through run_program
// and call_tool. The program inside still moves them whole from one tool to another.

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createGatewayServer, type GatewayServer } from "../../src/gateway/gateway-server.js";
import { connectMcpSource, type McpSource } from "../../src/sources/mcp/mcp-source.js";
import { Switchyard } from "../../src/switchyard.js";
import { stdioServer, tempFolder } from "../helpers/mcp-servers.js";
import { createCanaries, leakedSecrets } from "../redaction/canaries.js";

const canaries = createCanaries();

describe("the gateway's answers with secrets in a downstream MCP server", () => {
  const folder = tempFolder("gateway-redaction");
  let yard: Switchyard;
  let memory: McpSource;
  let gateway: GatewayServer;
  let client: Client;

  beforeAll(async () => {
    yard = new Switchyard({ typeCheck: "off" });
    memory = await connectMcpSource(yard.registry, {
      namespace: "memory",
      transport: stdioServer("memory", [], { MEMORY_FILE_PATH: join(folder.path, "memory.jsonl") }),
    });
    gateway = createGatewayServer(yard, { enableCallTool: true });
    client = new Client({ name: "redaction-test", version: "1.0.0" });
    const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
    await gateway.server.connect(serverTransport);
    await client.connect(clientTransport);
    // Stored directly (not through the gateway): the downstream server now holds every canary.
    const stored = await yard.callTool("memory.create_entities", {
      entities: [{ name: "vault", entityType: "credentials", observations: canaries.map((canary) => canary.text) }],
    });
    expect(stored.status).toBe("ok");
  }, 60_000);

  afterAll(async () => {
    await client?.close();
    await gateway?.close();
    await memory?.close();
    await yard?.close();
    folder.remove();
  });

  it("answers call_tool with the downstream result redacted", async () => {
    const answer = await client.callTool({ name: "call_tool", arguments: { name: "memory.read_graph", input: {} } });
    const text = JSON.stringify(answer);
    expect(answer.isError).not.toBe(true);
    expect(text).toContain("[REDACTED:github-token]");
    expect(leakedSecrets(text, canaries)).toEqual([]);
  });

  it("answers run_program with output and logs redacted, after the program passed the whole values on", async () => {
    const code = `
      const graph = await tools.memory.read_graph({});
      const lines = graph.entities[0].observations;
      // Copies every credential, whole, to a second entity, and reads it back to compare.
      await tools.memory.create_entities({ entities: [{ name: "copy", entityType: "credentials", observations: lines }] });
      const copy = await tools.memory.open_nodes({ names: ["copy"] });
      const same = JSON.stringify(copy.entities[0].observations) === JSON.stringify(lines);
      console.log(lines.join("\\n"));
      return { same, lines };
    `;
    const answer = await client.callTool({ name: "run_program", arguments: { code } });
    const text = JSON.stringify(answer);
    expect(answer.isError, text.slice(0, 500)).toBe(false);
    expect(answer.structuredContent).toMatchObject({ ok: true, output: { same: true } });
    expect(text).toContain("[REDACTED:private-key]");
    expect(leakedSecrets(text, canaries)).toEqual([]);
    // The copy was written whole: the downstream server's file holds the canaries, not the markers.
    const stored = readFileSync(join(folder.path, "memory.jsonl"), "utf8").split("\n");
    const copy = stored.find((line) => line.includes('"name":"copy"'));
    expect(copy).toBeDefined();
    expect(leakedSecrets(copy!, canaries)).toHaveLength(canaries.length);
    expect(copy).not.toContain("REDACTED");
  });
});
