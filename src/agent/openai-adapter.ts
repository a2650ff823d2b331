// OpenAI Chat Completions (and any server that speaks it) behind ModelAdapter, through the
// `openai` package: calls arrive as `tool_calls`, results go back as `role: "tool"` messages
// bound by `tool_call_id`, in call order. `buildOpenAIRequest` is the exact body sent.
// Arguments that are not valid JSON are kept as text and never parsed into a guess.
// The SDK is an optional peer dependency, imported on the first request, never at import.

import type OpenAI from "openai";
import type {
  ChatCompletion,
  ChatCompletionChunk,
  ChatCompletionCreateParamsNonStreaming,
  ChatCompletionMessageParam,
  ChatCompletionTool,
} from "openai/resources/chat/completions/completions";
import type { CompletionUsage } from "openai/resources/completions";
import {
  contextWindowErrorOf,
  isProviderApiError,
  providerInputSchema,
  sdkClientOptions,
  type ModelAdapter,
  type ModelRequest,
  type ModelTurn,
  type ModelUsage,
  type ProviderConnectionOptions,
  type StopReason,
} from "./model-adapter.js";
import type { ModelToolDefinition } from "../model-tools/model-tool-definition.js";
import { textOf, toolCallsOf, type AgentMessage, type ContentBlock, type ToolCallBlock } from "./transcript.js";
import { assertInstalled, importOptional } from "../optional-dependency.js";

const OPENAI_PROVIDER = "openai";

export interface OpenAIRequestOptions {
  readonly model: string;
  /**
   * The field carrying the output limit: `max_completion_tokens` (default; OpenAI's current
   * field) or `max_tokens`, which older OpenAI-compatible servers still expect.
   */
  readonly maxTokensField?: "max_completion_tokens" | "max_tokens";
  readonly stopSequences?: readonly string[];
}

/** `baseURL` may be any Chat Completions server, e.g. `http://127.0.0.1:8000/v1`; a streamed response is assembled here. */
export interface OpenAIAdapterOptions extends OpenAIRequestOptions, ProviderConnectionOptions {
  /** A ready client; when given, apiKey, baseURL, maxRetries and timeoutMs are ignored. */
  readonly client?: OpenAI;
}

/** The exact Chat Completions body for `request` (non-streaming form). Pure: no network. */
export function buildOpenAIRequest(
  request: ModelRequest,
  options: OpenAIRequestOptions,
): ChatCompletionCreateParamsNonStreaming {
  const messages: ChatCompletionMessageParam[] = [];
  if (request.system !== undefined) messages.push({ role: "system", content: request.system });
  messages.push(...toOpenAIMessages(request.messages));
  const tools = request.tools.map(toOpenAITool);
  return {
    model: options.model,
    messages,
    ...(tools.length === 0 ? {} : { tools }),
    [options.maxTokensField ?? "max_completion_tokens"]: request.maxTokens,
    ...(options.stopSequences === undefined || options.stopSequences.length === 0
      ? {}
      : { stop: [...options.stopSequences] }),
  };
}

/** The transcript as Chat Completions messages: a user message's tool results become `tool` messages first. */
function toOpenAIMessages(messages: readonly AgentMessage[]): ChatCompletionMessageParam[] {
  const converted: ChatCompletionMessageParam[] = [];
  for (const message of messages) {
    const text = textOf(message);
    if (message.role === "user") {
      for (const block of message.content) {
        if (block.type === "tool_result")
          converted.push({ role: "tool", tool_call_id: block.callId, content: block.content });
      }
      if (text !== "") converted.push({ role: "user", content: text });
      continue;
    }
    const calls = toolCallsOf(message);
    if (text === "" && calls.length === 0) continue;
    converted.push({
      role: "assistant",
      content: text === "" ? null : text,
      ...(calls.length === 0
        ? {}
        : {
            tool_calls: calls.map((call) => ({
              id: call.id,
              type: "function" as const,
              function: { name: call.name, arguments: call.inputText ?? JSON.stringify(call.input ?? {}) },
            })),
          }),
    });
  }
  return converted;
}

function toOpenAITool(tool: ModelToolDefinition): ChatCompletionTool {
  return {
    type: "function",
    function: { name: tool.name, description: tool.description, parameters: providerInputSchema(tool) },
  };
}

/** A Chat Completion (its first choice) as a normalized turn. */
export function fromOpenAICompletion(completion: ChatCompletion): ModelTurn {
  const choice = completion.choices[0];
  const message = choice?.message;
  const content: ContentBlock[] = [];
  if (typeof message?.content === "string" && message.content !== "")
    content.push({ type: "text", text: message.content });
  if (typeof message?.refusal === "string" && message.refusal !== "")
    content.push({ type: "text", text: message.refusal });
  for (const call of message?.tool_calls ?? []) {
    if (call.type !== "function") continue;
    content.push(toolCallOf(call.id, call.function.name, call.function.arguments));
  }
  const raw = choice?.finish_reason ?? null;
  const hasCalls = content.some((block) => block.type === "tool_call");
  return {
    content,
    stopReason:
      typeof message?.refusal === "string" && message.refusal !== "" ? "refusal" : normalizeFinishReason(raw, hasCalls),
    rawStopReason: raw,
    usage: usageOf(completion.usage),
    responseId: completion.id,
    model: completion.model,
  };
}

function toolCallOf(id: string, name: string, argumentsText: string): ToolCallBlock {
  let input: unknown;
  try {
    input = argumentsText.trim() === "" ? {} : JSON.parse(argumentsText);
  } catch {
    input = undefined;
  }
  return { type: "tool_call", id, name, input, inputText: argumentsText };
}

function normalizeFinishReason(reason: string | null, hasCalls: boolean): StopReason {
  switch (reason) {
    case "tool_calls":
    case "function_call":
      return "tool_use";
    // Some compatible servers end a tool-calling turn with `stop`; the calls are complete.
    case "stop":
      return hasCalls ? "tool_use" : "end_turn";
    case "length":
      return "max_tokens";
    case "content_filter":
      return "refusal";
    default:
      return "unknown";
  }
}

function usageOf(usage: CompletionUsage | undefined | null): ModelUsage {
  return {
    input: usage?.prompt_tokens ?? 0,
    output: usage?.completion_tokens ?? 0,
    cacheRead: usage?.prompt_tokens_details?.cached_tokens ?? 0,
    cacheCreation: 0,
  };
}

/** Folds streamed chunks into the completion a non-streaming call would have returned. */
function assembleOpenAIChunks(chunks: readonly ChatCompletionChunk[]): ChatCompletion {
  let text = "";
  let refusal = "";
  let finishReason: ChatCompletion.Choice["finish_reason"] | null = null;
  let usage: CompletionUsage | undefined;
  const calls = new Map<number, { id: string; name: string; arguments: string }>();
  for (const chunk of chunks) {
    if (chunk.usage) usage = chunk.usage;
    for (const choice of chunk.choices) {
      if (choice.index !== 0) continue;
      text += choice.delta.content ?? "";
      refusal += choice.delta.refusal ?? "";
      for (const delta of choice.delta.tool_calls ?? []) {
        const call = calls.get(delta.index) ?? { id: "", name: "", arguments: "" };
        if (delta.id) call.id = delta.id;
        if (delta.function?.name) call.name += delta.function.name;
        call.arguments += delta.function?.arguments ?? "";
        calls.set(delta.index, call);
      }
      if (choice.finish_reason) finishReason = choice.finish_reason;
    }
  }
  const first = chunks[0];
  const toolCalls = [...calls.entries()]
    .sort(([a], [b]) => a - b)
    .map(([, call]) => ({
      id: call.id,
      type: "function" as const,
      function: { name: call.name, arguments: call.arguments },
    }));
  return {
    id: first?.id ?? "",
    object: "chat.completion",
    created: first?.created ?? 0,
    model: first?.model ?? "",
    choices: [
      {
        index: 0,
        logprobs: null,
        finish_reason: finishReason ?? "stop",
        message: {
          role: "assistant",
          content: text === "" ? null : text,
          refusal: refusal === "" ? null : refusal,
          ...(toolCalls.length === 0 ? {} : { tool_calls: toolCalls }),
        },
      },
    ],
    ...(usage === undefined ? {} : { usage }),
  };
}

/**
 * Builds a ModelAdapter over Chat Completions. Without `client`, throws SwitchyardError
 * `OPTIONAL_DEPENDENCY_MISSING` (with the install command) when openai is not installed; the
 * SDK itself is loaded on the first request.
 */
export function createOpenAIAdapter(options: OpenAIAdapterOptions): ModelAdapter {
  if (options.client === undefined) assertInstalled("openai");
  let client: Promise<OpenAI> | undefined = options.client === undefined ? undefined : Promise.resolve(options.client);
  const clientOf = (): Promise<OpenAI> =>
    (client ??= importOptional<{ default: typeof OpenAI }>("openai").then(
      ({ default: OpenAIClient }) => new OpenAIClient(sdkClientOptions(options)),
    ));
  return {
    provider: OPENAI_PROVIDER,
    async createTurn(request) {
      const body = buildOpenAIRequest(request, options);
      const requestOptions = request.signal === undefined ? {} : { signal: request.signal };
      const openai = await clientOf();
      try {
        if (options.stream !== true)
          return fromOpenAICompletion(await openai.chat.completions.create(body, requestOptions));
        const stream = await openai.chat.completions.create(
          { ...body, stream: true, stream_options: { include_usage: true } },
          requestOptions,
        );
        const chunks: ChatCompletionChunk[] = [];
        for await (const chunk of stream) chunks.push(chunk);
        return fromOpenAICompletion(assembleOpenAIChunks(chunks));
      } catch (error) {
        throw isProviderApiError(error) ? (contextWindowErrorOf(error) ?? error) : error;
      }
    },
  };
}
