// Task: Get me the stock summary report, but I can only wait 300 ms for it; if it is not back by then, say so and instead tell me how many units SKU-0002 has.
const timedOut = Symbol("timed out");
let timer: number | undefined;
const deadline = new Promise<typeof timedOut>((resolve) => {
  timer = setTimeout(() => resolve(timedOut), 300);
});
const report = await Promise.race([tools.inventory.slow_report(), deadline]);
clearTimeout(timer);
if (report !== timedOut) return { timedOut: false, report };

let fallback = null;
for (let attempt = 1; attempt <= 5 && fallback === null; attempt++) {
  try {
    fallback = await tools.inventory.get_stock({ sku: "SKU-0002" });
  } catch (e) {
    if (!isToolCallError(e) || !["UNAVAILABLE", "RATE_LIMITED"].includes(e.code)) throw e;
    await sleep(100);
  }
}
return { timedOut: true, sku: "SKU-0002", onHand: fallback?.onHand ?? null };
