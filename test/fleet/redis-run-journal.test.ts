// The Redis journal store on a real redis-server: the RunJournal contract shared with the file
// store, then what only Redis has: whole elements (a truncated one is damage, not a torn write),
// a lease instead of a lock file (fenced appends, a lapsed lease taken over, two writers racing),
// and expiry through Redis's own TTL.

import type { Redis } from "ioredis";
import { afterAll, describe, expect, it } from "vitest";
import type { RunJournal } from "../../src/durable/run-journal.js";
import { connectRedis } from "../../src/fleet/redis-connection.js";
import { RedisRunJournal, type RedisRunJournalOptions } from "../../src/fleet/redis-run-journal.js";
import { defineTool } from "../../src/registry/define-tool.js";
import { Switchyard } from "../../src/switchyard.js";
import { describeRunJournalContract } from "../durable/run-journal-contract.js";
import { useRedisForFile } from "../helpers/redis-server.js";

const redis = useRedisForFile();
let prefixes = 0;
const extraClients: Redis[] = [];
const yards: Switchyard[] = [];
afterAll(async () => {
  await Promise.all(yards.map((yard) => yard.close()));
  for (const client of extraClients) client.disconnect();
});

function createStore(options: RedisRunJournalOptions = {}, client: Redis = redis.client): RedisRunJournal {
  return new RedisRunJournal(client, { prefix: `test:${++prefixes}`, ...options });
}

async function secondClient(): Promise<Redis> {
  const client = await connectRedis(redis.url);
  extraClients.push(client);
  return client;
}

function journalKey(store: RunJournal, id: string): string {
  return (store as RedisRunJournal).keysOf(id)[0];
}

describeRunJournalContract("RedisRunJournal", {
  create: (options = {}) => createStore(options),
  rawEntries: (store, id) => redis.client.lrange(journalKey(store, id), 0, -1),
  writeRawEntries: async (store, id, entries) => {
    await redis.client.del(journalKey(store, id));
    await redis.client.rpush(journalKey(store, id), ...entries);
  },
  isEmpty: async (store) => (await redis.client.keys(`${(store as RedisRunJournal).prefix}:*`)).length === 0,
});

function createYard(store: RunJournal) {
  let calls = 0;
  const keys: string[] = [];
  const count = defineTool({
    name: "api.count",
    description: "Counts its calls.",
    inputSchema: { type: "object", properties: { n: { type: "number" } } },
    execute: async (input: { n: number }, context) => {
      calls++;
      keys.push(context.idempotencyKey ?? "");
      await new Promise((resolve) => setTimeout(resolve, 5));
      return input.n * 2;
    },
  });
  const yard = new Switchyard({ tools: [count], typeCheck: "off", runJournal: store });
  yards.push(yard);
  return { yard, calls: () => calls, keys };
}

const THREE = "let sum = 0; for (let n = 1; n <= 3; n++) sum += await tools.api.count({ n }); return sum;";
const SLOW =
  "let sum = 0; for (let n = 1; n <= 3; n++) { sum += await tools.api.count({ n }); await sleep(150); } return sum;";

describe("the Redis journal store", () => {
  it("refuses a truncated last entry (Redis never tears one) with JOURNAL_INVALID and leaves the journal as it was", async () => {
    const store = createStore();
    const { yard } = createYard(store);
    await yard.run(THREE, { durable: { id: "truncated" } });
    const key = journalKey(store, "truncated");
    const last = (await redis.client.lindex(key, -1))!;
    await redis.client.lset(key, -1, last.slice(0, Math.floor(last.length / 2)));
    const before = await redis.client.lrange(key, 0, -1);
    const again = createYard(store);
    const result = await again.yard.run(THREE, { durable: { id: "truncated" } });
    expect(result.error?.code).toBe("JOURNAL_INVALID");
    expect(result.error?.message).toMatch(new RegExp(`line ${before.length}: not JSON`));
    expect(again.calls()).toBe(0);
    expect(await redis.client.lrange(key, 0, -1)).toEqual(before);
    // An entry with a newline inside would shift every later line number: refused too.
    await redis.client.lset(key, 1, `${before[1]}\n${before[2]}`);
    await expect(store.read("truncated")).rejects.toThrow(/line 2: a newline/);
  });

  it("refuses a journal whose size counter says it is over the cap before reading it", async () => {
    const store = createStore({ maxRunBytes: 100_000 });
    await createYard(store).yard.run(THREE, { durable: { id: "grown" } });
    await redis.client.set(store.keysOf("grown")[2], 10_000_000);
    await expect(store.read("grown")).rejects.toThrow(/over 100000/);
    const result = await createYard(store).yard.run(THREE, { durable: { id: "grown" } });
    expect(result.error?.code).toBe("JOURNAL_INVALID");
  });

  it("refuses a list planted around the store, its counter lying about its size, without sending it to the reader", async () => {
    const store = createStore({ maxRunBytes: 100_000 });
    await createYard(store).yard.run(THREE, { durable: { id: "planted" } });
    const [journal, , bytes] = store.keysOf("planted");
    const entries = await redis.client.lrange(journal, 0, -1);
    // Valid entries, 200 KB of them, under a counter that still says a few hundred bytes.
    await redis.client.rpush(journal, ...Array.from({ length: 2_000 }, () => entries[1]!.padEnd(100, " ")));
    expect(Number(await redis.client.get(bytes))).toBeLessThan(100_000);
    await expect(store.read("planted")).rejects.toMatchObject({ code: "JOURNAL_INVALID", message: /over 100000/ });
    const again = createYard(store);
    const result = await again.yard.run(THREE, { durable: { id: "planted" } });
    expect(result.error?.code).toBe("JOURNAL_INVALID");
    expect(again.calls()).toBe(0);
    // A key of another type in the list's place is refused the same way, not with Redis's WRONGTYPE.
    await redis.client.del(journal);
    await redis.client.set(journal, "planted");
    await expect(store.read("planted")).rejects.toMatchObject({
      code: "JOURNAL_INVALID",
      message: /other than a list/,
    });
    expect((await createYard(store).yard.run(THREE, { durable: { id: "planted" } })).error?.code).toBe(
      "JOURNAL_INVALID",
    );
    expect(await redis.client.exists(store.keysOf("planted")[3])).toBe(0);
  });

  it("refuses a huge first entry by its length in Redis: readHeader never receives it", async () => {
    const store = createStore({ maxRunBytes: 100_000 });
    const [journal, , bytes] = store.keysOf("huge-head");
    // 8 MB in one element, a counter that lies: only Redis measures the element.
    await redis.client.rpush(journal, `{"t":"run","source":"${"x".repeat(8 * 1024 * 1024)}"}`);
    await redis.client.set(bytes, 10);
    const heapBefore = process.memoryUsage().heapUsed;
    await expect(store.readHeader("huge-head")).rejects.toMatchObject({
      code: "JOURNAL_INVALID",
      message: /over 100000/,
    });
    await expect(store.read("huge-head")).rejects.toMatchObject({ code: "JOURNAL_INVALID", message: /over 100000/ });
    const resumed = await createYard(store).yard.resume("huge-head");
    expect(resumed.error?.code).toBe("JOURNAL_INVALID");
    // 8 MB never crossed into this process (a string of it would take 8 MB of heap at least).
    expect(process.memoryUsage().heapUsed - heapBefore).toBeLessThan(4 * 1024 * 1024);
  });

  it("refuses keys of the wrong type at every key of a run with JOURNAL_INVALID, never Redis's WRONGTYPE", async () => {
    const store = createStore();
    const refused = { code: "JOURNAL_INVALID" };
    const [journal, answers, bytes] = store.keysOf("typed");
    // A string, a hash and a set in the list's place.
    for (const plant of [
      () => redis.client.set(journal, "a string"),
      () => redis.client.hset(journal, "f", "v"),
      () => redis.client.sadd(journal, "m"),
    ]) {
      await redis.client.del(journal);
      await plant();
      await expect(store.readHeader("typed")).rejects.toMatchObject({ ...refused, message: /other than a list/ });
      await expect(store.read("typed")).rejects.toMatchObject({ ...refused, message: /other than a list/ });
      await expect(store.open("typed", undefined)).rejects.toMatchObject(refused);
      expect((await createYard(store).yard.resume("typed")).error?.code).toBe("JOURNAL_INVALID");
    }
    // A real journal whose counter is a list: refused, and its open leaves no lease behind.
    await redis.client.del(journal);
    await createYard(store).yard.run(THREE, { durable: { id: "typed" } });
    const counted = await redis.client.get(bytes);
    await redis.client.del(bytes);
    await redis.client.rpush(bytes, "1");
    await expect(store.read("typed")).rejects.toMatchObject({ ...refused, message: /size counter/ });
    expect((await createYard(store).yard.run(THREE, { durable: { id: "typed" } })).error?.code).toBe("JOURNAL_INVALID");
    expect(await redis.client.exists(store.keysOf("typed")[3])).toBe(0);
    await redis.client.del(bytes);
    await redis.client.set(bytes, counted!);
    // The answers kept apart planted as a string: a spilled answer cannot be read, and says why.
    await redis.client.set(answers, "a string");
    await expect(store.readSpilled("typed", "1")).rejects.toMatchObject({ ...refused, message: /other than a hash/ });
    await redis.client.del(answers);
    await expect(store.readSpilled("typed", "1")).rejects.toMatchObject({ ...refused, message: /missing/ });
  });

  it("refuses a spilled answer over the cap by its length in Redis", async () => {
    const store = createStore({ maxRunBytes: 100_000 });
    await redis.client.hset(store.keysOf("fat")[1], "1", "y".repeat(4 * 1024 * 1024));
    await expect(store.readSpilled("fat", "1")).rejects.toMatchObject({
      code: "JOURNAL_INVALID",
      message: /over 100000/,
    });
  });

  it("lists and prunes past an index planted with huge, hostile or wrongly typed members", async () => {
    const store = createStore();
    await createYard(store).yard.run(THREE, { durable: { id: "listed", retentionMs: 1 } });
    const index = store.indexKey;
    await redis.client.zadd(index, 0, "x".repeat(1024 * 1024), 0, "../escape", 0, "a*", 0, "{tag}", 0, "a:b");
    // Many entries so the list takes more than one page.
    await redis.client.zadd(index, ...Array.from({ length: 2_500 }, (_, n) => [1, `ghost-${n}`]).flat());
    expect((await store.list()).map((run) => run.id)).toEqual(["listed"]);
    await new Promise((resolve) => setTimeout(resolve, 5));
    const pruned = await store.prune();
    expect(pruned).toContain("listed");
    expect(pruned.filter((id) => id.startsWith("ghost-"))).toHaveLength(2_500);
    expect(await redis.client.zscore(index, "listed")).toBeNull();
    await redis.client.del(index);
    await redis.client.set(index, "a string");
    await expect(store.list()).rejects.toMatchObject({ code: "JOURNAL_INVALID", message: /sorted set/ });
    await expect(store.prune()).rejects.toMatchObject({ code: "JOURNAL_INVALID" });
    await redis.client.del(index);
  });

  it("lets one of two writers racing for a run have it, and refuses the other RUN_BUSY: never both writing", async () => {
    const client = await secondClient();
    const prefix = `race:${++prefixes}`;
    const first = createYard(new RedisRunJournal(redis.client, { prefix }));
    const second = createYard(new RedisRunJournal(client, { prefix }));
    const results = await Promise.all([
      first.yard.run(SLOW, { durable: { id: "raced" } }),
      second.yard.run(SLOW, { durable: { id: "raced" } }),
    ]);
    expect(results.map((result) => result.error?.code ?? result.output).sort()).toEqual([12, "RUN_BUSY"]);
    expect(first.calls() + second.calls()).toBe(3);
    const journal = await new RedisRunJournal(redis.client, { prefix }).read("raced");
    expect(journal!.entries.filter((entry) => entry.t === "end")).toHaveLength(1);
  });

  it("lets the second of two racing writers wait for the run and replay what the first journaled", async () => {
    const client = await secondClient();
    const prefix = `wait:${++prefixes}`;
    const first = createYard(new RedisRunJournal(redis.client, { prefix, acquireWaitMs: 5_000 }));
    const second = createYard(new RedisRunJournal(client, { prefix, acquireWaitMs: 5_000 }));
    const results = await Promise.all([
      first.yard.run(SLOW, { durable: { id: "waited" } }),
      second.yard.run(SLOW, { durable: { id: "waited" } }),
    ]);
    expect(results.map((result) => result.output)).toEqual([12, 12]);
    expect(first.calls() + second.calls()).toBe(3);
  });

  it("fences appends by the lease: a writer whose lease another writer holds appends nothing more and ends RUN_BUSY", async () => {
    const store = createStore({ leaseMs: 10_000 });
    const { yard, calls } = createYard(store);
    const running = yard.run(SLOW, { durable: { id: "fenced" } });
    while (calls() < 1) await new Promise((resolve) => setTimeout(resolve, 10));
    // The lease lapsed (a frozen worker) and another writer holds the run now.
    await redis.client.set(store.keysOf("fenced")[3], "another-writer");
    const length = await redis.client.llen(journalKey(store, "fenced"));
    const result = await running;
    expect(result.error?.code).toBe("RUN_BUSY");
    expect(result.error?.message).toMatch(/lost its lease/);
    expect(await redis.client.llen(journalKey(store, "fenced"))).toBe(length);
    expect(await redis.client.get(store.keysOf("fenced")[3])).toBe("another-writer");
  });

  it("does not take back a lapsed lease when another writer wrote to the run meanwhile", async () => {
    const store = createStore({ leaseMs: 10_000 });
    const { yard, calls } = createYard(store);
    const running = yard.run(SLOW, { durable: { id: "overtaken" } });
    while (calls() < 1) await new Promise((resolve) => setTimeout(resolve, 10));
    const [journal, , bytes, lease] = store.keysOf("overtaken");
    // In one step: the lease lapsed, and another writer came, appended and left.
    await redis.client.multi().del(lease).rpush(journal, '{"t":"end","at":1,"ok":true}').incrby(bytes, 30).exec();
    const length = await redis.client.llen(journal);
    const result = await running;
    expect(result.error?.code).toBe("RUN_BUSY");
    expect(await redis.client.llen(journal)).toBe(length);
  });

  it("keeps a run whose writer renewed its lease late, when nobody took the run meanwhile", async () => {
    const store = createStore({ leaseMs: 10_000 });
    const { yard, calls } = createYard(store);
    const running = yard.run(SLOW, { durable: { id: "late" } });
    while (calls() < 1) await new Promise((resolve) => setTimeout(resolve, 10));
    // The lease lapses (an event loop too busy to renew it), but no other writer opens the run.
    await redis.client.del(store.keysOf("late")[3]);
    const result = await running;
    expect(result.output).toBe(12);
    expect(calls()).toBe(3);
    // Another writer that opened and closed meanwhile without writing changes nothing either;
    // one that wrote (the size moved) would have ended this run RUN_BUSY (the test above).
    expect((await store.read("late"))!.entries.at(-1)).toMatchObject({ t: "end", ok: true });
  });

  it("takes over the run of a writer that died once its lease lapses", async () => {
    const doomed = await secondClient();
    const prefix = `lapse:${++prefixes}`;
    const store = new RedisRunJournal(doomed, { prefix, leaseMs: 300 });
    const { yard } = createYard(store);
    const running = yard.run(SLOW, { durable: { id: "lapsed" } });
    await new Promise((resolve) => setTimeout(resolve, 100));
    // The writer's connection is gone (its process killed): no renewal, no more appends.
    doomed.disconnect();
    const successor = createYard(new RedisRunJournal(redis.client, { prefix, leaseMs: 300, acquireWaitMs: 3_000 }));
    const startedAt = Date.now();
    const result = await successor.yard.run(SLOW, { durable: { id: "lapsed" } });
    expect(result.output).toBe(12);
    expect(Date.now() - startedAt).toBeLessThan(2_500);
    await running.catch(() => undefined);
  });

  it("journals a crossing without answers with the next entry: one append per call, the journal as complete as ever", async () => {
    const store = createStore();
    const appends: string[][] = [];
    const open = store.open.bind(store);
    store.open = async (id, header) => {
      const opened = await open(id, header);
      const append = opened.writer.append.bind(opened.writer);
      opened.writer.append = (entries) => {
        appends.push(entries.map((entry) => (entry.t === "x" ? `${entry.kind}:${entry.answers.length}` : entry.t)));
        return append(entries);
      };
      return opened;
    };
    const { yard } = createYard(store);
    // Each call answers after a timer: the crossing that starts it comes back without answers.
    const program = "let sum = 0; for (let n = 1; n <= 6; n++) sum += await tools.api.count({ n }); return sum;";
    expect((await yard.run(program, { durable: { id: "paired" } })).output).toBe(42);
    const entries = (await store.read("paired"))!.entries;
    expect(entries.flatMap((entry) => (entry.t === "x" ? entry.answers.map((answer) => answer.n) : []))).toEqual([
      1, 2, 3, 4, 5, 6,
    ]);
    // Every entry was appended once, in order; none without answers on its own.
    expect(appends.flat()).toEqual(
      entries.map((entry) => (entry.t === "x" ? `${entry.kind}:${entry.answers.length}` : entry.t)),
    );
    expect(appends.length).toBeLessThanOrEqual(7);
    for (const batch of appends) expect(batch.at(-1)).not.toMatch(/:0$/);
    // And it replays: the journal is whole.
    const again = createYard(store);
    expect((await again.yard.run(program, { durable: { id: "paired" } })).output).toBe(42);
    expect(again.calls()).toBe(0);
  });

  it("gives every key of a run Redis's own expiry at the run's expiry", async () => {
    const store = createStore();
    await createYard(store).yard.run(THREE, { durable: { id: "expiring", retentionMs: 60_000 } });
    const [journal, , bytes, lease] = store.keysOf("expiring");
    const ttl = await redis.client.pttl(journal);
    expect(ttl).toBeGreaterThan(55_000);
    expect(ttl).toBeLessThanOrEqual(60_000);
    expect(await redis.client.pttl(bytes)).toBeGreaterThan(55_000);
    expect(await redis.client.exists(lease)).toBe(0);
  });

  it("ends a run JOURNAL_WRITE_FAILED when Redis refuses its appends (out of memory), and resumes once it takes them", async () => {
    const store = createStore();
    const keys: string[] = [];
    const page = defineTool({
      name: "api.page",
      description: "A page; its fourth call leaves Redis out of memory.",
      inputSchema: { type: "object", properties: { n: { type: "number" } } },
      execute: async (input: { n: number }, context) => {
        keys.push(context.idempotencyKey ?? "");
        if (keys.length === 4) await redis.client.config("SET", "maxmemory", "1");
        // Redis's refusal of an append comes back asynchronously: instant calls after it could all be
        // made before it arrives (a CI run on a loaded machine made all 10). A few ms each leave it time.
        if (keys.length > 4) await new Promise((resolve) => setTimeout(resolve, 25));
        return input.n;
      },
    });
    const yard = new Switchyard({ tools: [page], typeCheck: "off", runJournal: store });
    yards.push(yard);
    const sweep = "let sum = 0; for (let n = 1; n <= 10; n++) sum += await tools.api.page({ n }); return sum;";
    let stopped: Awaited<ReturnType<typeof yard.run>>;
    try {
      stopped = await yard.run(sweep, { durable: { id: "oom" } });
    } finally {
      await redis.client.config("SET", "maxmemory", "0");
    }
    expect(stopped.error?.code).toBe("JOURNAL_WRITE_FAILED");
    expect(stopped.error?.message).toMatch(/^Run oom stopped: Redis refused an append to run oom: OOM/);
    const made = keys.length;
    expect(made).toBeGreaterThanOrEqual(4);
    expect(made).toBeLessThan(10);
    const resumed = await yard.run(sweep, { durable: { id: "oom" } });
    expect(resumed.output).toBe(55);
    // Calls 1-3 were journaled before Redis filled up: never made again; a later one made again
    // carries the key of its first try.
    expect(keys.slice(0, 3)).toEqual(["oom:1", "oom:2", "oom:3"]);
    expect(keys.filter((key) => ["oom:1", "oom:2", "oom:3"].includes(key))).toHaveLength(3);
    expect(new Set(keys)).toEqual(new Set(Array.from({ length: 10 }, (_, n) => `oom:${n + 1}`)));
    expect(keys.length).toBeLessThanOrEqual(10 + (made - 3));
  });
});
