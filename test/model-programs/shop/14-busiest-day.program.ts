// Task: On which day were the most orders placed, and how many?
const byDay = {};
let cursor;
do {
  const page = await tools.shop.list_orders(cursor ? { cursor } : {});
  page.orders.forEach(({ createdAt }) => {
    const day = createdAt.slice(0, 10);
    byDay[day] = (byDay[day] ?? 0) + 1;
  });
  cursor = page.next_cursor;
} while (cursor);
const [day, count] = Object.entries(byDay).sort(([a, x], [b, y]) => y - x || a.localeCompare(b))[0];
return { day, count };
