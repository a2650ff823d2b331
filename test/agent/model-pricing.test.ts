import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  createPriceTable,
  DEFAULT_MODEL_PRICES,
  loadPriceRows,
  parsePriceRows,
  priceRequests,
  priceTokens,
  type ModelPrice,
} from "../../src/agent/model-pricing.js";

const require = createRequire(import.meta.url);
/** The installed SDK's own table of deprecated models (not exported, so read from its file). */
const SDK_DEPRECATED: Record<string, string> = require(
  join(dirname(require.resolve("@anthropic-ai/sdk")), "internal/data/deprecated-models.js"),
).DEPRECATED_MODELS;

const ROW: ModelPrice = {
  id: "m-test",
  provider: "anthropic",
  label: "Test model",
  inputPerMTok: 2,
  cacheWritePerMTok: 2.5,
  cacheReadPerMTok: 0.1,
  outputPerMTok: 10,
  longPrompt: { aboveTokens: 1000, inputPerMTok: 4, cacheWritePerMTok: 5, cacheReadPerMTok: 0.2, outputPerMTok: 20 },
  contextWindowTokens: 10_000,
  minCacheableTokens: 100,
  toolUseSystemPromptTokens: 0,
  source: "https://example.com/pricing",
  checked: "2026-12-01",
};

let folder: string | undefined;
afterEach(async () => {
  if (folder !== undefined) await rm(folder, { recursive: true, force: true });
  folder = undefined;
});

describe("the shipped price table", () => {
  it("has one default row per provider, none of them a model the installed Anthropic SDK lists as deprecated", () => {
    const table = createPriceTable();
    expect(table.defaultFor("anthropic")?.id).toBe("claude-sonnet-5-5");
    expect(table.defaultFor("openai")?.id).toBe("gpt-5.6-terra");
    expect(Object.keys(SDK_DEPRECATED)).toContain("claude-sonnet-4-5");
    for (const row of DEFAULT_MODEL_PRICES) expect(SDK_DEPRECATED[row.id], row.id).toBeUndefined();
  });

  it("names a source URL and the day it was checked on every row", () => {
    expect(DEFAULT_MODEL_PRICES.length).toBeGreaterThanOrEqual(4);
    for (const row of DEFAULT_MODEL_PRICES) {
      expect(row.source).toMatch(/^https:\/\//);
      expect(row.checked).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      expect(row.contextWindowTokens).toBeGreaterThan(0);
    }
  });

  it("finds a dated snapshot of a known id, and nothing for an unknown id", () => {
    const table = createPriceTable();
    expect(table.find("claude-sonnet-5-5-20260928")?.id).toBe("claude-sonnet-5-5");
    expect(table.find("claude-sonnet-5-5x")).toBeUndefined();
    expect(table.find("some-future-model")).toBeUndefined();
  });
});

describe("createPriceTable", () => {
  it("merges user rows over the shipped ones by id, and a user default replaces the provider's default", () => {
    const cheaper = { ...DEFAULT_MODEL_PRICES.find((row) => row.id === "claude-sonnet-5-5")!, inputPerMTok: 1 };
    const table = createPriceTable({ prices: [cheaper, { ...ROW, default: true }] });
    expect(table.find("claude-sonnet-5-5")?.inputPerMTok).toBe(1);
    expect(table.find("m-test")?.label).toBe("Test model");
    expect(table.defaultFor("anthropic")?.id).toBe("m-test");
    expect(table.rows.filter((row) => row.provider === "anthropic" && row.default === true)).toHaveLength(1);
    // The shipped table itself is unchanged.
    expect(createPriceTable().find("claude-sonnet-5-5")?.inputPerMTok).toBe(2);
  });
});

describe("priceTokens", () => {
  it("bills input, cache writes, cache reads and output each at its own price", () => {
    const cost = priceTokens(ROW, { uncachedInput: 100, cacheWrite: 200, cacheRead: 300, output: 50 });
    expect(cost.inputUsd).toBeCloseTo((100 * 2) / 1e6, 12);
    expect(cost.cacheWriteUsd).toBeCloseTo((200 * 2.5) / 1e6, 12);
    expect(cost.cacheReadUsd).toBeCloseTo((300 * 0.1) / 1e6, 12);
    expect(cost.outputUsd).toBeCloseTo((50 * 10) / 1e6, 12);
    expect(cost.totalUsd).toBeCloseTo(cost.inputUsd + cost.cacheWriteUsd + cost.cacheReadUsd + cost.outputUsd, 12);
  });

  it("bills every token of a request whose prompt is over the long-prompt threshold in the higher band, reads and writes counted", () => {
    const under = priceTokens(ROW, { uncachedInput: 400, cacheWrite: 300, cacheRead: 300, output: 10 });
    const over = priceTokens(ROW, { uncachedInput: 401, cacheWrite: 300, cacheRead: 300, output: 10 });
    expect(under.outputUsd).toBeCloseTo((10 * 10) / 1e6, 12);
    expect(over.outputUsd).toBeCloseTo((10 * 20) / 1e6, 12);
    expect(over.inputUsd).toBeCloseTo((401 * 4) / 1e6, 12);
  });

  it("prices reported usage per request, taking reads and writes out of the input the provider reports", () => {
    const cost = priceRequests(ROW, [
      { input: 600, output: 10, cacheRead: 0, cacheCreation: 500 },
      { input: 700, output: 10, cacheRead: 500, cacheCreation: 150 },
    ]);
    expect(cost.inputUsd).toBeCloseTo(((100 + 50) * 2) / 1e6, 12);
    expect(cost.cacheWriteUsd).toBeCloseTo((650 * 2.5) / 1e6, 12);
    expect(cost.cacheReadUsd).toBeCloseTo((500 * 0.1) / 1e6, 12);
  });
});

describe("loadPriceRows", () => {
  it("reads rows from a file, bare array or { models }", async () => {
    folder = await mkdtemp(join(tmpdir(), "pricing-"));
    const file = join(folder, "prices.json");
    await writeFile(file, JSON.stringify({ models: [ROW] }));
    expect(await loadPriceRows(file)).toEqual([ROW]);
    await writeFile(file, JSON.stringify([ROW]));
    expect((await loadPriceRows(file))[0]?.id).toBe("m-test");
  });

  it("refuses a row with a negative price, a missing source or a bad date, naming the row and the field", () => {
    expect(() => parsePriceRows([{ ...ROW, outputPerMTok: -1 }], "p.json")).toThrow(
      /p\.json: models\[0\]: "outputPerMTok" must be a price/,
    );
    const { source: _source, ...withoutSource } = ROW;
    expect(() => parsePriceRows([withoutSource], "p.json")).toThrow(/"source" must be a non-empty string/);
    expect(() => parsePriceRows([{ ...ROW, checked: "Dec 1" }], "p.json")).toThrow(/"checked" must be a date/);
    expect(() => parsePriceRows({ rows: [] }, "p.json")).toThrow(/expected \{ "models": \[\.\.\.\] \}/);
  });

  it("reports a missing file or a file that is not JSON as CONFIG_INVALID", async () => {
    folder = await mkdtemp(join(tmpdir(), "pricing-"));
    await expect(loadPriceRows(join(folder, "nope.json"))).rejects.toMatchObject({ code: "CONFIG_INVALID" });
    await writeFile(join(folder, "bad.json"), "{ nope");
    await expect(loadPriceRows(join(folder, "bad.json"))).rejects.toThrow(/is not JSON/);
  });
});
