import { describe, expect, it } from "vitest";
import {
  checkPublishedFigures,
  countBodyTokens,
  countRequestTokens,
  GET_WEATHER_REQUEST,
  TOKENIZER,
} from "../../bench/tokens/count-request.js";
import type { ModeRun } from "../../bench/tokens/modes.js";
import type { RequestRecord } from "../../bench/tokens/scripted-model.js";
import { CLAUDE_SONNET_4_5 } from "../../bench/tokens/settings.js";
import { splitCache, summarizeRun } from "../../bench/tokens/summarize-run.js";

describe("checkPublishedFigures", () => {
  it("counts Anthropic's get_weather token-counting example within 10% of the published 403 input tokens", () => {
    const [weather] = checkPublishedFigures(CLAUDE_SONNET_4_5);
    expect(weather?.published).toBe(403);
    expect(weather?.hiddenTokens).toBe(346);
    expect(weather?.tokenizer).toBe(TOKENIZER);
    expect(weather?.counted).toBe(weather!.bodyTokens + 346);
    expect(Math.abs(weather!.counted - 403) / 403).toBeLessThanOrEqual(0.1);
    expect(weather?.withinTolerance).toBe(true);
  });
});

describe("countBodyTokens", () => {
  it("does not count cache_control markers, model or max_tokens, which the model never reads", () => {
    const plain = countBodyTokens(GET_WEATHER_REQUEST);
    const marked = {
      ...GET_WEATHER_REQUEST,
      model: "a-much-longer-model-name-that-would-add-tokens",
      max_tokens: 99_999,
      tools: GET_WEATHER_REQUEST.tools!.map((tool) => ({ ...tool, cache_control: { type: "ephemeral" as const } })),
    };
    expect(countBodyTokens(marked)).toBe(plain);
  });

  it("adds the tool-use system prompt only to requests that offer tools", () => {
    const { tools: _tools, ...withoutTools } = GET_WEATHER_REQUEST;
    expect(countRequestTokens(GET_WEATHER_REQUEST, CLAUDE_SONNET_4_5)).toBe(countBodyTokens(GET_WEATHER_REQUEST) + 346);
    expect(countRequestTokens(withoutTools, CLAUDE_SONNET_4_5)).toBe(countBodyTokens(withoutTools));
  });
});

function record(index: number, inputTokens: number, prefixTokens: number, outputTokens = 10): RequestRecord {
  return {
    index,
    body: GET_WEATHER_REQUEST,
    inputTokens,
    prefixTokens,
    outputTokens,
    response: "tool_calls",
    toolCallCount: 1,
    overOutputLimit: false,
  };
}

function runOf(records: RequestRecord[]): ModeRun {
  return {
    taskId: "t",
    mode: "direct",
    records,
    answer: 1,
    truth: 1,
    correct: true,
    problems: [],
    finalText: "",
    toolWallMs: 0,
    toolCalls: 0,
    catalogTools: 1,
  };
}

describe("splitCache", () => {
  it("writes a prefix the first time, reads it back later, and never caches a prefix under the minimum", () => {
    const records = [record(0, 900, 500), record(1, 3000, 2000), record(2, 5000, 4000)];
    expect(splitCache(records, CLAUDE_SONNET_4_5)).toEqual([
      { uncached: 900, written: 0, read: 0 },
      { uncached: 1000, written: 2000, read: 0 },
      { uncached: 1000, written: 2000, read: 2000 },
    ]);
  });

  it("accounts for every input token exactly once per request", () => {
    const records = [record(0, 1200, 1100), record(1, 2400, 2300), record(2, 2500, 2400)];
    splitCache(records, CLAUDE_SONNET_4_5).forEach((split, index) => {
      expect(split.uncached + split.written + split.read).toBe(records[index]!.inputTokens);
    });
  });
});

describe("summarizeRun", () => {
  it("sums input and output over the recorded requests and prices them with and without caching", () => {
    const records = [record(0, 1200, 1100, 30), record(1, 2400, 2300, 40)];
    const figures = summarizeRun(runOf(records), CLAUDE_SONNET_4_5);
    expect(figures.requests).toBe(2);
    expect(figures.inputTokens).toBe(3600);
    expect(figures.outputTokens).toBe(70);
    expect(figures.peakContextTokens).toBe(2400);
    expect(figures.costUsd).toBeCloseTo((3600 * 3 + 70 * 15) / 1e6, 12);
    // 100 + 100 uncached, 1100 + 1200 written, 1100 read.
    expect(figures.cachedCostUsd).toBeCloseTo((200 * 3 + 2300 * 3 * 1.25 + 1100 * 3 * 0.1 + 70 * 15) / 1e6, 12);
  });
});
