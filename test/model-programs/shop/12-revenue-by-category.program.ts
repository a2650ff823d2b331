// Task: Revenue per product category, from all orders that were not cancelled.
const [products, firstPage] = await Promise.all([tools.shop.list_products({}), tools.shop.list_orders({})]);
const categoryOf = Object.fromEntries(products.map((p) => [p.sku, p.category]));
const orders = [...firstPage.orders];
let next = firstPage.next_cursor;
while (next) {
  const page = await tools.shop.list_orders({ cursor: next });
  orders.push(...page.orders);
  next = page.next_cursor;
}
const revenue = {};
for (const order of orders.filter((o) => o.status !== "cancelled")) {
  for (const { sku, qty, price } of order.items) {
    const category = categoryOf[sku];
    revenue[category] = Math.round(((revenue[category] ?? 0) + qty * price) * 100) / 100;
  }
}
return revenue;
