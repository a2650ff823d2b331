// The Anthropic Messages API behind ModelAdapter, through @anthropic-ai/sdk: tool calls are
// `tool_use` blocks, results go back as `tool_result` blocks (all of a turn in one user
// message), and prompt-cache breakpoints mark the stable prefix. In `hosted` mode the code
// execution tool runs Claude's program and its calls (`tool_use` with a `caller`) come back
// here, in a container reused across turns; deferred tools load through tool search
// (`defer_loading`, `tool_reference`). `buildAnthropicRequest` is the exact body sent.
// The SDK is an optional peer dependency, imported on the first request, never at import.

import type Anthropic from "@anthropic-ai/sdk";
import type {
  CacheControlEphemeral,
  CodeExecutionTool20250825,
  CodeExecutionTool20260120,
  ContentBlock as AnthropicContentBlock,
  ContentBlockParam,
  Message,
  MessageCreateParamsNonStreaming,
  MessageParam,
  TextBlockParam,
  Tool,
  ToolSearchToolBm25_20251119,
  ToolSearchToolRegex20251119,
  ToolUseBlockParam,
} from "@anthropic-ai/sdk/resources/messages/messages";
import { AGENT_MODES } from "./agent-toolset.js";
import {
  containerExpiredErrorOf,
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
import type { AgentMessage, ContentBlock } from "./transcript.js";
import { assertInstalled, importOptional } from "../optional-dependency.js";

const ANTHROPIC_PROVIDER = "anthropic";

/** How the request body is built. */
export interface AnthropicRequestOptions {
  readonly model: string;
  /**
   * Prompt-cache breakpoints (`cache_control: { type: "ephemeral" }`) on the last tool, the
   * system prompt, and the last block of each of the last two user messages: at most 4, the
   * API's limit. Default true.
   */
  readonly cache?: boolean;
  /** Send tools' `inputExamples` as `input_examples`. Default true. */
  readonly inputExamples?: boolean;
  readonly stopSequences?: readonly string[];
  /**
   * The code execution tool version `hosted` mode offers; programmatic tool calling needs
   * `code_execution_20260120` on current models. Default `code_execution_20260120`.
   */
  readonly codeExecutionTool?: AnthropicCodeExecutionVersion;
  /**
   * Load deferred tools through Anthropic's tool search: the server-side search tool (`bm25`
   * or `regex` variant), or `client`, a `tool_search` tool Switchyard answers with
   * `tool_reference` blocks from its own search. Deferred tools are sent with
   * `defer_loading: true`, so the request prefix stays the same and cacheable. Which tools are
   * deferred is discovery's choice (`SwitchyardOptions.discovery`). Default: none (every
   * offered tool is loaded).
   */
  readonly toolSearch?: "bm25" | "regex" | "client";
}

/** The code execution tool versions whose programs can call client tools. */
export type AnthropicCodeExecutionVersion = "code_execution_20250825" | "code_execution_20260120";

const DEFAULT_CODE_EXECUTION: AnthropicCodeExecutionVersion = "code_execution_20260120";

/** `stream` goes through the SDK's `messages.stream` helper. */
export interface AnthropicAdapterOptions extends AnthropicRequestOptions, ProviderConnectionOptions {
  /** Beta flags for the `anthropic-beta` header, e.g. a feature not yet generally available. */
  readonly betas?: readonly string[];
  /** A ready client; when given, apiKey, baseURL, maxRetries, timeoutMs and betas are ignored. */
  readonly client?: Anthropic;
}

/** A tool the adapter sends: a custom tool, the code execution tool, or a server tool search. */
export type AnthropicRequestTool =
  | Tool
  | CodeExecutionTool20250825
  | CodeExecutionTool20260120
  | ToolSearchToolBm25_20251119
  | ToolSearchToolRegex20251119;

/** The body `buildAnthropicRequest` builds: the system prompt as text blocks, the container as its id. */
export type AnthropicRequestBody = Omit<MessageCreateParamsNonStreaming, "tools" | "system" | "container"> & {
  tools?: AnthropicRequestTool[];
  system?: TextBlockParam[];
  container?: string;
};

const EPHEMERAL: CacheControlEphemeral = { type: "ephemeral" };

/**
 * The exact Messages API body for `request` (non-streaming form; the streaming path sends
 * the same body with `stream: true`). Pure: no network, no SDK client.
 */
export function buildAnthropicRequest(request: ModelRequest, options: AnthropicRequestOptions): AnthropicRequestBody {
  const cache = options.cache ?? true;
  const hosted = request.mode === "hosted";
  const codeExecution = options.codeExecutionTool ?? DEFAULT_CODE_EXECUTION;
  const tools: AnthropicRequestTool[] = [];
  // Server tools first: they never change, so they start the cacheable prefix.
  if (hosted) tools.push({ type: codeExecution, name: "code_execution" });
  const deferring = request.tools.some((tool) => tool.deferLoading === true);
  if (deferring && options.toolSearch === "bm25")
    tools.push({ type: "tool_search_tool_bm25_20251119", name: "tool_search_tool_bm25" });
  if (deferring && options.toolSearch === "regex")
    tools.push({ type: "tool_search_tool_regex_20251119", name: "tool_search_tool_regex" });
  for (const tool of request.tools) {
    tools.push(toAnthropicTool(tool, { inputExamples: options.inputExamples ?? true, hosted, codeExecution }));
  }
  const messages = toAnthropicMessages(request.messages);
  if (cache) {
    // A deferred tool is not part of the prompt until found: the breakpoint goes on the last loaded one.
    let lastLoaded = tools.length - 1;
    while (lastLoaded >= 0 && tools[lastLoaded]!.defer_loading === true) lastLoaded--;
    if (lastLoaded !== -1) tools[lastLoaded] = { ...tools[lastLoaded]!, cache_control: EPHEMERAL };
    // The last user message is where this request's prefix ends; the one before it is where
    // the previous request's ended: marking both keeps a cache hit even when one turn adds
    // more than the 20 blocks the API looks back over.
    const userIndexes = messages.flatMap((message, index) => (message.role === "user" ? [index] : []));
    for (const index of userIndexes.slice(-2)) messages[index] = withCacheBreakpoint(messages[index]!);
  }
  const system: TextBlockParam[] | undefined =
    request.system === undefined
      ? undefined
      : [{ type: "text", text: request.system, ...(cache ? { cache_control: EPHEMERAL } : {}) }];
  return {
    model: options.model,
    max_tokens: request.maxTokens,
    ...(system === undefined ? {} : { system }),
    messages,
    ...(tools.length === 0 ? {} : { tools }),
    ...(options.stopSequences === undefined || options.stopSequences.length === 0
      ? {}
      : { stop_sequences: [...options.stopSequences] }),
    ...(request.container === undefined ? {} : { container: request.container }),
  };
}

/** The transcript as Anthropic messages; a user message lists its tool results first, as the API requires. */
function toAnthropicMessages(messages: readonly AgentMessage[]): MessageParam[] {
  const converted: MessageParam[] = [];
  for (const message of messages) {
    const content: ContentBlockParam[] = [];
    const ordered =
      message.role === "user"
        ? [
            ...message.content.filter((block) => block.type === "tool_result"),
            ...message.content.filter((block) => block.type !== "tool_result"),
          ]
        : message.content;
    for (const block of ordered) {
      const param = toAnthropicBlock(block);
      if (param !== undefined) content.push(param);
    }
    if (content.length > 0) converted.push({ role: message.role, content });
  }
  return converted;
}

function toAnthropicBlock(block: ContentBlock): ContentBlockParam | undefined {
  switch (block.type) {
    case "text":
      return block.text === "" ? undefined : { type: "text", text: block.text };
    case "tool_call":
      return {
        type: "tool_use",
        id: block.id,
        name: block.name,
        input: block.input ?? {},
        ...(block.hostedCaller?.provider === ANTHROPIC_PROVIDER
          ? { caller: block.hostedCaller.wire as NonNullable<ToolUseBlockParam["caller"]> }
          : {}),
      };
    case "tool_result":
      return {
        type: "tool_result",
        tool_use_id: block.callId,
        // Found tools go back as references: the API loads their deferred definitions itself.
        content:
          block.toolReferences === undefined || block.toolReferences.length === 0
            ? block.content
            : block.toolReferences.map((name) => ({ type: "tool_reference" as const, tool_name: name })),
        is_error: block.isError,
      };
    case "provider":
      return block.provider === ANTHROPIC_PROVIDER ? (block.block as ContentBlockParam) : undefined;
  }
}

function toAnthropicTool(
  tool: ProviderToolDefinition,
  options: { inputExamples: boolean; hosted: boolean; codeExecution: AnthropicCodeExecutionVersion },
): Tool {
  const examples = options.inputExamples ? (tool.inputExamples ?? []).filter(isPlainObject) : [];
  const callers =
    options.hosted && tool.callers !== undefined
      ? tool.callers.map((caller) => (caller === "direct" ? ("direct" as const) : options.codeExecution))
      : undefined;
  return {
    name: tool.name,
    description: tool.description,
    input_schema: providerInputSchema(tool) as Tool["input_schema"],
    ...(examples.length === 0 ? {} : { input_examples: examples }),
    ...(callers === undefined ? {} : { allowed_callers: callers }),
    ...(tool.deferLoading === true ? { defer_loading: true } : {}),
  };
}

function withCacheBreakpoint(message: MessageParam): MessageParam {
  if (typeof message.content === "string" || message.role === "system") return message;
  const content: ContentBlockParam[] = [...message.content];
  const last = content.at(-1);
  // Only blocks the loop itself wrote get a breakpoint; a provider block may not accept one.
  if (last === undefined || (last.type !== "text" && last.type !== "tool_result")) return message;
  content[content.length - 1] = { ...last, cache_control: EPHEMERAL };
  return { role: message.role, content };
}

/** An Anthropic Message as a normalized turn. */
export function fromAnthropicMessage(message: Message): ModelTurn {
  const content: ContentBlock[] = [];
  for (const block of message.content as AnthropicContentBlock[]) {
    if (block.type === "text") content.push({ type: "text", text: block.text });
    else if (block.type === "tool_use") {
      const caller = (block as { caller?: { type: string; tool_id?: string } }).caller;
      const hosted = caller !== undefined && caller.type !== "direct" && typeof caller.tool_id === "string";
      content.push({
        type: "tool_call",
        id: block.id,
        name: block.name,
        input: safeInput(block),
        ...(hosted ? { hostedCaller: { provider: ANTHROPIC_PROVIDER, toolId: caller.tool_id!, wire: caller } } : {}),
      });
    } else content.push({ type: "provider", provider: ANTHROPIC_PROVIDER, block: { ...block } });
  }
  return {
    content,
    stopReason: normalizeStopReason(message.stop_reason),
    rawStopReason: message.stop_reason ?? null,
    ...(typeof message.stop_sequence === "string" ? { stopSequence: message.stop_sequence } : {}),
    usage: usageOf(message.usage),
    responseId: message.id,
    model: message.model,
    ...(message.container === null || message.container === undefined
      ? {}
      : {
          container: {
            provider: ANTHROPIC_PROVIDER,
            id: message.container.id,
            ...(typeof message.container.expires_at === "string" ? { expiresAt: message.container.expires_at } : {}),
          },
        }),
  };
}

function normalizeStopReason(reason: string | null | undefined): StopReason {
  switch (reason) {
    case "end_turn":
    case "tool_use":
    case "max_tokens":
    case "stop_sequence":
    case "pause_turn":
    case "refusal":
      return reason;
    case "model_context_window_exceeded":
      return "context_exceeded";
    default:
      return "unknown";
  }
}

function usageOf(usage: Partial<Message["usage"]> | undefined): ModelUsage {
  const cacheRead = usage?.cache_read_input_tokens ?? 0;
  const cacheCreation = usage?.cache_creation_input_tokens ?? 0;
  return {
    input: (usage?.input_tokens ?? 0) + cacheRead + cacheCreation,
    output: usage?.output_tokens ?? 0,
    cacheRead,
    cacheCreation,
  };
}

/** The streaming helper parses a cut tool input lazily and may throw on it: such input is no input. */
function safeInput(block: { input: unknown }): unknown {
  try {
    return block.input;
  } catch {
    return undefined;
  }
}

function isPlainObject(value: unknown): value is { [key: string]: unknown } {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Builds a ModelAdapter over the Anthropic Messages API. Without `client`, throws SwitchyardError
 * `OPTIONAL_DEPENDENCY_MISSING` (with the install command) when @anthropic-ai/sdk is not
 * installed; the SDK itself is loaded on the first request.
 */
export function createAnthropicAdapter(options: AnthropicAdapterOptions): ModelAdapter {
  if (options.client === undefined) assertInstalled("@anthropic-ai/sdk");
  let client: Promise<Anthropic> | undefined =
    options.client === undefined ? undefined : Promise.resolve(options.client);
  const clientOf = (): Promise<Anthropic> =>
    (client ??= importOptional<{ default: typeof Anthropic }>("@anthropic-ai/sdk").then(
      ({ default: AnthropicClient }) =>
        new AnthropicClient({
          ...sdkClientOptions(options),
          ...(options.betas === undefined || options.betas.length === 0
            ? {}
            : { defaultHeaders: { "anthropic-beta": options.betas.join(",") } }),
        }),
    ));
  return {
    provider: ANTHROPIC_PROVIDER,
    modes: AGENT_MODES,
    ...(options.toolSearch === undefined ? {} : { toolSearch: options.toolSearch === "client" ? "client" : "server" }),
    async createTurn(request) {
      const body = buildAnthropicRequest(request, options);
      const requestOptions = request.signal === undefined ? {} : { signal: request.signal };
      const anthropic = await clientOf();
      try {
        const message =
          options.stream === true
            ? await anthropic.messages.stream(body, requestOptions).finalMessage()
            : await anthropic.messages.create(body, requestOptions);
        return fromAnthropicMessage(message);
      } catch (error) {
        throw isProviderApiError(error)
          ? (contextWindowErrorOf(error) ?? containerExpiredErrorOf(error, request.container) ?? error)
          : error;
      }
    },
  };
}
