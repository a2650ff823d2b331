// Task: Order 3 units of every SKU in the south warehouse. Report the orders placed and the ones refused, and do not retry a refusal that will not change.
async function withRetry<T>(call: () => Promise<T>, retryOn: string[], attempts = 5): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await call();
    } catch (e) {
      if (!isToolCallError(e) || !retryOn.includes(e.code) || attempt === attempts) throw e;
      await sleep((0.5 + Math.random()) * 200 * 2 ** attempt);
    }
  }
}

const skus: string[] = [];
let cursor: string | null = null;
do {
  const page = await withRetry(() => tools.inventory.list_skus(cursor ? { cursor } : {}), ["TOOL_TIMEOUT"]);
  skus.push(...page.skus);
  cursor = page.nextCursor;
} while (cursor);

const stocks = await Promise.all(
  skus.map((sku) =>
    withRetry(() => tools.inventory.get_stock({ sku }), ["UNAVAILABLE", "RATE_LIMITED"], 8).catch(() => null),
  ),
);
const south = stocks.filter((s) => s !== null && s.warehouse === "south").map((s) => s!.sku);

const placed: { sku: string; orderId: string; remaining: number }[] = [];
const refused: { sku: string; code: string; message: string }[] = [];
await Promise.all(
  south.map(async (sku) => {
    try {
      const order = await withRetry(() => tools.orders.place({ sku, quantity: 3 }), ["UNAVAILABLE"]);
      placed.push({ sku, orderId: order.orderId, remaining: order.remaining });
    } catch (e) {
      if (!isToolCallError(e)) throw e;
      refused.push({ sku, code: e.code, message: e.message });
    }
  }),
);
placed.sort((a, b) => a.sku.localeCompare(b.sku));
refused.sort((a, b) => a.sku.localeCompare(b.sku));
return { south: south.length, placed, refused };
