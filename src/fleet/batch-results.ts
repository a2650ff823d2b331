// A batch's results, one per input that has one, in the order the inputs were first submitted.

import type { BatchResult } from "./batch-store.js";
import { BatchStore } from "./batch-store.js";
import { connectRedis, queueNameOf } from "./redis-connection.js";
import type { BatchOptions } from "./watch-batch.js";

const READ_CHUNK = 500;

/**
 * The results so far, in input order (inputs without a result yet are left out). Throws
 * BATCH_NOT_FOUND for an unknown id, FLEET_UNAVAILABLE without Redis.
 */
export async function* readBatchResults(options: BatchOptions): AsyncGenerator<BatchResult> {
  const redis = await connectRedis(options.redis);
  try {
    const store = new BatchStore(redis, queueNameOf(options));
    await store.requireMeta(options.batchId);
    const keys = await store.keys(options.batchId);
    for (let start = 0; start < keys.length; start += READ_CHUNK) {
      for (const result of await store.results(options.batchId, keys.slice(start, start + READ_CHUNK))) {
        if (result !== undefined) yield result;
      }
    }
  } finally {
    await redis.quit().catch(() => redis.disconnect());
  }
}
