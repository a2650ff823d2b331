import { describe, expect, it } from "vitest";
import { runSearchBenchmark } from "../../bench/search/run.js";

describe("search benchmark", () => {
  it("keeps the lexical search's quality on both labelled sets, offline", async () => {
    const figures = await runSearchBenchmark();
    // The phrased set: real tools, user-phrased queries checked to share no word with their answers' names.
    expect(figures.phrased.catalogSize).toBeGreaterThanOrEqual(250);
    expect(figures.phrased.user.count + figures.phrased.keyword.count).toBeGreaterThanOrEqual(200);
    expect(figures.phrased.user.count).toBeGreaterThanOrEqual(figures.phrased.keyword.count);
    // Floors at the figures reached (all 137: 0.934 / 0.813; held out: 0.912 / 0.829), above the
    // issue's target of 0.90 / 0.75 for the lexical search alone.
    expect(figures.phrased.user.recallAt5).toBeGreaterThanOrEqual(0.93);
    expect(figures.phrased.user.mrr).toBeGreaterThanOrEqual(0.81);
    expect(figures.phrased.userHeldOut.recallAt5).toBeGreaterThanOrEqual(0.91);
    expect(figures.phrased.userHeldOut.mrr).toBeGreaterThanOrEqual(0.82);
    expect(figures.phrased.keyword.recallAt5).toBeGreaterThanOrEqual(1);
    expect(figures.phrased.keyword.mrr).toBeGreaterThanOrEqual(0.995);
    // The original set: no worse than before the vocabulary layer (0.959 / 0.845); reached 0.976 / 0.928.
    expect(figures.catalogSize).toBeGreaterThanOrEqual(250);
    expect(figures.queryCount).toBeGreaterThanOrEqual(80);
    expect(figures.bm25.recallAt5).toBeGreaterThanOrEqual(0.975);
    expect(figures.bm25.mrr).toBeGreaterThanOrEqual(0.925);
    expect(figures.typicalSessionTokens).toBeLessThan(figures.fullCatalogTokens);
    // The issue-14 pattern over 1,000 tools is stopped at the worker's deadline.
    expect(figures.regexStall?.outcome).toBe("PATTERN_INVALID");
  }, 60_000);
});
