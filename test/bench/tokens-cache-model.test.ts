import { describe, expect, it } from "vitest";
import { buildAnthropicRequest } from "../../src/agent/anthropic-adapter.js";
import { priceTokens } from "../../src/agent/model-pricing.js";
import { promptBlocks, simulatePromptCache } from "../../bench/tokens/cache-model.js";
import { countPrefixTokens, countRequestTokens } from "../../bench/tokens/count-request.js";
import { runMode } from "../../bench/tokens/modes.js";
import { DEFAULT_BENCH_MODEL } from "../../bench/tokens/settings.js";
import { splitCache, summarizeRun } from "../../bench/tokens/summarize-run.js";
import { dependentChain } from "../../bench/tokens/tasks/dependent-chain.js";
import { expenseBudgets } from "../../bench/tokens/tasks/expense-budgets.js";
import type { ModelRequest } from "../../src/agent/model-adapter.js";

const model = DEFAULT_BENCH_MODEL;

describe("the prompt-cache model, on the bodies the real adapter builds", () => {
  it("writes a request's whole body at its last breakpoint and reads it back whole on the next request", async () => {
    const run = await runMode(dependentChain, "direct-grouped", { model });
    const splits = splitCache(run.records, model);
    expect(run.records.length).toBe(6);
    // The first request is under the model's 1,024-token minimum: nothing is cached.
    expect(run.records[0]!.inputTokens).toBeLessThan(model.minCacheableTokens);
    expect(splits[0]).toEqual({ uncached: run.records[0]!.inputTokens, written: 0, read: 0 });
    splits.slice(1).forEach((split, offset) => {
      const index = offset + 1;
      const record = run.records[index]!;
      const previous = run.records[index - 1]!;
      expect(split.uncached + split.written + split.read).toBe(record.inputTokens);
      // The adapter marks the last block of the newest user message: nothing is left uncached...
      expect(split.uncached).toBe(0);
      // ...and the previous request's body, marked the same way, is this one's cached prefix (once it was cacheable).
      expect(split.read).toBe(previous.inputTokens >= model.minCacheableTokens ? previous.inputTokens : 0);
      // The newest turn is paid once, as a write; never as uncached input and a write again.
      expect(split.written).toBe(record.inputTokens - split.read);
    });
    expect(splits.at(-1)!.read).toBeGreaterThan(0);
  });

  it("still hits when one turn adds more than 20 blocks, through the breakpoint on the previous user message", async () => {
    const run = await runMode(expenseBudgets, "direct-grouped", { model });
    const [, previous, last] = run.records;
    // The 29 results of the grouped turn arrive in one user message: more than the 20-block lookback.
    const results = (last!.body.messages.at(-1)!.content as { type: string }[]).filter(
      (block) => block.type === "tool_result",
    );
    expect(results.length).toBe(29);
    const splits = splitCache(run.records, model);
    expect(splits[2]!.read).toBe(previous!.inputTokens);
    expect(splits[2]!.written).toBe(last!.inputTokens - previous!.inputTokens);

    // With only the newest message marked, the same growth misses: what the second marker is for.
    const onlyLast = run.records.map((record) => {
      const body = structuredClone(record.body);
      const users = body.messages.flatMap((message, index) => (message.role === "user" ? [index] : []));
      for (const index of users.slice(0, -1)) {
        const content = body.messages[index]!.content as unknown as Record<string, unknown>[];
        delete content.at(-1)!.cache_control;
      }
      return body;
    });
    const missed = simulatePromptCache(
      onlyLast,
      run.records.map((record) => record.inputTokens),
      model.minCacheableTokens,
      (body, blocks) => countPrefixTokens(body, blocks, model),
    );
    expect(missed[2]!.read).toBeLessThan(previous!.inputTokens);
  });

  it("caches nothing without breakpoints, and nothing under the model's minimum", () => {
    const request: ModelRequest = {
      system: "Be brief.",
      messages: [{ role: "user", content: [{ type: "text", text: "Hello." }] }],
      tools: [],
      maxTokens: 100,
    };
    const marked = buildAnthropicRequest(request, { model: model.id });
    const unmarked = buildAnthropicRequest(request, { model: model.id, cache: false });
    expect(promptBlocks(marked).some((block) => block.marked)).toBe(true);
    expect(promptBlocks(unmarked).some((block) => block.marked)).toBe(false);
    const tokens = countRequestTokens(marked, model);
    const count = (body: typeof marked, blocks: number) => countPrefixTokens(body, blocks, model);
    expect(simulatePromptCache([marked, marked], [tokens, tokens], model.minCacheableTokens, count)).toEqual([
      { uncached: tokens, written: 0, read: 0 },
      { uncached: tokens, written: 0, read: 0 },
    ]);
    expect(simulatePromptCache([unmarked, unmarked], [tokens, tokens], 1, count)).toEqual([
      { uncached: tokens, written: 0, read: 0 },
      { uncached: tokens, written: 0, read: 0 },
    ]);
    expect(simulatePromptCache([marked, marked], [tokens, tokens], 1, count)).toEqual([
      { uncached: 0, written: tokens, read: 0 },
      { uncached: 0, written: 0, read: tokens },
    ]);
  });

  it("re-reads only the tools that did not change when a search adds a tool definition", async () => {
    const run = await runMode(dependentChain, "direct-deferred", { model });
    const splits = splitCache(run.records, model);
    const toolCounts = run.records.map((record) => record.body.tools?.length ?? 0);
    const grew = toolCounts.findIndex((count, index) => index > 0 && count > toolCounts[index - 1]!);
    expect(grew).toBeGreaterThan(0);
    // The prefix changed inside the tools: far less is read than the previous request's body.
    expect(splits[grew]!.read).toBeLessThan(run.records[grew - 1]!.inputTokens / 2);
    expect(splits[grew]!.written).toBeGreaterThan(0);
  });

  it("bills the run as the split says: uncached, written, read and output, each at the row's price", async () => {
    const run = await runMode(dependentChain, "programmatic", { model });
    const figures = summarizeRun(run, model);
    const expected = priceTokens(model, {
      uncachedInput: figures.cache.uncached,
      cacheWrite: figures.cache.written,
      cacheRead: figures.cache.read,
      output: figures.outputTokens,
    });
    expect(figures.billed.totalUsd).toBeCloseTo(expected.totalUsd, 12);
    expect(figures.cache.uncached + figures.cache.written + figures.cache.read).toBe(figures.inputTokens);
  });
});
