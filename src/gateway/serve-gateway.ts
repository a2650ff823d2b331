// `switchyard serve` as a library function: builds the session of a config file, puts a gateway
// server in front of it on stdio or on streamable HTTP (127.0.0.1 only), and shuts everything
// down in order (MCP server, downstream servers, session) on stdin close, SIGTERM or SIGINT.
// The HTTP port is bound before anything starts, so a busy port fails fast and leaves nothing.

import { randomUUID, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { createSwitchyardFromConfig, type ConfiguredSwitchyard } from "../config/create-switchyard-from-config.js";
import { loadConfig } from "../config/load-config.js";
import { createGatewayLog, redirectConsole, type GatewayLog } from "./gateway-log.js";
import {
  checkHttpSessionLimits,
  DEFAULT_HTTP_BODY_TIMEOUT_MS,
  DEFAULT_HTTP_HEADERS_TIMEOUT_MS,
  HTTP_TIMEOUT_CHECK_MS,
  type HttpSessionLimits,
  HttpSessions,
} from "./http-sessions.js";
import { BodyBudget, DEFAULT_MAX_BODY_BYTES_IN_FLIGHT } from "./body-budget.js";
import { type JsonBodyResult, readJsonBody } from "./read-json-body.js";
import { createGatewayServer, type GatewayServer, type GatewayServerOptions } from "./gateway-server.js";
import { messageOf, SwitchyardError } from "../errors.js";
import { compileSchema } from "../schema/schema-validator.js";

export interface ServeGatewayOptions {
  /** Path of `switchyard.config.json`. */
  readonly configPath: string;
  /** Serve streamable HTTP on 127.0.0.1:`httpPort` (0 picks a free port) instead of stdio. */
  readonly httpPort?: number;
  /**
   * When set, every HTTP request must carry `Authorization: Bearer <httpToken>`, else 401:
   * loopback keeps other machines out, a token keeps other local users and pages out too.
   */
  readonly httpToken?: string;
  /**
   * A token per client, by client name: every HTTP request must carry one of them as its Bearer
   * token, else 401. Clients are then told apart: each holds at most its share of the session
   * places (`httpSessions.maxSessionsPerClient`) and reaches only the sessions it opened. With
   * `httpToken` as well, that token is one more client. Tokens must be distinct, 16+ visible ASCII characters.
   */
  readonly httpClients?: Readonly<Record<string, string>>;
  readonly enableCallTool?: boolean;
  /** Append the log to this file instead of stderr. */
  readonly logFile?: string;
  /** Stop waiting for downstream servers and the session after this long on shutdown, in ms. Default 5 000. */
  readonly shutdownTimeoutMs?: number;
  /**
   * HTTP only: most sessions open at once (default 100), how long an idle one lives (default
   * 30 min), and how long a request's headers and body may take to arrive (default 10 s each).
   */
  readonly httpSessions?: HttpSessionLimits;
  /** Extra gateway options (progress interval, approval timeout, the programs' output schema, durable runs). */
  readonly gateway?: Pick<
    GatewayServerOptions,
    "progressIntervalMs" | "approvalTimeoutMs" | "outputSchema" | "durable"
  >;
}

/** A running gateway. */
export interface RunningGateway {
  /** The HTTP endpoint (`http://127.0.0.1:<port>/mcp`), when serving HTTP. */
  readonly url: string | undefined;
  /** Resolves once everything is shut down. */
  readonly closed: Promise<void>;
  /** Shuts down in order; safe to call twice. */
  close(reason?: string): Promise<void>;
}

const DEFAULT_SHUTDOWN_TIMEOUT_MS = 5_000;
/** Bytes of one request's body (the MCP SDK's own message limit); an initialize's is read before it takes a place. */
const MAX_BODY_BYTES = 4 * 1024 * 1024;

/**
 * Starts `switchyard serve`. Throws SwitchyardError (CONFIG_INVALID, SOURCE_START_FAILED,
 * OPTION_INVALID for a port in use, ...) before serving anything when the port, the config or
 * a downstream server fails; nothing is left running.
 */
export async function serveGateway(options: ServeGatewayOptions): Promise<RunningGateway> {
  // Before the port is bound or any server starts: nothing to undo when it does not compile.
  const outputSchema = options.gateway?.outputSchema;
  if (outputSchema !== undefined) compileSchema(outputSchema, "The gateway's outputSchema");
  const clients = clientTokens(options);
  checkHttpSessionLimits(options.httpSessions ?? {});
  const log = createGatewayLog(options.logFile);
  const stdio = options.httpPort === undefined;
  const listener = stdio ? undefined : await bindHttp(options.httpPort!, options.httpSessions ?? {});
  const restoreConsole = stdio ? redirectConsole(log) : () => {};
  const started = Date.now();
  let session: ConfiguredSwitchyard;
  try {
    const config = await loadConfig(options.configPath);
    // `ask` decisions go to the client that made the call (askClient below), never to a terminal.
    session = await createSwitchyardFromConfig(config, {
      onMcpEvent: (event) => log(`mcp ${JSON.stringify(event)}`),
    });
  } catch (error) {
    restoreConsole();
    await listener?.close();
    throw error;
  }
  const { yard } = session;
  const gatewayOptions: GatewayServerOptions = {
    askClient: true,
    log,
    ...(options.enableCallTool === true ? { enableCallTool: true } : {}),
    ...options.gateway,
  };

  const gateways = new Set<GatewayServer>();
  let closeTransport: () => Promise<void> = async () => {};
  let url: string | undefined;

  let resolveClosed!: () => void;
  const closed = new Promise<void>((resolve) => (resolveClosed = resolve));
  let closing: Promise<void> | undefined;
  const close = (reason = "close() called"): Promise<void> =>
    (closing ??= (async () => {
      // Closing the transport calls close() again, from inside this first turn: the promise
      // must be stored before any step runs.
      await Promise.resolve();
      log(`shutting down: ${reason}`);
      process.off("SIGTERM", onSigterm);
      process.off("SIGINT", onSigint);
      await Promise.allSettled([...gateways].map((gateway) => gateway.close()));
      await closeTransport();
      // The configured session closes its MCP sources first, then the Switchyard session.
      const shutdown = session.close().catch((error: unknown) => log(`shutdown: ${messageOf(error)}`));
      const timeoutMs = options.shutdownTimeoutMs ?? DEFAULT_SHUTDOWN_TIMEOUT_MS;
      let timer: NodeJS.Timeout | undefined;
      const timedOut = await Promise.race([
        shutdown.then(() => false),
        new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(true), timeoutMs))),
      ]);
      clearTimeout(timer);
      if (timedOut) log(`shutdown: downstream servers did not close within ${timeoutMs} ms`);
      log("stopped");
      restoreConsole();
      resolveClosed();
    })());
  const onSigterm = (): void => void close("SIGTERM");
  const onSigint = (): void => void close("SIGINT");
  process.on("SIGTERM", onSigterm);
  process.on("SIGINT", onSigint);

  if (stdio) {
    const gateway = createGatewayServer(yard, gatewayOptions);
    gateways.add(gateway);
    const transport = new StdioServerTransport();
    // stdin ending is how stdio clients say goodbye; the transport alone does not notice it.
    const onEnd = (): void => void close("stdin closed");
    process.stdin.once("end", onEnd);
    process.stdin.once("close", onEnd);
    gateway.server.onclose = () => void close("transport closed");
    closeTransport = async () => {
      process.stdin.off("end", onEnd);
      process.stdin.off("close", onEnd);
    };
    await gateway.server.connect(transport);
  } else {
    const http = serveHttp(listener!, options, clients, yard, gatewayOptions, gateways, log);
    url = http.url;
    closeTransport = http.close;
  }
  const stats = yard.catalogStats();
  log(
    `ready on ${url ?? "stdio"} in ${Date.now() - started} ms: ${stats.tools} tools from ${session.sources.size} MCP servers` +
      `${yard.discovery.deferring ? `, deferred (${stats.loadedTools} loaded up front)` : ""}, catalog version ${stats.catalogVersion}`,
  );
  return { url, closed, close };
}

/** A client told apart by its own token: its name and the Authorization header it must send. */
interface ClientToken {
  readonly name: string;
  readonly header: Buffer;
}

/** Fewest characters a client's token may have (`httpClients`). */
const MIN_CLIENT_TOKEN_CHARS = 16;

/** The clients of `httpToken` and `httpClients`; empty when requests need no token. */
function clientTokens(options: ServeGatewayOptions): ClientToken[] {
  const clients: ClientToken[] = [];
  // An empty token (SWITCHYARD_GATEWAY_TOKEN="") made a server that answered every request 401.
  if (options.httpToken !== undefined && !/^[\x21-\x7e]+$/.test(options.httpToken))
    throw new SwitchyardError(
      "CONFIG_INVALID",
      "httpToken (SWITCHYARD_GATEWAY_TOKEN) must be visible ASCII characters without blanks, and not empty; unset it to serve without a token.",
    );
  if (options.httpToken !== undefined) clients.push({ name: "", header: Buffer.from(`Bearer ${options.httpToken}`) });
  const seen = new Set(options.httpToken === undefined ? [] : [options.httpToken]);
  for (const [name, token] of Object.entries(options.httpClients ?? {})) {
    // Visible ASCII only: Node reads header bytes as latin1, so a token with other characters
    // (sent as UTF-8) could never match, and every request of that client would get 401.
    if (typeof token !== "string" || token.length < MIN_CLIENT_TOKEN_CHARS || !/^[\x21-\x7e]+$/.test(token))
      throw new SwitchyardError(
        "CONFIG_INVALID",
        `httpClients: the token of client ${JSON.stringify(name.slice(0, 40))} must be ${MIN_CLIENT_TOKEN_CHARS}+ characters without blanks, visible ASCII only.`,
      );
    if (seen.has(token))
      throw new SwitchyardError("CONFIG_INVALID", `httpClients: two clients share a token; give each its own.`);
    seen.add(token);
    clients.push({ name: `client:${name}`, header: Buffer.from(`Bearer ${token}`) });
  }
  return clients;
}

/**
 * The client whose token the Authorization header carries ("" when requests need none), compared
 * in constant time against every token so the time taken does not say which one nearly matched.
 */
function clientOf(header: string | undefined, clients: readonly ClientToken[]): string | undefined {
  if (clients.length === 0) return "";
  if (header === undefined) return undefined;
  const given = Buffer.from(header);
  let found: string | undefined;
  for (const client of clients)
    if (given.length === client.header.length && timingSafeEqual(given, client.header)) found ??= client.name;
  return found;
}

/** An HTTP server bound to 127.0.0.1 whose requests get 503 until `handle` is set. */
interface HttpListener {
  readonly server: Server;
  /** The bound port (the one picked, for port 0). */
  port: number;
  handle: (request: IncomingMessage, response: ServerResponse) => void;
  close(): Promise<void>;
}

/**
 * Binds `port` on 127.0.0.1 (0 picks a free one); a port in use or refused is OPTION_INVALID.
 * Headers must arrive within `headersTimeoutMs`, a whole request within that plus `bodyTimeoutMs`
 * (Node's own defaults, 60 s and 300 s checked every 30 s, let a silent client hold a request
 * for minutes).
 */
async function bindHttp(port: number, limits: HttpSessionLimits): Promise<HttpListener> {
  const headersTimeout = limits.headersTimeoutMs ?? DEFAULT_HTTP_HEADERS_TIMEOUT_MS;
  const server = createServer(
    {
      headersTimeout,
      requestTimeout: headersTimeout + (limits.bodyTimeoutMs ?? DEFAULT_HTTP_BODY_TIMEOUT_MS),
      connectionsCheckingInterval: HTTP_TIMEOUT_CHECK_MS,
    },
    (request, response) => listener.handle(request, response),
  );
  const listener: HttpListener = {
    server,
    port,
    handle: (_request, response) => void response.writeHead(503, { "retry-after": "1" }).end(),
    close: () => new Promise<void>((resolve) => listener.server.close(() => resolve())),
  };
  try {
    await new Promise<void>((resolve, reject) => {
      listener.server.once("error", reject);
      listener.server.listen(port, "127.0.0.1", () => resolve());
    });
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    throw new SwitchyardError(
      "OPTION_INVALID",
      code === "EADDRINUSE"
        ? `port ${port} on 127.0.0.1 is already in use; stop what uses it, or pick another with --http <port> (0 picks a free one).`
        : code === "EACCES"
          ? `port ${port} needs privileges this user does not have; pick one above 1023 with --http <port> (0 picks a free one).`
          : `cannot listen on 127.0.0.1:${port}: ${messageOf(error)}.`,
      { port, code: typeof code === "string" ? code : null },
    );
  }
  listener.port = (listener.server.address() as AddressInfo).port;
  return listener;
}

/** Streamable HTTP on 127.0.0.1: one gateway server per MCP session, one shared session of tools. */
function serveHttp(
  listener: HttpListener,
  options: ServeGatewayOptions,
  clients: readonly ClientToken[],
  yard: ConfiguredSwitchyard["yard"],
  gatewayOptions: GatewayServerOptions,
  gateways: Set<GatewayServer>,
  log: GatewayLog,
): { url: string; close: () => Promise<void> } {
  const sessions = new HttpSessions(
    options.httpSessions ?? {},
    (id) => log(`http session ${id} expired (idle)`),
    Math.max(1, clients.length),
  );
  const bodyTimeoutMs = options.httpSessions?.bodyTimeoutMs ?? DEFAULT_HTTP_BODY_TIMEOUT_MS;
  // Every POST body is read here, under one budget, before the MCP SDK sees the request.
  const budget = new BodyBudget(options.httpSessions?.maxBodyBytesInFlight ?? DEFAULT_MAX_BODY_BYTES_IN_FLIGHT);
  const readBody = (request: IncomingMessage): Promise<JsonBodyResult> =>
    readJsonBody(request, { maxBytes: MAX_BODY_BYTES, timeoutMs: bodyTimeoutMs, budget });
  const refuseBody = (
    request: IncomingMessage,
    response: ServerResponse,
    refusal: Extract<JsonBodyResult, { ok: false }>,
  ): void => {
    if (refusal.status === 503) log(`http request refused: ${budget.maxBytes} bytes of request bodies in flight`);
    response
      .writeHead(refusal.status, {
        "content-type": "application/json",
        connection: "close",
        ...(refusal.status === 503 ? { "retry-after": "1" } : {}),
      })
      .end(
        JSON.stringify({
          jsonrpc: "2.0",
          error: {
            code: refusal.status === 503 ? -32000 : -32600,
            message: refusal.message,
            data: {
              status: refusal.status,
              ...(refusal.status === 503 ? { maxBodyBytesInFlight: budget.maxBytes } : {}),
            },
          },
          id: null,
        }),
      );
    // Whatever of the body is still on its way is not read.
    response.once("finish", () => request.socket.destroy());
  };
  const refuseFull = (response: ServerResponse, client: string, refusal: "full" | "share"): void => {
    const message =
      refusal === "full"
        ? `Too many open sessions (${sessions.maxSessions}); retry later.`
        : `This client holds its share of sessions (${sessions.maxSessionsPerClient}); close one or retry later.`;
    log(
      refusal === "full"
        ? `http initialize refused: ${sessions.size} sessions open (the cap is ${sessions.maxSessions})`
        : `http initialize refused: client ${client} holds its share (${sessions.maxSessionsPerClient})`,
    );
    response
      .writeHead(503, { "content-type": "application/json", "retry-after": "30" })
      .end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32000, message }, id: null }));
  };
  const allowedHosts = [`127.0.0.1:${listener.port}`, `localhost:${listener.port}`];
  const handle = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const client = clientOf(request.headers.authorization, clients);
    if (client === undefined) {
      response.writeHead(401, { "www-authenticate": "Bearer" }).end();
      return;
    }
    if (!(request.url ?? "/").startsWith("/mcp")) {
      response.writeHead(404).end();
      return;
    }
    const sessionId = request.headers["mcp-session-id"];
    if (typeof sessionId === "string" && sessions.has(sessionId, client)) {
      let parsed: unknown;
      if (request.method === "POST") {
        const body = await readBody(request);
        if (!body.ok) {
          refuseBody(request, response, body);
          return;
        }
        parsed = body.value;
      }
      if (await sessions.serve(sessionId, client, (known) => known.handleRequest(request, response, parsed))) return;
    }
    if (sessionId !== undefined || request.method !== "POST") {
      response.writeHead(404, { "content-type": "application/json" }).end(
        JSON.stringify({
          jsonrpc: "2.0",
          error: { code: -32001, message: "Session not found; initialize a new session." },
          id: null,
        }),
      );
      return;
    }
    // Refused on its headers when the table (or the client's share) is full, without reading the body.
    const refusedEarly = sessions.refusal(client);
    if (refusedEarly !== undefined) {
      refuseFull(response, client, refusedEarly);
      return;
    }
    // The body first, under its deadline: only a whole initialize takes a place.
    const body = await readBody(request);
    if (!body.ok) {
      refuseBody(request, response, body);
      return;
    }
    const refused = sessions.refusal(client);
    if (refused !== undefined) {
      refuseFull(response, client, refused);
      return;
    }
    const release = sessions.reserve(client);
    try {
      await openSession(request, response, body.value, client);
    } finally {
      release();
    }
  };
  const openSession = async (
    request: IncomingMessage,
    response: ServerResponse,
    body: unknown,
    client: string,
  ): Promise<void> => {
    const gateway = createGatewayServer(yard, gatewayOptions);
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      enableDnsRebindingProtection: true,
      allowedHosts,
      onsessioninitialized: (id) => {
        sessions.add(id, transport, client);
        log(`http session ${id} opened`);
      },
    });
    transport.onclose = () => {
      if (transport.sessionId !== undefined && sessions.delete(transport.sessionId))
        log(`http session ${transport.sessionId} closed`);
      gateways.delete(gateway);
      void gateway.close();
    };
    gateways.add(gateway);
    await gateway.server.connect(transport);
    await transport.handleRequest(request, response, body);
    // A first request that was not an initialize leaves no session behind.
    if (transport.sessionId === undefined) {
      gateways.delete(gateway);
      await gateway.close();
    }
  };
  const server = listener.server;
  listener.handle = (request, response) => {
    handle(request, response).catch((error: unknown) => {
      log(`http request failed: ${messageOf(error)}`);
      if (!response.headersSent) response.writeHead(500).end();
    });
  };
  return {
    url: `http://127.0.0.1:${listener.port}/mcp`,
    close: async () => {
      await sessions.closeAll();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
