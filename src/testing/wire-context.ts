// What the Anthropic and OpenAI renderers of a scripted turn share: the per-request context,
// the defaults a script may leave out (stop reason, token counts, call ids and arguments), and
// the cutting of text into stream pieces. Both protocols resolve a script entry the same way.

import type { ScriptedBlock, ScriptedResponse, ScriptedStopReason } from "./scripted-turn.js";

/** What the renderers need besides the scripted turn. */
export interface WireContext {
  readonly model: string;
  readonly responseId: string;
  /** Gives the id of a tool call the script left without one. */
  readonly nextCallId: () => string;
  /** Default input tokens: a quarter of the request's bytes. */
  readonly requestBytes: number;
  /** The parsed request body: the tools and container it named. */
  // biome-ignore lint/suspicious/noExplicitAny: a recorded request body, read loosely.
  readonly request: any;
  /** Gives a new provider item or container id with `prefix` (`msg_`, `fc_`, `container_`...). */
  readonly nextId: (prefix: string) => string;
}

/** The scripted stop reason; default `tool_use` when the content has a tool call, else `end_turn`. */
export function stopReasonOf(response: ScriptedResponse): ScriptedStopReason {
  return (
    response.stopReason ??
    (response.content?.some(
      (block) => block.type === "tool_use" || (block.type === "tool_search" && block.execution === "client"),
    )
      ? "tool_use"
      : "end_turn")
  );
}

/** The scripted token counts, Anthropic's way (input excludes cache reads), defaults filled in. */
export function scriptedTokens(
  response: ScriptedResponse,
  context: WireContext,
): { readonly input: number; readonly output: number; readonly cacheRead: number; readonly cacheCreation: number } {
  return {
    input: response.usage?.inputTokens ?? Math.ceil(context.requestBytes / 4),
    output: response.usage?.outputTokens ?? Math.max(1, Math.ceil(JSON.stringify(response.content ?? []).length / 4)),
    cacheRead: response.usage?.cacheReadTokens ?? 0,
    cacheCreation: response.usage?.cacheCreationTokens ?? 0,
  };
}

/** A scripted tool call with its id (one from `nextCallId` when the script gave none) and its arguments as JSON text. */
export function scriptedToolCall(
  block: Extract<ScriptedBlock, { type: "tool_use" }>,
  context: WireContext,
): { readonly id: string; readonly name: string; readonly inputText: string } {
  return {
    id: block.id ?? context.nextCallId(),
    name: block.name,
    inputText: block.inputText ?? JSON.stringify(block.input ?? {}),
  };
}

/** Cuts text into short pieces, as a real stream would deliver it. */
export function pieces(text: string, size = 24): string[] {
  const result: string[] = [];
  for (let offset = 0; offset < text.length; offset += size) result.push(text.slice(offset, offset + size));
  return result;
}
