// switchyard-runtime/fleet: batches of program runs on a BullMQ queue in Redis, run by any number
// of worker processes, with rate limits shared by the whole fleet. Needs the optional peers
// bullmq and ioredis; importing this entry loads neither until a function is called.

export type { BatchMeta, BatchResult, BatchCounts } from "./batch-store.js";
export { readBatchResults } from "./batch-results.js";
export { cancelBatch, type CancelledBatch } from "./cancel-batch.js";
export { DEFAULT_TRANSIENT_CODES, failureCodeOf, isTransientFailure } from "./failure-policy.js";
export type { JobInfo } from "./job-info-tool.js";
export { createFleetSession } from "./fleet-session.js";
export { startFleetWorker, type FleetWorker, type FleetWorkerOptions } from "./fleet-worker.js";
export { createRedisRateLimiter, RedisRateLimiter, type RedisRateLimiterOptions } from "./redis-rate-limiter.js";
export { DEFAULT_QUEUE, type FleetOptions } from "./redis-connection.js";
export { durableRunIdOf } from "./durable-job.js";
export { FleetRunJournal, fleetRunJournal } from "./fleet-run-journal.js";
export { RedisRunJournal, type RedisRunJournalOptions } from "./redis-run-journal.js";
export {
  programErrorOf,
  submitBatch,
  type ProgramChecker,
  type SubmitBatchOptions,
  type SubmittedBatch,
} from "./submit-batch.js";
export {
  getBatchStatus,
  watchBatch,
  type BatchOptions,
  type BatchProgress,
  type BatchStatus,
  type WatchBatchOptions,
} from "./watch-batch.js";
