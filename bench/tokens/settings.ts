// The constants every figure of the token benchmark depends on, in one place: per-model
// prices, the hidden tool-use system prompt, prompt-caching rules, and the latency model of
// the end-to-end estimate. Each value names its source; nothing here is measured.

/** What one model costs and adds to a request, for the offline estimate. */
export interface ModelProfile {
  /** The provider's model id, as live mode sends it. */
  readonly id: string;
  readonly label: string;
  /** USD per million input tokens (base, uncached). */
  readonly inputPerMTok: number;
  /** USD per million output tokens. */
  readonly outputPerMTok: number;
  /** Cache write price as a multiple of the input price (5-minute cache). */
  readonly cacheWriteMultiplier: number;
  /** Cache read price as a multiple of the input price. */
  readonly cacheReadMultiplier: number;
  /** A prefix shorter than this many tokens is not cached at all. */
  readonly minCacheableTokens: number;
  /**
   * Tokens of the system prompt the provider adds whenever `tools` is non-empty, with
   * tool_choice auto. Not visible in the request body, billed as input.
   */
  readonly toolUseSystemPromptTokens: number;
  /** The context window in tokens; a request over it would be refused. */
  readonly contextWindowTokens: number;
  /** True when no exact offline tokenizer exists for the model: figures are approximations. */
  readonly approximate: boolean;
}

/**
 * Claude Sonnet 4.5: $3 / $15 per MTok, cache write 1.25x and read 0.1x (Anthropic pricing
 * page, 5-minute cache), 1,024-token minimum cacheable prompt (prompt-caching docs), 346
 * tool-use system prompt tokens for tool_choice auto/none on Claude 4.x models (tool-use
 * pricing table; 313 for any/tool), 200K context window.
 */
export const CLAUDE_SONNET_4_5: ModelProfile = {
  id: "claude-sonnet-4-5",
  label: "Claude Sonnet 4.5",
  inputPerMTok: 3,
  outputPerMTok: 15,
  cacheWriteMultiplier: 1.25,
  cacheReadMultiplier: 0.1,
  minCacheableTokens: 1024,
  toolUseSystemPromptTokens: 346,
  contextWindowTokens: 200_000,
  approximate: true,
};

/** Claude Haiku 4.5: $1 / $5 per MTok, 4,096-token minimum cacheable prompt, same 346-token tool prompt. */
export const CLAUDE_HAIKU_4_5: ModelProfile = {
  id: "claude-haiku-4-5",
  label: "Claude Haiku 4.5",
  inputPerMTok: 1,
  outputPerMTok: 5,
  cacheWriteMultiplier: 1.25,
  cacheReadMultiplier: 0.1,
  minCacheableTokens: 4096,
  toolUseSystemPromptTokens: 346,
  contextWindowTokens: 200_000,
  approximate: true,
};

export const MODEL_PROFILES: readonly ModelProfile[] = [CLAUDE_SONNET_4_5, CLAUDE_HAIKU_4_5];

/** The profile for `id`; throws with the known ids for an unknown one. */
export function modelProfile(id: string): ModelProfile {
  const profile = MODEL_PROFILES.find((candidate) => candidate.id === id);
  if (profile === undefined)
    throw new Error(`Unknown model "${id}"; known: ${MODEL_PROFILES.map((known) => known.id).join(", ")}.`);
  return profile;
}

/**
 * The latency model behind the "est. end-to-end" column: a fixed time to first token per
 * request plus output at a steady rate, added to the measured tool and sandbox time. Round
 * numbers for a hosted model, not measurements; change them here.
 */
export const LATENCY_MODEL = {
  timeToFirstTokenMs: 800,
  outputTokensPerSecond: 60,
} as const;

/** The system prompt of every mode: the same words, so the modes differ only in tools and turns. */
export const SYSTEM_PROMPT =
  "You are an operations assistant with access to company systems through tools. Answer the user's question " +
  "accurately and completely from the tools' data. When a task sweeps many records, cover every page and " +
  "report anything that could not be checked instead of guessing.";

/** `max_tokens` sent with every request (it does not count as input). */
export const MAX_OUTPUT_TOKENS = 16_000;
