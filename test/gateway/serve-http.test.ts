// `serveGateway` on streamable HTTP, in-process: 127.0.0.1 only, one MCP session per client,
// one shared session of tools; closing stops the listener.

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serveGateway, type RunningGateway } from "../../src/gateway/serve-gateway.js";

const SLOW_TOOLS = fileURLToPath(new URL("./fixtures/slow-tools.ts", import.meta.url));

describe("serveGateway over streamable HTTP", () => {
  const folder = mkdtempSync(join(tmpdir(), "switchyard-gateway-http-"));
  const logFile = join(folder, "serve.log");
  let gateway: RunningGateway;

  beforeAll(async () => {
    const configPath = join(folder, "switchyard.config.json");
    writeFileSync(configPath, JSON.stringify({ tools: [SLOW_TOOLS] }));
    gateway = await serveGateway({ configPath, httpPort: 0, logFile });
  });

  afterAll(async () => {
    await gateway?.close();
    rmSync(folder, { recursive: true, force: true });
  });

  it("listens on 127.0.0.1 and serves two clients with separate sessions", async () => {
    expect(gateway.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    const clients = [new Client({ name: "a", version: "1" }), new Client({ name: "b", version: "1" })];
    for (const client of clients) await client.connect(new StreamableHTTPClientTransport(new URL(gateway.url!)));
    const results = (await Promise.all(
      clients.map((client, index) =>
        client.callTool({
          name: "run_program",
          arguments: { code: `return (await tools.slow.wait({ ms: ${index} })).waitedMs >= 0;` },
        }),
      ),
    )) as CallToolResult[];
    expect(results.map((result) => result.structuredContent?.["output"])).toEqual([true, true]);
    for (const client of clients) await client.close();
    expect(readFileSync(logFile, "utf8").match(/http session \S+ opened/g)).toHaveLength(2);
  });

  it("refuses a request that names an unknown session", async () => {
    const response = await fetch(gateway.url!, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-session-id": "nope",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(response.status).toBe(404);
  });
});

describe("serveGateway over streamable HTTP with a token", () => {
  const folder = mkdtempSync(join(tmpdir(), "switchyard-gateway-token-"));
  let gateway: RunningGateway;

  beforeAll(async () => {
    const configPath = join(folder, "switchyard.config.json");
    writeFileSync(configPath, JSON.stringify({ tools: [SLOW_TOOLS] }));
    gateway = await serveGateway({ configPath, httpPort: 0, httpToken: "s3cret", logFile: join(folder, "serve.log") });
  });

  afterAll(async () => {
    await gateway?.close();
    rmSync(folder, { recursive: true, force: true });
  });

  it("answers 401 without the token or with a wrong one, before any MCP handling", async () => {
    for (const headers of [{}, { authorization: "Bearer wrong" }]) {
      const response = await fetch(gateway.url!, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "initialize",
          params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "x", version: "1" } },
        }),
      });
      expect(response.status).toBe(401);
    }
  });

  it("serves a client that sends the token", async () => {
    const client = new Client({ name: "c", version: "1" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(gateway.url!), {
        requestInit: { headers: { authorization: "Bearer s3cret" } },
      }),
    );
    const result = (await client.callTool({
      name: "run_program",
      arguments: { code: "return 40 + 2;" },
    })) as CallToolResult;
    expect(result.structuredContent?.["output"]).toBe(42);
    await client.close();
  });
});
