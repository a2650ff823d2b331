// Scripted responses in the OpenAI Responses API wire format: the JSON of a `Response`, the
// SSE events of a streaming one (`ResponseStreamEvent`s, each with a sequence number, ending in
// response.completed / response.incomplete / response.failed carrying the whole response), and
// errors in the API's shape. Types named below are from openai/resources/responses/responses.

import type { ScriptedResponse } from "./scripted-turn.js";
import { pieces, scriptedTokens, scriptedToolCall, stopReasonOf, type WireContext } from "./wire-context.js";

// biome-ignore lint/suspicious/noExplicitAny: output items are built as plain JSON, typed by the comments that name them.
type Item = Record<string, any>;

/** The output items of a scripted response, in order. */
function renderItems(response: ScriptedResponse, context: WireContext): Item[] {
  const refused = stopReasonOf(response) === "refusal";
  const items = renderBlocks(response, context, refused);
  if (refused && !items.some((item) => item.type === "message")) {
    const content = [{ type: "refusal", refusal: "I can't help with that." }];
    items.push({ type: "message", id: context.nextId("msg_s"), role: "assistant", status: "completed", content });
  }
  return items;
}

function renderBlocks(response: ScriptedResponse, context: WireContext, refused: boolean): Item[] {
  return (response.content ?? []).flatMap((block): Item[] => {
    switch (block.type) {
      case "text":
        // ResponseOutputMessage with a ResponseOutputText part, or a ResponseOutputRefusal part for a refusal.
        return [
          {
            type: "message",
            id: context.nextId("msg_s"),
            role: "assistant",
            status: "completed",
            content: [
              refused
                ? { type: "refusal", refusal: block.text }
                : { type: "output_text", text: block.text, annotations: [], logprobs: [] },
            ],
          },
        ];
      case "tool_use": {
        // ResponseFunctionToolCall; `caller` is ResponseFunctionToolCall.Program for a hosted call.
        const { id, name, inputText } = scriptedToolCall(block, context);
        return [
          {
            type: "function_call",
            id: context.nextId("fc_s"),
            call_id: id,
            name,
            arguments: inputText,
            status: "completed",
            ...(block.hostedBy === undefined ? {} : { caller: { type: "program", caller_id: block.hostedBy } }),
          },
        ];
      }
      case "hosted_program":
        // ResponseOutputItem.Program
        return [
          {
            type: "program",
            id: context.nextId("prog_s"),
            call_id: block.id,
            code: block.code,
            fingerprint: block.fingerprint ?? `fp-${block.id}`,
          },
        ];
      case "hosted_program_result":
        // ResponseOutputItem.ProgramOutput
        return [
          {
            type: "program_output",
            id: context.nextId("po_s"),
            call_id: block.id,
            result: block.output,
            status: block.status ?? "completed",
          },
        ];
      case "reasoning":
        // ResponseReasoningItem
        return [
          {
            type: "reasoning",
            id: block.id ?? context.nextId("rs_s"),
            summary: block.summary === undefined ? [] : [{ type: "summary_text", text: block.summary }],
            encrypted_content: block.encryptedContent ?? null,
          },
        ];
      case "tool_search": {
        const callId = block.id ?? context.nextId("call_s");
        // ResponseToolSearchCall
        const call: Item = {
          type: "tool_search_call",
          id: context.nextId("tsc_s"),
          call_id: callId,
          arguments: { query: block.query },
          execution: block.execution,
          status: "completed",
        };
        if (block.execution === "client") return [call];
        // ResponseToolSearchOutputItem: the found tools' definitions, as the request sent them.
        const tools: Item[] = Array.isArray(context.request?.tools) ? context.request.tools : [];
        const found = new Set(block.found ?? []);
        return [
          call,
          {
            type: "tool_search_output",
            id: context.nextId("tso_s"),
            call_id: callId,
            execution: "server",
            status: "completed",
            tools: tools
              .filter((tool) => tool.type === "function" && found.has(tool.name))
              .map(({ defer_loading: _deferred, ...tool }) => tool),
          },
        ];
      }
      case "raw":
        return [];
      default:
        throw new Error(`Unknown scripted block type ${(block as { type: string }).type}`);
    }
  });
}

/** `status`, `incomplete_details` and `error` of a scripted response. */
function statusOf(response: ScriptedResponse): {
  status: string;
  incomplete: { reason: string } | null;
  error: { code: string; message: string } | null;
} {
  const stop = stopReasonOf(response);
  const status =
    response.responseStatus ??
    (stop === "max_tokens" || stop === "model_context_window_exceeded" ? "incomplete" : "completed");
  const reason =
    response.incompleteReason !== undefined
      ? response.incompleteReason
      : stop === "max_tokens"
        ? "max_output_tokens"
        : null;
  return {
    status,
    incomplete: status === "incomplete" && reason !== null ? { reason } : null,
    error:
      status === "failed" ? (response.responseError ?? { code: "server_error", message: "scripted failure" }) : null,
  };
}

/** ResponseUsage: `input_tokens` counts cached tokens too. */
function usageOf(response: ScriptedResponse, context: WireContext): Item {
  const tokens = scriptedTokens(response, context);
  const input = tokens.input + tokens.cacheRead + tokens.cacheCreation;
  return {
    input_tokens: input,
    input_tokens_details: { cached_tokens: tokens.cacheRead, cache_write_tokens: tokens.cacheCreation },
    output_tokens: tokens.output,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: input + tokens.output,
  };
}

/** The JSON body of a `Response`. */
export function openAIResponse(response: ScriptedResponse, context: WireContext): Item {
  const { status, incomplete, error } = statusOf(response);
  const request = context.request ?? {};
  return {
    id: context.responseId,
    object: "response",
    created_at: Math.floor(Date.now() / 1000),
    status,
    error,
    incomplete_details: incomplete,
    instructions: request.instructions ?? null,
    max_output_tokens: request.max_output_tokens ?? null,
    metadata: {},
    model: context.model,
    output: renderItems(response, context),
    parallel_tool_calls: request.parallel_tool_calls ?? true,
    previous_response_id: request.previous_response_id ?? null,
    store: request.store ?? true,
    temperature: 1,
    tool_choice: "auto",
    tools: request.tools ?? [],
    top_p: 1,
    truncation: "disabled",
    usage: usageOf(response, context),
  };
}

/** The SSE stream of a streaming response (`ResponseStreamEvent`s), as one string. */
export function openAIResponseEventStream(response: ScriptedResponse, context: WireContext): string {
  const full = openAIResponse(response, context);
  const events: string[] = [];
  const send = (type: string, data: Item): void => {
    events.push(`event: ${type}\ndata: ${JSON.stringify({ type, ...data, sequence_number: events.length })}\n\n`);
  };
  const started = { ...full, status: "in_progress", output: [], usage: null, incomplete_details: null, error: null };
  // ResponseCreatedEvent, ResponseInProgressEvent
  send("response.created", { response: started });
  send("response.in_progress", { response: started });
  (full.output as Item[]).forEach((item, outputIndex) => {
    const base = { output_index: outputIndex };
    if (item.type === "message") {
      // ResponseOutputItemAddedEvent, ResponseContentPartAddedEvent, ResponseTextDeltaEvent / ResponseRefusalDeltaEvent, ...
      send("response.output_item.added", { ...base, item: { ...item, status: "in_progress", content: [] } });
      item.content.forEach((part: Item, contentIndex: number) => {
        const at = { ...base, item_id: item.id, content_index: contentIndex };
        if (part.type === "refusal") {
          send("response.content_part.added", { ...at, part: { type: "refusal", refusal: "" } });
          for (const piece of pieces(part.refusal)) send("response.refusal.delta", { ...at, delta: piece });
          send("response.refusal.done", { ...at, refusal: part.refusal });
        } else {
          send("response.content_part.added", { ...at, part: { ...part, text: "" } });
          for (const piece of pieces(part.text))
            send("response.output_text.delta", { ...at, delta: piece, logprobs: [] });
          send("response.output_text.done", { ...at, text: part.text, logprobs: [] });
        }
        send("response.content_part.done", { ...at, part });
      });
    } else if (item.type === "function_call") {
      // ResponseFunctionCallArgumentsDeltaEvent, ResponseFunctionCallArgumentsDoneEvent
      send("response.output_item.added", { ...base, item: { ...item, arguments: "", status: "in_progress" } });
      for (const piece of pieces(item.arguments))
        send("response.function_call_arguments.delta", { ...base, item_id: item.id, delta: piece });
      send("response.function_call_arguments.done", {
        ...base,
        item_id: item.id,
        name: item.name,
        arguments: item.arguments,
      });
    } else {
      send("response.output_item.added", { ...base, item });
    }
    // ResponseOutputItemDoneEvent
    send("response.output_item.done", { ...base, item });
  });
  // ResponseCompletedEvent, ResponseIncompleteEvent, ResponseFailedEvent
  const terminal =
    full.status === "incomplete"
      ? "response.incomplete"
      : full.status === "failed"
        ? "response.failed"
        : "response.completed";
  send(terminal, { response: full });
  return events.join("");
}
