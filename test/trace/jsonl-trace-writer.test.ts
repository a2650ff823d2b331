import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { executeToolCall } from "../../src/execute-tool-call.js";
import { defineTool } from "../../src/registry/define-tool.js";
import { JsonlTraceWriter } from "../../src/trace/jsonl-trace-writer.js";
import { TraceBus, type TraceEvent } from "../../src/trace/trace-events.js";
import { createTestContext, makeCall } from "../helpers/pipeline-fixtures.js";

let folder: string;

beforeEach(async () => {
  folder = await mkdtemp(join(tmpdir(), "switchyard-trace-"));
});

afterEach(async () => {
  await rm(folder, { recursive: true, force: true });
});

describe("JsonlTraceWriter", () => {
  it("writes one parseable JSON line per event, in order", async () => {
    const bus = new TraceBus();
    const path = join(folder, "trace.jsonl");
    const writer = new JsonlTraceWriter(bus, path);
    const events: TraceEvent[] = [
      { type: "program-start", programId: "p1", at: 1, sourceBytes: 10, catalogVersion: 2 },
      { type: "tool-call-late-result", callId: "c1", tool: "a.b", at: 2, settled: "fulfilled" },
      { type: "program-end", programId: "p1", at: 3, ok: false, code: "TIMEOUT", wallMs: 2, toolCalls: 1 },
    ];
    for (const event of events) bus.emit(event);
    await writer.close();
    const lines = (await readFile(path, "utf8")).split("\n");
    expect(lines.at(-1)).toBe("");
    expect(lines.slice(0, -1).map((line) => JSON.parse(line))).toEqual(events);
  });

  it("records a start and an end line for each pipeline call, and nothing after close", async () => {
    const { context } = createTestContext([
      defineTool({
        name: "svc.fail",
        description: "Fails.",
        inputSchema: { type: "object" },
        execute: () => {
          throw new Error("failed");
        },
      }),
    ]);
    const path = join(folder, "calls.jsonl");
    const writer = new JsonlTraceWriter(context.trace, path);
    await executeToolCall(makeCall("svc.fail", {}, { id: "c1" }), context);
    await executeToolCall(makeCall("svc.missing", {}, { id: "c2" }), context);
    await writer.close();
    await executeToolCall(makeCall("svc.fail", {}, { id: "after-close" }), context);
    const lines = (await readFile(path, "utf8")).trimEnd().split("\n");
    const parsed = lines.map((line) => JSON.parse(line) as TraceEvent);
    expect(parsed.map((event) => [event.type, "callId" in event ? event.callId : undefined])).toEqual([
      ["tool-call-start", "c1"],
      ["tool-call-end", "c1"],
      ["tool-call-start", "c2"],
      ["tool-call-end", "c2"],
    ]);
  });

  it("appends to an existing file instead of truncating it", async () => {
    const path = join(folder, "append.jsonl");
    for (const programId of ["first", "second"]) {
      const bus = new TraceBus();
      const writer = new JsonlTraceWriter(bus, path);
      bus.emit({ type: "program-start", programId, at: 0, sourceBytes: 0, catalogVersion: 1 });
      await writer.close();
    }
    const lines = (await readFile(path, "utf8")).trimEnd().split("\n");
    expect(lines.map((line) => (JSON.parse(line) as { programId: string }).programId)).toEqual(["first", "second"]);
  });

  it("never throws into the pipeline when the file cannot be written", async () => {
    const bus = new TraceBus();
    const writer = new JsonlTraceWriter(bus, join(folder, "missing-dir", "trace.jsonl"));
    expect(() =>
      bus.emit({ type: "program-start", programId: "p", at: 0, sourceBytes: 0, catalogVersion: 1 }),
    ).not.toThrow();
    await writer.close();
  });
});

describe("TraceBus", () => {
  it("keeps delivering to other subscribers when one throws", () => {
    const bus = new TraceBus();
    const seen: string[] = [];
    bus.subscribe(() => {
      throw new Error("broken subscriber");
    });
    bus.subscribe((event) => seen.push(event.type));
    expect(() =>
      bus.emit({ type: "program-start", programId: "p", at: 0, sourceBytes: 0, catalogVersion: 1 }),
    ).not.toThrow();
    expect(seen).toEqual(["program-start"]);
  });
});
