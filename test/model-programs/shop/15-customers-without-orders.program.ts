// Task: Which customers have never placed an order?
const customers = await tools.shop.list_customers();
const results = await Promise.all(
  customers.map(async (customer) => {
    const blocks = await tools.shop.search_orders({ customerId: customer.id });
    const orders = JSON.parse(blocks[blocks.length - 1].text);
    return { customer, count: orders.length };
  }),
);
return results.filter((r) => r.count === 0).map((r) => r.customer.name);
