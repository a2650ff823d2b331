// The constants every figure of the token benchmark depends on, in one place: the model row
// (prices, cache minimum, hidden tool prompt, context window: data in
// src/agent/model-pricing.json, each row with its source), the latency model of the
// end-to-end estimate, and the prompt and output limit every mode shares.

import { SwitchyardError } from "../../src/errors.js";
import { createPriceTable, type ModelPrice, type PriceTable } from "../../src/agent/model-pricing.js";

/** The model row the offline benchmark counts and prices with. */
export type BenchModel = ModelPrice;

/** The offline benchmark's default model: Anthropic's default row of the shipped price table. */
export const DEFAULT_BENCH_MODEL: BenchModel = createPriceTable().defaultFor("anthropic")!;

/**
 * The row of `id` in `table`; throws naming the known ids when there is none (the offline
 * benchmark cannot price or cache-model a model it has no row for: add one with --pricing).
 */
export function benchModel(id: string, table: PriceTable = createPriceTable()): BenchModel {
  const row = table.find(id);
  if (row === undefined)
    throw new SwitchyardError(
      "OPTION_INVALID",
      `No price row for model "${id}"; known: ${table.rows.map((known) => known.id).join(", ")}. Add one with --pricing <file>.`,
    );
  return row;
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
