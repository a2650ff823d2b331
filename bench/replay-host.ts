// The host's side of a 2,000-call replay alone, without an isolate: the journal opened and decoded
// (openDurableRun), the guest's first chunk built (replayChunk), the guest's honest replay log
// checked (submit), the run finished (its writer closed, nothing appended). Pure JS on one thread,
// so under `valgrind --tool=callgrind node --single-threaded` its instruction count per round is
// repeatable on a loaded machine (the difference of two round counts; JOURNALS reuses one journal
// so no isolate runs under valgrind). Medians of rounds, per phase and per call.
// Run: npm run bench:replay-host [rounds]   (JOURNALS=<folder> to reuse a journal)

import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { RunResult } from "../src/contract.js";
import { openDurableRun } from "../src/durable/durable-run.js";
import { FileRunJournal } from "../src/durable/file-run-journal.js";
import type { PipelineContext } from "../src/execute-tool-call.js";
import { ToolBridge } from "../src/sandbox/tool-bridge.js";
import { Switchyard } from "../src/switchyard.js";
import { TraceBus } from "../src/trace/trace-events.js";
import { encodeCallBatch, encodeReplayLog, encodeReplayLogField, REPLAY_LIVE } from "../runtime/wire.js";
import { pageTool, SWEEP, SWEEP_CALLS } from "./durable-sweep.js";
import { median } from "./stats.js";

const RUN_ID = "sweep";
const PHASES = ["open", "chunk", "check", "finish"] as const;

export async function measureReplayHost(rounds: number, journals?: string): Promise<string> {
  const folder = journals ?? mkdtempSync(join(tmpdir(), "bench-replay-host-"));
  try {
    const store = new FileRunJournal({ folder });
    if (!existsSync(join(folder, `${RUN_ID}.jsonl`))) {
      const yard = new Switchyard({ tools: [pageTool()], typeCheck: "off", runJournal: store });
      const live = await yard.run(SWEEP, { limits: { maxToolCalls: 10_000 }, durable: { id: RUN_ID } });
      await yard.close();
      if (!live.ok) throw new Error(`${live.error?.code}: ${live.error?.message}`);
    }
    // The log the guest hands over for the sweep: one lone blocking call per crossing.
    let fields = "";
    for (let cursor = 0; cursor < SWEEP_CALLS; cursor++) {
      const argsJson = JSON.stringify({ cursor });
      fields += encodeReplayLogField(
        encodeCallBatch({ answer: "mayWait", requests: [{ kind: "call", path: "api.page", argsJson }] }),
      );
    }
    const log = encodeReplayLog("more", fields);
    const pipeline = { trace: new TraceBus() } as unknown as PipelineContext;
    const times = { open: [] as number[], chunk: [] as number[], check: [] as number[], finish: [] as number[] };
    for (let round = 0; round < rounds; round++) {
      const opened = performance.now();
      const durable = await openDurableRun(store, { id: RUN_ID }, { source: SWEEP, inputJson: undefined });
      const bridge = new ToolBridge({
        programId: RUN_ID,
        pipeline,
        maxToolCalls: 10_000,
        maxArgumentBytes: 100_000,
        maxArgumentDepth: 8,
        maxPendingArgumentBytes: 1_000_000,
        onCallLimit: () => {},
        durable,
      });
      const chunked = performance.now();
      if (bridge.replayChunk() === undefined) throw new Error("The journal gave no chunk.");
      const checked = performance.now();
      if (bridge.submit(log) !== REPLAY_LIVE) throw new Error("The honest log was not accepted.");
      const finished = performance.now();
      const { records } = bridge;
      if (records.length !== SWEEP_CALLS) throw new Error(`${records.length} records, not ${SWEEP_CALLS}.`);
      await durable.finish({ ok: true, calls: records } as unknown as RunResult, false);
      const done = performance.now();
      times.open.push(chunked - opened);
      times.chunk.push(checked - chunked);
      times.check.push(finished - checked);
      times.finish.push(done - finished);
    }
    const perCall = (ms: number): string => `${((ms * 1_000) / SWEEP_CALLS).toFixed(2)} µs`;
    const total = median(times.open.map((_, round) => PHASES.reduce((sum, phase) => sum + times[phase][round]!, 0)));
    const split = PHASES.map((phase) => `${phase} ${perCall(median(times[phase]))}`).join(", ");
    return `replay, host side alone (${SWEEP_CALLS} calls, median of ${rounds}): ${perCall(total)} per call (${split})`;
  } finally {
    if (journals === undefined) rmSync(folder, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href)
  console.log(await measureReplayHost(Number(process.argv[2] ?? 40), process.env["JOURNALS"]));
