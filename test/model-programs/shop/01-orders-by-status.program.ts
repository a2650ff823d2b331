// Task: How many orders are there in each status? Go through every page.
const counts = {};
let cursor;
do {
  const page = await tools.shop.list_orders(cursor ? { cursor } : {});
  for (const order of page.orders) counts[order.status] = (counts[order.status] ?? 0) + 1;
  cursor = page.next_cursor;
} while (cursor);
return counts;
