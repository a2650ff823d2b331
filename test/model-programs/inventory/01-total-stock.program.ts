// Task: How many units do we have on hand in total across all SKUs, per warehouse? The stock service is flaky and rate limited; retry what can be retried and tell me anything you could not read.
async function withRetry<T>(call: () => Promise<T>, retryOn: string[], attempts = 4): Promise<T> {
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

const perWarehouse: Record<string, number> = {};
const failed: { sku: string; code: string }[] = [];
await Promise.all(
  skus.map(async (sku) => {
    try {
      const stock = await withRetry(() => tools.inventory.get_stock({ sku }), ["UNAVAILABLE", "RATE_LIMITED"], 6);
      perWarehouse[stock.warehouse] = (perWarehouse[stock.warehouse] ?? 0) + stock.onHand;
    } catch (e) {
      failed.push({ sku, code: isToolCallError(e) ? e.code : String(e) });
    }
  }),
);
const total = Object.values(perWarehouse).reduce((a, b) => a + b, 0);
return { skus: skus.length, total, perWarehouse, failed, complete: failed.length === 0 };
