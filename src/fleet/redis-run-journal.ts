// The fleet's journal store: durable runs' journals in Redis, so a job retried on another worker
// replays what the first one journaled. One list per run (the header, then one JSON entry per
// element), large answers in a hash beside it, a byte counter, and a lease: one writer per run,
// every append fenced by the lease in one Lua script, a lease left by a killed worker lapses.
// Loss window: an append is written to the connection before its answer reaches the program, so
// a SIGKILLed worker loses nothing the kernel had sent; what Redis acknowledged is as durable as
// its own persistence (AOF/RDB). Redis Cluster is not supported (scripts span a run and the index).

import { randomUUID } from "node:crypto";
import type { Redis } from "ioredis";
import { JournalError } from "../durable/journal-error.js";
import { decodeJournalText } from "../durable/journal-lines.js";
import { DEFAULT_MAX_INLINE_ANSWER_BYTES, storeOption } from "../durable/journal-store-options.js";
import { checkRunId } from "../durable/run-id.js";
import { summarizeRuns } from "../durable/summarize-journal.js";
import type {
  JournalEntry,
  JournalHeader,
  JournalWriter,
  OpenedJournal,
  RunJournal,
  RunSummary,
  StoredJournal,
} from "../durable/run-journal.js";
import { messageOf } from "../errors.js";

/** Options of the Redis store; every size in bytes, every time in ms. */
export interface RedisRunJournalOptions {
  /** Prefix of every key the store writes. Default `switchyard:runs`. */
  readonly prefix?: string | undefined;
  /** Bytes one run's journal may take, large answers included. Default 64 MB; past it the run ends `JOURNAL_LIMIT`. */
  readonly maxRunBytes?: number | undefined;
  /** An answer larger than this is kept apart, by reference. Default 64 KB. */
  readonly maxInlineAnswerBytes?: number | undefined;
  /**
   * How long a writer's lease lasts without renewal (it is renewed every third of it). A writer
   * that dies holds its run this long at most. Default 30 000.
   */
  readonly leaseMs?: number | undefined;
  /** How long `open` waits for another writer's lease to end before `RUN_BUSY`. Default 0. */
  readonly acquireWaitMs?: number | undefined;
}

// Keys: <prefix>:<id>:journal (list), :answers (hash), :bytes (counter), :lease (token), and one
// index, <prefix>:index, a sorted set of run ids by expiry for `list` and `prune`. Run ids are
// checked by checkRunId (letters, digits, `.`, `-`, `_`), so a key never holds `*`, `{` or `:`,
// and no command of this store takes a key pattern.

// Every script that writes checks the lease first: a writer whose lease another writer holds
// writes nothing. Data keys expire at the run's expiry, or later while a writer holds it (set at
// open, each renewal and each spill; an append keeps them, and it is the one that runs per call).
// Writer scripts take ARGV id, token, leaseMs, keepUntil, the run's size as this writer last made
// it, then their own arguments.
const WRITER = `
local function expireData(keepUntil)
  local at = math.max(tonumber(redis.call('ZSCORE', KEYS[5], ARGV[1]) or '0'), tonumber(keepUntil))
  redis.call('PEXPIREAT', KEYS[1], at)
  redis.call('PEXPIREAT', KEYS[2], at)
  redis.call('PEXPIREAT', KEYS[3], at)
end
local function holdsLease()
  local holder = redis.call('GET', KEYS[4])
  if holder == ARGV[2] then return true end
  if holder then return false end
  -- The lease lapsed (a renewal came late: a busy event loop) and nobody holds the run. It is
  -- still this writer's if nobody wrote since: the run's size is what this writer made it.
  if tonumber(redis.call('GET', KEYS[3]) or '-1') ~= tonumber(ARGV[5]) then return false end
  redis.call('SET', KEYS[4], ARGV[2], 'PX', ARGV[3])
  return true
end`;

// The run's list and its counter, in one reply: {bytes, lines}, or {code} when there is no list
// (-3), a key of another type (-5), no counter or one that is not a number (-4), or a counter or list over the cap (-2). A
// list written around this store (its counter lying) is measured here, chunk by chunk, and never
// sent to a reader past the cap.
const READER = `
local function readJournal(cap)
  local kind = redis.call('TYPE', KEYS[1]).ok
  if kind == 'none' then return {-3} end
  if kind ~= 'list' then return {-5} end
  if redis.call('TYPE', KEYS[3]).ok ~= 'string' then return {-4} end
  local bytes = tonumber(redis.call('GET', KEYS[3]))
  if bytes == nil or bytes < 0 then return {-4} end
  if bytes > cap then return {-2, bytes} end
  local lines, listed, at = {}, 0, 0
  repeat
    local chunk = redis.call('LRANGE', KEYS[1], at, at + 999)
    for _, line in ipairs(chunk) do
      listed = listed + #line + 1
      lines[#lines + 1] = line
    end
    if listed > cap then return {-2, listed} end
    at = at + 1000
  until #chunk < 1000
  return {bytes, lines}
end`;

// KEYS as OPEN; ARGV maxRunBytes
const READ = `${READER}
return readJournal(tonumber(ARGV[1]))`;

// KEYS as OPEN; ARGV maxRunBytes. The first element alone, measured in Redis: {bytes, {line}}, or
// {code} like READ. A huge first element is refused by its length, never sent.
const HEADER = `
local kind = redis.call('TYPE', KEYS[1]).ok
if kind == 'none' then return {-3} end
if kind ~= 'list' then return {-5} end
local first = redis.call('LINDEX', KEYS[1], 0)
if not first then return {-3} end
if #first + 1 > tonumber(ARGV[1]) then return {-2, #first + 1} end
return {#first + 1, {first}}`;

// KEYS as OPEN; ARGV maxRunBytes, field. One answer kept apart, measured in Redis (HSTRLEN) before
// it is read: {bytes, {envelope}}, or {code} like READ (-3: no such answer).
const SPILLED = `
local kind = redis.call('TYPE', KEYS[2]).ok
if kind == 'none' then return {-3} end
if kind ~= 'hash' then return {-5} end
local size = redis.call('HSTRLEN', KEYS[2], ARGV[2])
if size > tonumber(ARGV[1]) then return {-2, size} end
local envelope = redis.call('HGET', KEYS[2], ARGV[2])
if not envelope then return {-3} end
return {size, {envelope}}`;

// KEYS index; ARGV from, count, maxScore. One page of the index by rank: {next, ids}, with only
// members that can be run ids (at most 128 bytes of the run-id alphabet): a planted member of
// 100 MB or holding a key pattern never leaves Redis. next is -1 after the last page.
const IDS = `
if redis.call('TYPE', KEYS[1]).ok ~= 'zset' and redis.call('EXISTS', KEYS[1]) == 1 then return {-5} end
local from, count = tonumber(ARGV[1]), tonumber(ARGV[2])
local page = redis.call('ZRANGE', KEYS[1], from, from + count - 1, 'WITHSCORES')
local ids = {}
for at = 1, #page, 2 do
  if tonumber(page[at + 1]) > tonumber(ARGV[3]) then return {-1, ids} end
  local id = page[at]
  if #id <= 128 and string.match(id, '^[A-Za-z0-9][A-Za-z0-9._-]*$') and not string.find(id, '..', 1, true) then
    ids[#ids + 1] = id
  end
end
if #page < 2 * count then return {-1, ids} end
return {from + count, ids}`;

// KEYS journal answers bytes lease index; ARGV id token leaseMs keepUntil header expiresAt maxRunBytes.
// Replies like READ, or {-1} when another writer holds the run; the lease is taken only on success.
const OPEN = `${WRITER}
${READER}
if not redis.call('SET', KEYS[4], ARGV[2], 'NX', 'PX', ARGV[3]) then return {-1} end
if redis.call('TYPE', KEYS[1]).ok == 'none' then
  if ARGV[5] == '' then redis.call('DEL', KEYS[4]) return {-3} end
  redis.call('DEL', KEYS[2])
  redis.call('RPUSH', KEYS[1], ARGV[5])
  redis.call('SET', KEYS[3], #ARGV[5] + 1)
  redis.call('ZADD', KEYS[5], ARGV[6], ARGV[1])
end
local journal = readJournal(tonumber(ARGV[7]))
if journal[1] < 0 then redis.call('DEL', KEYS[4]) return journal end
expireData(ARGV[4])
return journal`;

// Writer ARGV, then maxRunBytes, line...
const APPEND = `${WRITER}
if not holdsLease() then return -1 end
if redis.call('LLEN', KEYS[1]) == 0 then return -3 end
local added = 0
for i = 7, #ARGV do added = added + #ARGV[i] + 1 end
local bytes = tonumber(redis.call('GET', KEYS[3]) or '0') + added
if bytes > tonumber(ARGV[6]) then return -2 end
redis.call('RPUSH', KEYS[1], unpack(ARGV, 7))
redis.call('SET', KEYS[3], bytes, 'KEEPTTL')
return bytes`;

// Writer ARGV, then maxRunBytes, field, envelope
const SPILL = `${WRITER}
if not holdsLease() then return -1 end
if redis.call('LLEN', KEYS[1]) == 0 then return -3 end
local bytes = tonumber(redis.call('GET', KEYS[3]) or '0') + #ARGV[8]
if bytes > tonumber(ARGV[6]) then return -2 end
redis.call('HSET', KEYS[2], ARGV[7], ARGV[8])
redis.call('SET', KEYS[3], bytes, 'KEEPTTL')
expireData(ARGV[4])
return bytes`;

// Writer ARGV, then release (1|0)
const RENEW = `${WRITER}
if not holdsLease() then return -1 end
expireData(ARGV[4])
if ARGV[6] == '1' then redis.call('DEL', KEYS[4]) else redis.call('PEXPIRE', KEYS[4], ARGV[3]) end
return 0`;

// KEYS as OPEN; ARGV id nowMs. A run under a live lease is kept, whatever its expiry.
const PRUNE = `
if redis.call('EXISTS', KEYS[4]) == 1 then return 0 end
local at = tonumber(redis.call('ZSCORE', KEYS[5], ARGV[1]))
if at == nil or at > tonumber(ARGV[2]) then return 0 end
redis.call('DEL', KEYS[1], KEYS[2], KEYS[3])
redis.call('ZREM', KEYS[5], ARGV[1])
return 1`;

// Writer ARGV, then keepEntries. Drops the entries from keepEntries on and sets the counter to
// what is left (answers kept apart stay counted: a retry writes them again).
const TRUNCATE = `${WRITER}
if not holdsLease() then return -1 end
redis.call('LTRIM', KEYS[1], 0, tonumber(ARGV[6]) - 1)
local bytes = 0
for _, entry in ipairs(redis.call('LRANGE', KEYS[1], 0, -1)) do bytes = bytes + #entry + 1 end
for _, answer in ipairs(redis.call('HVALS', KEYS[2])) do bytes = bytes + #answer end
redis.call('SET', KEYS[3], bytes)
expireData(ARGV[4])
return bytes`;

const SCRIPTS = {
  switchyardJournalHeader: HEADER,
  switchyardJournalSpilled: SPILLED,
  switchyardJournalTruncate: TRUNCATE,
  switchyardJournalOpen: OPEN,
  switchyardJournalRead: READ,
  switchyardJournalAppend: APPEND,
  switchyardJournalSpill: SPILL,
  switchyardJournalRenew: RENEW,
  switchyardJournalPrune: PRUNE,
} as const;
type ScriptName = keyof typeof SCRIPTS;
type ScriptCall = (...args: (string | number)[]) => Promise<number>;
/** A READ or OPEN reply: `[bytes, lines]`, or `[code]` / `[code, bytes]` when negative. */
type JournalReply = [number, (string[] | number)?];

const LEASE_LOST = -1;
const OVER_CAP = -2;
const NO_JOURNAL = -3;
const NO_COUNTER = -4;
// A key of another type than the script reads: the list, the answers hash or the index zset.
const WRONG_TYPE = -5;
const ACQUIRE_POLL_MS = 100;
// Run ids one page of the index holds; a page is at most this many ids of 128 bytes.
const IDS_PAGE = 1_000;

/** Journals in Redis; see the module comment. Shares the caller's ioredis connection. */
export class RedisRunJournal implements RunJournal {
  readonly client: Redis;
  readonly prefix: string;
  readonly maxRunBytes: number;
  readonly maxInlineAnswerBytes: number;
  readonly leaseMs: number;
  readonly acquireWaitMs: number;
  #loaded: Promise<unknown> | undefined;

  constructor(client: Redis, options: RedisRunJournalOptions = {}) {
    this.client = client;
    this.prefix = options.prefix ?? "switchyard:runs";
    this.maxRunBytes = storeOption("maxRunBytes", options.maxRunBytes, 64 * 1024 * 1024);
    this.maxInlineAnswerBytes = storeOption(
      "maxInlineAnswerBytes",
      options.maxInlineAnswerBytes,
      DEFAULT_MAX_INLINE_ANSWER_BYTES,
    );
    // Redis refuses an expiry of 0 ms.
    this.leaseMs = storeOption("leaseMs", options.leaseMs, 30_000, 1);
    this.acquireWaitMs = storeOption("acquireWaitMs", options.acquireWaitMs, 0);
    for (const [name, lua] of Object.entries(SCRIPTS)) {
      if (!(name in client)) client.defineCommand(name, { numberOfKeys: 5, lua });
    }
    if (!("switchyardJournalIds" in client))
      client.defineCommand("switchyardJournalIds", { numberOfKeys: 1, lua: IDS });
  }

  async read(id: string): Promise<StoredJournal | undefined> {
    const reply = await this.#journalScript("switchyardJournalRead", ...this.keysOf(id), this.maxRunBytes);
    if (reply[0] === NO_JOURNAL) return undefined;
    return this.#decode(id, ...journalOf(id, reply, this.maxRunBytes));
  }

  async readHeader(id: string): Promise<JournalHeader | undefined> {
    const reply = await this.#journalScript("switchyardJournalHeader", ...this.keysOf(id), this.maxRunBytes);
    if (reply[0] === NO_JOURNAL) return undefined;
    const [bytes, [first]] = journalOf(id, reply, this.maxRunBytes);
    return this.#decode(id, bytes, [first!]).header;
  }

  /** A journal from its list's elements and its counter. Throws `JOURNAL_INVALID`. */
  #decode(id: string, counted: number, lines: readonly string[]): StoredJournal {
    // Redis appends whole elements, so nothing is torn: every element, the last too, must be
    // one complete entry. A newline inside one would shift the line numbers of the rest.
    let text = "";
    for (const [at, line] of lines.entries()) {
      if (line.includes("\n"))
        throw new JournalError("JOURNAL_INVALID", `The journal of run ${id} is damaged at line ${at + 1}: a newline.`);
      text += `${line}\n`;
    }
    const { journal } = decodeJournalText(id, text);
    return { ...journal, bytes: counted };
  }

  async readSpilled(id: string, ref: string): Promise<string> {
    if (!/^\d{1,10}$/.test(ref))
      throw new JournalError("JOURNAL_INVALID", `Run ${id} names a spilled answer "${ref.slice(0, 20)}".`);
    const reply = await this.#journalScript("switchyardJournalSpilled", ...this.keysOf(id), this.maxRunBytes, ref);
    if (reply[0] === NO_JOURNAL)
      throw new JournalError("JOURNAL_INVALID", `The spilled answer ${ref} of run ${id} is missing.`);
    if (reply[0] === WRONG_TYPE)
      throw new JournalError("JOURNAL_INVALID", `The answers key of run ${id} holds something other than a hash.`);
    return journalOf(id, reply, this.maxRunBytes)[1][0]!;
  }

  async open(id: string, header: JournalHeader | undefined): Promise<OpenedJournal> {
    const keys = this.keysOf(id);
    // ioredis sends a defined script as EVALSHA and, on NOSCRIPT, once more as EVAL after a round
    // trip: an append in that gap would be lost to a SIGKILL after its answer reached the program.
    this.#loaded ??= Promise.all(Object.values(SCRIPTS).map((lua) => this.client.script("LOAD", lua))).catch(
      (error: unknown) => {
        this.#loaded = undefined;
        throw error;
      },
    );
    await this.#loaded;
    const token = randomUUID();
    const headerLine = header === undefined ? "" : JSON.stringify(header);
    const giveUpAt = Date.now() + this.acquireWaitMs;
    for (;;) {
      // The lease and the one read of the journal in one script: nobody appends between this read
      // and the replay.
      const reply = await this.#journalScript(
        "switchyardJournalOpen",
        ...keys,
        id,
        token,
        this.leaseMs,
        this.keepUntil(),
        headerLine,
        header?.expiresAt ?? 0,
        this.maxRunBytes,
      );
      if (reply[0] === NO_JOURNAL)
        throw new JournalError("JOURNAL_INVALID", `Run ${id} has no journal.`, { missing: true });
      if (reply[0] !== LEASE_LOST) {
        // A refused journal left no lease behind; one read whole is this writer's now.
        const [bytes, lines] = journalOf(id, reply, this.maxRunBytes);
        const writer = new RedisJournalWriter(this, id, token, bytes);
        try {
          return { writer, journal: this.#decode(id, bytes, lines) };
        } catch (error) {
          await writer.close();
          throw error;
        }
      }
      if (Date.now() >= giveUpAt)
        throw new JournalError("RUN_BUSY", `Run ${id} is being run by another writer; wait for it to end or pause.`);
      await new Promise((resolve) => setTimeout(resolve, ACQUIRE_POLL_MS));
    }
  }

  async appendOutside(id: string, entries: readonly JournalEntry[]): Promise<void> {
    const { writer } = await this.open(id, undefined);
    let refused: JournalError | undefined;
    writer.onRefused?.((error) => {
      refused = error;
    });
    const appended = writer.append(entries);
    await writer.close();
    if (refused !== undefined) throw refused;
    if (!appended) throw new JournalError("JOURNAL_LIMIT", `The journal of run ${id} is full.`);
  }

  async list(): Promise<RunSummary[]> {
    const ids: string[] = [];
    for (let from = 0; from >= 0; ) {
      const [next, page] = await this.#idsPage(from, Number.MAX_SAFE_INTEGER);
      ids.push(...page);
      from = next;
    }
    return summarizeRuns(ids, (id) => this.read(id));
  }

  /**
   * Deletes the runs expired at `nowMs` that no writer holds, and their index entries. Redis
   * deletes an expired journal by itself (its keys carry the run's expiry); `prune` also drops
   * the index entry of one already gone, and reports it.
   */
  async prune(nowMs: number = Date.now()): Promise<string[]> {
    const pruned: string[] = [];
    for (let from = 0; from >= 0; ) {
      const [next, page] = await this.#idsPage(from, nowMs);
      let gone = 0;
      for (const id of page) {
        if ((await this.script("switchyardJournalPrune")(...this.keysOf(id), id, nowMs)) !== 1) continue;
        pruned.push(id);
        gone++;
      }
      // The ones pruned left the index: the next page starts that many ranks earlier.
      from = next < 0 ? next : next - gone;
    }
    return pruned;
  }

  /** One page of the index from rank `from`, scores up to `maxScore`: [next rank or -1, run ids]. */
  async #idsPage(from: number, maxScore: number): Promise<[number, string[]]> {
    const ids = (this.client as unknown as Record<string, (...args: (string | number)[]) => Promise<JournalReply>>)
      .switchyardJournalIds!;
    const reply = await this.#refusingWrongType(() => ids.call(this.client, this.indexKey, from, IDS_PAGE, maxScore));
    if (reply[0] === WRONG_TYPE)
      throw new JournalError(
        "JOURNAL_INVALID",
        `The index of runs ${this.indexKey} holds something other than a sorted set.`,
      );
    return [reply[0], Array.isArray(reply[1]) ? reply[1] : []];
  }

  /**
   * Keeps the first `keepOf(journal)` entries of run `id`'s journal (the header counts as one) and
   * drops the rest, deciding from the journal as read under the run's lease, so nothing is read
   * twice and nothing appended between the read and the cut is lost: what a retry must not replay
   * (a transient failure's answer, the end of the failed run). `keepOf` returns undefined to keep
   * everything. Rejects like `open`. Not part of the RunJournal contract.
   */
  async truncate(id: string, keepOf: (journal: StoredJournal) => number | undefined): Promise<void> {
    const { writer, journal } = await this.open(id, undefined);
    try {
      const keepEntries = keepOf(journal);
      if (keepEntries === undefined) return;
      if (!Number.isSafeInteger(keepEntries) || keepEntries < 1)
        throw new JournalError("JOURNAL_INVALID", `A journal keeps at least its header, not ${keepEntries} entries.`);
      const reply = await this.script("switchyardJournalTruncate")(
        ...(writer as RedisJournalWriter).args(),
        keepEntries,
      );
      if (reply < 0) throw new JournalError("RUN_BUSY", `Run ${id} lost its lease while it was cut back.`);
    } finally {
      await writer.close();
    }
  }

  /** The keys of run `id`, in the order the scripts take them. Throws `OPTION_INVALID` for a bad id. */
  keysOf(id: string): [string, string, string, string, string] {
    const base = `${this.prefix}:${checkRunId(id)}`;
    return [`${base}:journal`, `${base}:answers`, `${base}:bytes`, `${base}:lease`, this.indexKey];
  }

  /** A run's data is kept at least this long past now while a writer holds it. */
  keepUntil(): number {
    return Date.now() + 2 * this.leaseMs;
  }

  /** Runs READ, OPEN, HEADER or SPILLED (see JournalReply). */
  #journalScript(
    name: "switchyardJournalRead" | "switchyardJournalOpen" | "switchyardJournalHeader" | "switchyardJournalSpilled",
    ...args: (string | number)[]
  ): Promise<JournalReply> {
    const call = (
      this.client as unknown as Record<ScriptName, (...args: (string | number)[]) => Promise<JournalReply>>
    )[name];
    return this.#refusingWrongType(() => call.apply(this.client, args));
  }

  /**
   * `work`, with Redis's refusal of a key of the wrong type (a counter or lease key planted as a
   * list, an index that is a string) as `JOURNAL_INVALID` rather than a ReplyError.
   */
  async #refusingWrongType<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (!isReplyError(error)) throw error;
      throw new JournalError(
        "JOURNAL_INVALID",
        `Redis refused to read a run's keys under ${this.prefix}: ${messageOf(error).slice(0, 200)}`,
      );
    }
  }

  /** One of the store's scripts, bound to its connection. */
  script(name: ScriptName): ScriptCall {
    const call = (this.client as unknown as Record<ScriptName, ScriptCall>)[name];
    return (...args) => call.apply(this.client, args).then(Number);
  }

  get indexKey(): string {
    return `${this.prefix}:index`;
  }
}

/** Whether `error` is Redis's own refusal of a command (WRONGTYPE, a script's error), not a lost connection. */
function isReplyError(error: unknown): boolean {
  return error instanceof Error && error.name === "ReplyError";
}

/** The counter and the elements of a READ or OPEN reply that holds a journal. Throws `JOURNAL_INVALID`. */
function journalOf(id: string, [bytes, lines]: JournalReply, maxRunBytes: number): [number, string[]] {
  if (bytes === NO_COUNTER)
    throw new JournalError("JOURNAL_INVALID", `The journal of run ${id} has lost its size counter.`);
  if (bytes === WRONG_TYPE)
    throw new JournalError("JOURNAL_INVALID", `The journal key of run ${id} holds something other than a list.`);
  if (bytes < 0 || !Array.isArray(lines))
    throw new JournalError("JOURNAL_INVALID", `The journal of run ${id} is ${lines} bytes, over ${maxRunBytes}.`);
  return [bytes, lines];
}

/**
 * Appends to one run's list under its lease. Commands go out on one connection in order, so the
 * journal holds entries in the order `append` accepted them; `flush` waits for their replies.
 */
class RedisJournalWriter implements JournalWriter {
  readonly #store: RedisRunJournal;
  readonly #id: string;
  /** The lease's token: what every script of this writer proves it holds. */
  readonly #token: string;
  readonly #keys: [string, string, string, string, string];
  /** The run's size once every command sent so far has run: what the lease's re-take checks. */
  #bytes: number;
  #open = true;
  #refusal: JournalError | undefined;
  readonly #listeners: ((error: JournalError) => void)[] = [];
  #replies: Promise<void> = Promise.resolve();
  readonly #renewal: NodeJS.Timeout;

  constructor(store: RedisRunJournal, id: string, token: string, bytes: number) {
    this.#store = store;
    this.#id = id;
    this.#token = token;
    this.#keys = store.keysOf(id);
    this.#bytes = bytes;
    this.#renewal = setInterval(() => this.#renew(false), Math.max(10, Math.floor(store.leaseMs / 3)));
    this.#renewal.unref();
  }

  append(entries: readonly JournalEntry[]): boolean {
    if (!this.#open || this.#refusal !== undefined) return false;
    if (entries.length === 0) return true;
    const lines = entries.map((entry) => JSON.stringify(entry));
    let added = 0;
    for (const line of lines) added += Buffer.byteLength(line) + 1;
    if (this.#bytes + added > this.#store.maxRunBytes) return false;
    this.#send("switchyardJournalAppend", lines);
    this.#bytes += added;
    return true;
  }

  spill(index: number, envelope: string): string | undefined {
    const bytes = Buffer.byteLength(envelope);
    if (!this.#open || this.#refusal !== undefined || bytes <= this.#store.maxInlineAnswerBytes) return undefined;
    if (this.#bytes + bytes > this.#store.maxRunBytes) throw new JournalError("JOURNAL_LIMIT", "full");
    const ref = `${index}`;
    this.#send("switchyardJournalSpill", [ref, envelope]);
    this.#bytes += bytes;
    return ref;
  }

  flush(): Promise<void> {
    return this.#replies;
  }

  async close(): Promise<void> {
    if (!this.#open) return this.#replies;
    this.#open = false;
    clearInterval(this.#renewal);
    // The release goes out behind the appends on the one connection, so Redis runs it after
    // them: one round trip to close, not one for the appends' replies and another to release.
    await Promise.all([this.#replies, this.#renew(true)]);
  }

  onRefused(listener: (error: JournalError) => void): void {
    if (this.#refusal !== undefined) listener(this.#refusal);
    else this.#listeners.push(listener);
  }

  /** Renews the lease (or releases it when `release`), refusing further appends if it was lost. */
  #renew(release: boolean): Promise<void> {
    const renewal = this.#store
      .script("switchyardJournalRenew")(...this.args(), release ? "1" : "0")
      .then(
        (reply) => {
          if (reply === LEASE_LOST && !release) this.#refuse(reply);
        },
        (error: unknown) => {
          if (!release) this.#refuse(error);
        },
      );
    return renewal;
  }

  /**
   * What every writer script takes first: the run's keys, then ARGV id, token, leaseMs, keepUntil,
   * and the run's size as the commands sent so far leave it.
   */
  args(): (string | number)[] {
    const store = this.#store;
    return [...this.#keys, this.#id, this.#token, store.leaseMs, store.keepUntil(), this.#bytes];
  }

  /** Sends writer script `name` with `args` after this writer's own; its reply refuses the writer if negative. */
  #send(name: "switchyardJournalAppend" | "switchyardJournalSpill", args: (string | number)[]): void {
    // Called per crossing: the script straight off the connection, without a wrapper per call.
    const client = this.#store.client as unknown as Record<
      ScriptName,
      (...args: (string | number)[]) => Promise<unknown>
    >;
    // A connection answers in order, so the last reply settles after every earlier one: waiting
    // for it is waiting for them all (each has its own handler for a refusal).
    this.#replies = client[name](...this.args(), this.#store.maxRunBytes, ...args).then(
      (result) => {
        if (Number(result) < 0) this.#refuse(Number(result));
      },
      (error: unknown) => this.#refuse(error),
    );
  }

  #refuse(reason: unknown): void {
    if (this.#refusal !== undefined) return;
    const id = this.#id;
    this.#refusal =
      reason === LEASE_LOST
        ? new JournalError("RUN_BUSY", `Run ${id} lost its lease (another writer may have taken it over).`)
        : reason === OVER_CAP
          ? new JournalError("JOURNAL_LIMIT", `The journal of run ${id} reached ${this.#store.maxRunBytes} bytes.`)
          : reason === NO_JOURNAL
            ? new JournalError("JOURNAL_INVALID", `The journal of run ${id} vanished from Redis.`)
            : new JournalError("JOURNAL_WRITE_FAILED", `Redis refused an append to run ${id}: ${messageOf(reason)}`);
    for (const listener of this.#listeners.splice(0)) listener(this.#refusal);
  }
}
