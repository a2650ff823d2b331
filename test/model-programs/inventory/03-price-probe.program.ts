// Task: What does the pricing tool return for SKU-0001?
for (let attempt = 1; attempt <= 3; attempt++) {
  try {
    return await tools.pricing.get_price({ sku: "SKU-0001" });
  } catch (e) {
    if (!isToolCallError(e) || e.code !== "UNAVAILABLE" || attempt === 3) throw e;
    await sleep(100 * attempt);
  }
}
