// Task: How many orders does customer C-100 have, and what do they add up to?
const result = await tools.shop.search_orders({ customerId: "C-100" });
const textBlocks = result.filter((block) => block.type === "text").map((block) => block.text);
const orders = JSON.parse(textBlocks.find((t) => t.startsWith("[")));
const total = orders.reduce((sum, order) => sum + order.total, 0);
return { count: orders.length, total: Number(total.toFixed(2)), summary: textBlocks[0] };
