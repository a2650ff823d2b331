// Task: What is the average number of units per order (sum of quantities), and the largest single line quantity?
let orders = [];
let page = await tools.shop.list_orders({});
orders = orders.concat(page.orders);
while (page.next_cursor) {
  page = await tools.shop.list_orders({ cursor: page.next_cursor });
  orders = orders.concat(page.orders);
}
const units = orders.map((o) => o.items.reduce((s, i) => s + i.qty, 0));
const lines = orders.flatMap((o) => o.items.map((i) => i.qty));
return {
  averageUnits: Math.round((units.reduce((a, b) => a + b, 0) / orders.length) * 100) / 100,
  largestLine: Math.max(...lines),
};
