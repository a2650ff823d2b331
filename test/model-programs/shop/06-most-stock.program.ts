// Task: Which three products have the most units in stock across all warehouses?
const products = await tools.shop.list_products({});
const stocks = await Promise.all(
  products.map(async (p) => {
    const blocks = await tools.shop.get_inventory({ sku: p.sku });
    const json = blocks.find((b) => b.type === "text" && b.text.trim().startsWith("{"));
    const inventory = JSON.parse(json.text);
    return { sku: p.sku, units: inventory.warehouses.reduce((n, w) => n + w.qty, 0) };
  }),
);
return stocks.sort((a, b) => b.units - a.units || a.sku.localeCompare(b.sku)).slice(0, 3);
