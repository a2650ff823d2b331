// A flaky inventory API for the model-program corpus: transient UNAVAILABLE failures on first
// attempts, a rate limit (RATE_LIMITED with retryAfterMs) shared by the stock lookups, a page
// that hangs once (TOOL_TIMEOUT), a retired SKU that always fails, and a slow report. Which
// calls fail is fixed per key, attempt and run (every program meets the same failures), so
// each task's answer is known in advance; only the rate limit depends on time, and waiting
// always clears it.

import { ToolError } from "../../../src/errors.js";
import { defineTool, type ToolDefinition } from "../../../src/registry/define-tool.js";

export interface Item {
  readonly sku: string;
  readonly warehouse: "north" | "south";
  onHand: number;
  readonly priceCents: number;
}

export const RETIRED_SKU = "SKU-0013";
const SKU_COUNT = 48;
const PAGE_SIZE = 10;

export function createInventoryData(): Item[] {
  return Array.from({ length: SKU_COUNT }, (_, index) => ({
    sku: `SKU-${String(index + 1).padStart(4, "0")}`,
    warehouse: index % 3 === 0 ? "south" : "north",
    onHand: (index * 7) % 23,
    priceCents: 500 + ((index * 137) % 4_000),
  }));
}

/** A token bucket: `capacity` calls at once, refilled at one per `refillMs`. */
class RateLimit {
  #tokens: number;
  #updatedAt = Date.now();
  constructor(
    readonly capacity: number,
    readonly refillMs: number,
  ) {
    this.#tokens = capacity;
  }

  take(): number | undefined {
    const now = Date.now();
    this.#tokens = Math.min(this.capacity, this.#tokens + (now - this.#updatedAt) / this.refillMs);
    this.#updatedAt = now;
    if (this.#tokens >= 1) {
      this.#tokens -= 1;
      return undefined;
    }
    return Math.ceil((1 - this.#tokens) * this.refillMs);
  }
}

export interface InventoryStats {
  readonly calls: Map<string, number>;
  rateLimited: number;
  unavailable: number;
  timedOut: number;
}

export function createInventoryTools(items: Item[]): { tools: ToolDefinition[]; stats: InventoryStats } {
  const stats: InventoryStats = { calls: new Map(), rateLimited: 0, unavailable: 0, timedOut: 0 };
  const attempts = new Map<string, number>();
  // Keys carry the program's id: each run meets its own first failures.
  const attempt = (key: string): number => {
    const next = (attempts.get(key) ?? 0) + 1;
    attempts.set(key, next);
    return next;
  };
  const count = (name: string): void => {
    stats.calls.set(name, (stats.calls.get(name) ?? 0) + 1);
  };
  const unavailable = (what: string): never => {
    stats.unavailable += 1;
    throw new ToolError(`${what} is unavailable for a moment; try again.`, { code: "UNAVAILABLE" });
  };
  const find = (sku: string): Item => {
    const item = items.find((candidate) => candidate.sku === sku);
    if (item === undefined) throw new ToolError(`No SKU ${sku}.`, { code: "SKU_NOT_FOUND" });
    return item;
  };
  const stockLimit = new RateLimit(10, 20);

  const listSkus = defineTool({
    name: "inventory.list_skus",
    description:
      "Lists SKUs, 10 per page. Pass nextCursor for the next page (null on the last). A page can time out; retry it.",
    effect: "read",
    timeoutMs: 300,
    inputSchema: {
      type: "object",
      properties: { cursor: { type: "string" } },
      additionalProperties: false,
    },
    outputSchema: {
      type: "object",
      properties: { skus: { type: "array", items: { type: "string" } }, nextCursor: { type: ["string", "null"] } },
      required: ["skus", "nextCursor"],
    },
    execute: async (input: { cursor?: string }, context) => {
      count("list_skus");
      const offset = input.cursor === undefined ? 0 : Number(input.cursor.replace(/^page-/, ""));
      if (!Number.isInteger(offset) || offset < 0) {
        throw new ToolError("Not a cursor of list_skus.", { code: "CURSOR_INVALID" });
      }
      // The second page hangs the first time it is asked for.
      if (offset === PAGE_SIZE && attempt(`page:${offset}:${context.programId}`) === 1) {
        stats.timedOut += 1;
        await new Promise((resolve) => context.signal.addEventListener("abort", resolve, { once: true }));
      }
      const skus = items.slice(offset, offset + PAGE_SIZE).map((item) => item.sku);
      return { skus, nextCursor: offset + PAGE_SIZE < items.length ? `page-${offset + PAGE_SIZE}` : null };
    },
  });

  const getStock = defineTool({
    name: "inventory.get_stock",
    description:
      "Units on hand of one SKU. Rate limited to about 50 calls a second (RATE_LIMITED, details.retryAfterMs says how long to wait); UNAVAILABLE now and then: retry. A retired SKU fails with SKU_RETIRED.",
    effect: "read",
    inputSchema: {
      type: "object",
      properties: { sku: { type: "string", pattern: "^SKU-\\d{4}$" } },
      required: ["sku"],
      additionalProperties: false,
    },
    outputSchema: {
      type: "object",
      properties: {
        sku: { type: "string" },
        warehouse: { enum: ["north", "south"] },
        onHand: { type: "integer", minimum: 0 },
      },
      required: ["sku", "warehouse", "onHand"],
    },
    execute: (input: { sku: string }, context) => {
      count("get_stock");
      const wait = stockLimit.take();
      if (wait !== undefined) {
        stats.rateLimited += 1;
        throw new ToolError(`Rate limited; retry in ${wait} ms.`, {
          code: "RATE_LIMITED",
          details: { retryAfterMs: wait },
        });
      }
      const item = find(input.sku);
      if (item.sku === RETIRED_SKU) throw new ToolError(`${item.sku} is retired.`, { code: "SKU_RETIRED" });
      const index = items.indexOf(item);
      if (index % 4 === 1 && attempt(`stock:${item.sku}:${context.programId}`) === 1) unavailable("The stock service");
      return { sku: item.sku, warehouse: item.warehouse, onHand: item.onHand };
    },
  });

  const getPrice = defineTool({
    name: "pricing.get_price",
    description: "The list price of one SKU in cents (EUR). UNAVAILABLE now and then: retry.",
    effect: "read",
    inputSchema: {
      type: "object",
      properties: { sku: { type: "string" } },
      required: ["sku"],
      additionalProperties: false,
    },
    // No outputSchema: programs get an observed type after the first price.
    execute: (input: { sku: string }, context) => {
      count("get_price");
      const item = find(input.sku);
      if (items.indexOf(item) % 5 === 2 && attempt(`price:${item.sku}:${context.programId}`) === 1) {
        unavailable("Pricing");
      }
      return { sku: item.sku, priceCents: item.priceCents, currency: "EUR" };
    },
  });

  const placeOrder = defineTool({
    name: "orders.place",
    description:
      "Orders units of a SKU from stock. OUT_OF_STOCK when fewer are on hand (not worth retrying); UNAVAILABLE now and then: retry.",
    effect: "write",
    inputSchema: {
      type: "object",
      properties: { sku: { type: "string" }, quantity: { type: "integer", minimum: 1 } },
      required: ["sku", "quantity"],
      additionalProperties: false,
    },
    outputSchema: {
      type: "object",
      properties: { orderId: { type: "string" }, sku: { type: "string" }, remaining: { type: "integer" } },
      required: ["orderId", "sku", "remaining"],
    },
    resources: (input) => [`sku:${(input as { sku: string }).sku}`],
    execute: (input: { sku: string; quantity: number }, context) => {
      count("place");
      const item = find(input.sku);
      if (attempt(`order:${item.sku}:${context.programId}`) === 1 && items.indexOf(item) % 2 === 0) {
        unavailable("Ordering");
      }
      if (item.onHand < input.quantity) {
        throw new ToolError(`Only ${item.onHand} of ${item.sku} on hand.`, {
          code: "OUT_OF_STOCK",
          details: { onHand: item.onHand },
        });
      }
      item.onHand -= input.quantity;
      return { orderId: `ord_${item.sku}_${item.onHand}`, sku: item.sku, remaining: item.onHand };
    },
  });

  const slowReport = defineTool({
    name: "inventory.slow_report",
    description: "A summary of all stock. Takes about a second.",
    effect: "read",
    inputSchema: { type: "object", additionalProperties: false },
    outputSchema: {
      type: "object",
      properties: { skus: { type: "integer" }, units: { type: "integer" } },
      required: ["skus", "units"],
    },
    execute: async (_input: unknown, context) => {
      count("slow_report");
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 1_000);
        context.signal.addEventListener("abort", () => clearTimeout(timer), { once: true });
      });
      return { skus: items.length, units: items.reduce((sum, item) => sum + item.onHand, 0) };
    },
  });

  return { tools: [listSkus, getStock, getPrice, placeOrder, slowReport], stats };
}
