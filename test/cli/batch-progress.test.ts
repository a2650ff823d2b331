import { describe, expect, it } from "vitest";
import { formatBatchProgress, formatBatchSummary, startBatchProgress } from "../../src/cli/batch-progress.js";
import type { BatchProgress } from "../../src/fleet/watch-batch.js";

const reading: BatchProgress = {
  batchId: "b-1",
  total: 200,
  done: 50,
  ok: 48,
  failed: 2,
  running: 8,
  queued: 142,
  cancelled: false,
  finished: false,
  at: 0,
  perSecond: 12.5,
  etaMs: 12_000,
};

describe("the batch progress bar", () => {
  it("shows the bar, done, failed, running, rate and time left", () => {
    expect(formatBatchProgress(reading)).toBe(
      "██████░░░░░░░░░░░░░░░░░░ 50/200 done · 2 failed · 8 running · 12.5/s · ETA 12 s",
    );
  });

  it("leaves out what is not known yet, and the time left once finished", () => {
    const first = formatBatchProgress({ ...reading, perSecond: undefined, etaMs: undefined });
    expect(first).not.toContain("/s");
    expect(first).not.toContain("ETA");
    expect(formatBatchProgress({ ...reading, done: 200, finished: true })).not.toContain("ETA");
  });

  it("cuts the line to the terminal's width", () => {
    const line = formatBatchProgress(reading, 40);
    expect(line.length).toBe(39);
    expect(line.endsWith("…")).toBe(true);
  });

  it("draws nothing off a terminal and clears its line on one", () => {
    const written: string[] = [];
    const pipe = startBatchProgress({ write: (text: string) => written.push(text) });
    pipe.draw(reading);
    pipe.end();
    expect(written).toEqual([]);
    const terminal = startBatchProgress({ write: (text: string) => written.push(text), isTTY: true, columns: 120 });
    terminal.draw(reading);
    terminal.end();
    expect(written).toHaveLength(2);
    expect(written[0]).toContain("50/200 done");
    expect(written[1]).toBe("\r\x1b[2K");
  });

  it("sums a batch up in one line", () => {
    expect(formatBatchSummary({ ...reading, done: 200, ok: 198, running: 0, queued: 0, finished: true })).toBe(
      "batch b-1 finished: 200 of 200 done (198 ok, 2 failed), 0 running, 0 queued",
    );
    expect(formatBatchSummary({ ...reading, cancelled: true, finished: true, running: 0, queued: 0 })).toContain(
      "batch b-1 cancelled: 50 of 200 done",
    );
  });
});
