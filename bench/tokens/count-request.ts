// Token counts of request bodies: o200k_base on the JSON of what reaches the model (system,
// tools, messages; `model` and `max_tokens` do not), plus the provider's hidden tool-use
// system prompt when tools are offered. For Claude this is an approximation: no exact
// offline tokenizer exists; calibration.ts says how close it gets and where it cannot tell.

import type { MessageParam } from "@anthropic-ai/sdk/resources/messages/messages";
import type { AnthropicRequestBody } from "../../src/agent/anthropic-adapter.js";
import { countTokens, TOKENIZER } from "../../src/search/token-count.js";
import { truncateBody } from "./cache-model.js";
import type { BenchModel } from "./settings.js";

export { TOKENIZER, type AnthropicRequestBody };

/** What counting reads of a Messages API body: the adapter's, or any body the docs publish (system as a string). */
export interface CountableBody {
  readonly system?: unknown;
  readonly tools?: readonly unknown[];
  readonly messages: readonly MessageParam[];
}

/**
 * Tokens of the JSON the model reads from `body`, without the hidden tool prompt. Request
 * metadata the model never reads is left out: `model`, `max_tokens`, `stop_sequences`, and
 * the `cache_control` markers of prompt caching.
 */
export function countBodyTokens(body: CountableBody): number {
  const text = JSON.stringify(
    { system: body.system, tools: body.tools, messages: body.messages },
    (key, value: unknown) => (key === "cache_control" ? undefined : value),
  );
  return countTokens(text);
}

/** Input tokens of one request: the body plus the tool-use system prompt when `tools` is non-empty. */
export function countRequestTokens(body: CountableBody, model: BenchModel): number {
  return countBodyTokens(body) + hiddenToolPromptTokens(body, model);
}

/** Input tokens of the prompt prefix formed by `body`'s first `blocks` blocks (see cache-model.ts). */
export function countPrefixTokens(body: AnthropicRequestBody, blocks: number, model: BenchModel): number {
  // The hidden prompt sits before the tools: every prefix of a request with tools holds it.
  return countBodyTokens(truncateBody(body, blocks)) + hiddenToolPromptTokens(body, model);
}

/** The provider's tool-use system prompt, counted only when the request offers tools. */
export function hiddenToolPromptTokens(body: CountableBody, model: BenchModel): number {
  return body.tools !== undefined && body.tools.length > 0 ? model.toolUseSystemPromptTokens : 0;
}
