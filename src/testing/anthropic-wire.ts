// Scripted responses in the Anthropic Messages wire format: the JSON body of a non-streaming
// response, the SSE event sequence of a streaming one (message_start, content blocks with
// text and input_json deltas, message_delta with the stop reason, message_stop), and errors.

import type { ScriptedResponse } from "./scripted-turn.js";
import { pieces, scriptedTokens, scriptedToolCall, stopReasonOf, type WireContext } from "./wire-context.js";

interface RenderedBlock {
  readonly block: Record<string, unknown>;
  /** For a tool call: the input as JSON text, streamed as input_json deltas. */
  readonly inputText?: string;
}

function renderBlocks(response: ScriptedResponse, context: WireContext): RenderedBlock[] {
  return (response.content ?? []).map((block) => {
    switch (block.type) {
      case "text":
        return { block: { type: "text", text: block.text, citations: null } };
      case "raw":
        return { block: { ...block.block } };
      case "tool_use": {
        const { id, name, inputText } = scriptedToolCall(block, context);
        return { block: { type: "tool_use", id, name, input: parseOrEmpty(inputText) }, inputText };
      }
      default:
        throw new Error(`Unknown scripted block type ${(block as { type: string }).type}`);
    }
  });
}

function usageOf(response: ScriptedResponse, context: WireContext): Record<string, unknown> {
  const tokens = scriptedTokens(response, context);
  return {
    input_tokens: tokens.input,
    output_tokens: tokens.output,
    cache_creation_input_tokens: tokens.cacheCreation,
    cache_read_input_tokens: tokens.cacheRead,
    cache_creation: null,
    server_tool_use: null,
    service_tier: "standard",
  };
}

/** The JSON body of a non-streaming Messages response. */
export function anthropicMessage(response: ScriptedResponse, context: WireContext): Record<string, unknown> {
  return {
    id: context.responseId,
    type: "message",
    role: "assistant",
    model: context.model,
    content: renderBlocks(response, context).map(({ block }) => block),
    stop_reason: stopReasonOf(response),
    stop_sequence: response.stopSequence ?? null,
    stop_details: null,
    container: null,
    usage: usageOf(response, context),
  };
}

/** The SSE stream of a streaming Messages response, as one string. */
export function anthropicEventStream(response: ScriptedResponse, context: WireContext): string {
  const usage = usageOf(response, context);
  const events: string[] = [];
  const send = (type: string, data: Record<string, unknown>): void => {
    events.push(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
  };
  send("message_start", {
    message: {
      id: context.responseId,
      type: "message",
      role: "assistant",
      model: context.model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      stop_details: null,
      container: null,
      usage: { ...usage, output_tokens: 1 },
    },
  });
  send("ping", {});
  renderBlocks(response, context).forEach(({ block, inputText }, index) => {
    if (block.type === "text") {
      send("content_block_start", { index, content_block: { type: "text", text: "", citations: null } });
      for (const piece of pieces(String(block.text)))
        send("content_block_delta", { index, delta: { type: "text_delta", text: piece } });
    } else if (block.type === "tool_use") {
      send("content_block_start", { index, content_block: { ...block, input: {} } });
      for (const piece of pieces(inputText ?? ""))
        send("content_block_delta", { index, delta: { type: "input_json_delta", partial_json: piece } });
    } else {
      send("content_block_start", { index, content_block: block });
    }
    send("content_block_stop", { index });
  });
  send("message_delta", {
    delta: { stop_reason: stopReasonOf(response), stop_sequence: response.stopSequence ?? null, stop_details: null },
    usage: { output_tokens: usage.output_tokens },
  });
  send("message_stop", {});
  return events.join("");
}

/** The body of an Anthropic error response. */
export function anthropicError(status: number, message: string, type?: string): Record<string, unknown> {
  return { type: "error", error: { type: type ?? anthropicErrorType(status), message } };
}

function anthropicErrorType(status: number): string {
  if (status === 401) return "authentication_error";
  if (status === 403) return "permission_error";
  if (status === 404) return "not_found_error";
  if (status === 413) return "request_too_large";
  if (status === 429) return "rate_limit_error";
  if (status === 529) return "overloaded_error";
  if (status >= 500) return "api_error";
  return "invalid_request_error";
}

function parseOrEmpty(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return {};
  }
}
