// The durable fleet's must-show, as a user runs it: a real Redis, two `switchyard worker`
// processes, a batch whose jobs make eight calls of a counting tool each (the count kept in a file,
// outside the workers), one worker SIGKILLed while a job of its own sits between its calls. The
// calls that job made before the kill are not made again, the call in flight (if any) at most once
// more with the same idempotency key, and the batch's results equal those of a run without a kill.
// BullMQ's lock and stalled check are set to 1 s so the recovery takes seconds, not minutes.

import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { readBatchResults } from "../../src/fleet/batch-results.js";
import type { BatchResult } from "../../src/fleet/batch-store.js";
import { submitBatch } from "../../src/fleet/submit-batch.js";
import { watchBatch } from "../../src/fleet/watch-batch.js";
import { startWorkerCli, useFleetForFile, type WorkerCli } from "../helpers/worker-cli.js";

const TOOLS = fileURLToPath(new URL("./fixtures/tick-tools.ts", import.meta.url));
const JOBS = 4;
const CALLS = 8;
const KILL_AFTER_CALLS = 3;
const PROGRAM = `
const got = [];
for (let i = 0; i < ${CALLS}; i++) {
  got.push(await tools.api.tick({ job: input.job, i }));
  await sleep(150);
}
return got;`;

interface Tick {
  readonly job: number;
  readonly i: number;
  readonly key: string;
  readonly pid: number;
  readonly at: number;
}

const { temp, workers, redis } = useFleetForFile("durable-fleet");

/** Starts `switchyard worker` on queue `queue` and resolves with its pid once it takes jobs. */
function startWorker(config: string, tickFile: string, queue: string): Promise<WorkerCli> {
  const options = { config, redisUrl: redis.url, queue, concurrency: 2, lockMs: 1_000, env: { TICK_FILE: tickFile } };
  return startWorkerCli(options, workers);
}

function readTicks(file: string): Tick[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, "utf8")
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line) as Tick);
}

async function resultsOf(queue: string, batchId: string): Promise<BatchResult[]> {
  for await (const progress of watchBatch({ redis: redis.url, queue, batchId, intervalMs: 50 })) {
    if (progress.finished) break;
  }
  const results: BatchResult[] = [];
  for await (const result of readBatchResults({ redis: redis.url, queue, batchId })) results.push(result);
  return results;
}

/** What a batch's result says about its input, without who ran it, when and how often. */
function essence(result: BatchResult) {
  return { key: result.key, input: result.input, ok: result.ok, output: result.output, error: result.error };
}

describe("a durable fleet of two worker processes", () => {
  it("does not repeat the calls a SIGKILLed worker's job made, and ends with the results of a run without a kill", async () => {
    const config = join(temp.path, "switchyard.config.json");
    writeFileSync(config, JSON.stringify({ tools: [TOOLS], typeCheck: "off" }));
    const inputs = Array.from({ length: JOBS }, (_, job) => ({ job }));

    // The run without a kill, on a queue of its own.
    const calmTicks = join(temp.path, "calm.jsonl");
    await startWorker(config, calmTicks, "calm");
    await submitBatch({ redis: redis.url, queue: "calm", batchId: "sweep", program: PROGRAM, inputs });
    const calm = await resultsOf("calm", "sweep");
    expect(readTicks(calmTicks)).toHaveLength(JOBS * CALLS);

    const tickFile = join(temp.path, "ticks.jsonl");
    const [doomed, survivor] = await Promise.all([
      startWorker(config, tickFile, "crash"),
      startWorker(config, tickFile, "crash"),
    ]);
    await submitBatch({ redis: redis.url, queue: "crash", batchId: "sweep", program: PROGRAM, inputs });
    // Kill the doomed worker right after one of its jobs made its third call: in the 150 ms the
    // program sleeps before the next one.
    let killedAt = 0;
    let before: Tick[] = [];
    while (killedAt === 0) {
      const ticks = readTicks(tickFile);
      const ofDoomed = ticks.filter((tick) => tick.pid === doomed.pid);
      if (new Set(ofDoomed.filter((tick) => tick.i === KILL_AFTER_CALLS - 1).map((tick) => tick.job)).size > 0) {
        process.kill(doomed.pid, "SIGKILL");
        killedAt = Date.now();
        before = ofDoomed;
      } else await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const results = await resultsOf("crash", "sweep");

    // The same results as the run without the kill, every job ok, one result per input.
    expect(results.map(essence)).toEqual(calm.map(essence));
    expect(results.every((result) => result.ok)).toBe(true);
    const killedJobs = new Set(before.map((tick) => tick.job));
    const recovered = results.filter((result) => killedJobs.has((result.input as { job: number }).job));
    expect(recovered.length).toBeGreaterThan(0);
    expect(recovered.every((result) => result.worker === survivor.name && result.attempt >= 2)).toBe(true);

    // The tool's own count: no call the killed worker made before the kill was made again, but
    // for each killed job's last one: the kill may land after the tool ran and before its answer
    // reached the journal (the call in flight, which may be made once more with the same key).
    const ticks = readTicks(tickFile);
    const lastMade = new Map<number, number>();
    for (const made of before) lastMade.set(made.job, Math.max(lastMade.get(made.job) ?? -1, made.i));
    for (const made of before) {
      const times = ticks.filter((tick) => tick.job === made.job && tick.i === made.i);
      if (made.i === lastMade.get(made.job)) expect(times.length).toBeLessThanOrEqual(2);
      else expect(times).toHaveLength(1);
    }
    expect(before.filter((tick) => tick.i < KILL_AFTER_CALLS).length).toBeGreaterThanOrEqual(KILL_AFTER_CALLS);
    // Every call made once, but for at most one per killed job (in flight at the kill), made
    // once more with the same idempotency key.
    const byCall = new Map<string, Tick[]>();
    for (const tick of ticks)
      byCall.set(`${tick.job}:${tick.i}`, [...(byCall.get(`${tick.job}:${tick.i}`) ?? []), tick]);
    expect(byCall.size).toBe(JOBS * CALLS);
    const repeated = [...byCall.values()].filter((made) => made.length > 1);
    expect(repeated.length).toBeLessThanOrEqual(killedJobs.size);
    for (const made of repeated) {
      expect(made).toHaveLength(2);
      expect(made[1]!.key).toBe(made[0]!.key);
      expect(made[0]!.pid).toBe(doomed.pid);
    }
    // The survivor made the killed jobs' remaining calls only after the kill.
    for (const tick of ticks.filter((tick) => killedJobs.has(tick.job) && tick.pid === survivor.pid))
      expect(tick.at).toBeGreaterThanOrEqual(killedAt);
  }, 120_000);
});
