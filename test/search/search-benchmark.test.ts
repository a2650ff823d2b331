import { describe, expect, it } from "vitest";
import { runSearchBenchmark } from "../../bench/search/run.js";

describe("search benchmark", () => {
  it("keeps the lexical search's quality on both labelled sets, offline", async () => {
    const figures = await runSearchBenchmark();
    // The phrased set: real tools, user-phrased queries checked to share no word with their answers' names.
    expect(figures.phrased.catalogSize).toBeGreaterThanOrEqual(250);
    expect(figures.phrased.user.count + figures.phrased.keyword.count).toBeGreaterThanOrEqual(200);
    expect(figures.phrased.user.count).toBeGreaterThanOrEqual(figures.phrased.keyword.count);
    expect(figures.phrased.user.recallAt5).toBeGreaterThanOrEqual(0.85);
    expect(figures.phrased.user.mrr).toBeGreaterThanOrEqual(0.65);
    expect(figures.phrased.keyword.recallAt5).toBeGreaterThanOrEqual(1);
    expect(figures.phrased.keyword.mrr).toBeGreaterThanOrEqual(0.984);
    // The original set: no worse than before the vocabulary layer (0.959 / 0.845).
    expect(figures.catalogSize).toBeGreaterThanOrEqual(250);
    expect(figures.queryCount).toBeGreaterThanOrEqual(80);
    expect(figures.bm25.recallAt5).toBeGreaterThanOrEqual(0.959);
    expect(figures.bm25.mrr).toBeGreaterThanOrEqual(0.845);
    expect(figures.typicalSessionTokens).toBeLessThan(figures.fullCatalogTokens);
    // The issue-14 pattern over 1,000 tools is stopped at the worker's deadline.
    expect(figures.regexStall?.outcome).toBe("PATTERN_INVALID");
  }, 60_000);
});
