// The provider-neutral boundary between the agent loop and a model API: one request in (the
// transcript, tool definitions, an output limit), one turn out (content blocks, a normalized
// stop reason with the raw one, usage). Adapters translate; they never run tools or loop.
// What every adapter needs alike (SDK client options, tool schemas, the context-window error)
// lives here once.

import type { ModelToolDefinition } from "../model-tools/model-tool-definition.js";
import type { AgentMessage, ContentBlock, ProviderContainer } from "./transcript.js";

/**
 * - `direct`: every direct-callable tool, one provider tool each;
 * - `programmatic`: `run_program` (and `search_tools` when discovery defers tools), run in
 *   Switchyard's sandbox;
 * - `hybrid`: both; a tool's `callers` decides where it appears;
 * - `hosted`: the provider's own code execution writes and runs the program; every tool a
 *   model turn or a program may call is offered with its allowed callers, and each call the
 *   hosted program makes comes back through Switchyard's pipeline.
 */
export type AgentMode = "direct" | "programmatic" | "hybrid" | "hosted";

/** A tool as the loop offers it to a provider: its definition plus how the provider may load and call it. */
export interface ProviderToolDefinition extends ModelToolDefinition {
  /**
   * Who may call it in `hosted` mode: the model's turn (`direct`) and/or the provider's hosted
   * program (`program`); the adapter sends them as `allowed_callers`. Ignored in other modes.
   */
  readonly callers?: readonly ("direct" | "program")[];
  /**
   * Load it only when the provider's tool search finds it (`defer_loading: true`); set only
   * when the adapter searches natively (`ModelAdapter.toolSearch`) and discovery defers it.
   */
  readonly deferLoading?: boolean;
}

/** What the loop asks of the model for one turn. */
export interface ModelRequest {
  readonly system: string | undefined;
  readonly messages: readonly AgentMessage[];
  /** Tools under their provider names (see ProviderToolNames). */
  readonly tools: readonly ProviderToolDefinition[];
  /** Most output tokens of this one response. */
  readonly maxTokens: number;
  readonly signal?: AbortSignal | undefined;
  /**
   * The agent mode; `hosted` asks the adapter to offer the provider's own code execution and
   * to mark each tool's allowed callers. Default `direct` behaviour (tools as given).
   */
  readonly mode?: AgentMode | undefined;
  /** The provider container to reuse (Anthropic `container`), from an earlier turn. */
  readonly container?: string | undefined;
}

/**
 * Why the model stopped, the same for every provider (Chat Completions `finish_reason`;
 * Responses API `status` with `incomplete_details.reason`, raw as `status[:reason]`):
 * - `end_turn`: a finished answer (Chat `stop`; Responses `completed` without calls);
 * - `tool_use`: it wants its tool calls run (Chat `tool_calls`; Responses `completed` with
 *   function or client tool-search calls);
 * - `max_tokens`: cut at the output limit (Chat `length`; Responses
 *   `incomplete:max_output_tokens`); anything unfinished is partial;
 * - `stop_sequence`: a caller's stop sequence matched;
 * - `pause_turn`: a long server-side turn paused; send it back to continue;
 * - `refusal`: the model declined (Chat `content_filter` or a `refusal` message; Responses a
 *   `refusal` content part or `incomplete:content_filter`);
 * - `context_exceeded`: the context window is full (Anthropic `model_context_window_exceeded`);
 * - `unknown`: anything else, kept in `rawStopReason` (Responses `incomplete` without a reason,
 *   `cancelled`, `queued`, `in_progress`). A `failed` response is a failed request, not a turn.
 * `decideTurn` (stop-policy.ts) gives each one its policy.
 */
export type StopReason =
  | "end_turn"
  | "tool_use"
  | "max_tokens"
  | "stop_sequence"
  | "pause_turn"
  | "refusal"
  | "context_exceeded"
  | "unknown";

/** Tokens of one request. `input` counts every prompt token, cached or not. */
export interface ModelUsage {
  /** All prompt tokens, including `cacheRead` and `cacheCreation`. */
  readonly input: number;
  readonly output: number;
  /** Prompt tokens read from the provider's cache. */
  readonly cacheRead: number;
  /** Prompt tokens written to the cache (Anthropic only; 0 elsewhere). */
  readonly cacheCreation: number;
}

/** One response of the model, normalized. */
export interface ModelTurn {
  /** Text, tool calls (ids as the provider sent them) and provider blocks, in order. */
  readonly content: readonly ContentBlock[];
  readonly stopReason: StopReason;
  /** The provider's own value (`end_turn`, `length`, ...); null when it sent none. */
  readonly rawStopReason: string | null;
  /** The stop sequence that matched, for `stop_sequence`. */
  readonly stopSequence?: string;
  readonly usage: ModelUsage;
  /** The provider's response id and model, when given. */
  readonly responseId?: string;
  readonly model?: string;
  /**
   * Set by adapters that can continue from a stored response (OpenAI Responses with
   * `store: true`): the id to send as `previous_response_id`. The loop keeps it on the message.
   */
  readonly chainId?: string;
  /** The code execution container the turn ran in, when the provider reports one. */
  readonly container?: ProviderContainer;
}

/** The modes an adapter supports when it does not say: everything but the provider's hosted execution. */
export const DEFAULT_ADAPTER_MODES: readonly AgentMode[] = ["direct", "programmatic", "hybrid"];

/** A model API behind one method; see the module comment. */
export interface ModelAdapter {
  /** `anthropic`, `openai`, ...: names the provider blocks this adapter can send back. */
  readonly provider: string;
  /**
   * The agent modes it can serve; `runAgent` refuses any other before the first request.
   * Default DEFAULT_ADAPTER_MODES (`hosted` needs the provider's own code execution).
   */
  readonly modes?: readonly AgentMode[];
  /**
   * How the provider searches deferred tools itself, when it does: `server` (the provider's
   * hosted search) or `client` (a search tool the loop answers with tool references from
   * Switchyard's own search). Undefined: Switchyard's `search_tools` only.
   */
  readonly toolSearch?: "server" | "client";
  /**
   * Sends one request and resolves with the turn. Rejects with ContextWindowExceededError
   * when the provider refuses the prompt as too long, with the SDK's abort error when
   * `signal` fires, and with the SDK's error for anything else (auth, network, 5xx).
   */
  createTurn(request: ModelRequest): Promise<ModelTurn>;
}

/** The provider refused the request because the prompt does not fit the context window. */
export class ContextWindowExceededError extends Error {
  override readonly name = "ContextWindowExceededError";
  readonly status: number | undefined;

  constructor(message: string, options: { status?: number | undefined; cause?: unknown } = {}) {
    super(message, { cause: options.cause });
    this.status = options.status;
  }
}

/**
 * The provider no longer has the code execution container the request named (it expired).
 * The loop starts a new container and tells the model what was lost.
 */
export class ContainerExpiredError extends Error {
  override readonly name = "ContainerExpiredError";
  readonly containerId: string | undefined;

  constructor(message: string, options: { containerId?: string | undefined; cause?: unknown } = {}) {
    super(message, { cause: options.cause });
    this.containerId = options.containerId;
  }
}

const CONTAINER_EXPIRED_MESSAGE = /container.*(expired|not found|no longer)|expired container/i;

/** A provider SDK's 400/404 error as ContainerExpiredError when it says the named container is gone. */
export function containerExpiredErrorOf(
  error: { readonly status: number | undefined; readonly message: string },
  containerId: string | undefined,
): ContainerExpiredError | undefined {
  if (containerId === undefined || (error.status !== 400 && error.status !== 404)) return undefined;
  return CONTAINER_EXPIRED_MESSAGE.test(error.message)
    ? new ContainerExpiredError(error.message, { containerId, cause: error })
    : undefined;
}

export const ZERO_USAGE: ModelUsage = Object.freeze({ input: 0, output: 0, cacheRead: 0, cacheCreation: 0 });

/** The sum of usages. */
export function addUsage(a: ModelUsage, b: ModelUsage): ModelUsage {
  return {
    input: a.input + b.input,
    output: a.output + b.output,
    cacheRead: a.cacheRead + b.cacheRead,
    cacheCreation: a.cacheCreation + b.cacheCreation,
  };
}

const CONTEXT_MESSAGE = /prompt is too long|context[ _-]?(length|window)|maximum context|too many (input )?tokens/i;

/**
 * A provider SDK's HTTP error as ContextWindowExceededError when it says the prompt does not
 * fit the context window (OpenAI's `context_length_exceeded` code, or a 400/413 whose message
 * says so); undefined for any other error.
 */
export function contextWindowErrorOf(error: {
  readonly status: number | undefined;
  readonly message: string;
  readonly code?: unknown;
}): ContextWindowExceededError | undefined {
  const exceeded =
    error.code === "context_length_exceeded" ||
    ((error.status === 400 || error.status === 413) && CONTEXT_MESSAGE.test(error.message));
  return exceeded ? new ContextWindowExceededError(error.message, { status: error.status, cause: error }) : undefined;
}

/**
 * Whether `error` is an HTTP error of a provider SDK (both SDKs' `APIError` carry a `status`).
 * Checked by shape, not class: the SDK is loaded lazily, and a client passed in may come
 * from another copy of it.
 */
export function isProviderApiError(
  error: unknown,
): error is Error & { readonly status: number | undefined; readonly code?: unknown } {
  return (
    error instanceof Error && "status" in error && (typeof error.status === "number" || error.status === undefined)
  );
}

/** How an adapter reaches its provider through the SDK client; the same for every provider. */
export interface ProviderConnectionOptions {
  /** Default: the SDK's own (ANTHROPIC_API_KEY, OPENAI_API_KEY). */
  readonly apiKey?: string;
  /** Default: the SDK's own (ANTHROPIC_BASE_URL, OPENAI_BASE_URL, else the public API). */
  readonly baseURL?: string;
  /** Stream the response (SSE). Default false. */
  readonly stream?: boolean;
  /** Retries of the SDK on 408/409/429/5xx and connection errors. Default: the SDK's (2). */
  readonly maxRetries?: number;
  /** Per-request timeout in ms. Default: the SDK's. */
  readonly timeoutMs?: number;
}

/** The SDK client options of `options` (both SDKs name them alike), leaving out what is unset. */
export function sdkClientOptions(options: ProviderConnectionOptions): {
  apiKey?: string;
  baseURL?: string;
  maxRetries?: number;
  timeout?: number;
} {
  return {
    ...(options.apiKey === undefined ? {} : { apiKey: options.apiKey }),
    ...(options.baseURL === undefined ? {} : { baseURL: options.baseURL }),
    ...(options.maxRetries === undefined ? {} : { maxRetries: options.maxRetries }),
    ...(options.timeoutMs === undefined ? {} : { timeout: options.timeoutMs }),
  };
}

/** A tool's input schema as sent to a provider: an object schema without `$schema`. */
export function providerInputSchema(tool: ModelToolDefinition): Record<string, unknown> {
  const schema: Record<string, unknown> =
    typeof tool.inputSchema === "object" ? { ...tool.inputSchema } : { type: "object" };
  // `$schema` is metadata for validators; the model gains nothing from it but tokens.
  delete schema.$schema;
  return schema;
}
