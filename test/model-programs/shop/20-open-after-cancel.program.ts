// Task: How many open orders are left now, and does C-101 still have any?
let open = [];
let cursor;
do {
  const page = await tools.shop.list_orders({ status: "open", ...(cursor && { cursor }) });
  open = [...open, ...page.orders];
  cursor = page.next_cursor;
} while (cursor);
return { open: open.length, c101Open: open.some((o) => o.customerId === "C-101") };
