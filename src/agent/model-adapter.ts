// The provider-neutral boundary between the agent loop and a model API: one request in (the
// transcript, tool definitions, an output limit), one turn out (content blocks, a normalized
// stop reason with the raw one, usage). Adapters translate; they never run tools or loop.
// What every adapter needs alike (SDK client options, tool schemas, the context-window error)
// lives here once.

import type { ModelToolDefinition } from "../model-tools/model-tool-definition.js";
import type { AgentMessage, ContentBlock } from "./transcript.js";

/** What the loop asks of the model for one turn. */
export interface ModelRequest {
  readonly system: string | undefined;
  readonly messages: readonly AgentMessage[];
  /** Tools under their provider names (see ProviderToolNames). */
  readonly tools: readonly ModelToolDefinition[];
  /** Most output tokens of this one response. */
  readonly maxTokens: number;
  readonly signal?: AbortSignal | undefined;
}

/**
 * Why the model stopped, the same for every provider:
 * - `end_turn`: a finished answer (OpenAI `stop`);
 * - `tool_use`: it wants its tool calls run (OpenAI `tool_calls`);
 * - `max_tokens`: cut at the output limit (OpenAI `length`); anything unfinished is partial;
 * - `stop_sequence`: a caller's stop sequence matched;
 * - `pause_turn`: a long server-side turn paused; send it back to continue;
 * - `refusal`: the model declined (OpenAI `content_filter` or a `refusal` message);
 * - `context_exceeded`: the context window is full (Anthropic `model_context_window_exceeded`);
 * - `unknown`: anything else, kept in `rawStopReason`.
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
}

/** A model API behind one method; see the module comment. */
export interface ModelAdapter {
  /** `anthropic`, `openai`, ...: names the provider blocks this adapter can send back. */
  readonly provider: string;
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
