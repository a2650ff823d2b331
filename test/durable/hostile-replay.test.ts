// A guest that lies about its replay. A resumed run's guest answers journaled crossings itself and
// reports them in a replay log; the host must not take its word. Each attack below is what a
// compromised guest runtime could send (the program itself cannot reach the runtime's state): a
// log with a changed input, a log that claims crossings past the journal, a live-looking batch
// instead of the log, and no log at all. Each must end REPLAY_DIVERGED (position and both sides),
// run no tool, and leave the journal byte for byte as it was. Real journal files, the real bridge.

import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { RunError, RunResult } from "../../src/contract.js";
import { type DurableRun, openDurableRun } from "../../src/durable/durable-run.js";
import { FileRunJournal } from "../../src/durable/file-run-journal.js";
import { hashInput } from "../../src/durable/hash-input.js";
import type { CrossingEntry } from "../../src/durable/run-journal.js";
import { defineTool } from "../../src/registry/define-tool.js";
import { ToolBridge } from "../../src/sandbox/tool-bridge.js";
import { Switchyard } from "../../src/switchyard.js";
import {
  type BatchAnswer,
  encodeCallBatch,
  encodeReplayLog,
  encodeReplayLogField,
  REPLAY_LIVE,
  REPLAY_MORE,
  REPLAY_OVER,
} from "../../runtime/wire.js";
import { createTestContext } from "../helpers/pipeline-fixtures.js";

const folder = mkdtempSync(join(tmpdir(), "durable-hostile-"));
const store = new FileRunJournal({ folder });
afterAll(() => rmSync(folder, { recursive: true, force: true }));

const SOURCE = "const out = []; for (let n = 1; n <= 3; n++) out.push(await tools.api.count({ n })); return out;";
let made = 0;
const count = defineTool({
  name: "api.count",
  description: "Counts the calls that reached it.",
  effect: "read",
  inputSchema: { type: "object", properties: { n: { type: "number" } } },
  execute: () => ++made,
});

/** Runs SOURCE once, durable under `id`: a journal of three calls, one crossing each. */
async function journalOf(id: string): Promise<{ path: string; text: string }> {
  const yard = new Switchyard({ tools: [count], typeCheck: "off", runJournal: store });
  const result = await yard.run(SOURCE, { durable: { id } });
  await yard.close();
  expect(result.ok, result.error?.message).toBe(true);
  const path = join(folder, `${id}.jsonl`);
  return { path, text: readFileSync(path, "utf8") };
}

/** The host side of a resume of `id`, with the guest played by the test. */
async function resumeHost(id: string): Promise<{ bridge: ToolBridge; durable: DurableRun; ended: RunError[] }> {
  const durable = await openDurableRun(store, { id }, { source: SOURCE, inputJson: undefined });
  const ended: RunError[] = [];
  durable.attach((error) => ended.push(error));
  const { context } = createTestContext([count]);
  const bridge = new ToolBridge({
    programId: id,
    pipeline: context,
    maxToolCalls: 100,
    maxArgumentBytes: 10_000,
    maxArgumentDepth: 8,
    maxPendingArgumentBytes: 100_000,
    onCallLimit: () => {},
    durable,
  });
  return { bridge, durable, ended };
}

/** The batch a crossing of the journal was, with call n's input `{ n }` unless `input` says otherwise. */
function batchOf(crossing: CrossingEntry, input?: string): string {
  const n = (crossing.first ?? 0) + 1;
  return encodeCallBatch({
    answer: crossing.kind as BatchAnswer,
    requests: [{ kind: "call", path: "api.count", argsJson: input ?? JSON.stringify({ n }) }],
  });
}

async function crossingsOf(id: string): Promise<CrossingEntry[]> {
  const journal = await store.read(id);
  return (journal?.entries ?? []).filter((entry): entry is CrossingEntry => entry.t === "x");
}

const okResult = (id: string): RunResult => ({
  ok: true,
  programId: id,
  output: [1, 2, 3],
  logs: [],
  warnings: [],
  calls: [],
  stats: { wallMs: 0, cpuMs: 0, toolCalls: 0, bytesIn: 0, bytesOut: 0 },
  catalogVersion: 0,
});

describe("a resumed run's replay log, sent by a hostile guest", () => {
  it("answers an honest log of the whole journal with live, each call recorded replayed and no tool run", async () => {
    const { text } = await journalOf("honest");
    const before = made;
    const { bridge, durable } = await resumeHost("honest");
    expect(bridge.replayChunk()).toMatch(/^\[\[0,"w",0,1,/);
    const log = (await crossingsOf("honest")).map((crossing) => encodeReplayLogField(batchOf(crossing))).join("");
    expect(bridge.submit(encodeReplayLog("more", log))).toBe(REPLAY_LIVE);
    expect(bridge.records.map((record) => [record.id, record.replayed])).toEqual([
      ["honest.1", true],
      ["honest.2", true],
      ["honest.3", true],
    ]);
    expect(made).toBe(before);
    await durable.finish(okResult("honest"), bridge.replaying);
    expect(readFileSync(join(folder, "honest.jsonl"), "utf8")).toBe(text);
  });

  it("ends REPLAY_DIVERGED at the call whose input the log changed, naming both hashes, journal unchanged", async () => {
    const { path, text } = await journalOf("forged-input");
    const before = made;
    const { bridge, durable, ended } = await resumeHost("forged-input");
    bridge.replayChunk();
    const crossings = await crossingsOf("forged-input");
    const forged = '{"n":99}';
    const log = crossings
      .map((crossing, at) => encodeReplayLogField(batchOf(crossing, at === 1 ? forged : undefined)))
      .join("");
    expect(bridge.submit(encodeReplayLog("more", log))).toBe(REPLAY_OVER);
    expect(ended).toHaveLength(1);
    expect(ended[0]).toMatchObject({
      code: "REPLAY_DIVERGED",
      details: {
        position: 2,
        program: `tools.api.count with input ${hashInput(forged)}`,
        journal: `tools.api.count with input ${hashInput('{"n":2}')}`,
      },
    });
    // Only the call before the forged one was taken from the journal; nothing ran live.
    expect(bridge.records.map((record) => record.id)).toEqual(["forged-input.1"]);
    expect(made).toBe(before);
    await durable.finish(okResult("forged-input"), bridge.replaying);
    expect(readFileSync(path, "utf8")).toBe(text);
  });

  it("diverges, before anything live starts, on a log that claims a crossing past the journal's end", async () => {
    const { path, text } = await journalOf("past-the-end");
    const before = made;
    const { bridge, durable, ended } = await resumeHost("past-the-end");
    bridge.replayChunk();
    const crossings = await crossingsOf("past-the-end");
    const extra = encodeCallBatch({
      answer: "mayWait",
      requests: [{ kind: "call", path: "api.count", argsJson: '{"n":4}' }],
    });
    const log =
      crossings.map((crossing) => encodeReplayLogField(batchOf(crossing))).join("") + encodeReplayLogField(extra);
    expect(bridge.submit(encodeReplayLog("more", log))).toBe(REPLAY_OVER);
    expect(ended[0]?.code).toBe("REPLAY_DIVERGED");
    expect(ended[0]?.message).toMatch(/after the journal's last/);
    expect(made).toBe(before);
    await durable.finish(okResult("past-the-end"), bridge.replaying);
    // No resume entry, no crossing: the journal is as it was.
    expect(readFileSync(path, "utf8")).toBe(text);
  });

  it("checks a part of the log sent ahead at once, and goes live only with the log's last part", async () => {
    const { path, text } = await journalOf("in-parts");
    const before = made;
    const { bridge, durable } = await resumeHost("in-parts");
    bridge.replayChunk();
    const fields = (await crossingsOf("in-parts")).map((crossing) => encodeReplayLogField(batchOf(crossing)));
    // Every crossing of the journal, sent ahead: checked (each call recorded replayed), still replaying.
    expect(bridge.submit(encodeReplayLog("ahead", fields.join("")))).toBe("");
    expect(bridge.records.map((record) => record.replayed)).toEqual([true, true, true]);
    expect(bridge.replaying).toBe(true);
    expect(readFileSync(path, "utf8")).toBe(text);
    expect(bridge.submit(encodeReplayLog("more", ""))).toBe(REPLAY_LIVE);
    expect(bridge.replaying).toBe(false);
    expect(made).toBe(before);
    await durable.finish(okResult("in-parts"), bridge.replaying);
  });

  it("ends REPLAY_DIVERGED on a part sent ahead with a changed input, before the rest arrives", async () => {
    const { path, text } = await journalOf("ahead-forged");
    const before = made;
    const { bridge, durable, ended } = await resumeHost("ahead-forged");
    bridge.replayChunk();
    const [first, second, third] = await crossingsOf("ahead-forged");
    const part = encodeReplayLogField(batchOf(first!)) + encodeReplayLogField(batchOf(second!, '{"n":99}'));
    expect(bridge.submit(encodeReplayLog("ahead", part))).toBe(REPLAY_OVER);
    expect(ended[0]).toMatchObject({ code: "REPLAY_DIVERGED", details: { position: 2 } });
    // The rest of the log, honest or not, changes nothing: the run is over.
    expect(bridge.submit(encodeReplayLog("more", encodeReplayLogField(batchOf(third!))))).toBe(REPLAY_OVER);
    expect(bridge.records.map((record) => record.id)).toEqual(["ahead-forged.1"]);
    expect(made).toBe(before);
    await durable.finish(okResult("ahead-forged"), bridge.replaying);
    expect(readFileSync(path, "utf8")).toBe(text);
  });

  it("diverges on a last part that claims a crossing past the journal a part sent ahead used up", async () => {
    const { path, text } = await journalOf("ahead-past");
    const before = made;
    const { bridge, durable, ended } = await resumeHost("ahead-past");
    bridge.replayChunk();
    const log = (await crossingsOf("ahead-past")).map((crossing) => encodeReplayLogField(batchOf(crossing))).join("");
    expect(bridge.submit(encodeReplayLog("ahead", log))).toBe("");
    const extra = encodeCallBatch({
      answer: "mayWait",
      requests: [{ kind: "call", path: "api.count", argsJson: '{"n":4}' }],
    });
    expect(bridge.submit(encodeReplayLog("more", encodeReplayLogField(extra)))).toBe(REPLAY_OVER);
    expect(ended[0]?.message).toMatch(/after the journal's last/);
    expect(made).toBe(before);
    await durable.finish(okResult("ahead-past"), bridge.replaying);
    expect(readFileSync(path, "utf8")).toBe(text);
  });

  it("ends REPLAY_DIVERGED on a part of the log sent after batches took the run past the journal", async () => {
    await journalOf("live-then-log");
    const before = made;
    const { bridge, ended } = await resumeHost("live-then-log");
    bridge.replayChunk();
    const crossings = await crossingsOf("live-then-log");
    // Honest batches instead of the log: checked one by one, and the journal's end takes the run live.
    for (const crossing of crossings) await bridge.submit(batchOf(crossing));
    expect(bridge.replaying).toBe(false);
    // A log claimed now was never checked against the journal: the run ends, nothing more is made.
    const log = encodeReplayLogField(batchOf(crossings[0]!, '{"n":9}'));
    expect(bridge.submit(encodeReplayLog("ahead", log))).toBe(REPLAY_OVER);
    expect(ended[0]).toMatchObject({ code: "REPLAY_DIVERGED" });
    expect(made).toBe(before);
  });

  it("checks a batch sent instead of the log against the journal: a changed input diverges, no tool runs", async () => {
    const { path, text } = await journalOf("no-log-batch");
    const before = made;
    const { bridge, durable, ended } = await resumeHost("no-log-batch");
    bridge.replayChunk();
    const [first] = await crossingsOf("no-log-batch");
    await bridge.submit(batchOf(first!, '{"n":7}'));
    expect(ended[0]).toMatchObject({ code: "REPLAY_DIVERGED", details: { position: 1 } });
    expect(made).toBe(before);
    await durable.finish(okResult("no-log-batch"), bridge.replaying);
    expect(readFileSync(path, "utf8")).toBe(text);
  });

  it("ends a run whose guest never hands its log over REPLAY_DIVERGED, whatever output it claims", async () => {
    const { path, text } = await journalOf("silent");
    const { bridge, durable } = await resumeHost("silent");
    bridge.replayChunk();
    // The guest answered everything itself and returned; the host saw no log.
    const settled = await durable.finish(okResult("silent"), bridge.replaying);
    expect(settled.ok).toBe(false);
    expect(settled.error?.code).toBe("REPLAY_DIVERGED");
    expect(settled.output).toBeNull();
    expect(readFileSync(path, "utf8")).toBe(text);
  });

  it("answers a log cut in the middle of the journal with the rest of it, not with live", async () => {
    await journalOf("partial");
    const { bridge, durable } = await resumeHost("partial");
    bridge.replayChunk();
    const [first] = await crossingsOf("partial");
    const answer = bridge.submit(encodeReplayLog("more", encodeReplayLogField(batchOf(first!))));
    expect(typeof answer === "string" && answer.startsWith(REPLAY_MORE)).toBe(true);
    // The next chunk starts at the journal's second crossing.
    expect(JSON.parse((answer as string).slice(1))[0][0]).toBe(1);
    expect(bridge.replaying).toBe(true);
    await durable.finish(okResult("partial"), bridge.replaying);
  });

  it("ends REPLAY_DIVERGED on a log it cannot read, and a log sent again after that changes nothing", async () => {
    const { path, text } = await journalOf("garbled");
    const before = made;
    const { bridge, durable, ended } = await resumeHost("garbled");
    bridge.replayChunk();
    const [first] = await crossingsOf("garbled");
    // A field whose length runs past the log's end.
    const garbled = encodeReplayLog("more", `${encodeReplayLogField(batchOf(first!))}99:c`);
    expect(bridge.submit(garbled)).toBe(REPLAY_OVER);
    expect(ended).toEqual([
      expect.objectContaining({ code: "REPLAY_DIVERGED", message: expect.stringMatching(/could not read/) }),
    ]);
    const honest = (await crossingsOf("garbled")).map((crossing) => encodeReplayLogField(batchOf(crossing))).join("");
    expect(bridge.submit(encodeReplayLog("more", honest))).toBe(REPLAY_OVER);
    expect(bridge.records).toEqual([]);
    expect(ended).toHaveLength(1);
    expect(made).toBe(before);
    await durable.finish(okResult("garbled"), bridge.replaying);
    expect(readFileSync(path, "utf8")).toBe(text);
  });

  it("diverges on a wait logged where the journal holds a batch: that batch's calls cannot go unchecked", async () => {
    const { path, text } = await journalOf("wait-for-batch");
    const { bridge, durable, ended } = await resumeHost("wait-for-batch");
    bridge.replayChunk();
    const [first] = await crossingsOf("wait-for-batch");
    const log = encodeReplayLogField(batchOf(first!)) + encodeReplayLogField("");
    expect(bridge.submit(encodeReplayLog("idle", log))).toBe(REPLAY_OVER);
    expect(ended[0]).toMatchObject({ code: "REPLAY_DIVERGED", details: { program: "a wait for answers" } });
    expect(bridge.records.map((record) => record.id)).toEqual(["wait-for-batch.1"]);
    await durable.finish(okResult("wait-for-batch"), bridge.replaying);
    expect(readFileSync(path, "utf8")).toBe(text);
  });
});
