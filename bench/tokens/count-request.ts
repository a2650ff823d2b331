// Token counts of request bodies: o200k_base on the JSON of what reaches the model (system,
// tools, messages; `model` and `max_tokens` do not), plus the provider's hidden tool-use
// system prompt when tools are offered. For Claude this is an approximation: no exact
// offline tokenizer exists, and the published-figure check below says how close it gets.

import type { MessageCreateParamsNonStreaming } from "@anthropic-ai/sdk/resources/messages/messages";
import { countTokens, TOKENIZER } from "../../src/search/token-count.js";
import { CLAUDE_SONNET_4_5, type ModelProfile } from "./settings.js";

export { TOKENIZER };

/** A Messages API request body, as `buildAnthropicRequest` returns it. */
export type AnthropicRequestBody = MessageCreateParamsNonStreaming;

/**
 * Tokens of the JSON the model reads from `body`, without the hidden tool prompt. Request
 * metadata the model never reads is left out: `model`, `max_tokens`, `stop_sequences`, and
 * the `cache_control` markers of prompt caching.
 */
export function countBodyTokens(body: AnthropicRequestBody): number {
  const text = JSON.stringify(
    { system: body.system, tools: body.tools, messages: body.messages },
    (key, value: unknown) => (key === "cache_control" ? undefined : value),
  );
  return countTokens(text);
}

/** Input tokens of one request: the body plus the tool-use system prompt when `tools` is non-empty. */
export function countRequestTokens(body: AnthropicRequestBody, profile: ModelProfile): number {
  return countBodyTokens(body) + hiddenToolPromptTokens(body, profile);
}

/** The provider's tool-use system prompt, counted only when the request offers tools. */
export function hiddenToolPromptTokens(body: AnthropicRequestBody, profile: ModelProfile): number {
  return body.tools !== undefined && body.tools.length > 0 ? profile.toolUseSystemPromptTokens : 0;
}

/** One comparison of our count with a figure Anthropic published. */
export interface PublishedFigureCheck {
  readonly name: string;
  readonly source: string;
  readonly published: number;
  readonly counted: number;
  readonly bodyTokens: number;
  readonly hiddenTokens: number;
  /** (counted - published) / published. */
  readonly relativeError: number;
  readonly tolerance: number;
  readonly withinTolerance: boolean;
  readonly tokenizer: string;
}

const TOKEN_COUNTING_DOCS = "https://platform.claude.com/docs/en/build-with-claude/token-counting";

/**
 * The token-counting docs' example with one `get_weather` tool and the user message "What's
 * the weather like in San Francisco?", published as `{ "input_tokens": 403 }`.
 */
export const GET_WEATHER_REQUEST: AnthropicRequestBody = {
  model: "claude-opus-4-20250514",
  max_tokens: 1024,
  tools: [
    {
      name: "get_weather",
      description: "Get the current weather in a given location",
      input_schema: {
        type: "object",
        properties: { location: { type: "string", description: "The city and state, e.g. San Francisco, CA" } },
        required: ["location"],
      },
    },
  ],
  messages: [{ role: "user", content: "What's the weather like in San Francisco?" }],
};

/** The docs' basic example (system "You are a scientist", "Hello, Claude"), published as 14. */
export const BASIC_REQUEST: AnthropicRequestBody = {
  model: "claude-opus-4-20250514",
  max_tokens: 1024,
  system: "You are a scientist",
  messages: [{ role: "user", content: "Hello, Claude" }],
};

/**
 * Counts the two published examples with `profile`'s constants. The tool example is the
 * check (tolerance 10%); the basic one shows the fixed JSON framing cost on a tiny request.
 */
export function checkPublishedFigures(profile: ModelProfile = CLAUDE_SONNET_4_5): PublishedFigureCheck[] {
  const check = (
    name: string,
    body: AnthropicRequestBody,
    published: number,
    tolerance: number,
  ): PublishedFigureCheck => {
    const bodyTokens = countBodyTokens(body);
    const hiddenTokens = hiddenToolPromptTokens(body, profile);
    const counted = bodyTokens + hiddenTokens;
    const relativeError = (counted - published) / published;
    return {
      name,
      source: TOKEN_COUNTING_DOCS,
      published,
      counted,
      bodyTokens,
      hiddenTokens,
      relativeError,
      tolerance,
      withinTolerance: Math.abs(relativeError) <= tolerance,
      tokenizer: TOKENIZER,
    };
  };
  return [
    check("get_weather tool + one user message", GET_WEATHER_REQUEST, 403, 0.1),
    // Informational: 8 tokens of JSON keys and brackets dominate a 14-token request.
    check('system + "Hello, Claude" (no tools)', BASIC_REQUEST, 14, Number.POSITIVE_INFINITY),
  ];
}
