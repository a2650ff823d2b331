// The OpenAI Responses API behind ModelAdapter, through the `openai` package's
// `responses.create` (JSON) and `responses.stream` (SSE): function tools (strict where the
// schema allows), parallel calls, reasoning items carried across turns (stateless with
// encrypted reasoning, or chained with `previous_response_id`), refusals and incomplete
// responses mapped onto the stop-reason policy. In `hosted` mode OpenAI's programmatic tool
// calling runs the model's program and its function calls (`caller: program`) come back here.
// `buildOpenAIResponsesRequest` is the exact body sent; it never guesses at malformed arguments.

import type OpenAI from "openai";
import { assertInstalled, importOptional } from "../optional-dependency.js";
import type {
  FunctionTool,
  Response,
  ResponseCreateParamsNonStreaming,
  ResponseInputItem,
  ResponseOutputItem,
  ResponseUsage,
  Tool,
} from "openai/resources/responses/responses";
import type { Reasoning } from "openai/resources/shared";
import type { JsonSchema } from "../contract.js";
import { AGENT_MODES, TOOL_SEARCH_TOOL } from "./agent-toolset.js";
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
  type ProviderToolDefinition,
  type StopReason,
} from "./model-adapter.js";
import {
  textOf,
  type AgentMessage,
  type ContentBlock,
  type TextBlock,
  type ToolCallBlock,
  type ToolResultBlock,
} from "./transcript.js";

/** The provider name of this adapter's turns and blocks. */
export const OPENAI_RESPONSES_PROVIDER = "openai-responses";

export interface OpenAIResponsesRequestOptions {
  readonly model: string;
  /**
   * How turns are carried: `stateless` (default) sends `store: false` and the whole transcript
   * each time, reasoning included as encrypted content; `previous-response` stores responses
   * (`store: true`) and sends only what is new since the last one, with `previous_response_id`.
   */
  readonly state?: "stateless" | "previous-response";
  /** Reasoning settings for reasoning models (`effort`, `summary`), sent as given. Default: none. */
  readonly reasoning?: Reasoning;
  /**
   * Mark function tools `strict: true` when their schema already meets strict mode's rules
   * (closed objects, every property required, supported keywords only); others go non-strict,
   * never rewritten. Default true.
   */
  readonly strict?: boolean;
  /** `parallel_tool_calls`; default: the API's (true). */
  readonly parallelToolCalls?: boolean;
  /** `prompt_cache_key`, to keep requests of one agent on the same cache. */
  readonly promptCacheKey?: string;
  /**
   * Load deferred tools through OpenAI's tool search: `server` (hosted search over tools sent
   * with `defer_loading: true`) or `client` (a client-executed `tool_search` Switchyard answers
   * with `tool_search_output`, from its own search; deferred tools are not sent until found).
   * Which tools are deferred is discovery's choice. Default: none (every tool is loaded).
   */
  readonly toolSearch?: "server" | "client";
}

/** `stream` goes through the SDK's `responses.stream` helper, which assembles the final response. */
export interface OpenAIResponsesAdapterOptions extends OpenAIResponsesRequestOptions, ProviderConnectionOptions {
  /** A ready client; when given, apiKey, baseURL, maxRetries and timeoutMs are ignored. */
  readonly client?: OpenAI;
}

/**
 * The exact Responses API body for `request` (non-streaming form; the streaming path sends the
 * same body with `stream: true`). Pure: no network, no SDK client.
 */
export function buildOpenAIResponsesRequest(
  request: ModelRequest,
  options: OpenAIResponsesRequestOptions,
): ResponseCreateParamsNonStreaming {
  const stateless = (options.state ?? "stateless") === "stateless";
  const hosted = request.mode === "hosted";
  const strict = options.strict ?? true;
  const calls = callsById(request.messages);
  const definitions = new Map(request.tools.map((tool) => [tool.name, tool]));

  // With chaining, everything up to the last stored response is already on the server.
  let messages = request.messages;
  let previousResponseId: string | undefined;
  if (!stateless) {
    for (let index = messages.length - 1; index >= 0; index--) {
      const message = messages[index]!;
      if (message.role === "assistant" && message.responseId !== undefined) {
        previousResponseId = message.responseId;
        messages = messages.slice(index + 1);
        break;
      }
    }
  }

  const tools: Tool[] = [];
  if (hosted) tools.push({ type: "programmatic_tool_calling" });
  const deferring = request.tools.some((tool) => tool.deferLoading === true);
  for (const tool of request.tools) {
    if (tool.name === TOOL_SEARCH_TOOL && options.toolSearch === "client") {
      tools.push({
        type: "tool_search",
        execution: "client",
        description: tool.description,
        parameters: providerInputSchema(tool),
      });
      continue;
    }
    // A client search sends a deferred tool only once found, in its tool_search_output.
    if (tool.deferLoading === true && options.toolSearch === "client") continue;
    tools.push(toFunctionTool(tool, { hosted, strict, defer: options.toolSearch === "server" }));
  }
  if (deferring && options.toolSearch === "server") tools.push({ type: "tool_search" });

  return {
    model: options.model,
    ...(request.system === undefined ? {} : { instructions: request.system }),
    input: toInputItems(messages, calls, (name) => definitions.get(name), { hosted, strict }),
    ...(tools.length === 0 ? {} : { tools }),
    max_output_tokens: request.maxTokens,
    store: !stateless,
    ...(stateless ? { include: ["reasoning.encrypted_content" as const] } : {}),
    ...(previousResponseId === undefined ? {} : { previous_response_id: previousResponseId }),
    ...(options.reasoning === undefined ? {} : { reasoning: options.reasoning }),
    ...(options.parallelToolCalls === undefined ? {} : { parallel_tool_calls: options.parallelToolCalls }),
    ...(options.promptCacheKey === undefined ? {} : { prompt_cache_key: options.promptCacheKey }),
  };
}

/** Every tool call of the transcript by id, so a result can be sent in its call's shape. */
function callsById(messages: readonly AgentMessage[]): Map<string, ToolCallBlock> {
  const calls = new Map<string, ToolCallBlock>();
  for (const message of messages)
    for (const block of message.content) if (block.type === "tool_call") calls.set(block.id, block);
  return calls;
}

function toInputItems(
  messages: readonly AgentMessage[],
  calls: ReadonlyMap<string, ToolCallBlock>,
  definitionOf: (name: string) => ProviderToolDefinition | undefined,
  options: { hosted: boolean; strict: boolean },
): ResponseInputItem[] {
  const items: ResponseInputItem[] = [];
  for (const message of messages) {
    if (message.role === "user") {
      for (const block of message.content) {
        if (block.type === "tool_result")
          items.push(toResultItem(block, calls.get(block.callId), definitionOf, options));
      }
      const text = textOf(message);
      if (text !== "") items.push({ role: "user", content: text });
      continue;
    }
    for (const block of message.content) {
      const item = toAssistantItem(block);
      if (item !== undefined) items.push(item);
    }
  }
  return items;
}

function toAssistantItem(block: ContentBlock): ResponseInputItem | undefined {
  switch (block.type) {
    case "text":
      if (block.text === "") return undefined;
      // A message that came from this API goes back as the item it was (reasoning items
      // refer to the items that follow them); any other as an easy message.
      return block.providerItemId === undefined
        ? { role: "assistant", content: block.text }
        : {
            type: "message",
            id: block.providerItemId,
            role: "assistant",
            status: "completed",
            content: [{ type: "output_text", text: block.text, annotations: [] }],
          };
    case "tool_call":
      if (block.callKind === "tool_search") {
        return {
          type: "tool_search_call",
          call_id: block.id,
          arguments: block.input ?? {},
          execution: "client",
          status: "completed",
          ...(block.providerItemId === undefined ? {} : { id: block.providerItemId }),
        };
      }
      return {
        type: "function_call",
        call_id: block.id,
        name: block.name,
        arguments: block.inputText ?? JSON.stringify(block.input ?? {}),
        ...(block.providerItemId === undefined ? {} : { id: block.providerItemId }),
        ...(block.hostedCaller?.provider === OPENAI_RESPONSES_PROVIDER
          ? { caller: block.hostedCaller.wire as { type: "program"; caller_id: string } }
          : {}),
      };
    case "tool_result":
      return undefined;
    case "provider":
      return block.provider === OPENAI_RESPONSES_PROVIDER ? (block.block as ResponseInputItem) : undefined;
  }
}

function toResultItem(
  block: ToolResultBlock,
  call: ToolCallBlock | undefined,
  definitionOf: (name: string) => ProviderToolDefinition | undefined,
  options: { hosted: boolean; strict: boolean },
): ResponseInputItem {
  if (call?.callKind === "tool_search") {
    const tools = (block.toolReferences ?? []).flatMap((name) => {
      const definition = definitionOf(name);
      return definition === undefined ? [] : [toFunctionTool(definition, { ...options, defer: false })];
    });
    return { type: "tool_search_output", call_id: block.callId, execution: "client", status: "completed", tools };
  }
  return {
    type: "function_call_output",
    call_id: block.callId,
    output: block.content,
    ...(call?.hostedCaller?.provider === OPENAI_RESPONSES_PROVIDER
      ? { caller: call.hostedCaller.wire as { type: "program"; caller_id: string } }
      : {}),
  };
}

function toFunctionTool(
  tool: ProviderToolDefinition,
  options: { hosted: boolean; strict: boolean; defer: boolean },
): FunctionTool {
  const parameters = providerInputSchema(tool);
  return {
    type: "function",
    name: tool.name,
    description: tool.description,
    parameters,
    strict: options.strict && isStrictCompatible(parameters),
    ...(options.hosted && tool.callers !== undefined
      ? { allowed_callers: tool.callers.map((caller) => (caller === "direct" ? "direct" : "programmatic")) }
      : {}),
    ...(options.defer && tool.deferLoading === true ? { defer_loading: true } : {}),
  };
}

/** Keywords strict mode accepts; a schema using any other is sent non-strict. */
const STRICT_KEYWORDS = new Set([
  "type",
  "properties",
  "required",
  "additionalProperties",
  "items",
  "enum",
  "const",
  "anyOf",
  "description",
  "title",
  "$ref",
  "$defs",
  "definitions",
  "pattern",
  "format",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "multipleOf",
  "minItems",
  "maxItems",
]);

/**
 * Whether a tool's input schema can be sent with `strict: true` as it is: an object at the
 * root, every object closed (`additionalProperties: false`) with every property required, and
 * only keywords strict mode supports. Optional properties would have to become required and
 * nullable, which changes what the tool accepts, so such a schema stays non-strict.
 */
export function isStrictCompatible(schema: JsonSchema): boolean {
  if (typeof schema !== "object" || schema.type !== "object") return false;
  return strictNode(schema, 0);
}

function strictNode(node: unknown, depth: number): boolean {
  // Strict mode allows at most 10 levels of nesting.
  if (depth > 10 || typeof node !== "object" || node === null || Array.isArray(node)) return false;
  const schema = node as Record<string, unknown>;
  for (const key of Object.keys(schema)) if (!STRICT_KEYWORDS.has(key)) return false;
  const isObject = schema.type === "object" || (Array.isArray(schema.type) && schema.type.includes("object"));
  if (isObject) {
    const properties = (schema.properties ?? {}) as Record<string, unknown>;
    if (typeof properties !== "object" || properties === null) return false;
    if (schema.additionalProperties !== false) return false;
    const required = new Set(Array.isArray(schema.required) ? schema.required : []);
    for (const name of Object.keys(properties)) if (!required.has(name)) return false;
    for (const child of Object.values(properties)) if (!strictNode(child, depth + 1)) return false;
  }
  if (schema.items !== undefined && !strictNode(schema.items, depth + 1)) return false;
  if (Array.isArray(schema.anyOf) && !schema.anyOf.every((child) => strictNode(child, depth + 1))) return false;
  for (const key of ["$defs", "definitions"]) {
    const group = schema[key];
    if (group !== undefined && !Object.values(group as object).every((child) => strictNode(child, depth + 1)))
      return false;
  }
  return true;
}

/**
 * A Response as a normalized turn. Throws an Error naming the code for a failed response (a
 * prompt too long for the context window is an HTTP 400, not a failed response).
 */
export function fromOpenAIResponse(response: Response, options: { chain?: boolean } = {}): ModelTurn {
  const content: ContentBlock[] = [];
  let refused = false;
  for (const item of response.output) {
    const block = toContentBlock(item);
    if (block === undefined) continue;
    if (block.refused) refused = true;
    content.push(block.block);
  }
  if (response.status === "failed") {
    const code = response.error?.code ?? "unknown";
    throw new Error(`The response failed (${code}): ${response.error?.message ?? "no message"}`);
  }
  const reason = response.incomplete_details?.reason;
  const raw = `${response.status ?? "completed"}${reason === undefined ? "" : `:${reason}`}`;
  return {
    content,
    stopReason: stopReasonOf(response, content, refused),
    rawStopReason: raw,
    usage: usageOf(response.usage),
    responseId: response.id,
    model: response.model,
    ...(options.chain === true && response.status === "completed" ? { chainId: response.id } : {}),
  };
}

/**
 * The Responses API has no stop reason; the status, `incomplete_details` and the output say it:
 * - `completed` with a refusal part → `refusal`; with function or tool-search calls → `tool_use`;
 *   otherwise → `end_turn`;
 * - `incomplete` for `max_output_tokens` → `max_tokens`; for `content_filter` → `refusal`;
 * - `incomplete` for no stated reason, `cancelled`, `queued`, `in_progress` → `unknown`.
 * (`failed` never reaches here: it is an error.)
 */
function stopReasonOf(response: Response, content: readonly ContentBlock[], refused: boolean): StopReason {
  switch (response.status ?? "completed") {
    case "completed":
      if (refused) return "refusal";
      return content.some((block) => block.type === "tool_call") ? "tool_use" : "end_turn";
    case "incomplete":
      if (response.incomplete_details?.reason === "max_output_tokens") return "max_tokens";
      if (response.incomplete_details?.reason === "content_filter") return "refusal";
      return "unknown";
    default:
      return "unknown";
  }
}

function toContentBlock(item: ResponseOutputItem): { block: ContentBlock; refused?: boolean } | undefined {
  switch (item.type) {
    case "message": {
      let text = "";
      let refused = false;
      for (const part of item.content) {
        if (part.type === "output_text") text += part.text;
        else if (part.type === "refusal") {
          text += part.refusal;
          refused = true;
        }
      }
      const block: TextBlock = { type: "text", text, providerItemId: item.id };
      return { block, refused };
    }
    case "function_call": {
      const caller = item.caller;
      return {
        block: {
          ...parseArguments(item.call_id, item.name, item.arguments),
          ...(item.id === undefined ? {} : { providerItemId: item.id }),
          ...(caller?.type === "program"
            ? { hostedCaller: { provider: OPENAI_RESPONSES_PROVIDER, toolId: caller.caller_id, wire: { ...caller } } }
            : {}),
        },
      };
    }
    case "tool_search_call":
      if (item.execution === "client") {
        return {
          block: {
            type: "tool_call",
            id: item.call_id ?? item.id,
            name: TOOL_SEARCH_TOOL,
            input: item.arguments,
            callKind: "tool_search",
            providerItemId: item.id,
          },
        };
      }
      return { block: { type: "provider", provider: OPENAI_RESPONSES_PROVIDER, block: { ...item } } };
    default:
      return { block: { type: "provider", provider: OPENAI_RESPONSES_PROVIDER, block: { ...item } } };
  }
}

function parseArguments(id: string, name: string, argumentsText: string): ToolCallBlock {
  let input: unknown;
  try {
    input = argumentsText.trim() === "" ? {} : JSON.parse(argumentsText);
  } catch {
    input = undefined;
  }
  return { type: "tool_call", id, name, input, inputText: argumentsText };
}

function usageOf(usage: ResponseUsage | undefined): ModelUsage {
  // `input_tokens` already counts the cached ones.
  return {
    input: usage?.input_tokens ?? 0,
    output: usage?.output_tokens ?? 0,
    cacheRead: usage?.input_tokens_details?.cached_tokens ?? 0,
    cacheCreation: usage?.input_tokens_details?.cache_write_tokens ?? 0,
  };
}

/**
 * Builds a ModelAdapter over the Responses API; it serves every agent mode, `hosted` included.
 * Without `client`, throws SwitchyardError `OPTIONAL_DEPENDENCY_MISSING` (with the install
 * command) when openai is not installed; the SDK itself is loaded on the first request.
 */
export function createOpenAIResponsesAdapter(options: OpenAIResponsesAdapterOptions): ModelAdapter {
  if (options.client === undefined) assertInstalled("openai");
  let client: Promise<OpenAI> | undefined = options.client === undefined ? undefined : Promise.resolve(options.client);
  const clientOf = (): Promise<OpenAI> =>
    (client ??= importOptional<{ default: typeof OpenAI }>("openai").then(
      ({ default: OpenAIClient }) => new OpenAIClient(sdkClientOptions(options)),
    ));
  const chain = options.state === "previous-response";
  return {
    provider: OPENAI_RESPONSES_PROVIDER,
    modes: AGENT_MODES,
    ...(options.toolSearch === undefined ? {} : { toolSearch: options.toolSearch }),
    async createTurn(request) {
      const body = buildOpenAIResponsesRequest(request, options);
      const requestOptions = request.signal === undefined ? {} : { signal: request.signal };
      const openai = await clientOf();
      try {
        const response =
          options.stream === true
            ? await openai.responses.stream({ ...body, stream: true }, requestOptions).finalResponse()
            : await openai.responses.create(body, requestOptions);
        return fromOpenAIResponse(response, { chain });
      } catch (error) {
        throw isProviderApiError(error) ? (contextWindowErrorOf(error) ?? error) : error;
      }
    },
  };
}
