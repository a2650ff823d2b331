// Task: Which products cost less than $20? Names, cheapest first.
const products = await tools.shop.list_products({});
return products
  .filter((p) => p.price < 20)
  .sort((a, b) => a.price - b.price)
  .map((p) => p.name);
