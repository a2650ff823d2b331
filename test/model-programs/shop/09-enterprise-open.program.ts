// Task: For each enterprise customer, how many open orders do they have?
const customers = await tools.shop.list_customers();
const enterprise = customers.filter((c) => c.tier === "enterprise");
const answers = await Promise.all(enterprise.map((c) => tools.shop.search_orders({ customerId: c.id })));
return enterprise.map((customer, index) => {
  const [, ordersBlock] = answers[index];
  const orders = JSON.parse(ordersBlock.text);
  return { name: customer.name, open: orders.filter((order) => order.status === "open").length };
});
