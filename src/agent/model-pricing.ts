// Model prices as data: the rows of model-pricing.json (one per model id, each with its
// source and the date it was checked), merged with rows a user supplies, and the bill of a
// run computed from the usage the provider reported. Unknown model ids are never guessed:
// they have no price row, and pricing them is the caller's choice, not a silent fallback.

import { readFile } from "node:fs/promises";
import { SwitchyardError } from "../errors.js";
import type { ModelUsage } from "./model-adapter.js";
import pricingData from "./model-pricing.json" with { type: "json" };

/** The four prices of one band, USD per million tokens. */
export interface TokenPrices {
  /** Input tokens neither read from nor written to a cache. */
  readonly inputPerMTok: number;
  /** Input tokens written to the prompt cache (Anthropic's 5-minute write; the input price where writes are free). */
  readonly cacheWritePerMTok: number;
  /** Input tokens read from the prompt cache. */
  readonly cacheReadPerMTok: number;
  readonly outputPerMTok: number;
}

/** One model's row: prices, limits, and where the numbers come from. */
export interface ModelPrice extends TokenPrices {
  /** The provider's model id, exactly as sent (`claude-sonnet-5-5`, `gpt-5.6-terra`). */
  readonly id: string;
  readonly provider: string;
  readonly label: string;
  /** The provider's default model for `switchyard agent` and the token benchmark. */
  readonly default?: boolean;
  /** A second band billed on every token of a request whose prompt is over `aboveTokens`. */
  readonly longPrompt?: TokenPrices & { readonly aboveTokens: number };
  readonly contextWindowTokens: number;
  /** A prompt prefix shorter than this is not cached at all. */
  readonly minCacheableTokens: number;
  /** Tokens of the hidden system prompt the provider adds when tools are offered (0 when none is published). */
  readonly toolUseSystemPromptTokens: number;
  /** Where the prices were read, and the day they were checked (YYYY-MM-DD). */
  readonly source: string;
  readonly checked: string;
  readonly notes?: string;
}

/** What a run cost, split as the provider bills it; USD. */
export interface BilledCost {
  readonly inputUsd: number;
  readonly cacheWriteUsd: number;
  readonly cacheReadUsd: number;
  readonly outputUsd: number;
  readonly totalUsd: number;
}

/** Token counts of one request, split as billed. */
export interface BilledTokens {
  readonly uncachedInput: number;
  readonly cacheWrite: number;
  readonly cacheRead: number;
  readonly output: number;
}

/** Price rows by model id; see `createPriceTable`. */
export interface PriceTable {
  readonly rows: readonly ModelPrice[];
  /**
   * The row of `modelId`: an exact id, or a dated snapshot of a known id
   * (`claude-sonnet-5-5-20260928` finds `claude-sonnet-5-5`). Undefined for anything else.
   */
  find(modelId: string): ModelPrice | undefined;
  /** The row marked `default` for `provider`; undefined when there is none. */
  defaultFor(provider: string): ModelPrice | undefined;
}

export interface PriceTableOptions {
  /** Rows that replace the shipped row of the same id, or add new ids. */
  readonly prices?: readonly ModelPrice[];
  /** Start from these rows instead of the shipped ones. */
  readonly base?: readonly ModelPrice[];
}

/** The rows shipped with the package (src/agent/model-pricing.json), validated once. */
export const DEFAULT_MODEL_PRICES: readonly ModelPrice[] = Object.freeze(
  parsePriceRows(pricingData, "model-pricing.json"),
);

/**
 * A price table: the shipped rows with `options.prices` merged over them by id (a user row
 * replaces the shipped one whole). When a user row is marked `default`, it replaces the
 * provider's shipped default.
 */
export function createPriceTable(options: PriceTableOptions = {}): PriceTable {
  const byId = new Map<string, ModelPrice>();
  for (const row of options.base ?? DEFAULT_MODEL_PRICES) byId.set(row.id, row);
  for (const row of options.prices ?? []) {
    if (row.default === true) {
      for (const [id, existing] of byId)
        if (existing.provider === row.provider && existing.default === true)
          byId.set(id, { ...existing, default: false });
    }
    byId.set(row.id, row);
  }
  const rows = [...byId.values()];
  return {
    rows,
    find(modelId) {
      const exact = byId.get(modelId);
      if (exact !== undefined) return exact;
      const snapshot = /^(.*)-\d{8}$/.exec(modelId);
      return snapshot === null ? undefined : byId.get(snapshot[1]!);
    },
    defaultFor(provider) {
      return rows.find((row) => row.provider === provider && row.default === true);
    },
  };
}

/**
 * Reads price rows from a JSON file: `{ "models": [...] }` or a bare array, each row shaped
 * like model-pricing.json's. Throws SwitchyardError CONFIG_INVALID naming the file and the
 * first bad field; a missing or unreadable file is CONFIG_INVALID too.
 */
export async function loadPriceRows(path: string): Promise<ModelPrice[]> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    throw new SwitchyardError(
      "CONFIG_INVALID",
      `Cannot read the pricing file ${path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}.`,
    );
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new SwitchyardError("CONFIG_INVALID", `The pricing file ${path} is not JSON: ${(error as Error).message}`);
  }
  return parsePriceRows(data, path);
}

/** Validates price rows (`{ models: [...] }` or an array); throws SwitchyardError CONFIG_INVALID. */
export function parsePriceRows(data: unknown, origin: string): ModelPrice[] {
  const list = Array.isArray(data) ? data : isRecord(data) && Array.isArray(data.models) ? data.models : undefined;
  if (list === undefined) fail(origin, 'expected { "models": [...] } or an array of rows');
  return list.map((row, index) => parseRow(row, `${origin}: models[${index}]`));
}

function parseRow(row: unknown, where: string): ModelPrice {
  if (!isRecord(row)) fail(where, "a row must be an object");
  const text = (key: string): string => {
    const value = row[key];
    if (typeof value !== "string" || value === "") fail(where, `"${key}" must be a non-empty string`);
    return value;
  };
  const count = (key: string): number => {
    const value = row[key];
    if (typeof value !== "number" || !Number.isInteger(value) || value < 0)
      fail(where, `"${key}" must be a whole number of tokens, 0 or more`);
    return value;
  };
  const checked = text("checked");
  if (!/^\d{4}-\d{2}-\d{2}$/.test(checked)) fail(where, `"checked" must be a date, YYYY-MM-DD`);
  const longPrompt = row.longPrompt;
  if (longPrompt !== undefined && !isRecord(longPrompt)) fail(where, '"longPrompt" must be an object');
  const notes = row.notes;
  if (notes !== undefined && typeof notes !== "string") fail(where, '"notes" must be a string');
  if (row.default !== undefined && typeof row.default !== "boolean") fail(where, '"default" must be true or false');
  return {
    id: text("id"),
    provider: text("provider"),
    label: text("label"),
    ...(row.default === true ? { default: true } : {}),
    ...prices(row, where),
    ...(longPrompt === undefined
      ? {}
      : {
          longPrompt: {
            aboveTokens: ((): number => {
              const value = longPrompt.aboveTokens;
              if (typeof value !== "number" || !Number.isInteger(value) || value <= 0)
                fail(where, '"longPrompt.aboveTokens" must be a positive whole number');
              return value;
            })(),
            ...prices(longPrompt, `${where}.longPrompt`),
          },
        }),
    contextWindowTokens: count("contextWindowTokens"),
    minCacheableTokens: count("minCacheableTokens"),
    toolUseSystemPromptTokens: count("toolUseSystemPromptTokens"),
    source: text("source"),
    checked,
    ...(typeof notes === "string" ? { notes } : {}),
  };
}

function prices(row: Record<string, unknown>, where: string): TokenPrices {
  const price = (key: keyof TokenPrices): number => {
    const value = row[key];
    if (typeof value !== "number" || !Number.isFinite(value) || value < 0)
      fail(where, `"${key}" must be a price in USD per million tokens, 0 or more`);
    return value;
  };
  return {
    inputPerMTok: price("inputPerMTok"),
    cacheWritePerMTok: price("cacheWritePerMTok"),
    cacheReadPerMTok: price("cacheReadPerMTok"),
    outputPerMTok: price("outputPerMTok"),
  };
}

/**
 * The bill of one request: each kind of token at its price, in the band the request's
 * prompt size (uncached + written + read) falls in.
 */
export function priceTokens(row: ModelPrice, tokens: BilledTokens): BilledCost {
  const prompt = tokens.uncachedInput + tokens.cacheWrite + tokens.cacheRead;
  const band: TokenPrices = row.longPrompt !== undefined && prompt > row.longPrompt.aboveTokens ? row.longPrompt : row;
  const inputUsd = (tokens.uncachedInput * band.inputPerMTok) / 1e6;
  const cacheWriteUsd = (tokens.cacheWrite * band.cacheWritePerMTok) / 1e6;
  const cacheReadUsd = (tokens.cacheRead * band.cacheReadPerMTok) / 1e6;
  const outputUsd = (tokens.output * band.outputPerMTok) / 1e6;
  return {
    inputUsd,
    cacheWriteUsd,
    cacheReadUsd,
    outputUsd,
    totalUsd: inputUsd + cacheWriteUsd + cacheReadUsd + outputUsd,
  };
}

/** The tokens of a provider-reported usage, split as billed (`input` includes reads and writes). */
export function billedTokensOf(usage: ModelUsage): BilledTokens {
  return {
    uncachedInput: Math.max(0, usage.input - usage.cacheRead - usage.cacheCreation),
    cacheWrite: usage.cacheCreation,
    cacheRead: usage.cacheRead,
    output: usage.output,
  };
}

/** The bill of several requests, each priced on its own (bands apply per request). */
export function priceRequests(row: ModelPrice, requests: readonly ModelUsage[]): BilledCost {
  return sumCosts(requests.map((usage) => priceTokens(row, billedTokensOf(usage))));
}

/** The sum of bills. */
export function sumCosts(costs: readonly BilledCost[]): BilledCost {
  const total = { inputUsd: 0, cacheWriteUsd: 0, cacheReadUsd: 0, outputUsd: 0, totalUsd: 0 };
  for (const cost of costs) {
    total.inputUsd += cost.inputUsd;
    total.cacheWriteUsd += cost.cacheWriteUsd;
    total.cacheReadUsd += cost.cacheReadUsd;
    total.outputUsd += cost.outputUsd;
    total.totalUsd += cost.totalUsd;
  }
  return total;
}

/** One line naming a row and its prices, e.g. for a command's summary. */
export function describePriceRow(row: ModelPrice): string {
  const usd = (value: number) => `$${Number(value.toFixed(4))}`;
  return (
    `${row.id} (${row.label}): ${usd(row.inputPerMTok)} input / ${usd(row.cacheWritePerMTok)} cache write / ` +
    `${usd(row.cacheReadPerMTok)} cache read / ${usd(row.outputPerMTok)} output per MTok` +
    `${row.longPrompt === undefined ? "" : ` (higher band over ${row.longPrompt.aboveTokens.toLocaleString("en-US")} prompt tokens)`}` +
    `; ${row.source}, checked ${row.checked}`
  );
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function fail(where: string, message: string): never {
  throw new SwitchyardError("CONFIG_INVALID", `${where}: ${message}.`);
}
