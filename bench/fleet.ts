// bench:fleet: batches on a real Redis and `switchyard worker` processes, against the same program
// run in process. The program makes 20 sequential calls to a 1 ms tool. Three parts:
//   1. pairs, one job at a time: the program in process, then as a job through a durable worker and
//      through a `--no-durable` one (the queues never back up): enqueue-to-result p50/p99 beside the
//      in-process run's, and each overhead per pair (paired so all sides see the same load), then the
//      Redis commands a job costs on each (INFO commandstats): what the journal adds;
//   2. in process, 8 runs at a time: jobs/s;
//   3. 5,000 jobs in one batch across 1 and then 2 worker processes (concurrency 8 each): jobs/s,
//      inputs without a result (lost) and inputs whose result was written more than once (duplicated).
// The type check is off on both sides (a check per run would measure the checker, not the fleet).
// Needs redis-server on PATH (Debian's redis-server). Run: npm run bench:fleet (FLEET_BENCH_JOBS=n for
// smaller batches, FLEET_BENCH_PAIRS=n for fewer latency pairs). Writes bench/results/fleet.json, whose figures docs/benchmarks.md quotes.

import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createSwitchyardFromConfig } from "../src/config/create-switchyard-from-config.js";
import { loadConfig } from "../src/config/load-config.js";
import { readBatchResults } from "../src/fleet/batch-results.js";
import { BatchStore } from "../src/fleet/batch-store.js";
import { connectRedis } from "../src/fleet/redis-connection.js";
import { submitBatch } from "../src/fleet/submit-batch.js";
import { watchBatch } from "../src/fleet/watch-batch.js";
import type { Switchyard } from "../src/switchyard.js";
import { benchConditions, currentLoad, writeBenchResult } from "./bench-result.js";
import { percentile } from "./stats.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const CLI = join(ROOT, "dist-bench/src/cli/main.js");
const JOBS = Number(process.env["FLEET_BENCH_JOBS"] ?? 5_000);
const LATENCY_JOBS = Number(process.env["FLEET_BENCH_PAIRS"] ?? 200);
// Jobs of the Redis command count, per side.
const COUNTED_JOBS = 20;
const CONCURRENCY = 8;
const PROGRAM = `let total = 0;
for (let i = 0; i < 20; i++) total += await tools.bench.work({ i, n: input.n });
return total;`;

const temp = mkdtempSync(join(tmpdir(), "switchyard-bench-fleet-"));
const children: ChildProcess[] = [];

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address !== null ? address.port : 0));
    });
  });
}

async function startRedis(): Promise<string> {
  const port = await freePort();
  const child = spawn(
    "redis-server",
    ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
    {
      stdio: "ignore",
    },
  );
  children.push(child);
  const url = `redis://127.0.0.1:${port}`;
  for (let tries = 0; ; tries++) {
    try {
      const client = await connectRedis(url);
      await client.quit();
      return url;
    } catch (error) {
      if (tries > 50) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

function startWorker(redis: string, queue: string, config: string, durable = true): Promise<ChildProcess> {
  // The command as an installed package runs it: compiled (here by this bench's tsc run), no tsx.
  const child = spawn(
    process.execPath,
    ["--no-node-snapshot", CLI, "worker", "--config", config, "--redis", redis, "--queue", queue].concat(
      ["--concurrency", String(CONCURRENCY)],
      durable ? [] : ["--no-durable"],
    ),
    { stdio: ["ignore", "ignore", "pipe"] },
  );
  children.push(child);
  return new Promise((resolve, reject) => {
    let log = "";
    child.stderr?.on("data", (chunk: Buffer) => {
      log += chunk.toString();
      if (log.includes("taking jobs")) resolve(child);
    });
    child.once("exit", (code) => reject(new Error(`worker exited with ${code}: ${log}`)));
  });
}

function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once("exit", () => resolve());
    child.kill("SIGTERM");
  });
}

async function untilFinished(redis: string, queue: string, batchId: string, intervalMs: number): Promise<void> {
  for await (const progress of watchBatch({ redis, queue, batchId, intervalMs })) if (progress.finished) return;
}

async function inProcessThroughput(yard: Switchyard): Promise<number> {
  const runs = Math.min(JOBS, 2_000);
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < runs) await yard.run(PROGRAM, { input: { n: next++ } });
    }),
  );
  return runs / ((performance.now() - started) / 1000);
}

/** One job through the fleet of `queue`, waited for: its enqueue-to-result and enqueue-to-start. */
async function oneJob(redis: string, queue: string, n: number): Promise<{ fleetMs: number; pickupMs: number }> {
  const batchId = `${queue}-${n}`;
  await submitBatch({ redis, queue, batchId, program: PROGRAM, inputs: [{ n }] });
  // Polled every 10 ms: the figures come from the stored timestamps, not from this loop.
  await untilFinished(redis, queue, batchId, 10);
  for await (const job of readBatchResults({ redis, queue, batchId })) {
    if (!job.ok) throw new Error(`fleet run failed: ${job.error?.message}`);
    return { fleetMs: job.finishedAt - job.enqueuedAt, pickupMs: job.startedAt - job.enqueuedAt };
  }
  throw new Error(`no result for ${batchId}`);
}

interface Paired {
  readonly local: number[];
  readonly durable: number[];
  readonly plain: number[];
  /** Fleet minus in process, per pair: durable jobs (the default), and `--no-durable` ones. */
  readonly overhead: number[];
  readonly plainOverhead: number[];
  readonly pickup: number[];
}

/**
 * Pairs, one job at a time: the program run in process, then the same input as a one-job batch
 * through a durable worker and through a `--no-durable` one (the queues are idle, so nothing
 * waits in them; the two fleet jobs alternate in order). Back to back, all three see the same
 * load on a shared machine; the overheads are taken per pair.
 */
async function pairedLatency(yard: Switchyard, redis: string, config: string): Promise<Paired> {
  const workers = await Promise.all([
    startWorker(redis, "latency", config),
    startWorker(redis, "latency-plain", config, false),
  ]);
  const paired: Paired = { local: [], durable: [], plain: [], overhead: [], plainOverhead: [], pickup: [] };
  try {
    for (let n = -50; n < LATENCY_JOBS; n++) {
      const started = performance.now();
      const result = await yard.run(PROGRAM, { input: { n } });
      const localMs = performance.now() - started;
      if (!result.ok) throw new Error(`in-process run failed: ${result.error?.message}`);
      const durableFirst = n % 2 === 0;
      const first = await oneJob(redis, durableFirst ? "latency" : "latency-plain", n);
      const second = await oneJob(redis, durableFirst ? "latency-plain" : "latency", n);
      const [durable, plain] = durableFirst ? [first, second] : [second, first];
      if (n < 0) continue; // warm-up
      paired.local.push(localMs);
      paired.durable.push(durable.fleetMs);
      paired.plain.push(plain.fleetMs);
      paired.overhead.push(durable.fleetMs - localMs);
      paired.plainOverhead.push(plain.fleetMs - localMs);
      paired.pickup.push(durable.pickupMs);
    }
    return paired;
  } finally {
    await Promise.all(workers.map(stop));
  }
}

/** Redis commands per job by name, from INFO commandstats around a batch of `jobs` jobs on `queue`. */
async function commandsPerJob(redis: string, queue: string, config: string, durable: boolean, jobs: number) {
  const worker = await startWorker(redis, queue, config, durable);
  const client = await connectRedis(redis);
  try {
    const before = await commandStats(client);
    const inputs = Array.from({ length: jobs }, (_, n) => ({ n }));
    const batch = await submitBatch({ redis, queue, batchId: `count-${queue}`, program: PROGRAM, inputs });
    // Polled rarely: the poll's own commands stay a few in the count.
    await untilFinished(redis, queue, batch.batchId, 500);
    const after = await commandStats(client);
    const perJob = (name: string): number => ((after.get(name) ?? 0) - (before.get(name) ?? 0)) / jobs;
    let total = 0;
    for (const name of after.keys()) total += perJob(name);
    return { total, evalsha: perJob("evalsha") };
  } finally {
    client.disconnect();
    await stop(worker);
  }
}

async function commandStats(client: Awaited<ReturnType<typeof connectRedis>>): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  for (const match of (await client.info("commandstats")).matchAll(/cmdstat_(\w+(?:\|\w+)?):calls=(\d+)/g))
    counts.set(match[1]!, Number(match[2]));
  return counts;
}

interface Throughput {
  readonly workers: number;
  readonly jobsPerSecond: number;
  readonly lost: number;
  readonly duplicated: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  /** Runs in flight on average across the fleet: how much of its concurrency it used. */
  readonly inFlight: number;
}

async function throughput(redis: string, config: string, workers: number): Promise<Throughput> {
  const queue = `throughput-${workers}`;
  const started = await Promise.all(Array.from({ length: workers }, () => startWorker(redis, queue, config)));
  try {
    const inputs = Array.from({ length: JOBS }, (_, n) => ({ n }));
    const batch = await submitBatch({ redis, queue, batchId: `b${workers}`, program: PROGRAM, inputs });
    await untilFinished(redis, queue, batch.batchId, 200);
    const seen = new Map<number, number>();
    let first = Number.POSITIVE_INFINITY;
    let last = 0;
    const latencies: number[] = [];
    let busyMs = 0;
    for await (const result of readBatchResults({ redis, queue, batchId: batch.batchId })) {
      busyMs += result.finishedAt - result.startedAt;
      const n = (result.input as { n: number }).n;
      seen.set(n, (seen.get(n) ?? 0) + 1);
      if (result.ok && result.output !== 190 + 20 * n) throw new Error(`wrong output for ${n}: ${result.output}`);
      first = Math.min(first, result.enqueuedAt);
      last = Math.max(last, result.finishedAt);
      latencies.push(result.finishedAt - result.enqueuedAt);
    }
    const client = await connectRedis(redis);
    const rewritten = await new BatchStore(client, queue).repeatedWrites(batch.batchId);
    await client.quit();
    const lost = inputs.filter(({ n }) => !seen.has(n)).length;
    const duplicated = [...seen.values()].filter((count) => count > 1).length + rewritten.size;
    return {
      workers,
      jobsPerSecond: JOBS / ((last - first) / 1000),
      lost,
      duplicated,
      p50Ms: percentile(latencies, 0.5),
      p99Ms: percentile(latencies, 0.99),
      inFlight: busyMs / (last - first),
    };
  } finally {
    await Promise.all(started.map(stop));
  }
}

const ms = (value: number): string => value.toFixed(1);

async function main(): Promise<void> {
  const startLoad = currentLoad();
  const config = join(temp, "switchyard.config.json");
  writeFileSync(config, JSON.stringify({ tools: [join(ROOT, "bench/fleet-tools.mjs")], typeCheck: "off" }));
  const redis = await startRedis();
  const { yard, close } = await createSwitchyardFromConfig(await loadConfig(config));
  let latency: Paired;
  let localJobsPerSecond: number;
  try {
    latency = await pairedLatency(yard, redis, config);
    localJobsPerSecond = await inProcessThroughput(yard);
  } finally {
    await close();
  }
  const counted = {
    durable: await commandsPerJob(redis, "count-durable", config, true, COUNTED_JOBS),
    plain: await commandsPerJob(redis, "count-plain", config, false, COUNTED_JOBS),
  };
  const one = await throughput(redis, config, 1);
  const two = await throughput(redis, config, 2);
  const local = { latencies: latency.local, jobsPerSecond: localJobsPerSecond };
  const overheadP50 = percentile(latency.overhead, 0.5);
  const overheadP99 = percentile(latency.overhead, 0.99);
  const plainOverheadP50 = percentile(latency.plainOverhead, 0.5);
  const plainOverheadP99 = percentile(latency.plainOverhead, 0.99);
  const fleet = latency.durable;
  const added = (row: "total" | "evalsha"): string => (counted.durable[row] - counted.plain[row]).toFixed(1);
  process.stdout.write(
    [
      `bench:fleet: a 20-call program (1 ms tool), ${LATENCY_JOBS} latency pairs, ${JOBS} jobs per fleet run`,
      "",
      "| one job at a time, paired              | p50 ms | p99 ms |",
      "| -------------------------------------- | ------ | ------ |",
      `| in process: yard.run                   | ${ms(percentile(local.latencies, 0.5))} | ${ms(percentile(local.latencies, 0.99))} |`,
      `| fleet, 1 worker: enqueue to result     | ${ms(percentile(fleet, 0.5))} | ${ms(percentile(fleet, 0.99))} |`,
      `| overhead (fleet - in process, per pair) | ${ms(overheadP50)} | ${ms(overheadP99)} |`,
      `| of it, enqueue to the worker's start   | ${ms(percentile(latency.pickup, 0.5))} | ${ms(percentile(latency.pickup, 0.99))} |`,
      `| --no-durable worker: enqueue to result | ${ms(percentile(latency.plain, 0.5))} | ${ms(percentile(latency.plain, 0.99))} |`,
      `| --no-durable overhead, per pair        | ${ms(plainOverheadP50)} | ${ms(plainOverheadP99)} |`,
      "",
      `Redis commands per job (${COUNTED_JOBS} jobs each, INFO commandstats): durable ${counted.durable.total.toFixed(1)} ` +
        `(${counted.durable.evalsha.toFixed(1)} scripts), --no-durable ${counted.plain.total.toFixed(1)} ` +
        `(${counted.plain.evalsha.toFixed(1)} scripts): the journal adds ${added("total")}, ${added("evalsha")} of them scripts`,
      "",
      `| ${JOBS} jobs, concurrency ${CONCURRENCY} per process | jobs/s | vs in process | lost | duplicated | runs in flight | enqueue to result p50 / p99 ms |`,
      "| ------------------------------------------ | ------ | ------------- | ---- | ---------- | -------------- | ------------------------------ |",
      `| in process (${Math.min(JOBS, 2_000)} runs)                 | ${local.jobsPerSecond.toFixed(0)} | 1.00x | | | ${CONCURRENCY} | |`,
      ...[one, two].map(
        (row) =>
          `| ${row.workers} worker process${row.workers === 1 ? " " : "es"}                     | ${row.jobsPerSecond.toFixed(0)} | ${(row.jobsPerSecond / local.jobsPerSecond).toFixed(2)}x | ${row.lost} | ${row.duplicated} | ${row.inFlight.toFixed(1)} | ${ms(row.p50Ms)} / ${ms(row.p99Ms)} (the queue backs up) |`,
      ),
      "",
      // Both fleet runs' jobs; the rate is the 2-worker run's.
      `fleet: ${2 * JOBS} jobs, lost ${one.lost + two.lost}, duplicated ${one.duplicated + two.duplicated}, ${two.jobsPerSecond.toFixed(0)} jobs/s, overhead p50 ${ms(overheadP50)} ms`,
      "",
    ].join("\n"),
  );
  const count = (value: number): string => Math.round(value).toLocaleString("en-US");
  const ratio = (row: Throughput): string => `${(row.jobsPerSecond / local.jobsPerSecond).toFixed(2)}×`;
  const written = writeBenchResult(
    "fleet",
    benchConditions(startLoad),
    {
      "local-p50-ms": `${ms(percentile(local.latencies, 0.5))} ms`,
      "fleet-p50-ms": `${ms(percentile(fleet, 0.5))} ms`,
      "overhead-p50-ms": `${ms(overheadP50)} ms`,
      "overhead-p99-ms": `${ms(overheadP99)} ms`,
      "no-durable-overhead-p50-ms": `${ms(plainOverheadP50)} ms`,
      "no-durable-overhead-p99-ms": `${ms(plainOverheadP99)} ms`,
      "durable-commands-per-job": counted.durable.total.toFixed(1),
      "no-durable-commands-per-job": counted.plain.total.toFixed(1),
      "journal-scripts-per-job": added("evalsha"),
      "pickup-p50-ms": `${ms(percentile(latency.pickup, 0.5))} ms`,
      jobs: count(JOBS),
      "local-jobs-per-second": count(local.jobsPerSecond),
      "one-worker-jobs-per-second": count(one.jobsPerSecond),
      "one-worker-ratio": ratio(one),
      "two-workers-jobs-per-second": count(two.jobsPerSecond),
      "two-workers-ratio": ratio(two),
      lost: count(one.lost + two.lost),
      duplicated: count(one.duplicated + two.duplicated),
    },
    [
      `${LATENCY_JOBS} latency pairs after 50 warm-up pairs; ${JOBS} jobs per fleet run (FLEET_BENCH_JOBS), concurrency ${CONCURRENCY} per process; type check off on both sides.`,
    ],
  );
  process.stdout.write(`wrote ${written}\n`);
}

try {
  await main();
} finally {
  await Promise.all(children.reverse().map(stop));
  rmSync(temp, { recursive: true, force: true });
}
