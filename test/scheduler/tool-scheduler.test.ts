import { describe, expect, it } from "vitest";
import type { ToolEffect, ToolOutcome } from "../../src/contract.js";
import { SwitchyardError } from "../../src/errors.js";
import { executeToolCall, type PipelineContext } from "../../src/execute-tool-call.js";
import { defineTool, type ToolDefinition } from "../../src/registry/define-tool.js";
import { ToolScheduler } from "../../src/scheduler/tool-scheduler.js";
import {
  createDeferred,
  createTestContext,
  drainMicrotasks,
  InFlightProbe,
  makeCall,
  type Deferred,
} from "../helpers/pipeline-fixtures.js";

/**
 * Tools whose calls block until the test releases them by call id, and that count, per
 * effect and path, how many of their calls are in flight.
 */
function createControlledTools() {
  const probe = new InFlightProbe();
  const gates = new Map<string, Deferred<void>>();
  const gate = (callId: string): Deferred<void> => {
    let deferred = gates.get(callId);
    if (deferred === undefined) {
      deferred = createDeferred();
      gates.set(callId, deferred);
    }
    return deferred;
  };
  const make = (name: string, effect: ToolEffect, declaresResources: boolean): ToolDefinition =>
    defineTool({
      name,
      description: `A ${effect} tool for tests.`,
      effect,
      inputSchema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
      ...(declaresResources ? { resources: (input: { path: string }) => [input.path] } : {}),
      execute: async (input: { path: string }, context) => {
        const namespace = name.split(".")[0] ?? "";
        const keys = [`${effect}:${input.path}`, `any:${input.path}`, `${effect}-ns:${namespace}`];
        for (const key of keys) probe.enter(key);
        probe.started.push(context.callId);
        try {
          await gate(context.callId).promise;
        } finally {
          for (const key of keys) probe.leave(key);
        }
        return context.callId;
      },
    });
  const tools = [
    make("files.read", "read", true),
    make("files.write", "write", true),
    make("files.writeAnything", "write", false),
    make("files.readAnything", "read", false),
    make("other.write", "write", false),
  ];
  return { probe, tools, open: (callId: string) => gate(callId).resolve() };
}

function start(
  context: PipelineContext,
  tool: string,
  path: string,
  id: string,
  programId?: string,
): Promise<ToolOutcome> {
  return executeToolCall(
    makeCall(tool, { path }, { id, ...(programId === undefined ? {} : { programId, caller: "program" }) }),
    context,
  );
}

describe("ToolScheduler options", () => {
  it.each([0, -1, 1.5, Number.NaN])(
    "throws OPTION_INVALID for maxConcurrentReads %s, which would hold every read forever",
    (value) => {
      let thrown: unknown;
      try {
        new ToolScheduler({ maxConcurrentReads: value });
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(SwitchyardError);
      expect((thrown as SwitchyardError).code).toBe("OPTION_INVALID");
    },
  );
});

describe("ToolScheduler.locksFor", () => {
  const scheduler = new ToolScheduler({ maxConcurrentReads: 5 });
  const tool = (name: string, effect: ToolEffect) =>
    defineTool({ name, description: "", effect, inputSchema: {}, execute: () => null });
  const call = makeCall("x", {}, { programId: "p1", caller: "program" });

  it("gives a read a shared namespace lock, a read slot for its run and shared resource locks", () => {
    expect(scheduler.locksFor(tool("files.read", "read"), call, ["a", "a", "b"])).toEqual([
      { key: "namespace:files", mode: "shared" },
      { key: "reads:p1:files", mode: "slot", capacity: 5 },
      { key: "resource:a", mode: "shared" },
      { key: "resource:b", mode: "shared" },
    ]);
  });

  it("gives a write without resources the whole namespace, and a write with resources only its resources", () => {
    expect(scheduler.locksFor(tool("files.write", "write"), call, [])).toEqual([
      { key: "namespace:files", mode: "exclusive" },
    ]);
    expect(scheduler.locksFor(tool("files.write", "destructive"), call, ["a"])).toEqual([
      { key: "namespace:files", mode: "shared" },
      { key: "resource:a", mode: "exclusive" },
    ]);
  });
});

describe("ToolScheduler in the pipeline", () => {
  it("lets reads of one resource run at the same time", async () => {
    const { probe, tools, open } = createControlledTools();
    const { context } = createTestContext(tools);
    const outcomes = ["r1", "r2", "r3"].map((id) => start(context, "files.read", "a", id));
    await drainMicrotasks();
    expect(probe.current("read:a")).toBe(3);
    ["r1", "r2", "r3"].forEach(open);
    expect((await Promise.all(outcomes)).map((outcome) => outcome.status)).toEqual(["ok", "ok", "ok"]);
  });

  it("never lets writes to one resource overlap, and runs them in call order", async () => {
    const { probe, tools, open } = createControlledTools();
    const { context } = createTestContext(tools);
    const ids = ["w1", "w2", "w3", "w4"];
    const outcomes = ids.map((id) => start(context, "files.write", "a", id));
    for (const id of ids) {
      await drainMicrotasks();
      expect(probe.current("write:a")).toBe(1);
      expect(probe.started.at(-1)).toBe(id);
      open(id);
    }
    await Promise.all(outcomes);
    expect(probe.peak("write:a")).toBe(1);
    expect(probe.started).toEqual(ids);
  });

  it("never lets a write overlap a read of the same resource, in either order", async () => {
    const { probe, tools, open } = createControlledTools();
    const { context } = createTestContext(tools);
    const ids = ["r1", "w1", "r2", "w2", "r3"];
    const outcomes = ids.map((id) => start(context, id.startsWith("r") ? "files.read" : "files.write", "a", id));
    const order: string[] = [];
    for (let step = 0; step < ids.length; step++) {
      await drainMicrotasks();
      expect(probe.current("read:a") > 0 && probe.current("write:a") > 0).toBe(false);
      const running = probe.started.filter((id) => !order.includes(id));
      for (const id of running) {
        order.push(id);
        open(id);
      }
      if (order.length === ids.length) break;
    }
    await Promise.all(outcomes);
    expect(order).toEqual(ids);
    expect(probe.peak("write:a")).toBe(1);
  });

  it("serializes writes that declare no resources across the whole namespace, but not across namespaces", async () => {
    const { probe, tools, open } = createControlledTools();
    const { context } = createTestContext(tools);
    const first = start(context, "files.writeAnything", "a", "wa");
    const second = start(context, "files.writeAnything", "b", "wb");
    const resourceWrite = start(context, "files.write", "c", "wc");
    const read = start(context, "files.read", "d", "rd");
    const elsewhere = start(context, "other.write", "a", "ow");
    await drainMicrotasks();
    expect(probe.started).toEqual(["wa", "ow"]);
    open("wa");
    await drainMicrotasks();
    expect(probe.started).toEqual(["wa", "ow", "wb"]);
    open("wb");
    await drainMicrotasks();
    expect(probe.started.slice(3).sort()).toEqual(["rd", "wc"]);
    ["wc", "rd", "ow"].forEach(open);
    await Promise.all([first, second, resourceWrite, read, elsewhere]);
    expect(probe.peak("write-ns:files")).toBe(1);
  });

  it("falls back to the namespace lock when a tool's resources function throws", async () => {
    const { probe, tools, open } = createControlledTools();
    const fragile = defineTool({
      name: "files.fragile",
      description: "A write whose resources cannot be computed.",
      inputSchema: { type: "object" },
      resources: () => {
        throw new Error("cannot tell");
      },
      execute: async (_input: unknown, toolContext) => {
        probe.started.push(toolContext.callId);
        await createDeferred().promise.catch(() => undefined);
      },
    });
    const controller = new AbortController();
    const { context } = createTestContext([...tools, fragile], { signal: controller.signal });
    const fragileOutcome = start(context, "files.fragile", "x", "fragile");
    const other = start(context, "files.write", "y", "other");
    await drainMicrotasks();
    expect(probe.started).toEqual(["fragile"]);
    controller.abort();
    await expect(Promise.all([fragileOutcome, other])).resolves.toMatchObject([
      { status: "cancelled" },
      { status: "cancelled" },
    ]);
    open("other");
    expect(probe.started).toEqual(["fragile"]);
  });

  it("lets writes to different resources run at the same time", async () => {
    const { probe, tools, open } = createControlledTools();
    const { context } = createTestContext(tools);
    const outcomes = [start(context, "files.write", "a", "wa"), start(context, "files.write", "b", "wb")];
    await drainMicrotasks();
    expect(probe.current("write:a") + probe.current("write:b")).toBe(2);
    open("wa");
    open("wb");
    await Promise.all(outcomes);
  });

  it("never runs more reads of one namespace at once than maxConcurrentReads", async () => {
    const { probe, tools, open } = createControlledTools();
    const { context } = createTestContext(tools, { scheduler: { maxConcurrentReads: 2 } });
    const ids = Array.from({ length: 7 }, (_, index) => `r${index}`);
    const outcomes = ids.map((id, index) =>
      start(context, index % 2 === 0 ? "files.read" : "files.readAnything", `p${index}`, id),
    );
    const done: string[] = [];
    while (done.length < ids.length) {
      await drainMicrotasks();
      expect(probe.current("read-ns:files")).toBeLessThanOrEqual(2);
      const running = probe.started.filter((id) => !done.includes(id));
      expect(running.length).toBeGreaterThan(0);
      // Release one at a time, newest first, so the counter is checked at every step.
      const next = running.at(-1)!;
      done.push(next);
      open(next);
    }
    expect((await Promise.all(outcomes)).every((outcome) => outcome.status === "ok")).toBe(true);
    expect(probe.peak("read-ns:files")).toBe(2);
  });

  it("counts the read limit per run: another program's reads are not held back", async () => {
    const { probe, tools, open } = createControlledTools();
    const { context } = createTestContext(tools, { scheduler: { maxConcurrentReads: 1 } });
    const outcomes = [
      start(context, "files.read", "a", "p1-a", "p1"),
      start(context, "files.read", "b", "p1-b", "p1"),
      start(context, "files.read", "c", "p2-c", "p2"),
    ];
    await drainMicrotasks();
    expect(probe.started).toEqual(["p1-a", "p2-c"]);
    ["p1-a", "p2-c"].forEach(open);
    await drainMicrotasks();
    expect(probe.started).toEqual(["p1-a", "p2-c", "p1-b"]);
    open("p1-b");
    await Promise.all(outcomes);
  });

  it("frees the queue when a queued call is aborted: later calls proceed and the aborted one never runs", async () => {
    const { probe, tools, open } = createControlledTools();
    const scheduler = new ToolScheduler();
    const main = createTestContext(tools, { scheduler }).context;
    const leaver = new AbortController();
    const leaving = createTestContext(tools, { scheduler, signal: leaver.signal }).context;
    const holder = start(main, "files.write", "a", "holder");
    const aborted = start(leaving, "files.write", "a", "aborted");
    const after = start(main, "files.write", "a", "after");
    await drainMicrotasks();
    expect(probe.started).toEqual(["holder"]);

    leaver.abort();
    await expect(aborted).resolves.toMatchObject({
      callId: "aborted",
      status: "cancelled",
      error: { code: "CANCELLED" },
    });
    open("holder");
    await drainMicrotasks();
    expect(probe.started).toEqual(["holder", "after"]);
    open("after");
    await expect(Promise.all([holder, after])).resolves.toMatchObject([{ status: "ok" }, { status: "ok" }]);
    expect(probe.started).not.toContain("aborted");
  });
});
