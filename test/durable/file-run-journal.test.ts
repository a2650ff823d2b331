// The file store under hostile and careless input: torn and damaged journals, run ids that try
// to leave the folder, results too large to keep inline, a run past its size cap, two writers
// of one run, a journal planted as a symbolic link, and retention. Real files, real isolates.

import { spawnSync } from "node:child_process";
import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { readdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { FileRunJournal } from "../../src/durable/file-run-journal.js";
import { hashInput } from "../../src/durable/hash-input.js";
import { summarizeJournal } from "../../src/durable/summarize-journal.js";
import { defineTool } from "../../src/registry/define-tool.js";
import { Switchyard } from "../../src/switchyard.js";

const root = mkdtempSync(join(tmpdir(), "durable-store-"));
const yards: Switchyard[] = [];
afterAll(async () => {
  await Promise.all(yards.map((yard) => yard.close()));
  rmSync(root, { recursive: true, force: true });
});

let folders = 0;
function createStore(options: { maxRunBytes?: number } = {}): FileRunJournal {
  return new FileRunJournal({ folder: join(root, `store-${++folders}`), ...options });
}

function createYard(store: FileRunJournal, bytes = 10) {
  let calls = 0;
  const blob = defineTool({
    name: "data.blob",
    description: "A result of a given size.",
    inputSchema: { type: "object", properties: { n: { type: "number" } } },
    execute: async (input: { n: number }) => {
      calls++;
      await new Promise((resolve) => setTimeout(resolve, 1));
      return { n: input.n, text: "x".repeat(bytes) };
    },
  });
  const yard = new Switchyard({
    tools: [blob],
    typeCheck: "off",
    runJournal: store,
    results: { maxProgramResultBytes: 1_000_000 },
  });
  yards.push(yard);
  return { yard, calls: () => calls };
}

const THREE = `const out = []; for (let n = 0; n < 3; n++) out.push((await tools.data.blob({ n })).text.length); return out;`;

describe("the file journal store", () => {
  it("tolerates a torn last line, and cuts it before appending after it", async () => {
    const store = createStore();
    const first = createYard(store);
    await first.yard.run(THREE, { durable: { id: "torn" } });
    const path = join(store.folder, "torn.jsonl");
    const text = readFileSync(path, "utf8");
    const lines = text.split("\n").filter((line) => line !== "");
    // Crash in the middle of writing the third crossing: its line is half there.
    writeFileSync(path, `${lines.slice(0, 3).join("\n")}\n${lines[3]!.slice(0, 40)}`);
    const again = createYard(store);
    const result = await again.yard.run(THREE, { durable: { id: "torn" } });
    expect(result.output).toEqual([10, 10, 10]);
    expect(again.calls()).toBe(1);
    const journal = await store.read("torn");
    expect(journal?.entries.at(-1)).toMatchObject({ t: "end", ok: true });
  });

  it("refuses a journal damaged anywhere but its last line, naming the line, and leaves it as it was", async () => {
    const store = createStore();
    const first = createYard(store);
    await first.yard.run(THREE, { durable: { id: "damaged" } });
    const path = join(store.folder, "damaged.jsonl");
    const lines = readFileSync(path, "utf8").split("\n");
    lines[2] = lines[2]!.replace('"kind"', '"kind":7,"x"');
    lines[1] = "{not json";
    const damaged = lines.join("\n");
    writeFileSync(path, damaged);
    await expect(store.read("damaged")).rejects.toThrow(/damaged at line 2: not JSON/);
    const again = createYard(store);
    const result = await again.yard.run(THREE, { durable: { id: "damaged" } });
    expect(result.error?.code).toBe("JOURNAL_INVALID");
    expect(result.error?.message).toMatch(/line 2/);
    expect(again.calls()).toBe(0);
    expect(readFileSync(path, "utf8")).toBe(damaged);
    // An entry of an unknown kind is refused the same way.
    writeFileSync(path, `${lines[0]}\n{"t":"surprise"}\n`);
    await expect(store.read("damaged")).rejects.toThrow(/line 2: not a journal entry/);
  });

  it("refuses a journal whose answer was edited to smuggle in an answer for another call", async () => {
    const store = createStore();
    const first = createYard(store);
    await first.yard.run(THREE, { durable: { id: "smuggled" } });
    const path = join(store.folder, "smuggled.jsonl");
    const text = readFileSync(path, "utf8");
    // The first answer, `0,{...}`, extended with an answer for index 7.
    const tampered = text.replace(/"e":"0,(\{[^"]*(?:\\"[^"]*)*\})"/, (_all, value: string) => `"e":"0,${value},7,1"`);
    expect(tampered).not.toBe(text);
    writeFileSync(path, tampered);
    const again = createYard(store);
    const result = await again.yard.run(THREE, { durable: { id: "smuggled" } });
    expect(result.error?.code).toBe("JOURNAL_INVALID");
    expect(again.calls()).toBe(0);
  });

  it.each(["../../etc", "../escape", "a/b", "..", "", ".hidden", "x".repeat(129), "nul\u0000byte", "semi;colon"])(
    "refuses the run id %j before any file is touched",
    async (id) => {
      const store = createStore();
      const { yard, calls } = createYard(store);
      await expect(yard.run(THREE, { durable: { id } })).rejects.toMatchObject({ code: "OPTION_INVALID" });
      await expect(store.read(id)).rejects.toMatchObject({ code: "OPTION_INVALID" });
      expect(calls()).toBe(0);
      expect(existsSync(store.folder)).toBe(false);
    },
  );

  it("ends a resume of a journal whose input was edited into text that is not JSON with JOURNAL_INVALID", async () => {
    const store = createStore();
    const { yard, calls } = createYard(store);
    await yard.run("return input;", { durable: { id: "edited-input" }, input: { n: 1 } });
    const path = join(store.folder, "edited-input.jsonl");
    const [header, ...rest] = readFileSync(path, "utf8").split("\n");
    const edited = JSON.stringify({ ...JSON.parse(header!), inputJson: "{" });
    writeFileSync(path, [edited, ...rest].join("\n"));
    const resumed = await yard.resume("edited-input");
    expect(resumed.ok).toBe(false);
    expect(resumed.error?.code).toBe("JOURNAL_INVALID");
    expect(calls()).toBe(0);
  });

  it("keeps a large result apart by reference and replays it whole", async () => {
    const store = new FileRunJournal({ folder: join(root, "spill"), maxInlineAnswerBytes: 1_000 });
    const first = createYard(store, 50_000);
    const original = await first.yard.run(THREE, { durable: { id: "large" } });
    expect(original.output).toEqual([50_000, 50_000, 50_000]);
    expect(readFileSync(join(store.folder, "large.jsonl"), "utf8").length).toBeLessThan(5_000);
    expect(await readdir(join(store.folder, "large.answers"))).toHaveLength(3);
    const again = createYard(store, 7);
    const replayed = await again.yard.run(THREE, { durable: { id: "large" } });
    expect(replayed.output).toEqual([50_000, 50_000, 50_000]);
    expect(again.calls()).toBe(0);
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

  it("ends a run whose journal would pass the store's cap with JOURNAL_LIMIT, keeping what was journaled", async () => {
    const store = createStore({ maxRunBytes: 40_000 });
    const { yard } = createYard(store, 15_000);
    const result = await yard.run(THREE, { durable: { id: "capped" } });
    expect(result.error?.code).toBe("JOURNAL_LIMIT");
    const journal = await store.read("capped");
    expect(journal!.bytes).toBeLessThanOrEqual(40_000);
  });

  it("refuses a second writer of a running run with RUN_BUSY, and takes over the lock of a dead process", async () => {
    const store = createStore();
    const slow = createYard(store);
    const running = slow.yard.run(`await sleep(300); return 1;`, { durable: { id: "busy" } });
    await new Promise((resolve) => setTimeout(resolve, 150));
    const second = await slow.yard.run(`return 2;`, { durable: { id: "busy" } });
    expect(second.error?.code).toBe("RUN_BUSY");
    expect((await running).output).toBe(1);
    // A lock left by a process that no longer exists (a SIGKILLed worker) is stale.
    const dead = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"]).stdout.toString();
    writeFileSync(join(store.folder, "busy.lock"), dead);
    const third = await slow.yard.run(`await sleep(300); return 1;`, { durable: { id: "busy" } });
    expect(third.output).toBe(1);
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

  it("lists runs with their state and prunes those past their expiry only", async () => {
    const store = createStore();
    const { yard } = createYard(store);
    await yard.run(THREE, { durable: { id: "keep", retentionMs: 60_000 } });
    await yard.run(THREE, { durable: { id: "drop", retentionMs: 1 } });
    const listed = await store.list();
    expect(listed.map((run) => [run.id, run.state, run.calls, run.ok])).toEqual(
      expect.arrayContaining([
        ["keep", "ended", 3, true],
        ["drop", "ended", 3, true],
      ]),
    );
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(await store.prune()).toEqual(["drop"]);
    expect((await store.list()).map((run) => run.id)).toEqual(["keep"]);
    expect(existsSync(join(store.folder, "drop.jsonl"))).toBe(false);
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
    // A crash after the second call: the header and two crossings are left.
    const path = join(store.folder, "summed.jsonl");
    const lines = readFileSync(path, "utf8")
      .split("\n")
      .filter((line) => line !== "");
    writeFileSync(path, `${lines.slice(0, 3).join("\n")}\n`);
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
    // A crash after 25 crossings: the header and 25 lines are left.
    writeFileSync(path, `${lines.slice(0, 26).join("\n")}\n`);
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
