// The file store: the RunJournal contract (run-journal-contract.ts, shared with the Redis store),
// then what only files have: a torn last line, a lock left by a dead process, journals and answer
// folders planted as symbolic links, a file grown past the cap. Real files, real isolates.

import { spawn, spawnSync } from "node:child_process";
import {
  appendFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { readdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { FileRunJournal } from "../../src/durable/file-run-journal.js";
import { hashInput } from "../../src/durable/hash-input.js";
import { summarizeJournal } from "../../src/durable/summarize-journal.js";
import type { Switchyard } from "../../src/switchyard.js";
import { createBlobYard, describeRunJournalContract } from "./run-journal-contract.js";

const root = mkdtempSync(join(tmpdir(), "durable-store-"));
const yards: Switchyard[] = [];
afterAll(async () => {
  await Promise.all(yards.map((yard) => yard.close()));
  rmSync(root, { recursive: true, force: true });
});

let folders = 0;
function createStore(options: { maxRunBytes?: number; maxInlineAnswerBytes?: number } = {}): FileRunJournal {
  return new FileRunJournal({ folder: join(root, `store-${++folders}`), ...options });
}

function createYard(store: FileRunJournal, bytes = 10) {
  const created = createBlobYard(store, bytes);
  yards.push(created.yard);
  return created;
}

const THREE = `const out = []; for (let n = 0; n < 3; n++) out.push((await tools.data.blob({ n })).text.length); return out;`;

describeRunJournalContract("FileRunJournal", {
  create: (options = {}) => createStore(options),
  rawEntries: async (store, id) =>
    readFileSync(join((store as FileRunJournal).folder, `${id}.jsonl`), "utf8")
      .split("\n")
      .slice(0, -1),
  writeRawEntries: async (store, id, entries) =>
    writeFileSync(join((store as FileRunJournal).folder, `${id}.jsonl`), entries.map((entry) => `${entry}\n`).join("")),
  isEmpty: async (store) => !existsSync((store as FileRunJournal).folder),
});

describe("the file journal store", () => {
  it("tolerates a torn last line, and cuts it before appending after it", async () => {
    const store = createStore();
    const first = createYard(store);
    await first.yard.run(THREE, { durable: { id: "torn" } });
    const path = join(store.folder, "torn.jsonl");
    const text = readFileSync(path, "utf8");
    const lines = text.split("\n").filter((line) => line !== "");
    // Crash in the middle of writing the crossing that answers the third call: its line is half there.
    const third = lines.findIndex((line) => line.includes('"i":2,'));
    expect(third).toBeGreaterThan(0);
    const torn = `${lines.slice(0, third).join("\n")}\n${lines[third]!.slice(0, 40)}`;
    writeFileSync(path, torn);
    // A resume that appends nothing (its program changed: it diverges) leaves the file as it was,
    // torn bytes and all; before, every open cut them.
    const changed = await createYard(store).yard.run(THREE.replace("n < 3", "n < 4").replace("{ n }", "{ n: n + 1 }"), {
      durable: { id: "torn" },
    });
    expect(changed.error?.code).toBe("REPLAY_DIVERGED");
    expect(readFileSync(path, "utf8")).toBe(torn);
    const again = createYard(store);
    const result = await again.yard.run(THREE, { durable: { id: "torn" } });
    expect(result.output).toEqual([10, 10, 10]);
    expect(again.calls()).toBe(1);
    const journal = await store.read("torn");
    expect(journal?.entries.at(-1)).toMatchObject({ t: "end", ok: true });
  });

  it("refuses an answers folder planted as a symbolic link instead of writing answers through it", async () => {
    const store = new FileRunJournal({ folder: join(root, "spill-linked"), maxInlineAnswerBytes: 1_000 });
    const { yard } = createYard(store, 50_000);
    await yard.run("return 1;", { durable: { id: "first" } });
    const outside = mkdtempSync(join(root, "outside-"));
    writeFileSync(join(outside, "0.json"), "keep");
    symlinkSync(outside, join(store.folder, "linked.answers"));
    const result = await yard.run(THREE, { durable: { id: "linked" } });
    expect(result.ok).toBe(false);
    expect(result.error?.code).toBe("JOURNAL_INVALID");
    expect(await readdir(outside)).toEqual(["0.json"]);
    expect(readFileSync(join(outside, "0.json"), "utf8")).toBe("keep");
  });

  it("takes over the lock of a process that no longer exists", async () => {
    const store = createStore();
    const { yard } = createYard(store);
    await yard.run("return 1;", { durable: { id: "busy" } });
    // A lock left by a process that no longer exists (a SIGKILLed worker) is stale.
    const dead = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"]).stdout.toString();
    writeFileSync(join(store.folder, "busy.lock"), dead);
    const third = await yard.run(`await sleep(300); return 1;`, { durable: { id: "busy" } });
    expect(third.output).toBe(1);
  });

  // Attack: several processes resume one run at the same moment (two workers handed the same job,
  // a person's `runs resume` beside a supervisor's), with a dead writer's lock in place or none.
  // Before, a lock read before its pid was written counted as stale, and taking over a stale lock
  // was read-check-unlink: 2 to 4 of 6 processes held the run at once, and an approved refund ran twice.
  it.each([
    ["no lock", false],
    ["a dead writer's lock", true],
  ])(
    "lets one of 8 processes opening a run at once hold it, with %s in place",
    async (_label, stale) => {
      const store = createStore();
      const { yard } = createYard(store);
      await yard.run("return 1;", { durable: { id: "raced" } });
      const child = fileURLToPath(new URL("./fixtures/lock-child.ts", import.meta.url));
      for (let round = 0; round < 3; round++) {
        if (stale) {
          const dead = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"]).stdout;
          writeFileSync(join(store.folder, "raced.lock"), dead.toString());
        }
        // A real barrier: every process is loaded (READY) before any is told the start time.
        const children = Array.from({ length: 8 }, () => {
          const started = spawn(
            process.execPath,
            ["--no-node-snapshot", "--import", import.meta.resolve("tsx"), child, store.folder, "raced"],
            { stdio: ["pipe", "pipe", "inherit"] },
          );
          let out = "";
          const ready = new Promise<void>((resolve) => {
            started.stdout.on("data", (chunk: Buffer) => {
              out += chunk.toString();
              if (out.startsWith("READY\n")) resolve();
            });
          });
          const outcome = new Promise<string>((resolve) =>
            started.on("close", () => resolve(out.replace("READY\n", ""))),
          );
          return { started, ready, outcome };
        });
        await Promise.all(children.map((one) => one.ready));
        const startAt = String(Date.now() + 200);
        for (const one of children) one.started.stdin.end(startAt);
        const outcomes = await Promise.all(children.map((one) => one.outcome));
        expect(outcomes.filter((outcome) => outcome === "GOT")).toHaveLength(1);
        expect(outcomes.filter((outcome) => outcome !== "GOT").every((outcome) => outcome === "RUN_BUSY")).toBe(true);
      }
      // Nothing of the lock is left once every holder is gone: no lock, no file set aside.
      expect((await readdir(store.folder)).filter((name) => name.includes(".lock"))).toEqual([]);
    },
    60_000,
  );

  // Attack: a FIFO, or a folder, planted under a journal's name. Before, opening the FIFO blocked
  // a libuv thread forever (SIGINT and SIGTERM could not end `switchyard runs list`), and the folder
  // made `runs approve` print a stack trace.
  it("refuses a FIFO or a folder under a journal's name as JOURNAL_INVALID at once, never blocking", async () => {
    const store = createStore();
    const { yard } = createYard(store);
    await yard.run("return 1;", { durable: { id: "first" } });
    expect(spawnSync("mkfifo", [join(store.folder, "piped.jsonl")]).status).toBe(0);
    mkdirSync(join(store.folder, "folder.jsonl"));
    for (const id of ["piped", "folder"]) {
      const result = await yard.run("return 1;", { durable: { id } });
      expect(result.error?.code).toBe("JOURNAL_INVALID");
      await expect(store.read(id)).rejects.toMatchObject({ code: "JOURNAL_INVALID" });
      await expect(store.readHeader(id)).rejects.toMatchObject({ code: "JOURNAL_INVALID" });
    }
    // Listed last, as damaged with the reason: a list without them would look like all there is.
    const listed = await store.list();
    expect(listed[0]).toMatchObject({ id: "first", state: "ended" });
    expect(listed.slice(1).map((run) => `${run.id} ${run.state}`)).toEqual(
      expect.arrayContaining(["folder damaged", "piped damaged"]),
    );
    expect(listed).toHaveLength(3);
    expect(listed.find((run) => run.id === "piped")?.message).toMatch(/piped/);
  });

  it("says so when the journal folder cannot be read, instead of listing no runs", async () => {
    const file = join(root, "not-a-folder");
    writeFileSync(file, "x");
    const store = new FileRunJournal({ folder: file });
    await expect(store.list()).rejects.toMatchObject({ code: "JOURNAL_INVALID" });
    await expect(store.open("any", undefined)).rejects.toMatchObject({ code: "JOURNAL_INVALID" });
  });

  it("refuses a journal planted as a symbolic link instead of writing through it", async () => {
    const store = createStore();
    const { yard } = createYard(store);
    await yard.run("return 1;", { durable: { id: "first" } });
    // A target whose last line has no newline: a store that cut a "torn" line through the link would shorten it.
    const target = join(root, "outside.txt");
    writeFileSync(target, "keep\nthis");
    symlinkSync(target, join(store.folder, "linked.jsonl"));
    const result = await yard.run("return 1;", { durable: { id: "linked" } });
    expect(result.ok).toBe(false);
    expect(result.error?.code).toBe("JOURNAL_INVALID");
    await expect(store.appendOutside("linked", [{ t: "end", at: 1, ok: true }])).rejects.toThrow();
    await expect(store.read("linked")).rejects.toMatchObject({ code: "JOURNAL_INVALID" });
    expect(readFileSync(target, "utf8")).toBe("keep\nthis");
  });

  it("refuses a journal over the store's cap before reading it, leaving it as it was", async () => {
    const store = createStore({ maxRunBytes: 4096 });
    const { yard } = createYard(store);
    await yard.run("return 1;", { durable: { id: "huge" } });
    const path = join(store.folder, "huge.jsonl");
    const huge = `${readFileSync(path, "utf8")}${"x".repeat(8192)}`;
    writeFileSync(path, huge);
    const result = await yard.run("return 1;", { durable: { id: "huge" } });
    expect(result.error?.code).toBe("JOURNAL_INVALID");
    expect(result.error?.message).toContain("over 4096");
    await expect(store.read("huge")).rejects.toMatchObject({ code: "JOURNAL_INVALID" });
    expect(readFileSync(path, "utf8")).toBe(huge);
  });

  it("prunes an expired journal by its header alone, though a later line is damaged", async () => {
    const store = createStore();
    const { yard } = createYard(store);
    await yard.run(THREE, { durable: { id: "old", retentionMs: 1 } });
    await yard.run(THREE, { durable: { id: "fresh", retentionMs: 60_000 } });
    // Damage after the header: read() refuses it, but its expiry is in the first line.
    appendFileSync(join(store.folder, "old.jsonl"), "not json\n");
    appendFileSync(join(store.folder, "fresh.jsonl"), "not json\n");
    await expect(store.read("old")).rejects.toMatchObject({ code: "JOURNAL_INVALID" });
    expect((await store.readHeader("old"))?.source).toBe(THREE);
    expect(await store.prune(Date.now() + 10)).toEqual(["old"]);
    expect(existsSync(join(store.folder, "old.jsonl"))).toBe(false);
    expect(existsSync(join(store.folder, "fresh.jsonl"))).toBe(true);
  });

  it("summarizes a resumed run: calls journaled and replayed, resumes, program hash, last error", async () => {
    const store = createStore();
    const { yard, calls } = createYard(store);
    const failing = `${THREE.replace("return out;", "")} throw new Error("page 3 was empty");`;
    const first = await yard.run(failing, { durable: { id: "summed" } });
    expect(first.error?.code).toBe("RUNTIME_ERROR");
    // A crash once the second call's answer was journaled: the header and the crossings up to it are left
    // (one crossing per call, or two when an answer came through a wait).
    const path = join(store.folder, "summed.jsonl");
    const lines = readFileSync(path, "utf8")
      .split("\n")
      .filter((line) => line !== "");
    const second = lines.findIndex((line) => line.includes('"i":1,'));
    writeFileSync(path, `${lines.slice(0, second + 1).join("\n")}\n`);
    const before = calls();
    await yard.run(failing, { durable: { id: "summed" } });
    expect(calls() - before).toBe(1);
    const journal = await store.read("summed");
    const summary = summarizeJournal(journal!);
    expect(summary).toMatchObject({
      state: "ended",
      calls: 3,
      replayedCalls: 2,
      resumes: 1,
      ok: false,
      code: "RUNTIME_ERROR",
      programHash: hashInput(failing),
    });
    expect(summary.message).toContain("page 3 was empty");
  });

  it("replays a journal larger than one chunk, chunk after chunk, and goes live where it was cut", async () => {
    const store = createStore();
    // 30 answers of 100 KB: a chunk carries about 1 MB, so the replay takes several.
    const { yard, calls } = createYard(store, 100_000);
    const source =
      "let total = 0; for (let n = 0; n < 30; n++) total += (await tools.data.blob({ n })).text.length; return total;";
    const first = await yard.run(source, { durable: { id: "chunked" } });
    expect(first.output).toBe(3_000_000);
    // Each answer is over the inline limit: stored apart, read back whole for the replay.
    expect((await readdir(store.spillFolderOf("chunked"))).length).toBe(30);
    const path = join(store.folder, "chunked.jsonl");
    const lines = readFileSync(path, "utf8")
      .split("\n")
      .filter((line) => line !== "");
    // A crash once the 25th answer was journaled: the header and the crossings up to it are left.
    const last = lines.findIndex((line) => line.includes('"i":24,'));
    writeFileSync(path, `${lines.slice(0, last + 1).join("\n")}\n`);
    const before = calls();
    const resumed = await yard.run(source, { durable: { id: "chunked" } });
    expect(resumed.ok, resumed.error?.message).toBe(true);
    expect(resumed.output).toBe(3_000_000);
    expect(calls() - before).toBe(5);
    expect(resumed.calls.map((call) => call.replayed === true)).toEqual([
      ...Array.from({ length: 25 }, () => true),
      ...Array.from({ length: 5 }, () => false),
    ]);
  });
});
