// A batch's results, one per input that has one, in the order the inputs were first submitted,
// after recording the results no worker could write (reconcile-batch.ts).

import type { BatchResult } from "./batch-store.js";
import { openBatchReader } from "./reconcile-batch.js";
import type { BatchOptions } from "./watch-batch.js";

const READ_CHUNK = 500;

/**
 * The results so far, in input order (inputs without a result yet are left out). Throws
 * BATCH_NOT_FOUND for an unknown id, FLEET_UNAVAILABLE without Redis.
 */
export async function* readBatchResults(options: BatchOptions): AsyncGenerator<BatchResult> {
  const reader = await openBatchReader(options);
  try {
    const store = reader.store;
    await reader.reconcile({ findMissing: true });
    const keys = await store.keys(options.batchId);
    for (let start = 0; start < keys.length; start += READ_CHUNK) {
      for (const result of await store.results(options.batchId, keys.slice(start, start + READ_CHUNK))) {
        if (result !== undefined) yield result;
      }
    }
  } finally {
    await reader.close();
  }
}
