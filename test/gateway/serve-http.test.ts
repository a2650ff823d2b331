// `serveGateway` on streamable HTTP, in-process: 127.0.0.1 only, one MCP session per client,
// one shared session of tools; closing stops the listener.

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { connect, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type RunningGateway, type ServeGatewayOptions, serveGateway } from "../../src/gateway/serve-gateway.js";

const SLOW_TOOLS = fileURLToPath(new URL("./fixtures/slow-tools.ts", import.meta.url));
/** A gateway over HTTP on a free port serving the slow-tools fixture, its config and log (serve.log) in `folder`. */
function serveSlowTools(
  folder: string,
  options: Omit<ServeGatewayOptions, "configPath" | "httpPort" | "logFile"> = {},
): Promise<RunningGateway> {
  const configPath = join(folder, "switchyard.config.json");
  writeFileSync(configPath, JSON.stringify({ tools: [SLOW_TOOLS] }));
  return serveGateway({ configPath, httpPort: 0, logFile: join(folder, "serve.log"), ...options });
}
/** A JSON-RPC initialize, as a client opening a session sends it. */
const INITIALIZE_BODY = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } },
});

describe("serveGateway over streamable HTTP", () => {
  const folder = mkdtempSync(join(tmpdir(), "switchyard-gateway-http-"));
  const logFile = join(folder, "serve.log");
  let gateway: RunningGateway;

  beforeAll(async () => {
    gateway = await serveSlowTools(folder);
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
    gateway = await serveSlowTools(folder, { httpToken: "s3cret" });
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
        body: INITIALIZE_BODY,
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

describe("serveGateway over streamable HTTP with a token per client", () => {
  const folder = mkdtempSync(join(tmpdir(), "switchyard-gateway-clients-"));
  const TOKENS = { alice: "alice-token-0123456789", bob: "bob-token-0123456789ab" };
  let gateway: RunningGateway;

  beforeAll(async () => {
    gateway = await serveSlowTools(folder, { httpClients: TOKENS, httpSessions: { maxSessions: 4 } });
  });

  afterAll(async () => {
    await gateway?.close();
    rmSync(folder, { recursive: true, force: true });
  });

  const post = (token: string, body: string, sessionId?: string): Promise<Response> =>
    fetch(gateway.url!, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        authorization: `Bearer ${token}`,
        ...(sessionId === undefined ? {} : { "mcp-session-id": sessionId }),
      },
      body,
    });

  it("keeps one client to its share of places, so the other still gets in", async () => {
    // The attack: one client opens sessions until the table is full and everyone else is refused.
    const alice = [];
    for (let n = 0; n < 4; n++) alice.push(await post(TOKENS.alice, INITIALIZE_BODY));
    expect(alice.map((response) => response.status)).toEqual([200, 200, 503, 503]);
    expect(((await alice[2]!.json()) as { error: { message: string } }).error.message).toContain(
      "share of sessions (2)",
    );
    const bob = [await post(TOKENS.bob, INITIALIZE_BODY), await post(TOKENS.bob, INITIALIZE_BODY)];
    expect(bob.map((response) => response.status)).toEqual([200, 200]);
  });

  it("answers 404 to a client that names another client's session, and serves its owner", async () => {
    // The four sessions the test above opened, two each: each client reaches its own only.
    const log = readFileSync(join(folder, "serve.log"), "utf8");
    const ids = [...log.matchAll(/http session (\S+) opened/g)].map((match) => match[1]!);
    const toolsList = JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" });
    const answers = await Promise.all(
      ids.map(async (id) => [
        (await post(TOKENS.alice, toolsList, id)).status,
        (await post(TOKENS.bob, toolsList, id)).status,
      ]),
    );
    // Two of the four sessions are Alice's: she reaches exactly those, and Bob exactly the others.
    expect(answers.filter(([forAlice]) => forAlice === 200)).toHaveLength(2);
    expect(answers.every(([forAlice, forBob]) => (forAlice === 200) !== (forBob === 200))).toBe(true);
    expect(
      answers
        .flat()
        .filter((status) => status !== 200)
        .every((status) => status === 404),
    ).toBe(true);
  });

  it("answers 404 to a client that deletes or listens on another client's session, which stays open", async () => {
    const log = readFileSync(join(folder, "serve.log"), "utf8");
    const ids = [...log.matchAll(/http session (\S+) opened/g)].map((match) => match[1]!);
    const toolsList = JSON.stringify({ jsonrpc: "2.0", id: 3, method: "tools/list" });
    const alices = [];
    for (const id of ids) if ((await post(TOKENS.alice, toolsList, id)).status === 200) alices.push(id);
    expect(alices).toHaveLength(2);
    for (const id of alices) {
      for (const method of ["DELETE", "GET"]) {
        const answer = await fetch(gateway.url!, {
          method,
          headers: { accept: "text/event-stream", authorization: `Bearer ${TOKENS.bob}`, "mcp-session-id": id },
        });
        expect(answer.status, `${method} ${id}`).toBe(404);
        await answer.body?.cancel();
      }
      expect((await post(TOKENS.alice, toolsList, id)).status).toBe(200);
    }
  });

  it("answers 401 to another token and to none", async () => {
    // A prefix, the same length one character off, the token and more, and none at all.
    const sameLength = `${TOKENS.alice.slice(0, -1)}x`;
    for (const token of ["alice-token-012345678", sameLength, `${TOKENS.alice}x`, "wrong", ""])
      expect((await post(token, INITIALIZE_BODY)).status).toBe(401);
  });

  it("refuses to start with a session limit that would lift itself (NaN, a fraction, zero)", async () => {
    // Every comparison with NaN is false: such a budget or share would hold nothing back.
    for (const httpSessions of [
      { maxBodyBytesInFlight: Number.NaN },
      { maxSessionsPerClient: 0.5 },
      { maxSessions: 0 },
      { bodyTimeoutMs: Number.POSITIVE_INFINITY },
    ])
      await expect(serveSlowTools(folder, { httpSessions })).rejects.toThrow(
        /httpSessions\.\w+ must be a positive integer/,
      );
  });

  it("refuses to start with a short token or two clients sharing one", async () => {
    await expect(serveSlowTools(folder, { httpClients: { a: "short" } })).rejects.toThrow(/16\+ characters/);
    // Sent as UTF-8, read by Node as latin1: it could never match.
    await expect(serveSlowTools(folder, { httpClients: { a: "jälkeen-token-0123456789" } })).rejects.toThrow(
      /visible ASCII only/,
    );
    await expect(serveSlowTools(folder, { httpClients: { a: TOKENS.alice, b: TOKENS.alice } })).rejects.toThrow(
      /share a token/,
    );
    // SWITCHYARD_GATEWAY_TOKEN="" started a server that answered every request 401.
    for (const httpToken of ["", "two words", "jälkeen"]) {
      await expect(serveSlowTools(folder, { httpToken })).rejects.toThrow(/httpToken .* must be visible ASCII/);
    }
  });
});

describe("serveGateway over streamable HTTP: the session table", () => {
  const folder = mkdtempSync(join(tmpdir(), "switchyard-gateway-sessions-"));
  let gateway: RunningGateway;

  beforeAll(async () => {
    gateway = await serveSlowTools(folder, { httpSessions: { maxSessions: 2, idleTimeoutMs: 300 } });
  });

  afterAll(async () => {
    await gateway?.close();
    rmSync(folder, { recursive: true, force: true });
  });

  const initialize = (): Promise<Response> =>
    fetch(gateway.url!, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: INITIALIZE_BODY,
    });

  it("answers an initialize beyond the cap with 503 and Retry-After, and expires idle sessions", async () => {
    const opened = [await initialize(), await initialize()];
    expect(opened.map((response) => response.status)).toEqual([200, 200]);
    const ids = opened.map((response) => response.headers.get("mcp-session-id"));
    const refused = await initialize();
    expect(refused.status).toBe(503);
    expect(refused.headers.get("retry-after")).toBe("30");
    // Idle past 300 ms, both sessions are closed and forgotten, so new ones fit again.
    await expect.poll(async () => (await initialize()).status, { timeout: 5_000, interval: 100 }).toBe(200);
    const stale = await fetch(gateway.url!, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-session-id": ids[0]!,
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" }),
    });
    expect(stale.status).toBe(404);
    expect(readFileSync(join(folder, "serve.log"), "utf8")).toMatch(/http session \S+ expired \(idle\)/);
  });
});

describe("serveGateway over streamable HTTP: initializes in progress", () => {
  let folder: string;
  let gateway: RunningGateway;

  // A fresh gateway per test: sessions a test opens stay open (30 min idle) and fill the cap.
  beforeEach(async () => {
    folder = mkdtempSync(join(tmpdir(), "switchyard-gateway-opening-"));
    gateway = await serveSlowTools(folder, { httpSessions: { maxSessions: 2 } });
  });

  afterEach(async () => {
    await gateway?.close();
    rmSync(folder, { recursive: true, force: true });
  });

  /** An initialize whose headers are sent now and whose body waits for `sendBody`. */
  function initializeLater(): { sendBody: () => void; status: Promise<string>; socket: Socket } {
    const url = new URL(gateway.url!);
    const body = INITIALIZE_BODY;
    const socket = connect(Number(url.port), "127.0.0.1");
    socket.write(
      `POST /mcp HTTP/1.1\r\nHost: ${url.host}\r\nContent-Type: application/json\r\n` +
        `Accept: application/json, text/event-stream\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n`,
    );
    const status = new Promise<string>((resolve) => {
      let received = "";
      socket.on("data", (chunk) => {
        received += chunk;
        if (received.includes("\r\n")) resolve(received.slice(0, received.indexOf("\r\n")));
      });
      socket.on("close", () => resolve(received));
    });
    return { sendBody: () => socket.write(body), status, socket };
  }

  it("holds no place for initializes whose body has not arrived, and lets only the cap in once bodies come", async () => {
    const pending = Array.from({ length: 5 }, initializeLater);
    // Five clients sent headers and no body: a whole initialize still opens a session at once.
    const whole = await initialize();
    expect(whole.status).toBe(200);
    for (const request of pending) request.sendBody();
    const statuses = await Promise.all(pending.map((request) => request.status));
    for (const request of pending) request.socket.destroy();
    // One place was left: one of the five gets it, the other four are refused.
    expect(statuses.filter((status) => status.includes(" 200 "))).toHaveLength(1);
    expect(statuses.filter((status) => status.includes(" 503 "))).toHaveLength(4);
    expect(readFileSync(join(folder, "serve.log"), "utf8").match(/http session \S+ opened/g)).toHaveLength(2);
  });

  const initialize = (): Promise<Response> =>
    fetch(gateway.url!, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: INITIALIZE_BODY,
    });

  it("gives the place back when an initialize is abandoned before its body", async () => {
    const abandoned = Array.from({ length: 2 }, initializeLater);
    await new Promise((resolve) => setTimeout(resolve, 200));
    for (const request of abandoned) request.socket.destroy();
    // Once the server has seen the sockets go, a whole initialize fits under the cap again.
    await expect
      .poll(
        async () => {
          const request = initializeLater();
          request.sendBody();
          const status = await request.status;
          request.socket.destroy();
          return status;
        },
        { timeout: 10_000, interval: 200 },
      )
      .toContain(" 200 ");
  });
});

describe("serveGateway over streamable HTTP: clients that go silent", () => {
  const folder = mkdtempSync(join(tmpdir(), "switchyard-gateway-silent-"));
  let gateway: RunningGateway;

  beforeAll(async () => {
    gateway = await serveSlowTools(folder, {
      httpSessions: { maxSessions: 3, headersTimeoutMs: 600, bodyTimeoutMs: 600 },
    });
  });

  afterAll(async () => {
    await gateway?.close();
    rmSync(folder, { recursive: true, force: true });
  });

  /** A raw socket that sends `text` and resolves with everything received once the server closes it. */
  function silentClient(text: string): { socket: Socket; closed: Promise<{ received: string; afterMs: number }> } {
    const url = new URL(gateway.url!);
    const startedAt = Date.now();
    const socket = connect(Number(url.port), "127.0.0.1", () => socket.write(text.replaceAll("HOST", url.host)));
    const closed = new Promise<{ received: string; afterMs: number }>((resolve) => {
      let received = "";
      socket.on("data", (chunk) => (received += chunk));
      socket.on("close", () => resolve({ received, afterMs: Date.now() - startedAt }));
      socket.on("error", () => undefined);
    });
    return { socket, closed };
  }

  const HEADERS_ONLY =
    "POST /mcp HTTP/1.1\r\nHost: HOST\r\nContent-Type: application/json\r\n" +
    "Accept: application/json, text/event-stream\r\nContent-Length: 200\r\n\r\n";

  it("lets a whole initialize in while five clients hold headers without a body, and closes those with 408", async () => {
    const silent = Array.from({ length: 5 }, () => silentClient(HEADERS_ONLY));
    await new Promise((resolve) => setTimeout(resolve, 100));
    const whole = await fetch(gateway.url!, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: INITIALIZE_BODY,
    });
    expect(whole.status).toBe(200);
    const ends = await Promise.all(silent.map((client) => client.closed));
    for (const end of ends) {
      expect(end.received).toMatch(/^HTTP\/1\.1 408 /);
      // Closed near the body deadline, not Node's 300 s.
      expect(end.afterMs).toBeLessThan(5_000);
    }
  });

  it("closes a connection whose headers never end, near the header deadline", async () => {
    const client = silentClient("POST /mcp HTTP/1.1\r\nHost: HOST\r\nContent-Type: application/json\r\n");
    const end = await client.closed;
    expect(end.afterMs).toBeLessThan(5_000);
    expect(end.afterMs).toBeGreaterThanOrEqual(500);
  });

  it("refuses with 413, unread, an initialize whose Content-Length is over 4 MB", async () => {
    const client = silentClient(HEADERS_ONLY.replace("Content-Length: 200", `Content-Length: ${5 * 1024 * 1024}`));
    const end = await client.closed;
    expect(end.received).toMatch(/^HTTP\/1\.1 413 /);
    expect(end.afterMs).toBeLessThan(5_000);
  });

  it("refuses with 413 a chunked initialize once it passes 4 MB, and closes the connection before the rest", async () => {
    const client = silentClient(HEADERS_ONLY.replace("Content-Length: 200", "Transfer-Encoding: chunked"));
    const chunk = `${(64 * 1024).toString(16)}\r\n${" ".repeat(64 * 1024)}\r\n`;
    // After the headers, which silentClient writes on connect.
    await new Promise((resolve) => client.socket.once("connect", resolve));
    let sentBytes = 0;
    // Up to 64 MB: the server must stop it long before.
    for (let index = 0; index < 1_024 && !client.socket.destroyed; index++) {
      const drained = client.socket.write(chunk);
      sentBytes += 64 * 1024;
      if (!drained) await Promise.race([new Promise((resolve) => client.socket.once("drain", resolve)), client.closed]);
    }
    const end = await client.closed;
    expect(end.received).toMatch(/^HTTP\/1\.1 413 /);
    expect(sentBytes).toBeLessThan(64 * 1024 * 1024);
  });

  it("closes a connection that trickles its body past the deadline", async () => {
    const client = silentClient(HEADERS_ONLY);
    const trickle = setInterval(() => client.socket.write(" "), 100);
    const end = await client.closed;
    clearInterval(trickle);
    expect(end.received).toMatch(/^HTTP\/1\.1 408 /);
    expect(end.afterMs).toBeLessThan(5_000);
  });
});

describe("serveGateway over streamable HTTP: request bodies in flight", () => {
  const folder = mkdtempSync(join(tmpdir(), "switchyard-gateway-bodies-"));
  const BUDGET = 1024 * 1024;
  let gateway: RunningGateway;

  beforeAll(async () => {
    gateway = await serveSlowTools(folder, {
      httpSessions: { maxSessions: 10, bodyTimeoutMs: 8_000, maxBodyBytesInFlight: BUDGET },
    });
  });

  afterAll(async () => {
    await gateway?.close();
    rmSync(folder, { recursive: true, force: true });
  });

  /** A raw client that sends POST headers announcing `announced` bytes, then `sent` bytes of body, and waits. */
  function heldBody(announced: number, sent: number, sessionId?: string): { socket: Socket; closed: Promise<string> } {
    const url = new URL(gateway.url!);
    const headers =
      `POST /mcp HTTP/1.1\r\nHost: ${url.host}\r\nContent-Type: application/json\r\n` +
      `Accept: application/json, text/event-stream\r\nContent-Length: ${announced}\r\n` +
      `${sessionId === undefined ? "" : `Mcp-Session-Id: ${sessionId}\r\n`}\r\n`;
    const socket = connect(Number(url.port), "127.0.0.1", () => socket.write(headers + " ".repeat(sent)));
    const closed = new Promise<string>((resolve) => {
      let received = "";
      socket.on("data", (chunk) => (received += chunk));
      socket.on("close", () => resolve(received));
      socket.on("error", () => undefined);
    });
    return { socket, closed };
  }

  const post = (body: string, sessionId?: string): Promise<Response> =>
    fetch(gateway.url!, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        ...(sessionId === undefined ? {} : { "mcp-session-id": sessionId, "mcp-protocol-version": "2025-06-18" }),
      },
      body,
    });

  /** The JSON-RPC error of a raw HTTP answer. */
  function errorOf(raw: string): { code: number; message: string; data: Record<string, unknown> } {
    // The body may come in chunked encoding: the JSON is from its first brace to its last.
    return JSON.parse(raw.slice(raw.indexOf("{"), raw.lastIndexOf("}") + 1)).error;
  }

  it("refuses with 503 and a JSON-RPC error the body that would pass what all clients' bodies hold, and gives the bytes back", async () => {
    // Three clients each announce 3 MB (under the 4 MB cap of one body) and send 400 KB: 1.2 MB in all.
    const clients = Array.from({ length: 3 }, () => heldBody(3_000_000, 400 * 1024));
    const first = await Promise.race(clients.map((client) => client.closed));
    expect(first).toMatch(/^HTTP\/1\.1 503 /);
    expect(first).toMatch(/retry-after: 1/i);
    expect(errorOf(first)).toEqual({
      code: -32000,
      message: expect.stringMatching(/holding 1048576 bytes of request bodies from all clients, its limit; retry/),
      data: { status: 503, maxBodyBytesInFlight: BUDGET },
    });
    // The others are still being read; when they go, their bytes are given back.
    for (const client of clients) client.socket.destroy();
    await Promise.all(clients.map((client) => client.closed));
    await new Promise((resolve) => setTimeout(resolve, 100));
    // 900 KB: refused if what the abandoned bodies held had not been given back.
    const padded = INITIALIZE_BODY.replace("{", `{${" ".repeat(900 * 1024)}`);
    const whole = await post(padded);
    expect(whole.status).toBe(200);
    await whole.body?.cancel();
  });

  it("counts the bodies of requests in an open session against the same budget", async () => {
    const opened = await post(INITIALIZE_BODY);
    const sessionId = opened.headers.get("mcp-session-id") ?? undefined;
    await opened.body?.cancel();
    expect(sessionId).toBeDefined();
    const holder = heldBody(3_000_000, 900 * 1024);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const list = JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list", params: {} });
    const refused = heldBody(Buffer.byteLength(list) + 200 * 1024, 200 * 1024, sessionId);
    const answer = await refused.closed;
    expect(answer).toMatch(/^HTTP\/1\.1 503 /);
    expect(errorOf(answer).data).toEqual({ status: 503, maxBodyBytesInFlight: BUDGET });
    holder.socket.destroy();
    await holder.closed;
    await new Promise((resolve) => setTimeout(resolve, 100));
    const listed = await post(list, sessionId);
    expect(listed.status).toBe(200);
    expect(await listed.text()).toMatch(/"tools"/);
  });
});
