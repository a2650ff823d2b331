// Task: Cancel the first two open orders of customer C-101 and tell me what the shop said.
const blocks = await tools.shop.search_orders({ customerId: "C-101" });
const orders = JSON.parse(blocks.find((b) => b.text.trim().startsWith("[")).text);
const open = orders.filter((o) => o.status === "open").slice(0, 2);
const messages = [];
for (const order of open) {
  const reply = await tools.shop.cancel_order({ id: order.id });
  messages.push(reply.map((part) => part.text).join(" "));
}
return { cancelled: open.map((o) => o.id), messages };
