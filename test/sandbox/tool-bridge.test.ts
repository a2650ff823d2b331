import { afterEach, describe, expect, it, vi } from "vitest";
import { defineTool } from "../../src/registry/define-tool.js";
import { exceedsJsonDepth } from "../../src/json-limits.js";
import { LONE_CALL_HOLD_MS, type RunRequestHandler, ToolBridge } from "../../src/sandbox/tool-bridge.js";
import {
  type BatchAnswer,
  BUDGET_PATH,
  type CallRequest,
  decodeCallAnswers,
  decodeCallEnvelope,
  encodeCallBatch,
  SEARCH_PATH,
  TIMER_PATH,
} from "../../runtime/wire.js";
import { createDeferred, createTestContext, drainMicrotasks } from "../helpers/pipeline-fixtures.js";

function createBridge(
  execute = vi.fn((input: unknown) => input),
  maxToolCalls = 2,
  runRequests?: ReadonlyMap<string, RunRequestHandler>,
) {
  const tool = defineTool({
    name: "util.echo",
    description: "Echo.",
    effect: "read",
    inputSchema: { type: "object" },
    execute,
  });
  const gates = [createDeferred<string>(), createDeferred<string>()];
  let opened = 0;
  const held = defineTool({
    name: "util.held",
    description: "Waits for the test to open its gate; one gate per call.",
    effect: "read",
    inputSchema: { type: "object" },
    execute: () => gates[opened++]!.promise,
  });
  const { context, events } = createTestContext([tool, held]);
  const onCallLimit = vi.fn();
  const bridge = new ToolBridge({
    programId: "p1",
    pipeline: context,
    maxToolCalls,
    maxArgumentBytes: 1_000,
    maxArgumentDepth: 4,
    maxPendingArgumentBytes: 10_000,
    onCallLimit,
    discovery: { search: () => ["util.echo"], describe: () => "declare const x: 1;" },
    ...(runRequests === undefined ? {} : { runRequests }),
  });
  return { bridge, execute, onCallLimit, events, gates };
}

const call = (path: string, argsJson = "{}"): CallRequest => ({ kind: "call", path, argsJson });

async function submit(bridge: ToolBridge, requests: CallRequest[], answer: BatchAnswer = "now") {
  return decodeCallAnswers(await bridge.submit(encodeCallBatch({ answer, requests })));
}

afterEach(() => {
  vi.useRealTimers();
});

async function answer(bridge: ToolBridge, path: unknown, argsJson: unknown) {
  return decodeCallEnvelope(await bridge.handle(path, argsJson));
}

describe("ToolBridge, the host side of a program's calls", () => {
  it("refuses every call once closed, with one cancelled record each, and never runs the tool", async () => {
    const { bridge, execute } = createBridge();
    bridge.close();
    expect(await answer(bridge, "util.echo", "{}")).toMatchObject({ ok: false, code: "RUN_FINISHED", callId: "p1.1" });
    expect(execute).not.toHaveBeenCalled();
    expect(bridge.records).toEqual([
      expect.objectContaining({ id: "p1.1", status: "cancelled", code: "RUN_FINISHED" }),
    ]);
  });

  it("checks size and depth before parsing, and malformed input, each with its record", async () => {
    const { bridge, execute } = createBridge();
    expect(await answer(bridge, "util.echo", JSON.stringify({ s: "x".repeat(2_000) }))).toMatchObject({
      code: "ARGUMENT_TOO_LARGE",
    });
    expect(await answer(bridge, "util.echo", '{"a":{"b":{"c":{"d":{"e":1}}}}}')).toMatchObject({
      code: "ARGUMENT_TOO_LARGE",
    });
    expect(execute).not.toHaveBeenCalled();
    expect(bridge.records.map((record) => record.code)).toEqual(["ARGUMENT_TOO_LARGE", "ARGUMENT_TOO_LARGE"]);
  });

  it("stops at maxToolCalls: the call over the limit is refused and the run is told once", async () => {
    const { bridge, onCallLimit } = createBridge();
    for (let index = 0; index < 2; index++) expect(await answer(bridge, "util.echo", "{}")).toMatchObject({ ok: true });
    expect(await answer(bridge, "util.echo", "{}")).toMatchObject({ code: "TOOL_CALL_LIMIT" });
    expect(await answer(bridge, "util.echo", "{}")).toMatchObject({ code: "TOOL_CALL_LIMIT" });
    expect(onCallLimit).toHaveBeenCalledTimes(1);
    expect(bridge.records).toHaveLength(4);
  });

  it("drops __proto__ keys while parsing", async () => {
    const { bridge, execute } = createBridge();
    expect(await answer(bridge, "util.echo", '{"__proto__":{"polluted":true},"a":1}')).toMatchObject({
      ok: true,
      value: { a: 1 },
    });
    expect(Object.getPrototypeOf(execute.mock.calls[0]![0])).toBe(Object.prototype);
  });

  it("measures depth without counting brackets inside strings", () => {
    expect(exceedsJsonDepth('{"a":"[[[[[[[[[["}', 2)).toBe(false);
    expect(exceedsJsonDepth('[[["\\"]]]"]]]', 2)).toBe(true);
    expect(exceedsJsonDepth("[[]]", 2)).toBe(false);
  });
});

describe("ToolBridge batches", () => {
  it("starts a batch's calls in order and answers at once those that did not wait, each with its index", async () => {
    const { bridge, gates } = createBridge(undefined, 10);
    const answers = await submit(bridge, [
      call("util.echo", '{"n":1}'),
      call("util.held"),
      call("util.echo", '{"n":3}'),
    ]);
    expect(answers).toEqual([
      { ok: true, index: 0, value: { n: 1 } },
      { ok: true, index: 2, value: { n: 3 } },
    ]);
    const waited = bridge.wait();
    gates[0]!.resolve("late");
    expect(decodeCallAnswers(await waited)).toEqual([{ ok: true, index: 1, value: "late" }]);
    expect(bridge.records.map((record) => record.id)).toEqual(["p1.1", "p1.2", "p1.3"]);
  });

  it("answers calls that finish in the same turn in one wait", async () => {
    const { bridge, gates } = createBridge(undefined, 10);
    expect(await submit(bridge, [call("util.held"), call("util.held")])).toEqual([]);
    const waited = bridge.wait();
    gates[1]!.resolve("second");
    gates[0]!.resolve("first");
    expect(decodeCallAnswers(await waited).map((answer) => answer.index)).toEqual([1, 0]);
  });

  it("keeps an answer that finished with no wait outstanding for the next crossing", async () => {
    const { bridge, gates } = createBridge(undefined, 10);
    await submit(bridge, [call("util.held")]);
    gates[0]!.resolve("done");
    await drainMicrotasks();
    expect((await submit(bridge, [call("util.echo")])).map((answer) => answer.index)).toEqual([0, 1]);
  });

  it("answers nothing to a batch sent ahead, and its calls' answers with the next crossing", async () => {
    const { bridge, gates } = createBridge(undefined, 10);
    expect(await submit(bridge, [call("util.echo", '{"n":1}'), call("util.held")], "later")).toEqual([]);
    expect(await submit(bridge, [call("util.echo", '{"n":3}')])).toEqual([
      { ok: true, index: 0, value: { n: 1 } },
      { ok: true, index: 2, value: { n: 3 } },
    ]);
    const waited = bridge.wait();
    gates[0]!.resolve("late");
    expect(decodeCallAnswers(await waited)).toEqual([{ ok: true, index: 1, value: "late" }]);
    expect(bridge.records.map((record) => record.id)).toEqual(["p1.1", "p1.2", "p1.3"]);
  });

  it("hands the answers of a batch sent ahead to a wait already outstanding", async () => {
    const { bridge } = createBridge(undefined, 10);
    const waited = bridge.wait();
    expect(await submit(bridge, [call("util.echo", '{"n":1}')], "later")).toEqual([]);
    expect(decodeCallAnswers(await waited)).toEqual([{ ok: true, index: 0, value: { n: 1 } }]);
  });

  it("holds a batch that may wait for its one call when the call settles without I/O", async () => {
    const { bridge, gates } = createBridge(undefined, 10);
    const answered = submit(bridge, [call("util.held")], "mayWait");
    gates[0]!.resolve("soon");
    expect(await answered).toEqual([{ ok: true, index: 0, value: "soon" }]);
  });

  it("holds a batch that may wait for its one call's answer that comes after a timer within the hold", async () => {
    const { bridge, gates } = createBridge(undefined, 10);
    const answered = submit(bridge, [call("util.held")], "mayWait");
    setTimeout(() => gates[0]!.resolve("after a timer"), LONE_CALL_HOLD_MS / 2);
    expect(await answered).toEqual([{ ok: true, index: 0, value: "after a timer" }]);
    expect(bridge.records).toEqual([expect.objectContaining({ id: "p1.1", status: "ok" })]);
  });

  it("answers a batch that may wait with nothing once the hold is over when its call still works, and hands the late answer to wait", async () => {
    const { bridge, gates } = createBridge(undefined, 10);
    // The gate stays closed: the crossing is answered without it when the hold is over.
    expect(await submit(bridge, [call("util.held")], "mayWait")).toEqual([]);
    const waited = bridge.wait();
    gates[0]!.resolve("late");
    expect(decodeCallAnswers(await waited)).toEqual([{ ok: true, index: 0, value: "late" }]);
    expect(bridge.records).toEqual([expect.objectContaining({ id: "p1.1", status: "ok" })]);
  });

  it("keeps one wait outstanding however many are opened: a displaced one gets nothing, the newest the answer", async () => {
    const { bridge, gates } = createBridge(undefined, 10);
    // A damaged guest whose every crossing asks for a wait: waits pile up on the host side only as one.
    expect(await submit(bridge, [call("util.held")], "now")).toEqual([]);
    const first = bridge.wait();
    const second = bridge.wait();
    expect(decodeCallAnswers(await first)).toEqual([]);
    gates[0]!.resolve("late");
    expect(decodeCallAnswers(await second)).toEqual([{ ok: true, index: 0, value: "late" }]);
    expect(bridge.records).toEqual([expect.objectContaining({ id: "p1.1", status: "ok" })]);
  });

  it("answers an outstanding wait with nothing when the run closes", async () => {
    const { bridge } = createBridge(undefined, 10);
    await submit(bridge, [call("util.held")]);
    const waited = bridge.wait();
    bridge.close();
    expect(decodeCallAnswers(await waited)).toEqual([]);
  });

  it("records a call the guest refused, with an id, its measured size and trace events, and never runs the tool", async () => {
    const { bridge, execute, events } = createBridge(undefined, 10);
    const answers = await submit(bridge, [
      { kind: "refused", path: "util.echo", code: "ARGUMENT_TOO_LARGE", bytes: 5_000, reason: "too big" },
      { kind: "refused", path: "util.echo", code: "NOT_A_GUEST_CODE", bytes: 3, reason: "" },
    ]);
    expect(answers).toEqual([
      { ok: false, index: 0, callId: "p1.1", code: "ARGUMENT_TOO_LARGE", message: "too big" },
      { ok: false, index: 1, callId: "p1.2", code: "INPUT_INVALID", message: expect.stringContaining("refused") },
    ]);
    expect(execute).not.toHaveBeenCalled();
    expect(bridge.records).toEqual([
      expect.objectContaining({ id: "p1.1", status: "invalid", code: "ARGUMENT_TOO_LARGE", bytesIn: 5_000 }),
      expect.objectContaining({ id: "p1.2", status: "invalid", code: "INPUT_INVALID", bytesIn: 3 }),
    ]);
    expect(events.map((event) => [event.type, "callId" in event ? event.callId : ""])).toEqual([
      ["tool-call-start", "p1.1"],
      ["tool-call-end", "p1.1"],
      ["tool-call-start", "p1.2"],
      ["tool-call-end", "p1.2"],
    ]);
  });

  it("counts refused calls against maxToolCalls", async () => {
    const { bridge, onCallLimit } = createBridge(undefined, 2);
    const refused: CallRequest = { kind: "refused", path: "util.echo", code: "INPUT_INVALID", bytes: 1, reason: "no" };
    const answers = await submit(bridge, [refused, refused, refused]);
    expect(answers.map((answer) => !answer.ok && answer.code)).toEqual([
      "INPUT_INVALID",
      "INPUT_INVALID",
      "TOOL_CALL_LIMIT",
    ]);
    expect(onCallLimit).toHaveBeenCalledTimes(1);
  });

  it("gives the bridge's own refusals and a program's $search trace events too", async () => {
    const { bridge, events } = createBridge(undefined, 10);
    await submit(bridge, [
      call("util.echo", JSON.stringify({ s: "x".repeat(2_000) })),
      call(SEARCH_PATH, '{"query":"echo"}'),
    ]);
    await drainMicrotasks();
    expect(events.filter((event) => event.type === "tool-call-end")).toEqual([
      expect.objectContaining({ callId: "p1.1", tool: "util.echo", status: "invalid", code: "ARGUMENT_TOO_LARGE" }),
      expect.objectContaining({ callId: "p1.2", tool: SEARCH_PATH, status: "ok" }),
    ]);
    expect(events.filter((event) => event.type === "tool-call-start")).toHaveLength(2);
  });

  it("records one refused call for a batch it cannot read", async () => {
    const { bridge } = createBridge(undefined, 10);
    expect(decodeCallAnswers(await bridge.submit("nc9:a"))).toEqual([
      expect.objectContaining({ index: 0, code: "INPUT_INVALID" }),
    ]);
    expect(bridge.records).toEqual([expect.objectContaining({ id: "p1.1", code: "INPUT_INVALID" })]);
  });
});

describe("ToolBridge: the run's own requests ($timer, $budget)", () => {
  /** A `$timer` answered when the test says, and a `$budget` answering how many calls the bridge counts. */
  function createRunBridge(maxToolCalls = 2) {
    const wakes: { delay: string; wake: () => void }[] = [];
    let bridge: ToolBridge | undefined;
    const runRequests = new Map<string, RunRequestHandler>([
      [TIMER_PATH, (delay) => new Promise<string>((resolve) => wakes.push({ delay, wake: () => resolve("null") }))],
      [BUDGET_PATH, () => JSON.stringify({ callsMade: bridge?.callsMade })],
    ]);
    const created = createBridge(undefined, maxToolCalls, runRequests);
    bridge = created.bridge;
    return { ...created, wakes };
  }

  it("answers them by their place in the batch, without a record, an id or a trace event", async () => {
    const { bridge, events, wakes } = createRunBridge(10);
    const answers = await submit(bridge, [
      call("util.echo", '{"n":1}'),
      call(TIMER_PATH, "250"),
      call(BUDGET_PATH),
      call("util.echo", '{"n":2}'),
    ]);
    expect(answers).toEqual([
      { ok: true, index: 0, value: { n: 1 } },
      { ok: true, index: 2, value: { callsMade: 1 } },
      { ok: true, index: 3, value: { n: 2 } },
    ]);
    expect(wakes.map((wake) => wake.delay)).toEqual(["250"]);
    const waited = bridge.wait();
    wakes[0]!.wake();
    expect(decodeCallAnswers(await waited)).toEqual([{ ok: true, index: 1, value: null }]);
    // Call ids stay dense: p1.2 is the second tool call, not the fourth request.
    expect(bridge.records.map((record) => record.id)).toEqual(["p1.1", "p1.2"]);
    expect(bridge.callsMade).toBe(2);
    expect(events.filter((event) => event.type === "tool-call-start")).toHaveLength(2);
  });

  it("does not count them against maxToolCalls", async () => {
    const { bridge, onCallLimit } = createRunBridge(1);
    const answers = await submit(bridge, [call(BUDGET_PATH), call(BUDGET_PATH), call("util.echo"), call(BUDGET_PATH)]);
    expect(answers.map((answer) => answer.ok)).toEqual([true, true, true, true]);
    expect(onCallLimit).not.toHaveBeenCalled();
    expect((await submit(bridge, [call("util.echo")]))[0]).toMatchObject({ index: 4, code: "TOOL_CALL_LIMIT" });
  });

  it("holds a batch whose one request is a wake-up that comes without I/O, as it holds a call", async () => {
    const { bridge, wakes } = createRunBridge(10);
    const answered = submit(bridge, [call(TIMER_PATH, "1")], "mayWait");
    await Promise.resolve();
    wakes[0]!.wake();
    expect(await answered).toEqual([{ ok: true, index: 0, value: null }]);
  });

  it("answers a batch whose wake-up is not due within the hold through wait", async () => {
    const { bridge, wakes } = createRunBridge(10);
    expect(await submit(bridge, [call(TIMER_PATH, "50")], "mayWait")).toEqual([]);
    const waited = bridge.wait();
    wakes[0]!.wake();
    expect(decodeCallAnswers(await waited)).toEqual([{ ok: true, index: 0, value: null }]);
  });

  it("refuses them RUN_FINISHED once the run is closed, and drops a wake-up that comes after", async () => {
    const { bridge, wakes } = createRunBridge(10);
    expect(await submit(bridge, [call(TIMER_PATH, "5000")])).toEqual([]);
    bridge.close();
    wakes[0]!.wake();
    await drainMicrotasks();
    expect(await submit(bridge, [call(BUDGET_PATH)])).toEqual([
      expect.objectContaining({ ok: false, index: 1, code: "RUN_FINISHED", callId: null }),
    ]);
    expect(decodeCallAnswers(await bridge.wait())).toEqual([]);
    expect(bridge.records).toEqual([]);
  });
});
