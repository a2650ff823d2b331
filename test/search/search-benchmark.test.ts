import { describe, expect, it } from "vitest";
import { runSearchBenchmark } from "../../bench/search/run.js";

describe("search benchmark", () => {
  it("keeps BM25 at recall@5 >= 0.90 and MRR >= 0.75 over the labeled catalog, offline", async () => {
    const figures = await runSearchBenchmark({ skipRegexStall: true });
    expect(figures.catalogSize).toBeGreaterThanOrEqual(250);
    expect(figures.queryCount).toBeGreaterThanOrEqual(80);
    expect(figures.bm25.recallAt5).toBeGreaterThanOrEqual(0.9);
    expect(figures.bm25.mrr).toBeGreaterThanOrEqual(0.75);
    expect(figures.typicalSessionTokens).toBeLessThan(figures.fullCatalogTokens);
  });
});
