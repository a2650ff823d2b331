// An MCP server as a ToolSource: its tools enter a registry as `<namespace>.<tool>` under
// source `mcp:<namespace>`, follow the server's tools/list_changed, and survive a crash or a
// hang (calls in flight get SOURCE_UNAVAILABLE; the server restarts on its next use, with
// backoff). It never retries a call on its own: a call that was in flight may have had effects.
// The MCP SDK's client is imported on the first start, so importing Switchyard does not pay for it.

import type { Stream } from "node:stream";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { descendantsOf, killMembers } from "./process-tree.js";
import type { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import type { JsonSchema, ToolEffect } from "../../contract.js";
import { SwitchyardError, ToolError, messageOf } from "../../errors.js";
import type { ToolContext, ToolDefinition } from "../../registry/define-tool.js";
import type { SkippedTool, SourceAttachment } from "../../registry/source-attachment.js";
import type { ToolRegistry } from "../../registry/tool-registry.js";
import type { SourceTool, ToolSource, ToolSourceState } from "../../registry/tool-source.js";
import { errorTextOfToolResult, valueOfToolResult, type McpToolResultLike } from "./mcp-content.js";
import { traceContextMeta } from "../../telemetry/switchyard-telemetry.js";

/** How to reach an MCP server: a child process over stdio, or a streamable-HTTP endpoint. */
export type McpTransportOptions =
  | {
      readonly kind: "stdio";
      readonly command: string;
      readonly args?: readonly string[];
      /** Added to the SDK's safe default environment (PATH, HOME, ...), not replacing it. */
      readonly env?: Readonly<Record<string, string>>;
      readonly cwd?: string;
    }
  | { readonly kind: "http"; readonly url: string; readonly headers?: Readonly<Record<string, string>> };

export interface McpRestartOptions {
  /** Consecutive failed restarts after which the source gives up (calls keep failing). Default 5. */
  readonly maxAttempts?: number;
  /** Wait before the first restart, counted from the failure, in ms. Default 200; doubles per failed attempt. */
  readonly initialDelayMs?: number;
  /** Cap of the backoff, in ms. Default 10 000. */
  readonly maxDelayMs?: number;
}

export interface McpSourceOptions {
  /** The namespace the tools get (`tools.<namespace>.<name>`); one source per namespace per registry. */
  readonly namespace: string;
  readonly transport: McpTransportOptions;
  /**
   * How long one tools/call may take before the server is suspected to hang, in ms. Default
   * 30 000. Past it the server is pinged: no answer → SOURCE_UNAVAILABLE and a restart; an
   * answer → the call fails TOOL_TIMEOUT and the server is kept. The tools' pipeline timeout is
   * set a little above this so the check can finish.
   */
  readonly callTimeoutMs?: number;
  /** Time for the initialize handshake and the first tools/list, in ms. Default 15 000. */
  readonly startTimeoutMs?: number;
  /** Time a ping may take when a call timed out, in ms. Default 2 000. */
  readonly pingTimeoutMs?: number;
  readonly restart?: McpRestartOptions;
  /** Client capabilities announced to the server (e.g. `{ roots: {} }`). Default none. */
  readonly clientCapabilities?: Record<string, unknown>;
  /** Called for lifecycle events; an exception thrown here is ignored. */
  readonly onEvent?: (event: McpSourceEvent) => void;
}

/** What happened to a source, for logs and tests. */
export type McpSourceEvent =
  | {
      readonly type: "mcp-started";
      readonly namespace: string;
      readonly ms: number;
      readonly pid: number | undefined;
      readonly restart: boolean;
    }
  | {
      readonly type: "mcp-tools-listed";
      readonly namespace: string;
      readonly reason: "start" | "list_changed" | "refresh";
      readonly tools: number;
      /** False when the listing equalled the previous one, so the catalog did not move. */
      readonly changed: boolean;
    }
  | { readonly type: "mcp-list-failed"; readonly namespace: string; readonly message: string }
  | { readonly type: "mcp-unavailable"; readonly namespace: string; readonly reason: string }
  | {
      readonly type: "mcp-restart-failed";
      readonly namespace: string;
      readonly attempt: number;
      readonly message: string;
    }
  | {
      /** The server wrote a line to stdout that is not an MCP message (once per connection). */
      readonly type: "mcp-stdout-invalid";
      readonly namespace: string;
      readonly message: string;
    };

export type McpSourceState = ToolSourceState;

/** An MCP server attached to a registry by `connectMcpSource`; see the module comment. */
export interface McpSource {
  readonly namespace: string;
  /** `mcp:<namespace>`: the `source` of every tool it registered. */
  readonly sourceName: string;
  readonly state: McpSourceState;
  /** The server's child process id (stdio), while it runs. */
  readonly pid: number | undefined;
  /** The tool definitions currently registered by this source. */
  readonly tools: readonly ToolDefinition[];
  /** Server tools left out, with the reason (an unusable name or schema). */
  readonly skippedTools: readonly { readonly name: string; readonly reason: string }[];
  readonly stats: Readonly<McpSourceStats>;
  /** The last lines the server wrote to stderr (stdio only), oldest first. */
  stderrTail(): readonly string[];
  /** Lists the tools again now and replaces them in the registry if they changed. */
  refresh(): Promise<void>;
  /** Removes the tools from the registry and shuts the client (and the child process) down. */
  close(): Promise<void>;
}

export interface McpSourceStats {
  starts: number;
  restarts: number;
  listings: number;
  listChangedNotifications: number;
  /** Duration of the last successful start (spawn, handshake and first listing), in ms. */
  lastStartMs: number;
}

const CLIENT_INFO = { name: "switchyard", version: "0.1.0" } as const;
const STDERR_LINES_KEPT = 20;
const DEFAULT_CALL_TIMEOUT_MS = 30_000;
const DEFAULT_START_TIMEOUT_MS = 15_000;
const DEFAULT_PING_TIMEOUT_MS = 2_000;
const MAX_LIST_PAGES = 100;

/**
 * Starts (or connects to) an MCP server, lists its tools following `nextCursor`, and attaches
 * it to `registry` (`registry.attachSource`). Throws SwitchyardError: `NAMESPACE_CONFLICT`
 * when another source already uses the namespace, `OPTION_INVALID` for a bad namespace or
 * option, `SOURCE_START_FAILED` (naming the command and the last lines of its stderr) when the
 * server does not start, answer the handshake or list its tools.
 */
export async function connectMcpSource(registry: ToolRegistry, options: McpSourceOptions): Promise<McpSource> {
  const source = new McpToolSource(options);
  const attachment = await registry.attachSource(source);
  return new AttachedMcpSource(source, attachment);
}

/** The handle `connectMcpSource` returns: the source and what the registry made of its listing. */
class AttachedMcpSource implements McpSource {
  readonly #source: McpToolSource;
  readonly #attachment: SourceAttachment;

  constructor(source: McpToolSource, attachment: SourceAttachment) {
    this.#source = source;
    this.#attachment = attachment;
  }

  get namespace(): string {
    return this.#source.namespace;
  }
  get sourceName(): string {
    return this.#source.name;
  }
  get state(): McpSourceState {
    return this.#source.state;
  }
  get pid(): number | undefined {
    return this.#source.pid;
  }
  get tools(): readonly ToolDefinition[] {
    return this.#attachment.tools;
  }
  get skippedTools(): readonly SkippedTool[] {
    return this.#attachment.skippedTools;
  }
  get stats(): Readonly<McpSourceStats> {
    return this.#source.stats;
  }
  stderrTail(): readonly string[] {
    return this.#source.stderrTail();
  }
  refresh(): Promise<void> {
    return this.#source.refresh();
  }
  close(): Promise<void> {
    return this.#attachment.close();
  }
}

interface Connection {
  readonly client: Client;
  readonly transport: Transport;
  /** The transport when it is a child process over stdio. */
  readonly stdio: StdioClientTransport | undefined;
  readonly stderr: StderrTail | undefined;
  /** Set once the connection is gone: the server exited, hung, or we closed it. */
  lost: string | undefined;
  /** Why the first line on stdout that was not an MCP message failed to parse. */
  invalidStdout: string | undefined;
}

/** The parts of the MCP SDK's client this module uses, loaded once on the first start. */
interface McpClientSdk {
  readonly Client: typeof Client;
  readonly StdioClientTransport: typeof StdioClientTransport;
  readonly StreamableHTTPClientTransport: typeof StreamableHTTPClientTransport;
  readonly types: typeof import("@modelcontextprotocol/sdk/types.js");
}

let sdkLoading: Promise<McpClientSdk> | undefined;
// Set once loaded: every connection exists only after a load, so code handling one reads it synchronously.
let sdk: McpClientSdk | undefined;

function loadMcpClientSdk(): Promise<McpClientSdk> {
  sdkLoading ??= Promise.all([
    import("@modelcontextprotocol/sdk/client/index.js"),
    import("@modelcontextprotocol/sdk/client/stdio.js"),
    import("@modelcontextprotocol/sdk/client/streamableHttp.js"),
    import("@modelcontextprotocol/sdk/types.js"),
  ]).then(([client, stdio, http, types]) => {
    sdk = {
      Client: client.Client,
      StdioClientTransport: stdio.StdioClientTransport,
      StreamableHTTPClientTransport: http.StreamableHTTPClientTransport,
      types,
    };
    return sdk;
  });
  return sdkLoading;
}

function loadedSdk(): McpClientSdk {
  if (sdk === undefined) throw new Error("the MCP SDK is used before it was loaded");
  return sdk;
}

/**
 * How long a start may go on after the server wrote something other than an MCP message to
 * stdout, in ms. Such bytes may have swallowed a protocol message (a banner without a line
 * break glues itself to the next message), so a handshake that does not finish soon after
 * never will; a server that only printed a stray line finishes well within it.
 */
const INVALID_STDOUT_GRACE_MS = 2_000;

/** An MCP server as a ToolSource; attach it with `registry.attachSource` (or use `connectMcpSource`). */
export class McpToolSource implements ToolSource {
  readonly namespace: string;
  readonly name: string;
  readonly stats: McpSourceStats = { starts: 0, restarts: 0, listings: 0, listChangedNotifications: 0, lastStartMs: 0 };
  readonly #options: McpSourceOptions;
  readonly #callTimeoutMs: number;
  readonly #startTimeoutMs: number;
  readonly #pingTimeoutMs: number;
  #state: McpSourceState = "starting";
  #connection: Connection | undefined;
  #lastStderr: StderrTail | undefined;
  #starting: Promise<Connection> | undefined;
  #failedRestarts = 0;
  #unavailableSince = 0;
  #listing: Promise<void> | undefined;
  #relistPending = false;
  #fingerprint: string | undefined;
  #listed: readonly SourceTool[] = [];
  readonly #watchers = new Set<() => void>();

  constructor(options: McpSourceOptions) {
    this.#options = options;
    this.namespace = options.namespace;
    this.name = `mcp:${options.namespace}`;
    // Checked here, so a bad value is an OPTION_INVALID before anything is spawned.
    this.#callTimeoutMs = positive(options.callTimeoutMs, DEFAULT_CALL_TIMEOUT_MS, "callTimeoutMs");
    this.#startTimeoutMs = positive(options.startTimeoutMs, DEFAULT_START_TIMEOUT_MS, "startTimeoutMs");
    this.#pingTimeoutMs = positive(options.pingTimeoutMs, DEFAULT_PING_TIMEOUT_MS, "pingTimeoutMs");
  }

  get state(): McpSourceState {
    return this.#state;
  }

  get pid(): number | undefined {
    const stdio = this.#connection?.lost === undefined ? this.#connection?.stdio : undefined;
    return stdio?.pid ?? undefined;
  }

  list(): readonly SourceTool[] {
    return this.#listed;
  }

  watch(onChange: () => void): () => void {
    this.#watchers.add(onChange);
    return () => this.#watchers.delete(onChange);
  }

  call(name: string, input: unknown, context: ToolContext): Promise<unknown> {
    return this.#callTool(name, input, context.signal, context.callId);
  }

  stderrTail(): readonly string[] {
    return (this.#connection?.stderr ?? this.#lastStderr)?.lines() ?? [];
  }

  async start(): Promise<void> {
    try {
      await this.#startConnection(false);
    } catch (error) {
      this.#state = "closed";
      throw error;
    }
  }

  async refresh(): Promise<void> {
    const connection = await this.#ensureConnected(undefined);
    await this.#relist(connection, "refresh");
  }

  async close(): Promise<void> {
    if (this.#state === "closed") return;
    this.#state = "closed";
    const connection = this.#connection;
    this.#connection = undefined;
    this.#watchers.clear();
    if (connection !== undefined) await this.#shutDown(connection, "closed");
  }

  // --- Starting and restarting -------------------------------------------------------------

  async #startConnection(restart: boolean): Promise<Connection> {
    this.#state = "starting";
    const started = Date.now();
    const { Client, types } = await loadMcpClientSdk();
    const { transport, stdio, stderr } = this.#createTransport();
    this.#lastStderr = stderr;
    const client = new Client(CLIENT_INFO, { capabilities: this.#options.clientCapabilities ?? {} });
    const connection: Connection = { client, transport, stdio, stderr, lost: undefined, invalidStdout: undefined };
    const invalidStdout = new InvalidStdoutWatch();
    if (stdio !== undefined) {
      client.onerror = (error) => {
        if (connection.invalidStdout !== undefined || !isUnparsableMessage(error)) return;
        connection.invalidStdout = firstLine(error.message);
        invalidStdout.seen(connection.invalidStdout);
        this.#emit({ type: "mcp-stdout-invalid", namespace: this.namespace, message: connection.invalidStdout });
      };
    }
    client.setNotificationHandler(types.ToolListChangedNotificationSchema, () => {
      this.stats.listChangedNotifications += 1;
      // A stale connection's notification says nothing about the live one.
      if (this.#connection !== connection || connection.lost !== undefined) return;
      void this.#relist(connection, "list_changed").catch(() => {});
    });
    client.onclose = () => this.#markLost(connection, "the server closed the connection (it exited or crashed)");
    // Current before the handshake, so a list_changed sent right after it (servers that add
    // tools once they know the client's capabilities) joins the first listing.
    this.#connection = connection;
    try {
      await invalidStdout.race(
        (async () => {
          await client.connect(transport, { timeout: this.#startTimeoutMs });
          await this.#relist(connection, "start", this.#startTimeoutMs);
        })(),
      );
    } catch (error) {
      if (this.#connection === connection) this.#connection = undefined;
      connection.lost ??= "start failed";
      await this.#shutDown(connection, "start failed");
      await stderr?.settled(300);
      throw new SwitchyardError("SOURCE_START_FAILED", this.#startFailureMessage(error, stderr), {
        namespace: this.namespace,
        stderr: [...(stderr?.lines() ?? [])],
      });
    }
    this.stats.starts += 1;
    if (restart) this.stats.restarts += 1;
    this.stats.lastStartMs = Date.now() - started;
    this.#state = "connected";
    this.#emit({ type: "mcp-started", namespace: this.namespace, ms: this.stats.lastStartMs, pid: this.pid, restart });
    return connection;
  }

  #createTransport(): {
    transport: Transport;
    stdio: StdioClientTransport | undefined;
    stderr: StderrTail | undefined;
  } {
    const { StdioClientTransport, StreamableHTTPClientTransport } = loadedSdk();
    const options = this.#options.transport;
    if (options.kind === "http") {
      const url = new URL(options.url);
      const transport = new StreamableHTTPClientTransport(
        url,
        options.headers === undefined ? {} : { requestInit: { headers: { ...options.headers } } },
      );
      return { transport, stdio: undefined, stderr: undefined };
    }
    const transport = new StdioClientTransport({
      command: options.command,
      args: [...(options.args ?? [])],
      ...(options.env === undefined ? {} : { env: { ...options.env } }),
      ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
      // Piped, so a failed start can quote it; always read, so a chatty server never blocks on a full pipe.
      stderr: "pipe",
    });
    const stderr = new StderrTail();
    const stream = transport.stderr;
    if (stream !== null) stderr.follow(stream);
    return { transport, stdio: transport, stderr };
  }

  /** The live connection, restarting the server (after its backoff delay) when it is down. */
  async #ensureConnected(signal: AbortSignal | undefined): Promise<Connection> {
    if (this.#state === "closed") throw this.#unavailable("the source was closed");
    const current = this.#connection;
    if (this.#starting === undefined && current !== undefined && current.lost === undefined) return current;
    if (this.#starting === undefined) {
      const restart = this.#options.restart ?? {};
      const maxAttempts = restart.maxAttempts ?? 5;
      if (this.#failedRestarts >= maxAttempts) {
        this.#state = "gave-up";
        throw this.#unavailable(
          `it could not be restarted after ${maxAttempts} attempts; it will not be restarted again in this session`,
        );
      }
      const initialDelayMs = restart.initialDelayMs ?? 200;
      const delayMs = Math.min(initialDelayMs * 2 ** this.#failedRestarts, restart.maxDelayMs ?? 10_000);
      const waitMs = this.#unavailableSince + delayMs - Date.now();
      this.#starting = (async () => {
        if (waitMs > 0) await sleep(waitMs);
        try {
          const connection = await this.#startConnection(true);
          this.#failedRestarts = 0;
          return connection;
        } catch (error) {
          this.#failedRestarts += 1;
          this.#unavailableSince = Date.now();
          this.#state = this.#state === "closed" ? "closed" : "unavailable";
          const message = error instanceof Error ? firstLine(error.message) : String(error);
          this.#emit({ type: "mcp-restart-failed", namespace: this.namespace, attempt: this.#failedRestarts, message });
          throw this.#unavailable(
            `restarting it failed (attempt ${this.#failedRestarts}); it will be tried again on a later call`,
          );
        }
      })().finally(() => {
        this.#starting = undefined;
      });
      // Nobody may be waiting when the last caller is cancelled: keep the rejection handled.
      this.#starting.catch(() => {});
    }
    return await abortable(this.#starting, signal);
  }

  #markLost(connection: Connection, reason: string): void {
    if (connection.lost !== undefined) return;
    connection.lost = reason;
    if (this.#connection !== connection || this.#state !== "connected") return;
    this.#unavailableSince = Date.now();
    this.#state = "unavailable";
    this.#emit({ type: "mcp-unavailable", namespace: this.namespace, reason });
  }

  async #shutDown(connection: Connection, reason: string): Promise<void> {
    connection.lost ??= reason;
    const pid = connection.stdio?.pid ?? null;
    // Read while the server lives: its own children (a server behind `sh -c` or npx) go with it;
    // at once when it failed (nothing to finish politely; the close then takes no grace period).
    const family = pid === null ? [] : descendantsOf(pid);
    if (reason !== "closed") killMembers(family);
    try {
      const { StreamableHTTPClientTransport } = loadedSdk();
      if (connection.transport instanceof StreamableHTTPClientTransport && reason === "closed") {
        await connection.transport.terminateSession().catch(() => {});
      }
      await connection.client.close();
    } catch {
      // Closing a dead connection may throw; it is closed either way.
    }
    // The client's close returns before the child has exited: wait for it, so a caller that
    // exits right after close() leaves no server behind; one that ignores its closed stdin is killed.
    if (pid !== null && reason === "closed") await waitForExit(pid, CHILD_EXIT_GRACE_MS);
    // Whatever of the tree outlived the server would hold its pipes, and the host's event loop, open.
    killMembers(family);
  }

  // --- Listing ---------------------------------------------------------------------------------

  /** Lists the tools; a list_changed arriving meanwhile triggers one more listing afterwards. */
  #relist(connection: Connection, reason: "start" | "list_changed" | "refresh", timeoutMs?: number): Promise<void> {
    if (this.#listing !== undefined) {
      this.#relistPending = true;
      return this.#listing;
    }
    this.#listing = (async () => {
      let why = reason;
      do {
        this.#relistPending = false;
        try {
          const tools = await listAllTools(connection.client, timeoutMs);
          this.stats.listings += 1;
          if (this.#state === "closed" || this.#connection !== connection) return;
          const changed = this.#takeListing(tools);
          this.#emit({
            type: "mcp-tools-listed",
            namespace: this.namespace,
            reason: why,
            tools: tools.length,
            changed,
          });
        } catch (error) {
          const message = messageOf(error);
          if (why !== "start") this.#emit({ type: "mcp-list-failed", namespace: this.namespace, message });
          throw error;
        }
        why = "list_changed";
      } while (this.#relistPending);
    })().finally(() => {
      this.#listing = undefined;
    });
    return this.#listing;
  }

  /** Keeps a listing unless it equals the current one, and tells the watchers; returns whether it changed. */
  #takeListing(listed: readonly Tool[]): boolean {
    const fingerprint = JSON.stringify(
      listed.map((tool) => [
        tool.name,
        tool.title,
        tool.description,
        tool.inputSchema,
        tool.outputSchema,
        tool.annotations,
      ]),
    );
    if (fingerprint === this.#fingerprint) return false;
    this.#fingerprint = fingerprint;
    // The pipeline's timeout sits a little above the call timeout, so a hung server's ping can finish.
    const timeoutMs = this.#callTimeoutMs + this.#pingTimeoutMs + 1_000;
    this.#listed = listed.map((tool) => ({
      name: tool.name,
      description: tool.description ?? tool.title ?? "",
      inputSchema: tool.inputSchema as JsonSchema,
      ...(tool.outputSchema === undefined ? {} : { outputSchema: tool.outputSchema as JsonSchema }),
      effect: effectOf(tool),
      timeoutMs,
    }));
    for (const watcher of this.#watchers) watcher();
    return true;
  }

  // --- Calling ---------------------------------------------------------------------------------

  async #callTool(name: string, input: unknown, signal: AbortSignal, callId: string): Promise<unknown> {
    const connection = await this.#ensureConnected(signal);
    let result: McpToolResultLike & { toolResult?: unknown };
    // The call's span context (W3C `traceparent`) lets a traced server continue the trace.
    const meta = traceContextMeta(callId);
    try {
      result = await connection.client.callTool(
        { name, arguments: (input ?? {}) as Record<string, unknown>, ...(meta === undefined ? {} : { _meta: meta }) },
        undefined,
        // The signal makes the SDK send notifications/cancelled when the pipeline gives up.
        { signal, timeout: this.#callTimeoutMs },
      );
    } catch (error) {
      throw await this.#callFailure(connection, name, error, signal);
    }
    if (result.isError === true) throw new ToolError(errorTextOfToolResult(result), { code: "TOOL_ERROR" });
    // Servers of protocol 2024-10-07 answer with `toolResult` instead of content blocks.
    if (result.content === undefined && "toolResult" in result) return result.toolResult;
    return valueOfToolResult(result);
  }

  async #callFailure(connection: Connection, name: string, error: unknown, signal: AbortSignal): Promise<unknown> {
    // The pipeline already answered a cancelled or timed-out call; what we throw is dropped.
    if (signal.aborted) return error;
    if (connection.lost !== undefined) {
      return this.#unavailable(
        `it stopped while ${this.namespace}.${name} was in flight (${connection.lost}); it will be restarted on the next call to one of its tools`,
      );
    }
    const { McpError, ErrorCode } = loadedSdk().types;
    if (error instanceof McpError) {
      if (error.code === ErrorCode.ConnectionClosed) {
        this.#markLost(connection, "the connection closed");
        return this.#unavailable(
          `it stopped while ${this.namespace}.${name} was in flight; it will be restarted on the next call to one of its tools`,
        );
      }
      if (error.code === ErrorCode.RequestTimeout) return await this.#timeoutFailure(connection, name);
      return new ToolError(error.message, { code: "TOOL_ERROR" });
    }
    // Anything else is the transport failing (a broken pipe, a refused HTTP connection).
    const reason = error instanceof Error ? firstLine(error.message) : String(error);
    this.#markLost(connection, reason);
    void this.#shutDown(connection, reason);
    return this.#unavailable(
      `it could not be reached (${reason}); it will be restarted on the next call to one of its tools`,
    );
  }

  /** A call ran past callTimeoutMs: a server that still answers a ping is slow, not hung. */
  async #timeoutFailure(connection: Connection, name: string): Promise<ToolError> {
    try {
      await connection.client.ping({ timeout: this.#pingTimeoutMs });
      return new ToolError(
        `${this.namespace}.${name} did not answer within ${this.#callTimeoutMs} ms; the server is still responsive, so retry with less work per call.`,
        {
          code: "TOOL_TIMEOUT",
        },
      );
    } catch {
      const reason = `it did not answer ${name} within ${this.#callTimeoutMs} ms nor a ping within ${this.#pingTimeoutMs} ms`;
      this.#markLost(connection, reason);
      // A hung child ignores the polite close (stdin end, then SIGTERM after 2 s): kill it now.
      // Its exit rejects every other call in flight, and they report the same.
      const childPid = connection.stdio?.pid ?? null;
      if (childPid !== null) {
        killMembers(descendantsOf(childPid));
        try {
          process.kill(childPid, "SIGKILL");
        } catch {
          // Already gone.
        }
      }
      void this.#shutDown(connection, reason);
      return this.#unavailable(`${reason}; it was stopped and will be restarted on the next call to one of its tools`);
    }
  }

  #unavailable(what: string): ToolError {
    return new ToolError(`The MCP server "${this.namespace}" is unavailable: ${what}.`, { code: "SOURCE_UNAVAILABLE" });
  }

  // --- Bookkeeping -------------------------------------------------------------------------

  #startFailureMessage(error: unknown, stderr: StderrTail | undefined): string {
    const transport = this.#options.transport;
    const target =
      transport.kind === "stdio"
        ? `command: ${[transport.command, ...(transport.args ?? [])].map(quoteArgument).join(" ")}`
        : `url: ${transport.url}`;
    const { McpError, ErrorCode } = loadedSdk().types;
    const reason =
      error instanceof InvalidStdoutError
        ? `it wrote something other than MCP messages to stdout (${error.message}); over stdio, stdout carries the protocol only, so the server must log to stderr`
        : error instanceof McpError && error.code === ErrorCode.ConnectionClosed
          ? "it exited (or closed its output) before the MCP handshake completed"
          : error instanceof McpError && error.code === ErrorCode.RequestTimeout
            ? this.#startTimeoutReason()
            : error instanceof Error
              ? error.message
              : String(error);
    const lines = stderr?.lines() ?? [];
    const tail =
      lines.length === 0
        ? transport.kind === "stdio"
          ? " It wrote nothing to stderr."
          : ""
        : `\nLast lines of its stderr:\n${lines.map((line) => `  ${line}`).join("\n")}`;
    return `The MCP server "${this.namespace}" failed to start (${target}): ${reason}.${tail}`;
  }

  /**
   * Why a start timed out, and what to do: how long it waited, the option that sets it, and for
   * `npx` (which may be downloading the package on a first start) to pre-install the package.
   */
  #startTimeoutReason(): string {
    const transport = this.#options.transport;
    const waited = `it did not complete the MCP handshake and its first tools/list within ${this.#startTimeoutMs} ms`;
    const raise = `raise "startTimeoutMs" for this server (in a config file: mcpServers.${this.namespace}.startTimeoutMs, e.g. 60000; in code: the source's startTimeoutMs option)`;
    const npxPackage = transport.kind === "stdio" ? npxPackageOf(transport.command, transport.args ?? []) : undefined;
    if (npxPackage === undefined) return `${waited}. If it is only slow to start, ${raise}`;
    return (
      `${waited}. npx may still be downloading ${npxPackage} (a first start often takes longer than that): ${raise}, ` +
      `or pre-install it (\`npm install -g ${npxPackage}\`, then run its binary as the command, or run \`npx -y ${npxPackage}\` once before starting)`
    );
  }

  #emit(event: McpSourceEvent): void {
    try {
      this.#options.onEvent?.(event);
    } catch {
      // A listener's failure is not the source's.
    }
  }
}

/** The package an `npx` command runs (its first argument that is not an option), or undefined for other commands. */
export function npxPackageOf(command: string, args: readonly string[]): string | undefined {
  const name = command
    .split(/[\\/]/)
    .pop()
    ?.replace(/\.(cmd|exe)$/i, "");
  if (name !== "npx") return undefined;
  const found = args.find((arg) => !arg.startsWith("-"));
  return found === undefined ? undefined : found.slice(0, 200);
}

/** Follows `tools/list` pages to the end (at most MAX_LIST_PAGES, against a server that loops). */
async function listAllTools(client: Client, timeoutMs: number | undefined): Promise<Tool[]> {
  const tools: Tool[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_LIST_PAGES; page++) {
    const result = await client.listTools(
      cursor === undefined ? {} : { cursor },
      timeoutMs === undefined ? {} : { timeout: timeoutMs },
    );
    tools.push(...result.tools);
    cursor = result.nextCursor;
    if (cursor === undefined || cursor === "") return tools;
  }
  throw new Error(`tools/list returned more than ${MAX_LIST_PAGES} pages`);
}

/**
 * The effect from MCP annotations: `readOnlyHint` → read, `destructiveHint` → destructive,
 * otherwise write. Unlike the MCP spec (where `destructiveHint` defaults to true), an absent
 * hint is not read as destructive: most servers leave it out on ordinary writes.
 */
function effectOf(tool: Pick<Tool, "annotations">): ToolEffect {
  if (tool.annotations?.readOnlyHint === true) return "read";
  if (tool.annotations?.destructiveHint === true) return "destructive";
  return "write";
}

/** A start given up because the server's stdout carried bytes that are not MCP messages. */
class InvalidStdoutError extends Error {}

/**
 * Fails a start INVALID_STDOUT_GRACE_MS after the first unparsable stdout line, unless the
 * start finished first. Until `seen()` it never fails anything.
 */
class InvalidStdoutWatch {
  #reject: ((error: Error) => void) | undefined;
  #timer: NodeJS.Timeout | undefined;
  #message = "";

  seen(message = ""): void {
    this.#message = message;
    if (this.#timer !== undefined) return;
    this.#timer = setTimeout(() => this.#reject?.(new InvalidStdoutError(this.#message)), INVALID_STDOUT_GRACE_MS);
  }

  /** `start`, unless the grace after invalid stdout runs out first. */
  async race<T>(start: Promise<T>): Promise<T> {
    const failed = new Promise<never>((_resolve, reject) => {
      this.#reject = reject;
    });
    try {
      return await Promise.race([start, failed]);
    } finally {
      clearTimeout(this.#timer);
      this.#reject = undefined;
      // The start keeps running until the caller shuts the connection down; its failure then is expected.
      start.catch(() => {});
    }
  }
}

/** The stdio transport's report of a stdout line that is not JSON, or not a JSON-RPC message. */
function isUnparsableMessage(error: Error): boolean {
  return error instanceof SyntaxError || error.name === "ZodError";
}

/** Keeps the last lines of a stream; lines are capped at 500 characters. */
class StderrTail {
  readonly #lines: string[] = [];
  #partial = "";
  #ended = false;
  readonly #waiters = new Set<() => void>();

  follow(stream: Stream): void {
    stream.on("data", (chunk: Buffer | string) => this.#push(String(chunk)));
    const end = (): void => {
      this.#ended = true;
      for (const waiter of this.#waiters) waiter();
    };
    stream.on("end", end);
    stream.on("close", end);
    stream.on("error", end);
  }

  lines(): readonly string[] {
    return this.#partial === "" ? [...this.#lines] : [...this.#lines, this.#partial].slice(-STDERR_LINES_KEPT);
  }

  /** Resolves when the stream ended or after `maxWaitMs`: output of a dying process may lag its exit. */
  settled(maxWaitMs: number): Promise<void> {
    if (this.#ended) return Promise.resolve();
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.#waiters.delete(done);
        resolve();
      };
      const timer = setTimeout(done, maxWaitMs);
      this.#waiters.add(done);
    });
  }

  #push(text: string): void {
    const parts = (this.#partial + text).split(/\r?\n/);
    this.#partial = parts.pop() ?? "";
    for (const line of parts) {
      if (line.trim() === "") continue;
      this.#lines.push(line.length > 500 ? `${line.slice(0, 497)}...` : line);
      if (this.#lines.length > STDERR_LINES_KEPT) this.#lines.shift();
    }
  }
}

function positive(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value <= 0)
    throw new SwitchyardError("OPTION_INVALID", `MCP source option ${name} must be a positive number.`);
  return value;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function abortable<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (signal === undefined) return promise;
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason);
    if (signal.aborted) return onAbort();
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

function firstLine(text: string): string {
  return text.split("\n", 1)[0] ?? text;
}

function quoteArgument(argument: string): string {
  return /^[\w@%+=:,./-]+$/.test(argument) ? argument : JSON.stringify(argument);
}

const CHILD_EXIT_GRACE_MS = 2_000;

/** Resolves once process `pid` is gone, sending SIGKILL after `graceMs`. */
async function waitForExit(pid: number, graceMs: number): Promise<void> {
  const deadline = Date.now() + graceMs;
  while (isRunning(pid)) {
    if (Date.now() >= deadline) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // It exited between the check and the kill.
      }
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
