// The flaky-API corpus: transient failures, a rate limit with retryAfterMs, a page that times
// out once per run, a retired SKU, a slow report, writes that can be refused for good.

import { expect } from "vitest";
import { Switchyard } from "../../src/switchyard.js";
import {
  createInventoryData,
  createInventoryTools,
  type InventoryStats,
  type Item,
  RETIRED_SKU,
} from "./catalogs/flaky-inventory.js";
import { describeCorpus } from "./corpus.js";

interface Context {
  readonly items: Item[];
  readonly stats: InventoryStats;
}

const readable = (items: readonly Item[]): Item[] => items.filter((item) => item.sku !== RETIRED_SKU);
const bySku = (items: readonly Item[], sku: string): Item => items.find((item) => item.sku === sku)!;
const unitsOf = (items: readonly Item[]): Record<string, number> =>
  Object.fromEntries(readable(items).map((item) => [item.sku, item.onHand]));

describeCorpus<Context>("flaky inventory (retries, rate limits, timers)", {
  folder: "inventory",
  open: async () => {
    const items = createInventoryData();
    const { tools, stats } = createInventoryTools(items);
    const yard = new Switchyard({ tools });
    return { yard, context: { items, stats }, close: () => yard.close() };
  },
  entries: {
    "01-total-stock.program.ts": {
      expected: ({ items }) => {
        const perWarehouse: Record<string, number> = {};
        for (const item of readable(items))
          perWarehouse[item.warehouse] = (perWarehouse[item.warehouse] ?? 0) + item.onHand;
        return {
          skus: items.length,
          total: readable(items).reduce((sum, item) => sum + item.onHand, 0),
          perWarehouse,
          failed: [{ sku: RETIRED_SKU, code: "SKU_RETIRED" }],
          complete: false,
        };
      },
      check: (output, expected, result) => {
        const { perWarehouse, ...rest } = expected as { perWarehouse: Record<string, number> };
        expect(output).toMatchObject(rest);
        expect((output as { perWarehouse: unknown }).perWarehouse).toEqual(perWarehouse);
        // The failures were met and retried, not avoided.
        expect(result.calls.some((call) => call.code === "UNAVAILABLE")).toBe(true);
        expect(result.calls.some((call) => call.code === "TOOL_TIMEOUT")).toBe(true);
      },
    },
    "02-list-skus.program.ts": {
      expected: ({ items }) => ({ count: items.length, first: items[0]!.sku, last: items.at(-1)!.sku, retries: 1 }),
    },
    "03-price-probe.program.ts": {
      expected: ({ items }) => ({ sku: "SKU-0001", priceCents: items[0]!.priceCents, currency: "EUR" }),
    },
    "04-low-stock-value.program.ts": {
      expected: ({ items }) => {
        const low = readable(items)
          .filter((item) => item.onHand < 5)
          .map((item) => ({ sku: item.sku, onHand: item.onHand, priceCents: item.priceCents }));
        return {
          low,
          valueEuros: low.reduce((sum, item) => sum + item.onHand * item.priceCents, 0) / 100,
          skipped: [`${RETIRED_SKU}: SKU_RETIRED`],
        };
      },
    },
    "05-restock-orders.program.ts": {
      expected: ({ items }) => {
        const south = readable(items).filter((item) => item.warehouse === "south");
        const placed = south
          .filter((item) => item.onHand >= 3)
          .map((item) => ({
            sku: item.sku,
            orderId: `ord_${item.sku}_${item.onHand - 3}`,
            remaining: item.onHand - 3,
          }));
        const refused = south
          .filter((item) => item.onHand < 3)
          .map((item) => ({
            sku: item.sku,
            code: "OUT_OF_STOCK",
            message: `Only ${item.onHand} of ${item.sku} on hand.`,
          }));
        return { south: south.length, placed, refused };
      },
      check: (output, expected, result, { items }) => {
        expect(output).toEqual(expected);
        // Stock moved by exactly the orders placed, and no refusal was asked twice.
        for (const order of (expected as { placed: { sku: string; remaining: number }[] }).placed) {
          expect(bySku(items, order.sku).onHand).toBe(order.remaining);
        }
        const refusals = result.calls.filter((call) => call.code === "OUT_OF_STOCK");
        expect(refusals).toHaveLength((expected as { refused: unknown[] }).refused.length);
      },
    },
    "06-worker-pool.program.ts": {
      expected: ({ items }) => {
        const first30 = Object.fromEntries(
          Object.entries(unitsOf(items)).filter(([sku]) => Number(sku.slice(4)) <= 30),
        );
        return { read: Object.keys(first30).length, units: first30, problems: { [RETIRED_SKU]: "SKU_RETIRED" } };
      },
    },
    "07-report-or-give-up.program.ts": {
      expected: ({ items }) => ({ timedOut: true, sku: "SKU-0002", onHand: bySku(items, "SKU-0002").onHand }),
      check: (output, expected, result) => {
        expect(output).toEqual(expected);
        // The report was left behind when the program returned: cancelled, with its record.
        expect(result.calls.find((call) => call.tool === "inventory.slow_report")?.status).toBe("cancelled");
      },
    },
    "08-paced-within-time.program.ts": {
      limits: { wallTimeMs: 3_000 },
      expected: ({ items }) => items.length,
      check: (output, count, result) => {
        const answer = output as { read: number; of: number; stoppedAt: string | null; complete: boolean };
        expect(answer.complete).toBe(false);
        expect(answer.of).toBe(count);
        expect(answer.stoppedAt).toMatch(/^SKU-\d{4}$/);
        expect(answer.read).toBeGreaterThan(0);
        expect(answer.read).toBeLessThan(count as number);
        expect(result.stats.wallMs).toBeLessThan(3_000);
      },
    },
    "09-retired-skus.program.ts": {
      expected: ({ items }) => ({
        retired: [RETIRED_SKU],
        units: Object.fromEntries(
          Object.entries(unitsOf(items)).filter(([sku]) => Number(sku.slice(4)) >= 10 && Number(sku.slice(4)) <= 16),
        ),
      }),
    },
    "10-warehouse-prices.program.ts": {
      expected: ({ items }) => {
        const first20 = readable(items.slice(0, 20));
        const averageEuros: Record<string, number> = {};
        for (const warehouse of ["north", "south"] as const) {
          const prices = first20.filter((item) => item.warehouse === warehouse).map((item) => item.priceCents);
          averageEuros[warehouse] = Math.round(prices.reduce((a, b) => a + b, 0) / prices.length) / 100;
        }
        return { priced: first20.length, averageEuros, leftOut: [{ sku: RETIRED_SKU, reason: "SKU_RETIRED" }] };
      },
      check: (output, expected) => {
        const { averageEuros, ...rest } = expected as { averageEuros: Record<string, number> };
        expect(output).toMatchObject(rest);
        expect((output as { averageEuros: Record<string, number> }).averageEuros).toEqual(averageEuros);
      },
    },
  },
});
