import { randomUUID } from "node:crypto";
import { createServer, type Server as HttpServer } from "node:http";
import type { AddressInfo } from "node:net";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { CallToolRequestSchema, ListToolsRequestSchema, type Tool } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectMcpSource, type McpSource, type McpSourceEvent } from "../../../src/sources/mcp/mcp-source.js";
import { Switchyard } from "../../../src/switchyard.js";
import { waitFor } from "../../helpers/mcp-servers.js";

// A streamable-HTTP MCP server on 127.0.0.1, built from the SDK's server side. It pages its
// tools/list two tools at a time, and the test can add a tool (sending tools/list_changed)
// or hold a call open.
const PAGE_SIZE = 2;
const baseTools: Tool[] = [
  {
    name: "add",
    description: "Adds two numbers.",
    inputSchema: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } }, required: ["a", "b"] },
    outputSchema: { type: "object", properties: { sum: { type: "number" } }, required: ["sum"] },
    annotations: { readOnlyHint: true },
  },
  {
    name: "wait",
    description: "Answers when the test lets it.",
    inputSchema: { type: "object" },
    annotations: { readOnlyHint: true },
  },
  {
    name: "whoami",
    description: "Returns the API key header it received.",
    inputSchema: { type: "object" },
    annotations: { readOnlyHint: true },
  },
];
const multiply: Tool = {
  name: "multiply",
  description: "Multiplies two numbers.",
  inputSchema: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } }, required: ["a", "b"] },
  annotations: { readOnlyHint: true },
};

let tools = [...baseTools];
let releaseWait: () => void = () => {};
let waitStarted: () => void = () => {};
const servers = new Map<string, Server>();
const transports = new Map<string, StreamableHTTPServerTransport>();
let listRequests = 0;
let cancelledOnServer = 0;

function createMcpServer(apiKey: string | undefined): Server {
  const server = new Server(
    { name: "http-fixture", version: "1.0.0" },
    { capabilities: { tools: { listChanged: true } } },
  );
  server.setRequestHandler(ListToolsRequestSchema, (request) => {
    listRequests += 1;
    const start = Number(request.params?.cursor ?? 0);
    const next = start + PAGE_SIZE;
    return { tools: tools.slice(start, next), ...(next < tools.length ? { nextCursor: String(next) } : {}) };
  });
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const args = (request.params.arguments ?? {}) as { a?: number; b?: number };
    switch (request.params.name) {
      case "add":
        return {
          content: [{ type: "text", text: String((args.a ?? 0) + (args.b ?? 0)) }],
          structuredContent: { sum: (args.a ?? 0) + (args.b ?? 0) },
        };
      case "multiply":
        return { content: [{ type: "text", text: JSON.stringify({ product: (args.a ?? 0) * (args.b ?? 0) }) }] };
      case "wait":
        waitStarted();
        await new Promise<void>((resolve) => {
          releaseWait = resolve;
          // Fired by the client's notifications/cancelled.
          extra.signal.addEventListener("abort", () => {
            cancelledOnServer += 1;
            resolve();
          });
        });
        return { content: [{ type: "text", text: "released" }] };
      case "whoami":
        return { content: [{ type: "text", text: apiKey ?? "none" }] };
      default:
        return { content: [{ type: "text", text: "unknown tool" }], isError: true };
    }
  });
  return server;
}

describe("an MCP source over streamable HTTP", () => {
  let http: HttpServer;
  let url = "";
  const yard = new Switchyard();
  let source: McpSource;
  const events: McpSourceEvent[] = [];

  beforeAll(async () => {
    http = createServer((request, response) => {
      void (async () => {
        const sessionId = request.headers["mcp-session-id"];
        let transport = typeof sessionId === "string" ? transports.get(sessionId) : undefined;
        if (transport === undefined) {
          const apiKey = request.headers["x-api-key"];
          const server = createMcpServer(typeof apiKey === "string" ? apiKey : undefined);
          const created: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
            sessionIdGenerator: () => randomUUID(),
            onsessioninitialized: (id) => {
              transports.set(id, created);
              servers.set(id, server);
            },
          });
          await server.connect(created);
          transport = created;
        }
        await transport.handleRequest(request, response);
      })();
    });
    await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
    source = await connectMcpSource(yard.registry, {
      namespace: "remote",
      transport: { kind: "http", url, headers: { "x-api-key": "secret-123" } },
      onEvent: (event) => events.push(event),
    });
  });

  afterAll(async () => {
    releaseWait();
    await source?.close();
    await Promise.all([...servers.values()].map((server) => server.close()));
    http.closeAllConnections();
    await new Promise((resolve) => http.close(resolve));
  });

  it("lists tools across pages (nextCursor) and sends the configured headers", async () => {
    expect(source.tools.map((tool) => tool.name)).toEqual(["remote.add", "remote.wait", "remote.whoami"]);
    expect(listRequests).toBe(2);
    expect(await yard.callTool("remote.whoami", {})).toMatchObject({
      status: "ok",
      value: [{ type: "text", text: "secret-123" }],
    });
    expect(source.pid).toBeUndefined();
  });

  it("calls a tool through a program and gets structured content typed by its outputSchema", async () => {
    const result = await yard.run(`
      const results = await Promise.all([1, 2, 3].map((n) => tools.remote.add({ a: n, b: 10 })));
      return results.map((result) => result.sum);
    `);
    expect(result.ok, result.error?.message).toBe(true);
    expect(result.output).toEqual([11, 12, 13]);
    expect(yard.declarations()).toMatch(/sum: number/);
  });

  it("sends notifications/cancelled to the server when the run is cancelled mid-call", async () => {
    const started = new Promise<void>((resolve) => (waitStarted = resolve));
    const controller = new AbortController();
    const running = yard.run(`return await tools.remote.wait({});`, { signal: controller.signal });
    await started;
    controller.abort();
    const result = await running;
    expect(result.ok).toBe(false);
    expect(result.calls).toMatchObject([{ tool: "remote.wait", status: "cancelled" }]);
    await waitFor(() => cancelledOnServer === 1, 5_000, "the server to see notifications/cancelled");
    expect(source.state).toBe("connected");
  });

  it("re-lists on tools/list_changed while a run is in flight: the catalog moves, the run keeps its snapshot", async () => {
    const versionBefore = yard.registry.version;
    const declarationsBefore = yard.declarations();
    expect(declarationsBefore).not.toMatch(/multiply/);
    const started = new Promise<void>((resolve) => (waitStarted = resolve));
    const running = yard.run(
      `
      await tools.remote.wait({});
      try { return await (tools as any).remote.multiply({ a: 6, b: 7 }); }
      catch (error) { return (error as ToolCallError).code; }
    `,
      { typeCheck: "off" },
    );
    await started;
    const listed = new Promise<void>((resolve) => {
      const off = yard.registry.onChange(() => {
        off();
        resolve();
      });
    });
    tools = [...baseTools, multiply];
    await Promise.all([...servers.values()].map((server) => server.sendToolListChanged()));
    await listed;
    expect(yard.registry.version).toBeGreaterThan(versionBefore);
    expect(yard.declarations()).not.toBe(declarationsBefore);
    expect(yard.declarations()).toMatch(/multiply\(/);
    expect(events).toContainEqual(
      expect.objectContaining({ type: "mcp-tools-listed", reason: "list_changed", changed: true, tools: 4 }),
    );

    releaseWait();
    const before = await running;
    expect(before.ok, before.error?.message).toBe(true);
    expect(before.catalogVersion).toBe(versionBefore);
    expect(before.output).toBe("TOOL_NOT_FOUND");

    const after = await yard.run(`return await tools.remote.multiply({ a: 6, b: 7 });`);
    expect(after.output).toEqual({ product: 42 });
    expect(after.catalogVersion).toBe(yard.registry.version);
  });
});
