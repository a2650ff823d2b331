// Task: What is the average list price, in euros, of the SKUs in each warehouse? Use the first 20 SKUs, and say which ones you had to leave out.
const skus = Array.from({ length: 20 }, (_, i) => `SKU-${String(i + 1).padStart(4, "0")}`);
async function retrying<T>(call: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await call();
    } catch (e) {
      if (!isToolCallError(e) || !["UNAVAILABLE", "RATE_LIMITED"].includes(e.code) || attempt === 6) throw e;
      await sleep((0.5 + Math.random()) * 100 * 2 ** attempt);
    }
  }
}
const leftOut: { sku: string; reason: string }[] = [];
const rows = await Promise.all(
  skus.map(async (sku) => {
    try {
      const [stock, price] = await Promise.all([
        retrying(() => tools.inventory.get_stock({ sku })),
        retrying(() => tools.pricing.get_price({ sku })),
      ]);
      return { warehouse: stock.warehouse, priceCents: price.priceCents };
    } catch (e) {
      leftOut.push({ sku, reason: isToolCallError(e) ? e.code : String(e) });
      return null;
    }
  }),
);
const sums: Record<string, { total: number; count: number }> = {};
for (const row of rows) {
  if (row === null) continue;
  const entry = (sums[row.warehouse] ??= { total: 0, count: 0 });
  entry.total += row.priceCents;
  entry.count += 1;
}
const averageEuros: Record<string, number> = {};
for (const [warehouse, { total, count }] of Object.entries(sums)) {
  averageEuros[warehouse] = Math.round(total / count) / 100;
}
return { priced: rows.filter((row) => row !== null).length, averageEuros, leftOut };
