// Task: Which product was ordered in the largest quantity overall? Give the sku, its name and the quantity.
async function allOrders() {
  const out = [];
  let cursor;
  do {
    const page = await tools.shop.list_orders(cursor ? { cursor } : {});
    out.push(...page.orders);
    cursor = page.next_cursor;
  } while (cursor);
  return out;
}
const quantities = new Map();
for (const item of (await allOrders()).flatMap((o) => o.items)) {
  quantities.set(item.sku, (quantities.get(item.sku) || 0) + item.qty);
}
const [sku, qty] = [...quantities].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0];
const product = (await tools.shop.list_products({})).find((p) => p.sku === sku);
return { sku, name: product.name, qty };
