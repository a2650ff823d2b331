// The RunJournal contract as one suite every store runs (the file store, the Redis store): a
// damaged journal refused and left as it was, a smuggled answer, hostile run ids refused before
// the store is touched, large answers by reference, the size cap, one writer per run, a person's decisions, retention.
// Each store's test file calls `describeRunJournalContract` with a harness that can damage it.

import { afterAll, describe, expect, it } from "vitest";
import { decideRun } from "../../src/durable/decide-run.js";
import type { TypeCheckMode } from "../../src/execute-program.js";
import type { RunJournal } from "../../src/durable/run-journal.js";
import { defineTool } from "../../src/registry/define-tool.js";
import { Switchyard } from "../../src/switchyard.js";

/**
 * A session whose one tool, `data.blob`, answers `{ n, text }` with `bytes` characters of text after
 * a 1 ms timer, counting its calls: what the journal tests run durably against each store.
 */
export function createBlobYard(
  store: RunJournal,
  bytes = 10,
  typeCheck: TypeCheckMode = "off",
): { yard: Switchyard; calls: () => number } {
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
    typeCheck,
    runJournal: store,
    results: { maxProgramResultBytes: 1_000_000 },
  });
  return { yard, calls: () => calls };
}

/** What the suite needs of a store beyond the contract: to make one, and to reach its raw entries. */
export interface JournalStoreHarness {
  /** A fresh, empty store. */
  create(options?: { maxRunBytes?: number; maxInlineAnswerBytes?: number }): RunJournal | Promise<RunJournal>;
  /** The run's stored entries as the store keeps them, one JSON text each, the header first. */
  rawEntries(store: RunJournal, id: string): Promise<string[]>;
  /** Replaces the run's stored entries with `entries`, as they are (to damage them). */
  writeRawEntries(store: RunJournal, id: string, entries: readonly string[]): Promise<void>;
  /** Whether the store holds nothing at all (no folder, no key). */
  isEmpty(store: RunJournal): Promise<boolean>;
}

const THREE = `const out = []; for (let n = 0; n < 3; n++) out.push((await tools.data.blob({ n })).text.length); return out;`;

/** Registers the contract's tests for one store. */
export function describeRunJournalContract(name: string, harness: JournalStoreHarness): void {
  const yards: Switchyard[] = [];
  afterAll(async () => {
    await Promise.all(yards.map((yard) => yard.close()));
  });

  const createYard = (store: RunJournal, bytes = 10) => {
    const created = createBlobYard(store, bytes);
    yards.push(created.yard);
    return created;
  };

  describe(`the RunJournal contract: ${name}`, () => {
    it("refuses a journal with a damaged entry, naming its line, and leaves it as it was", async () => {
      const store = await harness.create();
      await createYard(store).yard.run(THREE, { durable: { id: "damaged" } });
      const entries = await harness.rawEntries(store, "damaged");
      const damaged = [...entries];
      damaged[1] = "{not json";
      await harness.writeRawEntries(store, "damaged", damaged);
      await expect(store.read("damaged")).rejects.toThrow(/damaged at line 2: not JSON/);
      const again = createYard(store);
      const result = await again.yard.run(THREE, { durable: { id: "damaged" } });
      expect(result.error?.code).toBe("JOURNAL_INVALID");
      expect(result.error?.message).toMatch(/line 2/);
      expect(again.calls()).toBe(0);
      expect(await harness.rawEntries(store, "damaged")).toEqual(damaged);
      // The list shows it, damaged, with its reason (it left it out before, silently).
      const listed = (await store.list()).find((run) => run.id === "damaged");
      expect(listed).toMatchObject({ state: "damaged", code: "JOURNAL_INVALID" });
      expect(listed?.message).toMatch(/line 2/);
      // An entry of an unknown kind is refused the same way.
      await harness.writeRawEntries(store, "damaged", [entries[0]!, '{"t":"surprise"}']);
      await expect(store.read("damaged")).rejects.toThrow(/line 2: not a journal entry/);
      // The refused run left the run free: a second refusal is JOURNAL_INVALID again, not RUN_BUSY.
      expect((await again.yard.run(THREE, { durable: { id: "damaged" } })).error?.code).toBe("JOURNAL_INVALID");
    });

    it("refuses a hostile run id in every method with OPTION_INVALID, writing nothing: no path or key built from it", async () => {
      const store = await harness.create();
      const hostile = ["../escape", "a/b", "a:b", "runs*", "{tag}", "a\nb", "..", "", "x".repeat(200)];
      for (const id of hostile) {
        const refused = { code: "OPTION_INVALID" };
        await expect(async () => store.read(id)).rejects.toMatchObject(refused);
        await expect(async () => store.readHeader(id)).rejects.toMatchObject(refused);
        await expect(async () => store.readSpilled(id, "1")).rejects.toMatchObject(refused);
        await expect(async () => store.open(id, undefined)).rejects.toMatchObject(refused);
        await expect(async () => store.appendOutside(id, [])).rejects.toMatchObject(refused);
      }
      expect(await harness.isEmpty(store)).toBe(true);
    });

    it("reads a run's header alone, undefined for a run it does not hold, and refuses a damaged one", async () => {
      const store = await harness.create();
      await createYard(store).yard.run(THREE, { durable: { id: "headed" }, input: { n: 1 } });
      expect(await store.readHeader("headed")).toMatchObject({ t: "run", id: "headed", inputJson: '{"n":1}' });
      expect(await store.readHeader("absent")).toBeUndefined();
      expect(await store.read("absent")).toBeUndefined();
      // Opening a run the store does not hold says so apart from damage: `missing`.
      await expect(store.open("absent", undefined)).rejects.toMatchObject({ code: "JOURNAL_INVALID", missing: true });
      const [header, ...rest] = await harness.rawEntries(store, "headed");
      await harness.writeRawEntries(store, "headed", [header!.replace('"v":1', '"v":9'), ...rest]);
      await expect(store.readHeader("headed")).rejects.toMatchObject({ code: "JOURNAL_INVALID" });
      await expect(store.open("headed", undefined)).rejects.toMatchObject({ code: "JOURNAL_INVALID", missing: false });
    });

    it("carries the type check a run passed in its header, and drops one edited into another shape instead of refusing the run", async () => {
      const store = await harness.create();
      const checked = createBlobYard(store, 10, "error");
      yards.push(checked.yard);
      const first = await checked.yard.run(THREE, { durable: { id: "checked" } });
      expect(first.stats.typeCheckedBy).toBe("checker");
      const check = (await store.readHeader("checked"))?.check;
      expect(check?.fingerprint).toMatch(/^sha256:[0-9a-f]{64}$/);
      expect((await store.read("checked"))?.header.check).toEqual(check);
      // Replayed by a new session (the first one observed the tool's output type since: another
      // declaration) through `resume` (the journal it opened) and through `run` with the id (a fleet
      // job run again: the header read before the check), the check comes from the journal.
      const later = createBlobYard(store, 10, "error");
      yards.push(later.yard);
      const resumed = await later.yard.resume("checked");
      const rerun = await later.yard.run(THREE, { durable: { id: "checked" } });
      for (const replayed of [resumed, rerun]) {
        expect(replayed.output).toEqual(first.output);
        expect(replayed.stats.typeCheckedBy).toBe("journal");
      }
      expect(later.calls()).toBe(0);
      const [header, ...rest] = await harness.rawEntries(store, "checked");
      const edited = { ...JSON.parse(header!), check: { fingerprint: 1, errors: {}, warnings: [] } };
      await harness.writeRawEntries(store, "checked", [JSON.stringify(edited), ...rest]);
      expect((await store.read("checked"))?.header.check).toBeUndefined();
      const fresh = createBlobYard(store, 10, "error");
      yards.push(fresh.yard);
      const checkedAgain = await fresh.yard.resume("checked");
      expect(checkedAgain.output).toEqual(first.output);
      expect(checkedAgain.stats.typeCheckedBy).toBe("checker");
    });

    it("refuses a journal whose answer was edited to smuggle in an answer for another call", async () => {
      const store = await harness.create();
      await createYard(store).yard.run(THREE, { durable: { id: "smuggled" } });
      const entries = await harness.rawEntries(store, "smuggled");
      // The first answer, `0,{...}`, extended with an answer for index 7.
      const tampered = entries.map((entry) =>
        entry.replace(/"e":"0,(\{[^"]*(?:\\"[^"]*)*\})"/, (_all, value: string) => `"e":"0,${value},7,1"`),
      );
      expect(tampered).not.toEqual(entries);
      await harness.writeRawEntries(store, "smuggled", tampered);
      const again = createYard(store);
      const result = await again.yard.run(THREE, { durable: { id: "smuggled" } });
      expect(result.error?.code).toBe("JOURNAL_INVALID");
      expect(again.calls()).toBe(0);
    });

    it.each([
      "../../etc",
      "../escape",
      "a/b",
      "..",
      "",
      ".hidden",
      "x".repeat(129),
      "x".repeat(10_000),
      "nul\u0000byte",
      "semi;colon",
      "star*",
      "{tag}",
      "a:b",
      "line\nbreak",
    ])("refuses the run id %j before the store is touched", async (id) => {
      const store = await harness.create();
      const { yard, calls } = createYard(store);
      await expect(yard.run(THREE, { durable: { id } })).rejects.toMatchObject({ code: "OPTION_INVALID" });
      await expect(store.read(id)).rejects.toMatchObject({ code: "OPTION_INVALID" });
      await expect(store.open(id, undefined)).rejects.toMatchObject({ code: "OPTION_INVALID" });
      expect(calls()).toBe(0);
      expect(await harness.isEmpty(store)).toBe(true);
    });

    it("ends a resume of a journal whose input was edited into text that is not JSON with JOURNAL_INVALID", async () => {
      const store = await harness.create();
      const { yard, calls } = createYard(store);
      await yard.run("return input;", { durable: { id: "edited-input" }, input: { n: 1 } });
      const [header, ...rest] = await harness.rawEntries(store, "edited-input");
      await harness.writeRawEntries(store, "edited-input", [
        JSON.stringify({ ...JSON.parse(header!), inputJson: "{" }),
        ...rest,
      ]);
      const resumed = await yard.resume("edited-input");
      expect(resumed.ok).toBe(false);
      expect(resumed.error?.code).toBe("JOURNAL_INVALID");
      expect(calls()).toBe(0);
    });

    it("keeps a large result apart by reference and replays it whole", async () => {
      const store = await harness.create({ maxInlineAnswerBytes: 1_000 });
      const first = createYard(store, 50_000);
      const original = await first.yard.run(THREE, { durable: { id: "large" } });
      expect(original.output).toEqual([50_000, 50_000, 50_000]);
      expect((await harness.rawEntries(store, "large")).join("\n").length).toBeLessThan(5_000);
      expect((await store.read("large"))!.bytes).toBeGreaterThan(150_000);
      const again = createYard(store, 7);
      const replayed = await again.yard.run(THREE, { durable: { id: "large" } });
      expect(replayed.output).toEqual([50_000, 50_000, 50_000]);
      expect(again.calls()).toBe(0);
    });

    it("ends a run whose journal would pass the store's cap with JOURNAL_LIMIT, keeping what was journaled", async () => {
      const store = await harness.create({ maxRunBytes: 40_000 });
      const { yard } = createYard(store, 15_000);
      const result = await yard.run(THREE, { durable: { id: "capped" } });
      expect(result.error?.code).toBe("JOURNAL_LIMIT");
      const journal = await store.read("capped");
      expect(journal!.bytes).toBeLessThanOrEqual(40_000);
      expect(journal!.entries.length).toBeGreaterThan(0);
    });

    it("refuses a size option that is not a whole number when made: a NaN cap would lift the cap", async () => {
      for (const maxRunBytes of [Number.NaN, -1, 1.5, Number.POSITIVE_INFINITY]) {
        await expect(async () => harness.create({ maxRunBytes })).rejects.toMatchObject({
          code: "OPTION_INVALID",
          message: /maxRunBytes/,
        });
      }
      await expect(async () => harness.create({ maxInlineAnswerBytes: Number.NaN })).rejects.toMatchObject({
        code: "OPTION_INVALID",
      });
    });

    it("refuses a second writer of a running run with RUN_BUSY while the first finishes", async () => {
      const store = await harness.create();
      const { yard } = createYard(store);
      const running = yard.run(`await sleep(300); return 1;`, { durable: { id: "busy" } });
      await new Promise((resolve) => setTimeout(resolve, 150));
      const second = await yard.run(`return 2;`, { durable: { id: "busy" } });
      expect(second.error?.code).toBe("RUN_BUSY");
      await expect(store.appendOutside("busy", [{ t: "end", at: 1, ok: true }])).rejects.toMatchObject({
        code: "RUN_BUSY",
      });
      expect((await running).output).toBe(1);
      // The first writer released the run when it ended.
      expect((await yard.run(`await sleep(300); return 1;`, { durable: { id: "busy" } })).output).toBe(1);
    });

    it("journals a person's decision on a pending call once, its reason cut to 1,000 characters, and refuses any other", async () => {
      const store = await harness.create();
      const { yard } = createYard(store);
      await yard.run(THREE, { durable: { id: "finished" } });
      await yard.run(THREE, { durable: { id: "waiting" } });
      const [header] = await harness.rawEntries(store, "waiting");
      const pending = [3, 4].map((position) => ({
        position,
        tool: "data.blob",
        input: { n: position },
        idempotencyKey: `waiting:${position}`,
      }));
      await harness.writeRawEntries(store, "waiting", [header!, JSON.stringify({ t: "pause", at: 1, pending })]);
      const deny = { position: 4, approved: false, reason: "r".repeat(5_000) };
      expect(await decideRun(store, "absent", deny)).toMatchObject({ code: "RUN_NOT_FOUND" });
      expect(await decideRun(store, "finished", deny)).toMatchObject({ code: "RUN_NOT_PAUSED" });
      expect(await decideRun(store, "waiting", { position: 9, approved: true })).toMatchObject({
        code: "CALL_NOT_PENDING",
        message: expect.stringContaining("it waits for call(s) 3, 4"),
      });
      await expect(decideRun(store, "../waiting", deny)).rejects.toMatchObject({ code: "OPTION_INVALID" });
      expect(await decideRun(store, "waiting", deny)).toBeUndefined();
      expect(await decideRun(store, "waiting", { position: 4, approved: true })).toMatchObject({
        code: "CALL_DECIDED",
      });
      const decisions = (await store.read("waiting"))!.entries.filter((entry) => entry.t === "decision");
      expect(decisions).toEqual([
        { t: "decision", at: expect.any(Number), position: 4, approved: false, reason: "r".repeat(1_000) },
      ]);
      expect(await store.read("absent")).toBeUndefined();
    });

    it("lists runs with their state and prunes those past their expiry only", async () => {
      const store = await harness.create();
      const { yard } = createYard(store);
      await yard.run(THREE, { durable: { id: "keep", retentionMs: 60_000 } });
      await yard.run(THREE, { durable: { id: "drop", retentionMs: 1_500 } });
      const listed = await store.list();
      expect(listed.map((run) => [run.id, run.state, run.calls, run.ok])).toEqual([
        ["drop", "ended", 3, true],
        ["keep", "ended", 3, true],
      ]);
      await new Promise((resolve) => setTimeout(resolve, 1_600));
      expect(await store.prune()).toEqual(["drop"]);
      expect((await store.list()).map((run) => run.id)).toEqual(["keep"]);
      expect(await store.read("drop")).toBeUndefined();
      expect(await store.read("keep")).toBeDefined();
    });
  });
}
