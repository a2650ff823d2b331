// Scripted responses in the OpenAI Chat Completions wire format: the JSON of a completion,
// the `data:` chunks of a streaming one (ending in a usage chunk when asked, then [DONE]),
// and errors. Blocks Chat Completions has no shape for (raw provider blocks, hosted programs,
// reasoning, tool searches) are skipped; a refusal travels in `message.refusal`.

import type { ScriptedResponse, ScriptedStopReason } from "./scripted-turn.js";
import { pieces, scriptedTokens, scriptedToolCall, stopReasonOf, type WireContext } from "./wire-context.js";

const FINISH_REASONS: Record<ScriptedStopReason, string> = {
  end_turn: "stop",
  tool_use: "tool_calls",
  max_tokens: "length",
  stop_sequence: "stop",
  pause_turn: "stop",
  refusal: "stop",
  model_context_window_exceeded: "length",
};

interface RenderedMessage {
  readonly content: string | null;
  readonly refusal: string | null;
  readonly toolCalls: { id: string; type: "function"; function: { name: string; arguments: string } }[];
  readonly finishReason: string;
}

function renderMessage(response: ScriptedResponse, context: WireContext): RenderedMessage {
  const stopReason = stopReasonOf(response);
  let text = "";
  const toolCalls: RenderedMessage["toolCalls"] = [];
  for (const block of response.content ?? []) {
    if (block.type === "text") text += block.text;
    if (block.type === "tool_use") {
      const { id, name, inputText } = scriptedToolCall(block, context);
      toolCalls.push({ id, type: "function", function: { name, arguments: inputText } });
    }
  }
  const refused = stopReason === "refusal";
  return {
    content: refused || text === "" ? null : text,
    refusal: refused ? text || "I can't help with that." : null,
    toolCalls,
    finishReason: response.finishReason ?? FINISH_REASONS[stopReason],
  };
}

function usageOf(response: ScriptedResponse, context: WireContext): Record<string, unknown> {
  const tokens = scriptedTokens(response, context);
  const prompt = tokens.input + tokens.cacheRead;
  return {
    prompt_tokens: prompt,
    completion_tokens: tokens.output,
    total_tokens: prompt + tokens.output,
    prompt_tokens_details: { cached_tokens: tokens.cacheRead },
  };
}

/** The JSON body of a non-streaming chat completion (`ChatCompletion`, usage `CompletionUsage`). */
export function openAICompletion(response: ScriptedResponse, context: WireContext): Record<string, unknown> {
  const message = renderMessage(response, context);
  return {
    id: context.responseId,
    object: "chat.completion",
    created: Math.floor(Date.now() / 1000),
    model: context.model,
    choices: [
      {
        index: 0,
        message: {
          role: "assistant",
          content: message.content,
          refusal: message.refusal,
          ...(message.toolCalls.length === 0 ? {} : { tool_calls: message.toolCalls }),
        },
        logprobs: null,
        finish_reason: message.finishReason,
      },
    ],
    usage: usageOf(response, context),
  };
}

/** The SSE stream of a streaming chat completion (`ChatCompletionChunk`s, then `[DONE]`), as one string. */
export function openAIEventStream(response: ScriptedResponse, context: WireContext, includeUsage: boolean): string {
  const message = renderMessage(response, context);
  const created = Math.floor(Date.now() / 1000);
  const lines: string[] = [];
  const chunk = (choices: unknown[], extra: Record<string, unknown> = {}): void => {
    lines.push(
      `data: ${JSON.stringify({ id: context.responseId, object: "chat.completion.chunk", created, model: context.model, choices, ...extra })}\n\n`,
    );
  };
  const delta = (value: Record<string, unknown>, finishReason: string | null = null): void =>
    chunk([{ index: 0, delta: value, logprobs: null, finish_reason: finishReason }]);
  delta({ role: "assistant", content: "" });
  for (const piece of pieces(message.content ?? "")) delta({ content: piece });
  for (const piece of pieces(message.refusal ?? "")) delta({ refusal: piece });
  message.toolCalls.forEach((call, index) => {
    delta({
      tool_calls: [{ index, id: call.id, type: "function", function: { name: call.function.name, arguments: "" } }],
    });
    for (const piece of pieces(call.function.arguments))
      delta({ tool_calls: [{ index, function: { arguments: piece } }] });
  });
  delta({}, message.finishReason);
  if (includeUsage) chunk([], { usage: usageOf(response, context) });
  lines.push("data: [DONE]\n\n");
  return lines.join("");
}

/** The body of an OpenAI error response (the shape `APIError` reads: `{ error: { message, type, param, code } }`). */
export function openAIError(status: number, message: string, type?: string, code?: string): Record<string, unknown> {
  return {
    error: {
      message,
      type:
        type ??
        (status === 401
          ? "authentication_error"
          : status === 429
            ? "rate_limit_error"
            : status >= 500
              ? "server_error"
              : "invalid_request_error"),
      param: null,
      code: code ?? null,
    },
  };
}
