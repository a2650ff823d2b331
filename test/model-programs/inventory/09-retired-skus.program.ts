// Task: Some SKUs may be retired. Check SKU-0010 through SKU-0016 and tell me which are retired and how many units the others have.
async () => {
  const skus = Array.from({ length: 7 }, (_, i) => `SKU-${String(i + 10).padStart(4, "0")}`);
  const results = await Promise.allSettled(
    skus.map(async (sku) => {
      for (let attempt = 1; ; attempt++) {
        try {
          return await tools.inventory.get_stock({ sku });
        } catch (e) {
          const transient = isToolCallError(e) && (e.code === "UNAVAILABLE" || e.code === "RATE_LIMITED");
          if (!transient || attempt >= 5) throw e;
          await sleep(80 * attempt);
        }
      }
    }),
  );
  const retired: string[] = [];
  const units: Record<string, number> = {};
  results.forEach((result, i) => {
    const sku = skus[i]!;
    if (result.status === "fulfilled") units[sku] = result.value.onHand;
    else if (isToolCallError(result.reason) && result.reason.code === "SKU_RETIRED") retired.push(sku);
    else throw result.reason;
  });
  return { retired, units };
};
