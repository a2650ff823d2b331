// Task: List the products that are out of stock in at least one warehouse, and which warehouses.
const products = await tools.shop.list_products();
const results = [];
for (const { sku } of products) {
  const content = await tools.shop.get_inventory({ sku });
  const data = JSON.parse(content[0].text);
  const empty = data.warehouses.filter((w) => w.qty === 0).map((w) => w.name);
  if (empty.length) results.push({ sku, empty });
}
return results;
