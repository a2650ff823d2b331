import { describe, expect, it } from "vitest";
import { buildTimeline } from "../../src/timeline/build-timeline.js";
import { parseTraceLines } from "../../src/timeline/read-trace-file.js";
import type { RedactionEvent, ToolCallEndEvent, TraceEvent } from "../../src/trace/trace-events.js";

function callEnd(
  fields: Partial<ToolCallEndEvent> & Pick<ToolCallEndEvent, "callId" | "tool" | "queuedAt" | "endedAt">,
): ToolCallEndEvent {
  return {
    type: "tool-call-end",
    caller: "program",
    programId: "p1",
    startedAt: fields.queuedAt,
    status: "ok",
    code: undefined,
    bytesIn: 10,
    bytesOut: 20,
    ...fields,
  };
}

const SOURCE = [
  "const a = await tools.crm.lookup({ id: 'a' });",
  "const b = await tools.crm.flaky({});",
  "const c = await tools . crm . flaky({});",
  "throw new Error('stop');",
].join("\n");

const EVENTS: TraceEvent[] = [
  { type: "program-start", programId: "p1", at: 1000, sourceBytes: 99, catalogVersion: 3 },
  { type: "tool-call-start", callId: "p1.1", tool: "crm.lookup", caller: "program", programId: "p1", queuedAt: 1010 },
  callEnd({ callId: "p1.1", tool: "crm.lookup", queuedAt: 1010, startedAt: 1012, endedAt: 1020 }),
  callEnd({ callId: "p1.2", tool: "crm.flaky", queuedAt: 1021, endedAt: 1025, status: "error", code: "UPSTREAM_DOWN" }),
  callEnd({
    callId: "p1.3",
    tool: "crm.flaky",
    queuedAt: 1026,
    endedAt: 1026,
    startedAt: undefined,
    status: "denied",
    code: "PERMISSION_DENIED",
  }),
  { type: "tool-call-late-result", callId: "p1.2", tool: "crm.flaky", at: 1030, settled: "fulfilled" },
  {
    type: "program-end",
    programId: "p1",
    at: 1040,
    ok: false,
    code: "RUNTIME_ERROR",
    wallMs: 40,
    toolCalls: 3,
    line: 4,
    message: "Error: stop",
  },
  callEnd({
    callId: "call_9",
    tool: "crm.lookup",
    caller: "direct",
    programId: undefined,
    queuedAt: 2000,
    endedAt: 2004,
  }),
];

describe("buildTimeline", () => {
  it("gives each run its calls once, with queued and running times, and puts direct calls last", () => {
    const data = buildTimeline(EVENTS, { sources: SOURCE, now: new Date(0) });
    expect(data.generatedAt).toBe("1970-01-01T00:00:00.000Z");
    expect(data.runs.map((run) => run.programId)).toEqual(["p1", null]);
    const [run, direct] = data.runs;
    expect(run).toMatchObject({ startedAt: 1000, endedAt: 1040, ok: false, code: "RUNTIME_ERROR", catalogVersion: 3 });
    expect(run!.calls.map((call) => [call.id, call.status, call.queuedAt, call.startedAt, call.endedAt])).toEqual([
      ["p1.1", "ok", 1010, 1012, 1020],
      ["p1.2", "error", 1021, 1021, 1025],
      ["p1.3", "denied", 1026, null, 1026],
    ]);
    expect(direct).toMatchObject({ ok: null, source: null, marks: [], startedAt: 2000, endedAt: 2004 });
    expect(direct!.calls).toHaveLength(1);
  });

  it("marks the line the run failed at and every line that calls a tool with failed calls", () => {
    const [run] = buildTimeline(EVENTS, { sources: SOURCE }).runs;
    expect(run!.marks).toEqual([
      {
        line: 2,
        kind: "failed-calls",
        note: "2 of 2 calls to crm.flaky failed (1 UPSTREAM_DOWN, 1 PERMISSION_DENIED)",
      },
      {
        line: 3,
        kind: "failed-calls",
        note: "2 of 2 calls to crm.flaky failed (1 UPSTREAM_DOWN, 1 PERMISSION_DENIED)",
      },
      { line: 4, kind: "error", note: "the run failed here: RUNTIME_ERROR" },
    ]);
  });

  it("gives each run the redactions of its output, logs and error, and the direct calls theirs, without values", () => {
    const redaction = (fields: Partial<RedactionEvent>): RedactionEvent => ({
      type: "redaction",
      at: 1039,
      kind: "github-token",
      location: "program-output",
      callId: undefined,
      tool: undefined,
      programId: "p1",
      path: "$.token",
      ...fields,
    });
    const events: TraceEvent[] = [
      ...EVENTS,
      redaction({}),
      redaction({ kind: "jwt", location: "program-logs", path: "logs[0]" }),
      redaction({ location: "call-result", callId: "call_9", tool: "crm.lookup", programId: undefined, path: "$" }),
    ];
    const [run, direct] = buildTimeline(events).runs;
    expect(run!.redactions).toEqual([
      { kind: "github-token", location: "program-output", path: "$.token", callId: null },
      { kind: "jwt", location: "program-logs", path: "logs[0]", callId: null },
    ]);
    expect(direct!.redactions).toEqual([
      { kind: "github-token", location: "call-result", path: "$", callId: "call_9" },
    ]);
    expect(buildTimeline(EVENTS).runs.map((each) => each.redactions)).toEqual([[], []]);
  });

  it("keeps a run the trace cut short, ending at its last call, and leaves out a call that never ended", () => {
    const cut = EVENTS.slice(0, 4);
    const [run] = buildTimeline(cut, { sources: new Map([["other", "x"]]) }).runs;
    expect(run).toMatchObject({ ok: null, code: null, endedAt: 1025, source: null, marks: [] });
    expect(run!.calls.map((call) => call.id)).toEqual(["p1.1", "p1.2"]);
  });
});

describe("parseTraceLines", () => {
  it("reads the events and counts, without failing on, lines that are not events", () => {
    const text = [
      JSON.stringify(EVENTS[0]),
      "",
      "{not json",
      JSON.stringify({ type: "something-else" }),
      "null",
      JSON.stringify(EVENTS[1]),
      '{"type":"tool-call-end","callId":"cut mid-li',
    ].join("\n");
    const { events, skippedLines } = parseTraceLines(text);
    expect(events).toEqual([EVENTS[0], EVENTS[1]]);
    expect(skippedLines).toBe(4);
  });
});
