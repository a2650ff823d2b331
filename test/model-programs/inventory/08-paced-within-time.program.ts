// Task: Read the stock of every SKU one by one, pausing 100 ms between reads to be gentle on the service, but stop before the run's time is up and tell me where you stopped.
const skus: string[] = [];
let cursor: string | null = null;
do {
  let page;
  try {
    page = await tools.inventory.list_skus(cursor ? { cursor } : {});
  } catch (e) {
    if (isToolCallError(e) && e.code === "TOOL_TIMEOUT") continue;
    throw e;
  }
  skus.push(...page.skus);
  cursor = page.nextCursor;
} while (cursor);

const units: Record<string, number> = {};
let stoppedAt: string | null = null;
for (const sku of skus) {
  const { timeLeftMs } = await tools.$budget();
  if (timeLeftMs < 1_000) {
    stoppedAt = sku;
    break;
  }
  try {
    units[sku] = (await tools.inventory.get_stock({ sku })).onHand;
  } catch (e) {
    if (!isToolCallError(e)) throw e;
    // A failed read is reported by its absence; the pause below keeps the pace either way.
  }
  await sleep(100);
}
return { read: Object.keys(units).length, of: skus.length, stoppedAt, complete: stoppedAt === null };
