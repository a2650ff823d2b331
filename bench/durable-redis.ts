// What the fleet's Redis journal store costs: the same 2,000-call sequential sweep as
// bench/durable.ts, plain, durable in the file store, durable in Redis (a local redis-server
// without persistence, started here), and replayed from Redis. Medians of rounds, back to back.
// Run: npm run bench:durable-redis   (needs redis-server on PATH).

import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { FileRunJournal } from "../src/durable/file-run-journal.js";
import type { RunJournal } from "../src/durable/run-journal.js";
import { connectRedis } from "../src/fleet/redis-connection.js";
import { RedisRunJournal } from "../src/fleet/redis-run-journal.js";
import { Switchyard } from "../src/switchyard.js";
import { pageTool, SWEEP, SWEEP_CALLS as CALLS } from "./durable-sweep.js";
import { median } from "./stats.js";

const ROUNDS = 5;
const LIMITS = { maxToolCalls: 10_000, wallTimeMs: 120_000, cpuTimeMs: 60_000 };

const port = await new Promise<number>((resolve) => {
  const server = createServer().listen(0, "127.0.0.1", () => {
    const address = server.address();
    server.close(() => resolve(typeof address === "object" && address !== null ? address.port : 0));
  });
});
const redisServer = spawn("redis-server", ["--port", String(port), "--bind", "127.0.0.1", "--save", ""], {
  stdio: "ignore",
});
const folder = mkdtempSync(join(tmpdir(), "bench-durable-redis-"));
try {
  await new Promise((resolve) => setTimeout(resolve, 300));
  const client = await connectRedis(`redis://127.0.0.1:${port}`);
  const yard = new Switchyard({ tools: [pageTool()], typeCheck: "off" });
  const stores: Record<"file" | "redis", RunJournal> = {
    file: new FileRunJournal({ folder }),
    redis: new RedisRunJournal(client, { prefix: "bench" }),
  };
  let ids = 0;
  const usPerCall = async (store?: RunJournal, id = `run-${++ids}`): Promise<number> => {
    const durable = store === undefined ? {} : { durable: { id, store } };
    const run = await yard.run(SWEEP, { limits: LIMITS, ...durable });
    if (!run.ok) throw new Error(`${run.error?.code}: ${run.error?.message}`);
    return (run.stats.wallMs * 1_000) / CALLS;
  };
  await usPerCall();
  await usPerCall(stores.redis);
  const rows = {
    plain: [] as number[],
    file: [] as number[],
    fileReplay: [] as number[],
    redis: [] as number[],
    replay: [] as number[],
  };
  for (let round = 0; round < ROUNDS; round++) {
    rows.plain.push(await usPerCall());
    const fileId = `file-${++ids}`;
    rows.file.push(await usPerCall(stores.file, fileId));
    rows.fileReplay.push(await usPerCall(stores.file, fileId));
    const id = `sweep-${++ids}`;
    rows.redis.push(await usPerCall(stores.redis, id));
    rows.replay.push(await usPerCall(stores.redis, id));
  }
  const journal = await stores.redis.read(`sweep-${ids}`);
  await yard.close();
  await client.quit();
  const [plain, file, fileReplay, redis, replay] = [
    rows.plain,
    rows.file,
    rows.fileReplay,
    rows.redis,
    rows.replay,
  ].map(median) as [number, number, number, number, number];
  const percent = (value: number): string => `${(((value - plain) / plain) * 100).toFixed(0)}%`;
  console.log(`Redis journal store, ${CALLS}-call sweep, medians of ${ROUNDS} (load ${loadavg()[0]!.toFixed(2)})`);
  console.log(`  plain run, per call:                 ${plain.toFixed(1)} µs`);
  console.log(`  durable, file store, per call:       ${file.toFixed(1)} µs (+${percent(file)})`);
  console.log(`  replayed from the file store, per call: ${fileReplay.toFixed(1)} µs`);
  console.log(`  durable, Redis store, per call:      ${redis.toFixed(1)} µs (+${percent(redis)})`);
  console.log(`  replayed from Redis, per call:       ${replay.toFixed(1)} µs`);
  console.log(`  journal in Redis: ${journal?.bytes} bytes, ${((journal?.bytes ?? 0) / CALLS).toFixed(0)} per call`);
  console.log(
    `durable-redis: live ${redis.toFixed(1)} µs per call (+${percent(redis)} over plain), replay ${replay.toFixed(1)} µs per call`,
  );
} finally {
  redisServer.kill("SIGTERM");
  rmSync(folder, { recursive: true, force: true });
}
