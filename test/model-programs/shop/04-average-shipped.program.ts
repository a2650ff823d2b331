// Task: What is the average total of shipped orders, to the cent?
const shipped = [];
let cursor;
for (;;) {
  const page = await tools.shop.list_orders({ status: "shipped", ...(cursor ? { cursor } : {}) });
  shipped.push(...page.orders);
  if (!page.next_cursor) break;
  cursor = page.next_cursor;
}
const sum = shipped.reduce((acc, o) => acc + o.total, 0);
return { count: shipped.length, average: Math.round((sum / shipped.length) * 100) / 100 };
