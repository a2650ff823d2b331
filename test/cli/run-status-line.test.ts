import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { startRunStatusLine } from "../../src/cli/run-status-line.js";
import { TraceBus, type TraceEvent } from "../../src/trace/trace-events.js";

function terminal(isTTY = true) {
  const writes: string[] = [];
  return { output: { write: (text: string) => writes.push(text), isTTY, columns: 80 }, writes };
}

const start = (callId: string): TraceEvent => ({
  type: "tool-call-start",
  callId,
  tool: "a.b",
  caller: "program",
  programId: "p1",
  queuedAt: 0,
});
const end = (callId: string, status: "ok" | "error"): TraceEvent => ({
  type: "tool-call-end",
  callId,
  tool: "a.b",
  caller: "program",
  programId: "p1",
  queuedAt: 0,
  startedAt: 0,
  endedAt: 0,
  status,
  code: status === "ok" ? undefined : "TOOL_ERROR",
  bytesIn: 0,
  bytesOut: 0,
});

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe("startRunStatusLine", () => {
  it("draws calls done, in flight and failed with the elapsed time, rewriting one line in place", () => {
    const bus = new TraceBus();
    const { output, writes } = terminal();
    const line = startRunStatusLine(output, bus, { delayMs: 300, intervalMs: 100, now: () => Date.now() });
    bus.emit(start("c1"));
    bus.emit(start("c2"));
    bus.emit(start("c3"));
    bus.emit(end("c1", "ok"));
    bus.emit(end("c2", "error"));
    vi.advanceTimersByTime(1_200);
    const last = writes.at(-1)!;
    expect(last.startsWith("\r\u001b[2K")).toBe(true);
    expect(last).toContain("2 calls done · 1 in flight · 1 failed · 1.2 s");
    expect(writes.every((text) => !text.includes("\n"))).toBe(true);
    line.stop();
    expect(writes.at(-1)).toBe("\r\u001b[2K");
    const count = writes.length;
    vi.advanceTimersByTime(1_000);
    bus.emit(end("c3", "ok"));
    expect(writes).toHaveLength(count);
  });

  it("clears the line and stays quiet while paused for a question on the terminal, then draws again", () => {
    const bus = new TraceBus();
    const { output, writes } = terminal();
    const line = startRunStatusLine(output, bus, { delayMs: 0, intervalMs: 100 });
    vi.advanceTimersByTime(150);
    line.pause();
    expect(writes.at(-1)).toBe("\r\u001b[2K");
    const count = writes.length;
    vi.advanceTimersByTime(1_000);
    expect(writes).toHaveLength(count);
    line.resume();
    vi.advanceTimersByTime(100);
    expect(writes.at(-1)).toContain("0 calls done");
    line.stop();
  });

  it("draws nothing for a run that ends before the delay", () => {
    const bus = new TraceBus();
    const { output, writes } = terminal();
    const line = startRunStatusLine(output, bus, { delayMs: 300 });
    bus.emit(start("c1"));
    vi.advanceTimersByTime(200);
    line.stop();
    vi.advanceTimersByTime(1_000);
    expect(writes).toEqual([]);
  });

  it("draws nothing, and does not follow the trace, when the output is not a terminal", () => {
    const bus = new TraceBus();
    const { output, writes } = terminal(false);
    const line = startRunStatusLine(output, bus);
    expect(bus.active).toBe(false);
    vi.advanceTimersByTime(5_000);
    line.stop();
    expect(writes).toEqual([]);
  });
});
