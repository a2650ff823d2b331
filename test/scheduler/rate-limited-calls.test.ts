// Rate limits in step 4 of the pipeline: a call over its limit waits for its slot as queued time,
// is cancellable while it waits, never waits past its deadline, and still gets exactly one
// outcome when the limiter fails. Time is moved with fake timers (Date.now included).

import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { CallRecord } from "../../src/contract.js";
import { runToolCall } from "../../src/execute-tool-call.js";
import { defineTool } from "../../src/registry/define-tool.js";
import type { RateLimiter } from "../../src/scheduler/rate-limiter.js";
import type { SchedulerOptions } from "../../src/scheduler/tool-scheduler.js";
import type { ToolCallEndEvent, ToolCallRateLimitedEvent } from "../../src/trace/trace-events.js";
import {
  codeOf,
  createDeferred,
  createTestContext,
  drainMicrotasks,
  makeCall,
  track,
} from "../helpers/pipeline-fixtures.js";

beforeEach(() => {
  vi.useFakeTimers({ now: 1_000_000, toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval", "Date"] });
});
afterEach(() => {
  vi.useRealTimers();
});

function limitedTools() {
  const starts: { callId: string; at: number }[] = [];
  const search = defineTool({
    name: "api.search",
    description: "A rate-limited read.",
    effect: "read",
    timeoutMs: 5_000,
    inputSchema: { type: "object" },
    execute: (_input, context) => {
      starts.push({ callId: context.callId, at: Date.now() });
      return "found";
    },
  });
  const free = defineTool({
    name: "other.lookup",
    description: "Not limited.",
    effect: "read",
    inputSchema: { type: "object" },
    execute: () => "free",
  });
  return { starts, tools: [search, free] };
}

function setUp(scheduler: SchedulerOptions, signal?: AbortSignal) {
  const { starts, tools } = limitedTools();
  const { context, events } = createTestContext(tools, { scheduler, ...(signal === undefined ? {} : { signal }) });
  const call = (tool = "api.search", overrides = {}) => {
    const result = runToolCall(makeCall(tool, {}, overrides), context);
    return track(Promise.resolve(result));
  };
  return { starts, events, call };
}

const TWO_PER_SECOND: SchedulerOptions = { rateLimits: [{ tools: "api.*", limit: 2, windowMs: 1_000 }] };

describe("rate-limited calls", () => {
  it("start evenly spaced in call order, the first at once and the rest waiting for their slots", async () => {
    const { starts, call } = setUp(TWO_PER_SECOND);
    const calls = Array.from({ length: 5 }, () => call());
    await drainMicrotasks();
    expect(starts.map((start) => start.at - 1_000_000)).toEqual([0]);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(starts.map((start) => start.at - 1_000_000)).toEqual([0, 500, 1_000]);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(starts.map((start) => start.at - 1_000_000)).toEqual([0, 500, 1_000, 1_500, 2_000]);
    const results = await Promise.all(calls.map((tracked) => tracked.promise));
    expect(results.map((result) => codeOf(result.outcome))).toEqual(["ok", "ok", "ok", "ok", "ok"]);
    expect(starts.map((start) => start.callId)).toEqual(results.map((result) => result.outcome.callId));
  });

  it("records the wait as queued time, on the record and in the trace", async () => {
    const { events, call } = setUp(TWO_PER_SECOND);
    // Spaced 500 ms apart: the second call waits 500 ms, the third 1 000 ms.
    const calls = [call(), call(), call()];
    await vi.advanceTimersByTimeAsync(1_000);
    const records: CallRecord[] = (await Promise.all(calls.map((tracked) => tracked.promise))).map(
      (result) => result.record,
    );
    expect(records[0]!.queuedMs).toBeUndefined();
    expect(records[2]).toMatchObject({ status: "ok", queuedMs: 1_000, durationMs: 1_000 });
    const waited = events.filter((event): event is ToolCallRateLimitedEvent => event.type === "tool-call-rate-limited");
    expect(waited.map((event) => [event.callId, event.waitMs])).toEqual([
      [records[1]!.id, 500],
      [records[2]!.id, 1_000],
    ]);
    expect(waited[1]).toEqual({
      type: "tool-call-rate-limited",
      callId: records[2]!.id,
      tool: "api.search",
      at: 1_000_000,
      waitMs: 1_000,
      limits: ['"api.*" (2 per 1000 ms)'],
    });
    const end = events.find(
      (event): event is ToolCallEndEvent => event.type === "tool-call-end" && event.callId === records[2]!.id,
    );
    expect(end!.startedAt! - end!.queuedAt).toBe(1_000);
  });

  it("leaves tools no rule names alone", async () => {
    const { call } = setUp({ rateLimits: [{ tools: "api.*", limit: 1 }] });
    call();
    const free = [call("other.lookup"), call("other.lookup"), call("other.lookup")];
    await drainMicrotasks();
    expect(free.every((tracked) => tracked.settled)).toBe(true);
  });

  it("ends a call whose slot lies beyond its own timeout at once, TOOL_TIMEOUT, without taking the slot", async () => {
    const { starts, call } = setUp({ rateLimits: [{ tools: "api.*", limit: 1, windowMs: 10_000 }] });
    call();
    const late = call();
    await drainMicrotasks();
    expect(late.settled).toBe(true);
    const { outcome, record } = await late.promise;
    expect(outcome.status).toBe("timeout");
    expect(codeOf(outcome)).toBe("TOOL_TIMEOUT");
    if (outcome.status !== "ok") {
      expect(outcome.error.message).toContain("would have to wait 10000 ms");
      expect(outcome.error.message).toContain("its own timeout of 5000 ms");
      expect(outcome.error.details).toMatchObject({ waitMs: 10_000, budget: "tool" });
    }
    expect(record.queuedMs).toBeUndefined();
    // A call with a longer timeout gets the slot the refused call did not take.
    const patient = call("api.search", { timeoutMs: 20_000 });
    await vi.advanceTimersByTimeAsync(10_000);
    expect(codeOf((await patient.promise).outcome)).toBe("ok");
    expect(starts.map((start) => start.at - 1_000_000)).toEqual([0, 10_000]);
  });

  it("names the run's budget when the slot lies beyond the run's deadline", async () => {
    const { starts, tools } = limitedTools();
    const { context } = createTestContext(tools, {
      scheduler: { rateLimits: [{ tools: "api.*", limit: 1 }] },
      budgets: { runDeadlineAt: 1_000_000 + 500 },
    });
    runToolCall(makeCall("api.search", {}), context);
    const { outcome } = await runToolCall(makeCall("api.search", {}), context);
    expect(codeOf(outcome)).toBe("TOOL_TIMEOUT");
    if (outcome.status !== "ok") expect(outcome.error.message).toContain("past the end of the run's time budget");
    expect(starts).toHaveLength(1);
  });

  it("cancels a waiting call: CANCELLED, the tool never runs", async () => {
    const controller = new AbortController();
    const { starts, call } = setUp(TWO_PER_SECOND, controller.signal);
    call();
    const waiting = call();
    await vi.advanceTimersByTimeAsync(300);
    // Its slot is at 500 ms; it is cancelled while it waits.
    controller.abort();
    await drainMicrotasks();
    expect(waiting.settled).toBe(true);
    const { outcome, record } = await waiting.promise;
    expect(codeOf(outcome)).toBe("CANCELLED");
    expect(record.queuedMs).toBe(300);
    await vi.advanceTimersByTimeAsync(5_000);
    expect(starts).toHaveLength(1);
  });

  it("releases the call's locks when it gives up on its slot, so a write behind it runs", async () => {
    const { starts, tools } = limitedTools();
    const write = defineTool({
      name: "api.write",
      description: "A write in the same namespace: it needs the namespace to itself.",
      inputSchema: { type: "object" },
      execute: () => "written",
    });
    const { context } = createTestContext([...tools, write], {
      scheduler: { rateLimits: [{ tools: "api.search", limit: 1, windowMs: 60_000 }] },
    });
    await runToolCall(makeCall("api.search", {}), context);
    const refused = runToolCall(makeCall("api.search", {}), context);
    const written = runToolCall(makeCall("api.write", {}), context);
    expect(codeOf((await refused).outcome)).toBe("TOOL_TIMEOUT");
    expect(codeOf((await written).outcome)).toBe("ok");
    expect(starts).toHaveLength(1);
  });

  it("ends a call RATE_LIMIT_UNAVAILABLE when the limiter fails, without running the tool", async () => {
    const failing: RateLimiter = { reserve: () => Promise.reject(new Error("connect ECONNREFUSED 127.0.0.1:1")) };
    const { starts, call } = setUp({ rateLimits: [{ tools: "api.*", limit: 5 }], rateLimiter: failing });
    const { outcome } = await call().promise;
    expect(codeOf(outcome)).toBe("RATE_LIMIT_UNAVAILABLE");
    if (outcome.status !== "ok") expect(outcome.error.message).toContain("ECONNREFUSED");
    expect(outcome.status).toBe("error");
    expect(starts).toHaveLength(0);
  });

  it("times a call out at its deadline when the limiter never answers", async () => {
    const silent = createDeferred<never>();
    const hung: RateLimiter = { reserve: () => silent.promise };
    const { starts, call } = setUp({ rateLimits: [{ tools: "api.*", limit: 5 }], rateLimiter: hung });
    const waiting = call();
    await vi.advanceTimersByTimeAsync(4_999);
    expect(waiting.settled).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(codeOf((await waiting.promise).outcome)).toBe("TOOL_TIMEOUT");
    expect(starts).toHaveLength(0);
  });
});
