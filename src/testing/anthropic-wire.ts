// Scripted responses in the Anthropic Messages wire format: the JSON body of a non-streaming
// response (`Message`), the SSE event sequence of a streaming one (`RawMessageStreamEvent`:
// message_start, content blocks with text and input_json deltas, message_delta with the stop
// reason and container, message_stop), and errors. Types named below are from
// @anthropic-ai/sdk/resources/messages/messages.

import type { ScriptedResponse } from "./scripted-turn.js";
import { pieces, scriptedTokens, scriptedToolCall, stopReasonOf, type WireContext } from "./wire-context.js";

interface RenderedBlock {
  readonly block: Record<string, unknown>;
  /** For a tool call: the input as JSON text, streamed as input_json deltas. */
  readonly inputText?: string;
}

const DIRECT_CALLER = { type: "direct" } as const;
/** How long the API keeps an idle container, as documented for programmatic tool calling. */
const CONTAINER_IDLE_MS = 4.5 * 60_000;

function renderBlocks(response: ScriptedResponse, context: WireContext): RenderedBlock[] {
  return (response.content ?? []).flatMap((block): RenderedBlock[] => {
    switch (block.type) {
      case "text":
        // TextBlock
        return [{ block: { type: "text", text: block.text, citations: null } }];
      case "raw":
        return [{ block: { ...block.block } }];
      case "tool_use": {
        // ToolUseBlock; `caller` is ServerToolCaller20260120 (or the version the request offered) or DirectCaller.
        const { id, name, inputText } = scriptedToolCall(block, context);
        const caller =
          block.hostedBy === undefined
            ? DIRECT_CALLER
            : { type: codeExecutionVersion(context), tool_id: block.hostedBy };
        return [{ block: { type: "tool_use", id, name, input: parseOrEmpty(inputText), caller }, inputText }];
      }
      case "hosted_program": {
        // ServerToolUseBlock named code_execution.
        const inputText = JSON.stringify({ code: block.code });
        return [
          {
            block: {
              type: "server_tool_use",
              id: block.id,
              name: "code_execution",
              input: { code: block.code },
              caller: DIRECT_CALLER,
            },
            inputText,
          },
        ];
      }
      case "hosted_program_result":
        // CodeExecutionToolResultBlock with a CodeExecutionResultBlock.
        return [
          {
            block: {
              type: "code_execution_tool_result",
              tool_use_id: block.id,
              content: {
                type: "code_execution_result",
                stdout: block.output,
                stderr: "",
                return_code: block.status === "incomplete" ? 1 : 0,
                content: [],
              },
            },
          },
        ];
      case "reasoning":
        // ThinkingBlock
        return [
          {
            block: {
              type: "thinking",
              thinking: block.summary ?? "",
              signature: block.encryptedContent ?? "scripted-signature",
            },
          },
        ];
      case "tool_search": {
        const id = block.id ?? context.nextId(block.execution === "server" ? "srvtoolu_s" : "toolu_s");
        const input = { query: block.query };
        if (block.execution === "client") {
          // ToolUseBlock of the client-side `tool_search` tool.
          return [
            {
              block: { type: "tool_use", id, name: "tool_search", input, caller: DIRECT_CALLER },
              inputText: JSON.stringify(input),
            },
          ];
        }
        // ServerToolUseBlock + ToolSearchToolResultBlock with ToolReferenceBlocks.
        const name = serverSearchName(context);
        return [
          {
            block: { type: "server_tool_use", id, name, input, caller: DIRECT_CALLER },
            inputText: JSON.stringify(input),
          },
          {
            block: {
              type: "tool_search_tool_result",
              tool_use_id: id,
              content: {
                type: "tool_search_tool_search_result",
                tool_references: (block.found ?? []).map((toolName) => ({
                  type: "tool_reference",
                  tool_name: toolName,
                })),
              },
            },
          },
        ];
      }
      default:
        throw new Error(`Unknown scripted block type ${(block as { type: string }).type}`);
    }
  });
}

/** The code execution version the request offered (its callers carry the same type). */
function codeExecutionVersion(context: WireContext): string {
  const tools: { type?: string }[] = Array.isArray(context.request?.tools) ? context.request.tools : [];
  return tools.find((tool) => tool.type?.startsWith("code_execution_"))?.type ?? "code_execution_20260120";
}

function serverSearchName(context: WireContext): string {
  const tools: { name?: string }[] = Array.isArray(context.request?.tools) ? context.request.tools : [];
  return tools.some((tool) => tool.name === "tool_search_tool_regex")
    ? "tool_search_tool_regex"
    : "tool_search_tool_bm25";
}

/**
 * The `Container` of the response: the script's, else the one the request named (reused, its
 * expiry pushed on), else a new one when the response runs a hosted program, else null.
 */
function containerOf(response: ScriptedResponse, context: WireContext): Record<string, unknown> | null {
  if (response.container !== undefined)
    return response.container === null
      ? null
      : { id: response.container.id, expires_at: response.container.expiresAt, skills: null };
  const requested = context.request?.container;
  const requestedId = typeof requested === "string" ? requested : requested?.id;
  const hosted = (response.content ?? []).some(
    (block) => block.type === "hosted_program" || (block.type === "tool_use" && block.hostedBy !== undefined),
  );
  if (typeof requestedId !== "string" && !hosted) return null;
  const id = typeof requestedId === "string" ? requestedId : context.nextId("container_s");
  return { id, expires_at: new Date(Date.now() + CONTAINER_IDLE_MS).toISOString(), skills: null };
}

/** `Usage`: input tokens exclude cache reads and writes. */
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

/** The JSON body of a non-streaming Messages response (`Message`). */
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
    container: containerOf(response, context),
    usage: usageOf(response, context),
  };
}

/** The SSE stream of a streaming Messages response (`RawMessageStreamEvent`s), as one string. */
export function anthropicEventStream(response: ScriptedResponse, context: WireContext): string {
  const usage = usageOf(response, context);
  const container = containerOf(response, context);
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
      container,
      usage: { ...usage, output_tokens: 1 },
    },
  });
  send("ping", {});
  renderBlocks(response, context).forEach(({ block, inputText }, index) => {
    if (block.type === "text") {
      send("content_block_start", { index, content_block: { type: "text", text: "", citations: null } });
      for (const piece of pieces(String(block.text)))
        send("content_block_delta", { index, delta: { type: "text_delta", text: piece } });
    } else if (block.type === "tool_use" || block.type === "server_tool_use") {
      send("content_block_start", { index, content_block: { ...block, input: {} } });
      for (const piece of pieces(inputText ?? ""))
        send("content_block_delta", { index, delta: { type: "input_json_delta", partial_json: piece } });
    } else {
      send("content_block_start", { index, content_block: block });
    }
    send("content_block_stop", { index });
  });
  send("message_delta", {
    delta: {
      stop_reason: stopReasonOf(response),
      stop_sequence: response.stopSequence ?? null,
      stop_details: null,
      container,
    },
    usage: { output_tokens: usage.output_tokens },
  });
  send("message_stop", {});
  return events.join("");
}

/** The body of an Anthropic error response (`ErrorResponse`: `{ type: "error", error: { type, message } }`). */
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
