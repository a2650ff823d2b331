// The provider-neutral transcript: user and assistant messages made of text, tool-call and
// tool-result blocks, with the provider's call ids kept verbatim. Adapters translate it to
// and from each wire format; the agent loop only ever appends to it. It guarantees nothing
// by itself: `unansweredToolCalls` is how the loop and the tests check its one invariant.

/** Plain text, from the user or the model. */
export interface TextBlock {
  readonly type: "text";
  readonly text: string;
  /** The provider's id of the item that carried the text (OpenAI Responses `msg_…`), sent back with it. */
  readonly providerItemId?: string;
}

/**
 * The provider's hosted program that made a tool call (Anthropic `caller` of type
 * `code_execution_*`, OpenAI `caller` of type `program`). `wire` is the provider's own caller
 * object, sent back verbatim with the call.
 */
export interface HostedCallerBlock {
  readonly provider: string;
  /** Anthropic `caller.tool_id`, OpenAI `caller.caller_id`: the program's id. */
  readonly toolId: string;
  readonly wire: unknown;
}

/** A tool call the model made, under the provider name it used and the provider's id. */
export interface ToolCallBlock {
  readonly type: "tool_call";
  /** The provider's id (`tool_use.id`, `tool_calls[].id`); the result carries the same id. */
  readonly id: string;
  /** The name the model called, as offered to it (a provider name, e.g. `orders__search`). */
  readonly name: string;
  /** The parsed arguments; `undefined` when they were not valid JSON. */
  readonly input: unknown;
  /** The arguments exactly as the model sent them, when they came as text (OpenAI, streaming). */
  readonly inputText?: string;
  /** Set when the provider's hosted program made the call rather than the model's turn. */
  readonly hostedCaller?: HostedCallerBlock;
  /**
   * What kind of call it is when it is not a function call: `tool_search` for a provider's
   * client-executed tool search (OpenAI `tool_search_call`), answered with tool references.
   */
  readonly callKind?: "tool_search";
  /** The provider's id of the item that carried the call (OpenAI Responses `fc_…`), sent back with it. */
  readonly providerItemId?: string;
}

/** The one result of one tool call. */
export interface ToolResultBlock {
  readonly type: "tool_result";
  readonly callId: string;
  /** What the model reads: JSON for a direct call, the rendered RunResult for a program. */
  readonly content: string;
  readonly isError: boolean;
  /**
   * Provider names of tools a tool search found, for a provider that loads deferred tools by
   * reference (Anthropic `tool_reference` blocks, OpenAI `tool_search_output`); `content` is
   * the same answer as text for any other provider.
   */
  readonly toolReferences?: readonly string[];
}

/**
 * A provider block the loop does not interpret (thinking, server tool use and results),
 * kept so it can be sent back verbatim, as a paused turn requires. Other providers skip it.
 */
export interface ProviderBlock {
  readonly type: "provider";
  readonly provider: string;
  readonly block: unknown;
}

export type ContentBlock = TextBlock | ToolCallBlock | ToolResultBlock | ProviderBlock;

export interface UserMessage {
  readonly role: "user";
  readonly content: readonly ContentBlock[];
}

export interface AssistantMessage {
  readonly role: "assistant";
  readonly content: readonly ContentBlock[];
  /**
   * The provider's code execution container this turn ran in (Anthropic `container`): the
   * next request reuses it until it expires.
   */
  readonly container?: ProviderContainer;
  /**
   * The provider's id of the response this message is, when the message is exactly that
   * response (OpenAI Responses `resp_…`, for `previous_response_id`).
   */
  readonly responseId?: string;
}

/** A provider's code execution container, reused across turns until it expires. */
export interface ProviderContainer {
  readonly provider: string;
  readonly id: string;
  /** When the provider drops it, as the provider sent it (ISO 8601); absent when unknown. */
  readonly expiresAt?: string;
}

export type AgentMessage = UserMessage | AssistantMessage;

/** A user message holding one text block. */
export function userText(text: string): UserMessage {
  return { role: "user", content: [{ type: "text", text }] };
}

/** The text blocks of a message, joined by blank lines. */
export function textOf(message: AgentMessage): string {
  return message.content
    .filter((block): block is TextBlock => block.type === "text")
    .map((block) => block.text)
    .join("\n\n");
}

/** The tool calls of a message, in the order the model made them. */
export function toolCallsOf(message: AgentMessage): ToolCallBlock[] {
  return message.content.filter((block): block is ToolCallBlock => block.type === "tool_call");
}

/**
 * Checks the transcript's invariant: every tool call is answered exactly once, by a result
 * in the next user message. Returns the offending ids (unanswered, answered twice, or
 * results for calls that do not exist); empty when the transcript is valid.
 */
export function unansweredToolCalls(messages: readonly AgentMessage[]): {
  unanswered: string[];
  duplicated: string[];
  orphaned: string[];
} {
  const unanswered: string[] = [];
  const duplicated: string[] = [];
  const orphaned: string[] = [];
  let pending = new Set<string>();
  for (const message of messages) {
    if (message.role === "assistant") {
      unanswered.push(...pending);
      pending = new Set(toolCallsOf(message).map((call) => call.id));
      continue;
    }
    const answered = new Set<string>();
    for (const block of message.content) {
      if (block.type !== "tool_result") continue;
      if (answered.has(block.callId)) duplicated.push(block.callId);
      else if (!pending.has(block.callId)) orphaned.push(block.callId);
      answered.add(block.callId);
    }
    for (const id of pending) if (!answered.has(id)) unanswered.push(id);
    pending = new Set();
  }
  unanswered.push(...pending);
  return { unanswered, duplicated, orphaned };
}
