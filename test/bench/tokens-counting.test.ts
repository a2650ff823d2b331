import { describe, expect, it } from "vitest";
import {
  BASIC_REQUEST,
  calibrate,
  calibrationSamples,
  changeBand,
  COUNT_BAND,
  GET_WEATHER_REQUEST,
} from "../../bench/tokens/calibration.js";
import { countBodyTokens, countRequestTokens, TOKENIZER } from "../../bench/tokens/count-request.js";
import { runMode } from "../../bench/tokens/modes.js";
import { DEFAULT_BENCH_MODEL } from "../../bench/tokens/settings.js";
import { logErrors } from "../../bench/tokens/tasks/log-errors.js";

const model = DEFAULT_BENCH_MODEL;

describe("calibration", () => {
  it("counts Anthropic's get_weather example within 5% of the published 403, and says how far the tiny example is off", () => {
    const rows = calibrate(calibrationSamples([]), model);
    const weather = rows.find((row) => row.name.includes("get_weather"))!;
    expect(weather.published).toBe(403);
    expect(weather.hiddenTokens).toBe(346);
    expect(weather.counted).toBe(weather.bodyTokens + 346);
    expect(Math.abs(weather.relativeError!)).toBeLessThanOrEqual(0.05);
    expect(weather.tokenizer).toBe(TOKENIZER);
    const hello = rows.find((row) => row.name.includes("Hello"))!;
    expect(hello.published).toBe(14);
    expect(hello.relativeError).toBeGreaterThan(0.3);
    // The band holds the published figure of the tool example.
    expect(weather.band[0]).toBeLessThanOrEqual(403);
    expect(weather.band[1]).toBeGreaterThanOrEqual(403);
  });

  it("calibrates on tool-result-heavy bodies of a real run, tens of thousands of tokens, with no published figure claimed", async () => {
    const run = await runMode(logErrors, "direct-grouped", { model });
    const rows = calibrate(calibrationSamples([run]), model);
    const logs = rows.find((row) => row.name === "8 pages of raw log lines")!;
    expect(logs.counted).toBeGreaterThan(50_000);
    expect(logs.toolResultShare).toBeGreaterThan(0.9);
    expect(logs.published).toBeUndefined();
    expect(logs.band).toEqual([Math.round(logs.counted * COUNT_BAND.low), Math.round(logs.counted * COUNT_BAND.high)]);
    expect(rows.map((row) => row.name)).not.toContain("30 JSON record lists (expenses)");
  });

  it("widens a change into the range the counting cannot rule out, with each side anywhere in the band", () => {
    const [low, high] = changeBand(10, 100);
    expect(low).toBeCloseTo((0.1 * COUNT_BAND.low) / COUNT_BAND.high - 1, 12);
    expect(high).toBeCloseTo((0.1 * COUNT_BAND.high) / COUNT_BAND.low - 1, 12);
    expect(low).toBeLessThan(-0.9);
    expect(high).toBeGreaterThan(-0.9);
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
    expect(countRequestTokens(GET_WEATHER_REQUEST, model)).toBe(countBodyTokens(GET_WEATHER_REQUEST) + 346);
    expect(countRequestTokens(BASIC_REQUEST, model)).toBe(countBodyTokens(BASIC_REQUEST));
  });
});
