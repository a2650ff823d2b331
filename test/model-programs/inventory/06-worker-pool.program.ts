// Task: Check the stock of SKU-0001 to SKU-0030 without hammering the rate limit: at most 4 requests at a time, and wait as long as the service asks when it says you are rate limited. Return units per SKU.
const skus = Array.from({ length: 30 }, (_, i) => `SKU-${String(i + 1).padStart(4, "0")}`);
const units: Record<string, number> = {};
const problems: Record<string, string> = {};
let rateLimited = 0;
const queue = [...skus];

async function read(sku: string): Promise<void> {
  let unavailable = 0;
  for (;;) {
    try {
      units[sku] = (await tools.inventory.get_stock({ sku })).onHand;
      return;
    } catch (e) {
      if (!isToolCallError(e)) throw e;
      if (e.code === "RATE_LIMITED") {
        // Waiting as asked always works, so these waits are not counted as failed attempts.
        rateLimited++;
        await sleep((e.details as { retryAfterMs?: number } | undefined)?.retryAfterMs ?? 100);
      } else if (e.code === "UNAVAILABLE" && ++unavailable < 4) {
        await sleep(50 * unavailable);
      } else {
        problems[sku] = e.code;
        return;
      }
    }
  }
}

async function worker(): Promise<void> {
  for (let sku = queue.shift(); sku !== undefined; sku = queue.shift()) await read(sku);
}

await Promise.all([worker(), worker(), worker(), worker()]);
return { read: Object.keys(units).length, units, problems };
