// Durable runs end to end in one process, on real isolates: a journaled run replays to the same
// output without calling its tools again; a program that reads the clock, Math.random and which
// of two raced calls answered first replays to the same output from any prefix of its journal.

import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { FileRunJournal } from "../../src/durable/file-run-journal.js";
import { defineTool } from "../../src/registry/define-tool.js";
import { buildTimeline } from "../../src/timeline/build-timeline.js";
import type { TraceEvent } from "../../src/trace/trace-events.js";
import { Switchyard } from "../../src/switchyard.js";

const folder = mkdtempSync(join(tmpdir(), "durable-replay-"));
const store = new FileRunJournal({ folder });
const yards: Switchyard[] = [];
afterAll(async () => {
  await Promise.all(yards.map((yard) => yard.close()));
  rmSync(folder, { recursive: true, force: true });
});

/** A session whose `api.page` and `api.slow` count their calls and keep the idempotency keys. */
function createYard(delays: { fast: number; slow: number } = { fast: 1, slow: 30 }, workers = 0) {
  const calls: string[] = [];
  const page = defineTool({
    name: "api.page",
    description: "One page.",
    inputSchema: { type: "object", properties: { cursor: { type: "number" } } },
    execute: (input: { cursor: number }, context) => {
      calls.push(String(context.idempotencyKey));
      return { items: [input.cursor * 10, input.cursor * 10 + 1], next: input.cursor < 4 ? input.cursor + 1 : null };
    },
  });
  const race = defineTool({
    name: "api.after",
    description: "Answers after a delay.",
    inputSchema: { type: "object", properties: { name: { type: "string" } } },
    execute: async (input: { name: "fast" | "slow" }, context) => {
      calls.push(String(context.idempotencyKey));
      await new Promise((resolve) => setTimeout(resolve, delays[input.name]));
      return input.name;
    },
  });
  const yard = new Switchyard({ tools: [page, race], typeCheck: "off", runJournal: store, workers });
  yards.push(yard);
  return { yard, calls };
}

const SWEEP = `
let cursor = 0; const items = [];
while (cursor !== null) { const page = await tools.api.page({ cursor }); items.push(...page.items); cursor = page.next; }
return items;`;

const NONDETERMINISTIC = `
const started = Date.now();
const coin = Math.random();
const winner = await Promise.race([tools.api.after({ name: "fast" }), tools.api.after({ name: "slow" })]);
await sleep(20);
const later = new Date().getTime();
const dice = [Math.random(), Math.random()];
const page = await tools.api.page({ cursor: coin < 0.5 ? 1 : 2 });
const shown = new Intl.DateTimeFormat("en", { minute: "2-digit", second: "2-digit", timeZone: "UTC", fractionalSecondDigits: 3 }).format();
return { started, coin, winner, waited: later - started >= 20, dice, page, shown, branch: started % 2 === 0 ? "even" : "odd" };`;

describe("durable runs, replayed in one process", () => {
  it("answers every journaled call from the journal on a second run, calling no tool", async () => {
    const first = createYard();
    const original = await first.yard.run(SWEEP, { durable: { id: "sweep-1" } });
    expect(original.ok).toBe(true);
    expect(first.calls).toEqual(["sweep-1:1", "sweep-1:2", "sweep-1:3", "sweep-1:4", "sweep-1:5"]);
    expect(original.calls.every((call) => call.replayed === undefined)).toBe(true);

    const second = createYard();
    const replayed = await second.yard.run(SWEEP, { durable: { id: "sweep-1" } });
    expect(replayed.output).toEqual(original.output);
    expect(second.calls).toEqual([]);
    expect(replayed.calls).toHaveLength(5);
    expect(replayed.calls.every((call) => call.replayed === true)).toBe(true);
    expect(replayed.calls.map((call) => call.id)).toEqual(original.calls.map((call) => call.id));
  });

  it("names the program line of a replayed call that failed, as the live run did, calling no tool", async () => {
    // The replay captures no call site for the calls its journal answers with a success; a failure
    // still needs one, so the run's error points at the same line as the first run's.
    let made = 0;
    const lookup = defineTool({
      name: "api.lookup",
      description: "Finds a ticket; T-3 does not exist.",
      inputSchema: { type: "object", properties: { id: { type: "string" } } },
      execute: (input: { id: string }) => {
        made++;
        if (input.id === "T-3") throw new Error(`No ticket ${input.id}.`);
        return { id: input.id };
      },
    });
    const source = [
      'const a = await tools.api.lookup({ id: "T-1" });',
      'const b = await tools.api.lookup({ id: "T-2" });',
      'const c = await tools.api.lookup({ id: "T-3" });',
      "return [a, b, c];",
    ].join("\n");
    const runOnce = async () => {
      const yard = new Switchyard({ tools: [lookup], typeCheck: "off", runJournal: store });
      yards.push(yard);
      return await yard.run(source, { durable: { id: "failed-line" } });
    };
    const live = await runOnce();
    expect(live.error).toMatchObject({ code: "RUNTIME_ERROR", line: 3 });
    expect(made).toBe(3);
    const replayed = await runOnce();
    expect(made).toBe(3);
    expect(replayed.calls.map((call) => call.replayed)).toEqual([true, true, true]);
    expect(replayed.error).toMatchObject({ code: "RUNTIME_ERROR", line: 3 });
    expect(replayed.error?.message).toBe(live.error?.message);
    expect(replayed.error?.message).toContain('at line 3: const c = await tools.api.lookup({ id: "T-3" });');
  });

  it("ends REPLAY_DIVERGED at a changed call deep in a long journal, and replays the whole of it through a worker process", async () => {
    // 600 crossings in one chunk: the host finds the changed call 400 in the guest's log.
    const sweep = (changedAt: number) => `
      for (let cursor = 0; cursor < 600; cursor++) {
        await tools.api.page({ cursor: cursor === ${changedAt} ? -1 : cursor });
      }
      return "done";`;
    const first = createYard();
    expect((await first.yard.run(sweep(-2), { durable: { id: "deep" }, limits: { maxToolCalls: 1_000 } })).ok).toBe(
      true,
    );
    const path = join(folder, "deep.jsonl");
    const text = readFileSync(path, "utf8");
    const second = createYard();
    const result = await second.yard.run(sweep(399), { durable: { id: "deep" }, limits: { maxToolCalls: 1_000 } });
    expect(result.error).toMatchObject({ code: "REPLAY_DIVERGED", details: { position: 400 } });
    expect(second.calls).toEqual([]);
    expect(readFileSync(path, "utf8")).toBe(text);
    // In a worker process too: the chunk and the log cross its protocol.
    const third = createYard(undefined, 1);
    const whole = await third.yard.run(sweep(-2), { durable: { id: "deep" }, limits: { maxToolCalls: 1_000 } });
    expect(whole.output).toBe("done");
    expect(whole.calls.filter((call) => call.replayed === true)).toHaveLength(600);
    expect(third.calls).toEqual([]);
  });

  it("marks replayed calls in the trace and the timeline, and live ones not", async () => {
    const first = createYard();
    await first.yard.run(SWEEP, { durable: { id: "traced" } });
    const path = join(folder, "traced.jsonl");
    // Keep the header and the first two crossings: two calls replayed, three live.
    writeFileSync(path, `${readFileSync(path, "utf8").split("\n").slice(0, 3).join("\n")}\n`);
    const second = createYard();
    const events: TraceEvent[] = [];
    const stop = second.yard.trace.subscribe((event) => events.push(event));
    await second.yard.run(SWEEP, { durable: { id: "traced" } });
    stop();
    const ends = events.filter((event) => event.type === "tool-call-end");
    expect(ends.map((event) => event.replayed === true)).toEqual([true, true, false, false, false]);
    const timeline = buildTimeline(events);
    expect(timeline.runs[0]!.calls.map((call) => call.replayed === true)).toEqual([true, true, false, false, false]);
    expect(second.calls).toEqual(["traced:3", "traced:4", "traced:5"]);
  });

  it("replays the clock, Math.random and the winner of a race from every prefix of the journal", async () => {
    const first = createYard({ fast: 1, slow: 40 });
    const original = await first.yard.run(NONDETERMINISTIC, { durable: { id: "nondet" } });
    expect(original.ok, original.error?.message).toBe(true);
    expect((original.output as { winner: string }).winner).toBe("fast");
    expect((original.output as { waited: boolean }).waited).toBe(true);
    const path = join(folder, "nondet.jsonl");
    const journal = readFileSync(path, "utf8");
    const lines = journal.split("\n").filter((line) => line !== "");
    // Cut after each line in turn (a crash there), and once inside the last line (a torn write).
    const cuts = [...lines.keys()].map((count) => `${lines.slice(0, count + 1).join("\n")}\n`);
    cuts.push(journal.slice(0, journal.length - 7));
    for (const [at, cut] of cuts.entries()) {
      writeFileSync(path, cut);
      // The race's delays reversed: a live race would now be won by "slow".
      const again = createYard({ fast: 40, slow: 1 });
      const result = await again.yard.run(NONDETERMINISTIC, { durable: { id: "nondet" } });
      if (at < 2) {
        // Cut before the race's answer reached the program: the race is run again, live.
        expect(result.ok).toBe(true);
        continue;
      }
      // What the clock read after the cut is live; everything else is the journal's.
      const { shown, ...decided } = original.output as { shown: string };
      expect(result.output, `cut after line ${at + 1}`).toMatchObject(decided);
      if (at >= lines.length - 1) expect((result.output as { shown: string }).shown).toBe(shown);
    }
  });

  it("replays the same way when the isolate runs in a worker process", async () => {
    const { yard, calls } = createYard(undefined, 1);
    const source = `${SWEEP.replace("return items;", "return [items, Date.now(), Math.random()];")}`;
    const original = await yard.run(source, { durable: { id: "in-worker" } });
    expect(original.ok, original.error?.message).toBe(true);
    const replayed = await yard.run(source, { durable: { id: "in-worker" } });
    expect(replayed.output).toEqual(original.output);
    expect(calls).toHaveLength(5);
  });

  it("runs a journal cut before any crossing as the same program from its journaled clock and seed", async () => {
    const first = createYard();
    const original = await first.yard.run("return [Date.now(), Math.random(), new Date().toISOString()];", {
      durable: { id: "clock-only" },
    });
    const path = join(folder, "clock-only.jsonl");
    const header = readFileSync(path, "utf8").split("\n")[0]!;
    writeFileSync(path, `${header}\n`);
    await new Promise((resolve) => setTimeout(resolve, 5));
    const again = await createYard().yard.run("return [Date.now(), Math.random(), new Date().toISOString()];", {
      durable: { id: "clock-only" },
    });
    expect(again.output).toEqual(original.output);
    expect(statSync(path).size).toBeGreaterThan(header.length + 1);
  });

  // A cancelled run (Ctrl-C or SIGTERM of `switchyard run --durable`) journals its end; resuming it
  // goes on past that end. Before, the resume journaled its calls after the old end but neither its
  // resume nor its own end, so `runs list` and `runs show` said "running" for good.
  it("journals a cancelled run's resume and its own end when the resume goes on past the journaled end", async () => {
    const { yard, calls } = createYard({ fast: 1, slow: 150 });
    const program = `const out = []; for (let n = 0; n < 4; n++) out.push(await tools.api.after({ name: "slow" })); return out.length;`;
    const stop = new AbortController();
    setTimeout(() => stop.abort(), 400);
    const first = await yard.run(program, { durable: { id: "cancelled-then-resumed" }, signal: stop.signal });
    expect(first.error?.code).toBe("CANCELLED");
    const before = calls.length;
    expect(before).toBeGreaterThan(0);
    const resumed = await yard.resume("cancelled-then-resumed");
    expect(resumed.output).toBe(4);
    const kinds = readFileSync(join(folder, "cancelled-then-resumed.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { t: string; ok?: boolean; code?: string })
      .map((entry) => (entry.t === "end" ? `end:${entry.ok ? "ok" : entry.code}` : entry.t));
    expect(kinds.filter((kind) => kind !== "x")).toEqual(["run", "end:CANCELLED", "resume", "end:ok"]);
    const summary = (await store.list()).find((run) => run.id === "cancelled-then-resumed");
    expect(summary).toMatchObject({ state: "ended", ok: true, resumes: 1 });
    // A second resume replays it all and appends nothing.
    const size = statSync(join(folder, "cancelled-then-resumed.jsonl")).size;
    expect((await yard.resume("cancelled-then-resumed")).output).toBe(4);
    expect(statSync(join(folder, "cancelled-then-resumed.jsonl")).size).toBe(size);
  });

  // Found from outside (2026-12-03): a call still in flight when the program returned (never
  // awaited, or the loser of a race) was taken for one in flight at a crash, and every replay of
  // the finished run made it again, live.
  it("never makes again a call its program left in flight when it returned: a replay of the finished run calls no tool", async () => {
    const { yard, calls } = createYard({ fast: 1, slow: 200 });
    for (const [id, program] of [
      ["never-awaited", `tools.api.after({ name: "slow" }); return "done";`],
      [
        "race-lost",
        `return await Promise.race([tools.api.after({ name: "fast" }), tools.api.after({ name: "slow" })]);`,
      ],
    ] as const) {
      const first = await yard.run(program, { durable: { id } });
      expect(first.ok).toBe(true);
      expect(first.calls.at(-1)?.status).toBe("cancelled");
      const made = calls.length;
      const journal = readFileSync(join(folder, `${id}.jsonl`), "utf8");
      for (let replay = 0; replay < 2; replay++) {
        const again = await yard.run(program, { durable: { id } });
        expect(again.output).toEqual(first.output);
        expect(again.calls.map((call) => [call.status, call.replayed])).toEqual(
          first.calls.map((call) => [call.status, true]),
        );
      }
      expect(calls.length).toBe(made);
      expect(readFileSync(join(folder, `${id}.jsonl`), "utf8")).toBe(journal);
    }
  });
});
