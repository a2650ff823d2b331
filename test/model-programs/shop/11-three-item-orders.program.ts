// Task: How many orders have three or more line items, and which is the largest of them by total?
let all = [];
let cursor = undefined;
do {
  const res = await tools.shop.list_orders({ cursor });
  all = all.concat(res.orders);
  cursor = res.next_cursor ?? undefined;
} while (cursor !== undefined);
const big = all.filter((o) => o.items.length >= 3);
const largest = big.reduce((best, o) => (best === null || o.total > best.total ? o : best), null);
return { count: big.length, largest: largest?.id };
