// How far the offline counts can be trusted, across request sizes: o200k_base on request
// bodies against Anthropic's published counts where they exist (two small examples), and on
// bench bodies up to ~90K tokens (tool definitions, prose, JSON records, raw log lines) where
// nothing is published. The error band says what an offline count cannot rule out for
// current Claude models; a live run records the provider's own count of the same bodies.

import { TOKENIZER } from "../../src/search/token-count.js";
import type { MessageCreateParamsNonStreaming } from "@anthropic-ai/sdk/resources/messages/messages";
import { type CountableBody, countBodyTokens, hiddenToolPromptTokens } from "./count-request.js";
import type { ModeId } from "./modes.js";
import type { RequestRecord } from "./scripted-model.js";
import type { BenchModel } from "./settings.js";

export const TOKEN_COUNTING_DOCS = "https://platform.claude.com/docs/en/build-with-claude/token-counting";

/**
 * The band of Claude's count around ours, as factors on the o200k count. Low: our count of
 * the closest published anchor (get_weather) is 4.7% high, so Claude may count ~5% fewer.
 * High: Anthropic says the tokenizer of Claude Opus 4.7 and later, Sonnet 5 and later counts
 * about 30% more tokens for the same text than earlier models, 1.0-1.35x by content. That
 * earlier models track o200k on JSON and logs is an assumption no published figure checks.
 */
export const COUNT_BAND = {
  low: 0.95,
  high: 1.35,
  source: TOKEN_COUNTING_DOCS,
} as const;

/** The token-counting docs' example with one `get_weather` tool, published as `{ "input_tokens": 403 }`. */
export const GET_WEATHER_REQUEST: MessageCreateParamsNonStreaming = {
  model: "claude-opus-5",
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
export const BASIC_REQUEST: MessageCreateParamsNonStreaming = {
  model: "claude-opus-5",
  max_tokens: 1024,
  system: "You are a scientist",
  messages: [{ role: "user", content: "Hello, Claude" }],
};

/** One body to calibrate on. */
export interface CalibrationSample {
  readonly name: string;
  readonly body: CountableBody & { readonly model?: string };
  /** Anthropic's published count of this body, where there is one. */
  readonly published?: number;
}

/** One row of the calibration table. */
export interface CalibrationRow {
  readonly name: string;
  readonly bytes: number;
  /** Share of the body's bytes that are tool results (0-1). */
  readonly toolResultShare: number;
  readonly bodyTokens: number;
  readonly hiddenTokens: number;
  /** Our count: body + hidden tool prompt. */
  readonly counted: number;
  readonly published: number | undefined;
  /** (counted - published) / published, where published. */
  readonly relativeError: number | undefined;
  /** What Claude may count, given COUNT_BAND: [low, high]. */
  readonly band: readonly [number, number];
  /** The provider's count of this body, filled in by a live run. */
  readonly provider?: number;
  readonly tokenizer: string;
}

/** Where the bench samples come from: a task, a mode, and which request (-1: the last). */
const BENCH_SAMPLES: readonly { name: string; taskId: string; mode: ModeId; request: number }[] = [
  { name: "run_program offered, task question", taskId: "single-lookup", mode: "programmatic", request: 0 },
  { name: "5 small JSON results (chain)", taskId: "dependent-chain", mode: "direct-grouped", request: -1 },
  { name: "search answers with declarations", taskId: "expense-budgets", mode: "programmatic-deferred", request: 1 },
  { name: "prose tool result (document)", taskId: "document-summary", mode: "direct-grouped", request: -1 },
  { name: "228 tool definitions", taskId: "single-lookup", mode: "direct-padded", request: 0 },
  { name: "30 JSON record lists (expenses)", taskId: "expense-budgets", mode: "direct-grouped", request: -1 },
  { name: "10 pages of JSON invoices", taskId: "invoice-sweep", mode: "direct-grouped", request: -1 },
  { name: "8 pages of raw log lines", taskId: "log-errors", mode: "direct-grouped", request: -1 },
];

/** The published examples and, where those runs are in `runs`, the bench bodies of BENCH_SAMPLES. */
export function calibrationSamples(
  runs: readonly { readonly taskId: string; readonly mode: ModeId; readonly records: readonly RequestRecord[] }[],
): CalibrationSample[] {
  const samples: CalibrationSample[] = [
    { name: 'docs: system + "Hello, Claude"', body: BASIC_REQUEST, published: 14 },
    { name: "docs: get_weather tool + one question", body: GET_WEATHER_REQUEST, published: 403 },
  ];
  for (const sample of BENCH_SAMPLES) {
    const run = runs.find((candidate) => candidate.taskId === sample.taskId && candidate.mode === sample.mode);
    const record = run?.records.at(sample.request);
    if (record !== undefined) samples.push({ name: sample.name, body: record.body });
  }
  return samples;
}

/** Counts each sample and places it against its published figure and the band. */
export function calibrate(
  samples: readonly CalibrationSample[],
  model: BenchModel,
  providerCounts: ReadonlyMap<string, number> = new Map(),
): CalibrationRow[] {
  return samples.map((sample) => {
    const bodyTokens = countBodyTokens(sample.body);
    const hiddenTokens = hiddenToolPromptTokens(sample.body, model);
    const counted = bodyTokens + hiddenTokens;
    const json = JSON.stringify(sample.body);
    const provider = providerCounts.get(sample.name);
    return {
      name: sample.name,
      bytes: Buffer.byteLength(json),
      toolResultShare: Buffer.byteLength(toolResultText(sample.body)) / Math.max(1, Buffer.byteLength(json)),
      bodyTokens,
      hiddenTokens,
      counted,
      published: sample.published,
      relativeError: sample.published === undefined ? undefined : (counted - sample.published) / sample.published,
      band: [Math.round(counted * COUNT_BAND.low), Math.round(counted * COUNT_BAND.high)],
      ...(provider === undefined ? {} : { provider }),
      tokenizer: TOKENIZER,
    };
  });
}

/**
 * The range of a relative change `value / baseline - 1` when each side's true count may sit
 * anywhere in COUNT_BAND independently (content differs between modes, so one factor need
 * not apply to both): [low, high].
 */
export function changeBand(value: number, baseline: number): readonly [number, number] {
  if (baseline === 0) return [Number.NaN, Number.NaN];
  const ratio = value / baseline;
  return [(ratio * COUNT_BAND.low) / COUNT_BAND.high - 1, (ratio * COUNT_BAND.high) / COUNT_BAND.low - 1];
}

function toolResultText(body: CountableBody): string {
  return body.messages
    .flatMap((message) =>
      typeof message.content === "string"
        ? []
        : message.content.flatMap((block) => (block.type === "tool_result" ? [JSON.stringify(block.content)] : [])),
    )
    .join("");
}
