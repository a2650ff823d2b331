// Task: How many customers do we have per country?
const customers = await tools.shop.list_customers();
return customers.reduce((acc, { country }) => {
  acc[country] = (acc[country] || 0) + 1;
  return acc;
}, {});
