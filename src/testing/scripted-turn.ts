// The script a scripted model server answers from: one entry per model request, written once
// and rendered in any protocol (Anthropic Messages, OpenAI Chat Completions, OpenAI Responses).
// A turn can be data, a function of the request it answers, an HTTP error, or a verbatim
// recorded payload. Blocks a protocol has no shape for are left out of its rendering.

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
      /**
       * The id of the hosted program making the call (a `hosted_program` block's `id`):
       * Anthropic `caller: { type: "code_execution_…", tool_id }`, OpenAI Responses
       * `caller: { type: "program", caller_id }`. Absent: the model's own call.
       */
      readonly hostedBy?: string;
    }
  /**
   * The provider's hosted program starting: Anthropic `server_tool_use` named `code_execution`
   * with `input.code`; OpenAI Responses `program` item (`call_id` = `id`, with a fingerprint).
   */
  | { readonly type: "hosted_program"; readonly id: string; readonly code: string; readonly fingerprint?: string }
  /**
   * The hosted program's end: Anthropic `code_execution_tool_result` (stdout = `output`);
   * OpenAI Responses `program_output` (`result` = `output`).
   */
  | {
      readonly type: "hosted_program_result";
      readonly id: string;
      readonly output: string;
      readonly status?: "completed" | "incomplete";
    }
  /** Reasoning: Anthropic `thinking` (signature = `encryptedContent`); OpenAI Responses `reasoning` item. */
  | { readonly type: "reasoning"; readonly id?: string; readonly summary?: string; readonly encryptedContent?: string }
  /**
   * A tool search. `server`: Anthropic `server_tool_use` + `tool_search_tool_result` with
   * `tool_reference`s; OpenAI Responses `tool_search_call` + `tool_search_output` with the
   * found tools' definitions taken from the request. `client`: Anthropic `tool_use` of the
   * `tool_search` tool; OpenAI Responses `tool_search_call` with `execution: "client"`.
   */
  | {
      readonly type: "tool_search";
      readonly id?: string;
      readonly query: string;
      readonly execution: "server" | "client";
      /** Provider tool names the server search finds. */
      readonly found?: readonly string[];
    }
  /** A provider block sent verbatim (thinking, server_tool_use, ...); Anthropic only, skipped on OpenAI. */
  | { readonly type: "raw"; readonly block: Record<string, unknown> };

/**
 * Anthropic's stop reasons (spelled out here so `/testing` needs no SDK installed); each is
 * mapped to the nearest OpenAI `finish_reason` unless `finishReason` is set.
 */
export type ScriptedStopReason =
  | "end_turn"
  | "max_tokens"
  | "stop_sequence"
  | "tool_use"
  | "pause_turn"
  | "refusal"
  | "model_context_window_exceeded";

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
  /**
   * Anthropic `container`. Default: the container the request named, else a new one when the
   * response holds a hosted program or a hosted call, else null; it expires 4.5 minutes on.
   */
  readonly container?: { readonly id: string; readonly expiresAt: string } | null;
  /**
   * OpenAI Responses `status`. Default: `incomplete` for `max_tokens` and for
   * `model_context_window_exceeded`, else `completed`.
   */
  readonly responseStatus?: "completed" | "incomplete" | "failed" | "cancelled" | "queued" | "in_progress";
  /** OpenAI Responses `incomplete_details.reason`. Default `max_output_tokens` for `max_tokens`. */
  readonly incompleteReason?: "max_output_tokens" | "content_filter" | null;
  /** OpenAI Responses `error` of a failed response. */
  readonly responseError?: { readonly code: string; readonly message: string };
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

export type ScriptedProtocol = "anthropic" | "openai" | "openai-responses";

/** A request the server received, as parsed JSON. */
export interface RecordedRequest {
  readonly protocol: ScriptedProtocol;
  /** `messages`, `count_tokens`, `chat.completions`, `responses` or `embeddings`. */
  readonly endpoint: "messages" | "count_tokens" | "chat.completions" | "responses" | "embeddings";
  readonly path: string;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  /** The JSON body. */
  // biome-ignore lint/suspicious/noExplicitAny: recorded as sent; tests read it loosely.
  readonly body: any;
  readonly stream: boolean;
  /** Index of the script entry that answered, or -1 (count_tokens, rejected requests). */
  readonly turnIndex: number;
}
