// Task: Which SKUs have fewer than 5 units on hand? For each give units and list price, and the total value (units times price, in euros) of what little stock they have.
async function withRetry<T>(call: () => Promise<T>, retryOn: string[], attempts = 8): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await call();
    } catch (e) {
      if (!isToolCallError(e) || !retryOn.includes(e.code) || attempt === attempts) throw e;
      // Wait at least as long as the service asks, spread out so parallel retries do not collide.
      const hinted = (e.details as { retryAfterMs?: number } | undefined)?.retryAfterMs ?? 0;
      await sleep(Math.max(hinted, (0.5 + Math.random()) * 100 * 2 ** attempt));
    }
  }
}
const transient = ["UNAVAILABLE", "RATE_LIMITED", "TOOL_TIMEOUT"];

const skus: string[] = [];
let cursor: string | null = null;
do {
  const page = await withRetry(() => tools.inventory.list_skus(cursor ? { cursor } : {}), transient);
  skus.push(...page.skus);
  cursor = page.nextCursor;
} while (cursor);

const skipped: string[] = [];
const stock = await Promise.all(
  skus.map((sku) =>
    withRetry(() => tools.inventory.get_stock({ sku }), transient).catch((e) => {
      skipped.push(`${sku}: ${isToolCallError(e) ? e.code : "error"}`);
      return null;
    }),
  ),
);
const low = stock.filter((s) => s !== null && s.onHand < 5);
const priced = await Promise.all(
  low.map(async (s) => {
    const price = await withRetry(() => tools.pricing.get_price({ sku: s!.sku }), transient);
    return { sku: s!.sku, onHand: s!.onHand, priceCents: price.priceCents };
  }),
);
const valueEuros = priced.reduce((sum, p) => sum + p.onHand * p.priceCents, 0) / 100;
return { low: priced.sort((a, b) => a.sku.localeCompare(b.sku)), valueEuros, skipped };
