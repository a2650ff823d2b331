// The script a scripted model server answers from: one entry per model request, written once
// and rendered in either protocol (Anthropic Messages or OpenAI Chat Completions). A turn can
// be data, a function of the request it answers, an HTTP error, or a verbatim recorded payload.

import type { StopReason } from "@anthropic-ai/sdk/resources/messages/messages";

/** One block of a scripted assistant turn. */
export type ScriptedBlock =
  | { readonly type: "text"; readonly text: string }
  | {
      readonly type: "tool_use";
      /** Default: `toolu_s<n>` (Anthropic) or `call_s<n>` (OpenAI), unique per server. */
      readonly id?: string;
      /** The provider tool name the model calls, e.g. `orders__search` or `run_program`. */
      readonly name: string;
      readonly input?: unknown;
      /** The arguments as raw JSON text, sent instead of `input`: may be cut mid-way. */
      readonly inputText?: string;
    }
  /** A provider block sent verbatim (thinking, server_tool_use, ...); Anthropic only, skipped on OpenAI. */
  | { readonly type: "raw"; readonly block: Record<string, unknown> };

/** Anthropic's stop reasons; each is mapped to the nearest OpenAI `finish_reason` unless `finishReason` is set. */
export type ScriptedStopReason = StopReason;

/** Token counts as Anthropic reports them; OpenAI's `prompt_tokens` is `inputTokens + cacheReadTokens`. */
export interface ScriptedUsage {
  /** Input tokens not read from or written to the cache. */
  readonly inputTokens?: number;
  readonly outputTokens?: number;
  readonly cacheReadTokens?: number;
  readonly cacheCreationTokens?: number;
}

/** A successful scripted response. */
export interface ScriptedResponse {
  readonly content?: readonly ScriptedBlock[];
  /** Default: `tool_use` when the content has a tool call, else `end_turn`. */
  readonly stopReason?: ScriptedStopReason;
  /** Overrides the OpenAI `finish_reason` derived from `stopReason`. */
  readonly finishReason?: string;
  readonly stopSequence?: string;
  /** Default: input about a quarter of the request's bytes, output a quarter of the content's. */
  readonly usage?: ScriptedUsage;
  /** Wait this long before answering, in ms. */
  readonly delayMs?: number;
}

/** An HTTP error in the protocol's own error shape. */
export interface ScriptedHttpError {
  readonly error: {
    readonly status: number;
    readonly message: string;
    /** Anthropic `error.type` / OpenAI `error.type`. Default from the status. */
    readonly type?: string;
    /** OpenAI `error.code`, e.g. `context_length_exceeded`. */
    readonly code?: string;
  };
}

/** A recorded payload replayed as is (JSON or an SSE transcript). */
export interface ScriptedRawResponse {
  readonly raw: { readonly status?: number; readonly contentType?: string; readonly body: string };
}

export type ScriptedAnswer = ScriptedResponse | ScriptedHttpError | ScriptedRawResponse;

/** One entry of the script: an answer, or a function of the request it answers. */
export type ScriptedTurn = ScriptedAnswer | ((request: RecordedRequest) => ScriptedAnswer | Promise<ScriptedAnswer>);

export type ScriptedProtocol = "anthropic" | "openai";

/** A request the server received, as parsed JSON. */
export interface RecordedRequest {
  readonly protocol: ScriptedProtocol;
  /** `messages`, `count_tokens` or `chat.completions`. */
  readonly endpoint: "messages" | "count_tokens" | "chat.completions" | "embeddings";
  readonly path: string;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  /** The JSON body. */
  // biome-ignore lint/suspicious/noExplicitAny: recorded as sent; tests read it loosely.
  readonly body: any;
  readonly stream: boolean;
  /** Index of the script entry that answered, or -1 (count_tokens, rejected requests). */
  readonly turnIndex: number;
}
