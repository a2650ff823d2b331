// The gateway's table of streamable-HTTP sessions: capped in number and expired when idle, so
// clients that initialize and walk away cannot pile up live sessions (each holds an MCP server
// object and its transport). An initialize counts against the cap once its whole body has
// arrived (read under `bodyTimeoutMs`), until its session is in the table: a client that sends
// headers and never a body holds no place. A session with a request in flight is never expired.
// With a token per client (`httpClients`), each client holds at most its share of the places and
// reaches only the sessions it opened: one client cannot lock the others out or use their sessions.

import type { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { SwitchyardError } from "../errors.js";

/** Limits of the session table. */
export interface HttpSessionLimits {
  /** Sessions open at once; an initialize beyond it gets 503 with Retry-After. Default 100. */
  readonly maxSessions?: number;
  /**
   * Sessions one client may hold at once (open or initializing), when clients are told apart by
   * their own tokens (`httpClients`); beyond it that client's initialize gets 503. Default: the
   * cap divided evenly among the clients (at least 1); the whole cap with one client or none.
   */
  readonly maxSessionsPerClient?: number;
  /** A session with no request for this long is closed, in ms. Default 1 800 000 (30 min). */
  readonly idleTimeoutMs?: number;
  /**
   * Time for a request's headers to arrive, in ms, from its first byte; past it the connection is
   * closed with 408 (Node's `headersTimeout`, checked every `HTTP_TIMEOUT_CHECK_MS`). Default 10 000.
   */
  readonly headersTimeoutMs?: number;
  /**
   * Time for a request's body to arrive after its headers, in ms; past it the request gets 408
   * and its connection is closed (an initialize's body is read before it takes a place). Default 10 000.
   */
  readonly bodyTimeoutMs?: number;
  /**
   * Bytes of request bodies held at once across all connections, while they are read (each body
   * is also capped at 4 MB); a request whose body would pass it gets 503 with a JSON-RPC error and
   * Retry-After, and its connection is closed. Default 67 108 864 (64 MiB).
   */
  readonly maxBodyBytesInFlight?: number;
}

export const DEFAULT_MAX_HTTP_SESSIONS = 100;
export const DEFAULT_HTTP_SESSION_IDLE_MS = 30 * 60_000;
export const DEFAULT_HTTP_HEADERS_TIMEOUT_MS = 10_000;
export const DEFAULT_HTTP_BODY_TIMEOUT_MS = 10_000;
/** How often Node checks its header and request timeouts, in ms (its own default is 30 s). */
export const HTTP_TIMEOUT_CHECK_MS = 250;

/**
 * Throws SwitchyardError OPTION_INVALID when a limit given is not a positive integer: NaN or a
 * fraction would not fail, it would lift the limit (every comparison with NaN is false).
 */
export function checkHttpSessionLimits(limits: HttpSessionLimits): void {
  for (const [name, value] of Object.entries(limits)) {
    if (value !== undefined && (!Number.isSafeInteger(value) || (value as number) < 1)) {
      throw new SwitchyardError(
        "OPTION_INVALID",
        `httpSessions.${name} must be a positive integer, got ${String(value)}.`,
      );
    }
  }
}

interface Entry {
  readonly transport: StreamableHTTPServerTransport;
  /** The client that opened it (its token's name; "" when clients are not told apart). */
  readonly client: string;
  lastSeenAt: number;
  inFlight: number;
}

/** Live HTTP sessions by id; see the module comment. */
export class HttpSessions {
  readonly maxSessions: number;
  readonly maxSessionsPerClient: number;
  readonly idleTimeoutMs: number;
  readonly #entries = new Map<string, Entry>();
  /** Initializes let in whose session is not in the table yet. */
  #opening = 0;
  /** Places held per client: its open sessions and its initializes in progress. */
  readonly #held = new Map<string, number>();
  readonly #sweeper: NodeJS.Timeout;
  readonly #onExpired: (id: string) => void;

  /**
   * `clients` is how many clients are told apart (1 when they are not); `onExpired` is told (for
   * the log) after an idle session was closed.
   */
  constructor(limits: HttpSessionLimits, onExpired: (id: string) => void, clients = 1) {
    this.maxSessions = limits.maxSessions ?? DEFAULT_MAX_HTTP_SESSIONS;
    this.maxSessionsPerClient =
      limits.maxSessionsPerClient ?? Math.max(1, Math.floor(this.maxSessions / Math.max(1, clients)));
    this.idleTimeoutMs = limits.idleTimeoutMs ?? DEFAULT_HTTP_SESSION_IDLE_MS;
    this.#onExpired = onExpired;
    this.#sweeper = setInterval(() => this.#expireIdle(), Math.max(10, Math.min(this.idleTimeoutMs / 4, 60_000)));
    this.#sweeper.unref();
  }

  get size(): number {
    return this.#entries.size;
  }

  /**
   * Why `client` may not open a session now: "full" when open sessions and initializes in progress
   * reach the cap, "share" when that client's own reach its share; undefined when it may.
   */
  refusal(client: string): "full" | "share" | undefined {
    if (this.#entries.size + this.#opening >= this.maxSessions) return "full";
    return (this.#held.get(client) ?? 0) >= this.maxSessionsPerClient ? "share" : undefined;
  }

  /**
   * Holds a place for `client`'s initialize (its body read) until its answer is sent, so
   * initializes handled at once cannot all pass the cap. Call the returned function once it is
   * answered; the session `add`ed meanwhile keeps the client's place.
   */
  reserve(client: string): () => void {
    this.#opening += 1;
    this.#hold(client, 1);
    let held = true;
    return () => {
      if (held) {
        this.#opening -= 1;
        this.#hold(client, -1);
      }
      held = false;
    };
  }

  /** Whether a session of this id is open and was opened by `client`. */
  has(id: string, client: string): boolean {
    return this.#entries.get(id)?.client === client;
  }

  add(id: string, transport: StreamableHTTPServerTransport, client: string): void {
    this.#entries.set(id, { transport, client, lastSeenAt: Date.now(), inFlight: 0 });
    this.#hold(client, 1);
  }

  /** Forgets a session (its transport closed); true when it was known. */
  delete(id: string): boolean {
    const entry = this.#entries.get(id);
    if (entry === undefined) return false;
    this.#entries.delete(id);
    this.#hold(entry.client, -1);
    return true;
  }

  #hold(client: string, change: number): void {
    const held = (this.#held.get(client) ?? 0) + change;
    if (held > 0) this.#held.set(client, held);
    else this.#held.delete(client);
  }

  /**
   * Runs `handle` against the session's transport, keeping the session alive while it runs; false
   * (nothing run) when no such session is open for `client`.
   */
  async serve(
    id: string,
    client: string,
    handle: (transport: StreamableHTTPServerTransport) => Promise<void>,
  ): Promise<boolean> {
    const entry = this.#entries.get(id);
    if (entry === undefined || entry.client !== client) return false;
    entry.inFlight += 1;
    entry.lastSeenAt = Date.now();
    try {
      await handle(entry.transport);
    } finally {
      entry.inFlight -= 1;
      entry.lastSeenAt = Date.now();
    }
    return true;
  }

  /** Closes every session and stops the sweeper. */
  async closeAll(): Promise<void> {
    clearInterval(this.#sweeper);
    await Promise.allSettled([...this.#entries.values()].map((entry) => entry.transport.close()));
  }

  #expireIdle(): void {
    const now = Date.now();
    for (const [id, entry] of this.#entries) {
      if (entry.inFlight > 0 || now - entry.lastSeenAt < this.idleTimeoutMs) continue;
      this.delete(id);
      void entry.transport.close().then(
        () => this.#onExpired(id),
        () => this.#onExpired(id),
      );
    }
  }
}
