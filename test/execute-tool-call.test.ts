import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { statusForCode, type ToolOutcome } from "../src/contract.js";
import { ToolError } from "../src/errors.js";
import { executeToolCall, runToolCall } from "../src/execute-tool-call.js";
import { defineTool, type ToolContext, type ToolDefinition } from "../src/registry/define-tool.js";
import { Switchyard } from "../src/switchyard.js";
import type { ToolCallEndEvent, TraceEvent } from "../src/trace/trace-events.js";
import {
  createDeferred,
  createTestContext,
  drainMicrotasks,
  makeCall,
  track,
  type Deferred,
} from "./helpers/pipeline-fixtures.js";

const anyObject = { type: "object" } as const;

function tool(
  name: string,
  execute: ToolDefinition["execute"],
  extra: Partial<Parameters<typeof defineTool>[0]> = {},
): ToolDefinition {
  return defineTool({
    name,
    description: `${name} for tests.`,
    inputSchema: anyObject,
    effect: "read",
    ...extra,
    execute,
  });
}

function endsOf(events: readonly TraceEvent[]): ToolCallEndEvent[] {
  return events.filter((event): event is ToolCallEndEvent => event.type === "tool-call-end");
}

function errorOf(outcome: ToolOutcome) {
  if (outcome.status === "ok") throw new Error(`expected a failed outcome, got ok: ${JSON.stringify(outcome.value)}`);
  return outcome.error;
}

describe("executeToolCall outcomes", () => {
  it("resolves a successful call with its value, its JSON text and a record bound to the call id", async () => {
    const { context } = createTestContext([
      tool("math.add", (input: { a: number; b: number }) => ({ sum: input.a + input.b })),
    ]);
    const result = await runToolCall(makeCall("math.add", { a: 2, b: 3 }, { id: "add-1" }), context, {
      inputBytes: 13,
    });
    expect(result.outcome).toEqual({ callId: "add-1", tool: "math.add", status: "ok", value: { sum: 5 } });
    expect(result.json).toBe('{"sum":5}');
    expect(result.record).toMatchObject({ id: "add-1", tool: "math.add", status: "ok", bytesIn: 13, bytesOut: 9 });
    expect(result.record).not.toHaveProperty("code");
  });

  it("reports a plain Error thrown by the tool as TOOL_ERROR with its message", async () => {
    const { context } = createTestContext([
      tool("svc.fail", async () => {
        throw new Error("upstream returned 502");
      }),
    ]);
    const outcome = await executeToolCall(makeCall("svc.fail", {}), context);
    expect(outcome).toMatchObject({ status: "error", error: { code: "TOOL_ERROR", message: "upstream returned 502" } });
    expect(errorOf(outcome)).not.toHaveProperty("details");
  });

  it("reports a synchronous throw, a thrown string and a thrown non-Error without crashing", async () => {
    const { context } = createTestContext([
      tool("svc.sync", () => {
        throw new TypeError("bad state");
      }),
      tool("svc.string", () => {
        throw "plain text failure";
      }),
      tool("svc.object", () => {
        throw { weird: true };
      }),
    ]);
    await expect(executeToolCall(makeCall("svc.sync", {}), context)).resolves.toMatchObject({
      error: { code: "TOOL_ERROR", message: "bad state" },
    });
    await expect(executeToolCall(makeCall("svc.string", {}), context)).resolves.toMatchObject({
      error: { code: "TOOL_ERROR", message: "plain text failure" },
    });
    await expect(executeToolCall(makeCall("svc.object", {}), context)).resolves.toMatchObject({
      status: "error",
      error: { code: "TOOL_ERROR", message: expect.any(String) },
    });
  });

  it("passes a ToolError's code, message and details through, with the status its code maps to", async () => {
    const { context } = createTestContext([
      tool("svc.limited", () => {
        throw new ToolError("slow down", { code: "RATE_LIMITED", details: { retryAfterMs: 500 } });
      }),
      tool("svc.forbidden", () => {
        throw new ToolError("outside the workspace", { code: "PATH_OUTSIDE_WORKSPACE" });
      }),
    ]);
    await expect(executeToolCall(makeCall("svc.limited", {}), context)).resolves.toMatchObject({
      status: "error",
      error: { code: "RATE_LIMITED", message: "slow down", details: { retryAfterMs: 500 } },
    });
    await expect(executeToolCall(makeCall("svc.forbidden", {}), context)).resolves.toMatchObject({
      status: "denied",
      error: { code: "PATH_OUTSIDE_WORKSPACE" },
    });
  });

  it("lists every failing path with expected and received for INPUT_INVALID, and never runs the tool", async () => {
    const execute = vi.fn(() => "ran");
    const { context } = createTestContext([
      defineTool({
        name: "orders.search",
        description: "Search orders.",
        inputSchema: {
          type: "object",
          properties: {
            customerId: { type: "string" },
            pageSize: { type: "integer", minimum: 1, maximum: 100 },
            status: { enum: ["open", "closed"] },
          },
          required: ["customerId"],
          additionalProperties: false,
        },
        execute,
      }),
    ]);
    const outcome = await executeToolCall(
      makeCall("orders.search", { pageSize: 500, status: "lost", extra: 1 }),
      context,
    );
    expect(outcome.status).toBe("invalid");
    const error = errorOf(outcome);
    expect(error.code).toBe("INPUT_INVALID");
    const details = error.details as { path: string; expected: string; received: string }[];
    expect(details.map((violation) => violation.path).sort()).toEqual([
      "/customerId",
      "/extra",
      "/pageSize",
      "/status",
    ]);
    expect(details).toContainEqual({ path: "/customerId", expected: "a required property", received: "missing" });
    expect(details).toContainEqual({ path: "/pageSize", expected: expect.stringContaining("100"), received: "500" });
    expect(details).toContainEqual({ path: "/status", expected: 'one of "open", "closed"', received: '"lost"' });
    for (const path of ["/customerId", "/extra", "/pageSize", "/status"]) expect(error.message).toContain(path);
    expect(execute).not.toHaveBeenCalled();
  });

  it("answers an unknown tool with TOOL_NOT_FOUND naming the closest tools", async () => {
    const { context } = createTestContext([
      tool("orders.search", () => null),
      tool("orders.get", () => null),
      tool("telemetry.flushAllBuffers", () => null),
    ]);
    const outcome = await executeToolCall(makeCall("orders.serch", {}, { id: "typo" }), context);
    expect(outcome).toMatchObject({ callId: "typo", status: "invalid", error: { code: "TOOL_NOT_FOUND" } });
    const error = errorOf(outcome);
    expect((error.details as { closest: string[] }).closest[0]).toBe("orders.search");
    expect(error.message).toContain('"orders.search"');
    expect(error.message).not.toContain("telemetry.flushAllBuffers");
  });

  it("answers yard.callTool with a name that is not a string TOOL_NOT_FOUND, never rejecting (a plain-JavaScript caller)", async () => {
    const rejections: unknown[] = [];
    const onRejection = (reason: unknown): void => void rejections.push(reason);
    process.on("unhandledRejection", onRejection);
    const yard = new Switchyard({ tools: [tool("orders.get", () => null)], observedTypes: {} });
    try {
      for (const name of [undefined, null, 42, { tool: "orders.get" }, Symbol("orders.get")]) {
        const outcome = await yard.callTool(name as never, {}, { callId: "odd" });
        expect(outcome).toMatchObject({ callId: "odd", status: "invalid", error: { code: "TOOL_NOT_FOUND" } });
        expect(errorOf(outcome).message).toBe("The call names no tool: give the tool's name.");
      }
      await new Promise((resolve) => setImmediate(resolve));
      expect(rejections).toEqual([]);
    } finally {
      process.off("unhandledRejection", onRejection);
      await yard.close();
    }
  });

  it("looks up the closest names after a turn of the event loop, and answers at once once the run's lookups are spent", async () => {
    const { context } = createTestContext([tool("orders.search", () => null)]);
    const budgeted = { ...context, suggestionBudget: { remaining: 1 } };
    const order: string[] = [];
    // Scheduled before the call: it runs first only if the lookup waits for the loop's next turn.
    setImmediate(() => order.push("turn"));
    const looked = runToolCall(makeCall("orders.serch", {}, { caller: "program", programId: "p1" }), budgeted);
    expect(looked).toBeInstanceOf(Promise);
    const { outcome } = await looked;
    order.push("answered");
    expect(order).toEqual(["turn", "answered"]);
    expect(errorOf(outcome).message).toContain('"orders.search"');
    // Nothing left to look up: a synchronous answer, without suggestions.
    const spent = runToolCall(makeCall("orders.serch", {}, { caller: "program", programId: "p1" }), budgeted);
    expect(spent).not.toBeInstanceOf(Promise);
    expect(errorOf((spent as Awaited<typeof spent>).outcome).message).not.toContain("Did you mean");
  });

  it("finds a tool by the identifier path a program calls it by", async () => {
    const { context } = createTestContext([tool("get-weather", () => "sunny")]);
    await expect(executeToolCall(makeCall("get_weather", {}, { caller: "program" }), context)).resolves.toMatchObject({
      status: "ok",
      value: "sunny",
    });
  });

  it("answers TOOL_NOT_FOUND when the tool may not be called by this kind of caller, without running it", async () => {
    const execute = vi.fn(() => "ran");
    const { context } = createTestContext([tool("admin.reset", execute, { callers: ["direct"] })]);
    await expect(
      executeToolCall(makeCall("admin.reset", {}, { caller: "program", programId: "p1" }), context),
    ).resolves.toMatchObject({
      status: "invalid",
      error: { code: "TOOL_NOT_FOUND" },
    });
    expect(execute).not.toHaveBeenCalled();
  });

  it("admits a hosted program's call to a tool callable from programs, and says so in the record and the trace", async () => {
    const { context, events } = createTestContext([tool("items.get", () => ({ n: 1 }))]);
    const hostedCaller = { provider: "anthropic", toolId: "srvtoolu_1" };
    const result = await runToolCall(makeCall("items.get", {}, { caller: "hosted-program", hostedCaller }), context);
    expect(result.outcome.status).toBe("ok");
    expect(result.record).toMatchObject({ caller: "hosted-program", hostedCaller });
    expect(endsOf(events)[0]).toMatchObject({ caller: "hosted-program", hostedCaller });
  });

  it("refuses a hosted program's call to a tool only a model turn may call, and admits one limited to hosted programs", async () => {
    const execute = vi.fn(() => "ran");
    const { context } = createTestContext([
      tool("admin.reset", execute, { callers: ["direct"] }),
      tool("admin.audit", () => "audited", { callers: ["hosted-program"] }),
    ]);
    const hosted = {
      caller: "hosted-program" as const,
      hostedCaller: { provider: "openai-responses", toolId: "prog_1" },
    };
    const refused = await executeToolCall(makeCall("admin.reset", {}, hosted), context);
    expect(refused).toMatchObject({ status: "invalid", error: { code: "TOOL_NOT_FOUND" } });
    expect(errorOf(refused).message).toContain("the provider's hosted program");
    expect(execute).not.toHaveBeenCalled();
    await expect(executeToolCall(makeCall("admin.audit", {}, hosted), context)).resolves.toMatchObject({
      status: "ok",
    });
    // Limited to hosted programs: Switchyard's own sandbox may not call it.
    await expect(executeToolCall(makeCall("admin.audit", {}, { caller: "program" }), context)).resolves.toMatchObject({
      error: { code: "TOOL_NOT_FOUND" },
    });
  });

  it("answers OUTPUT_INVALID when the result does not match the outputSchema", async () => {
    const { context } = createTestContext([
      tool("svc.count", () => ({ count: "three" }), {
        outputSchema: { type: "object", properties: { count: { type: "integer" } }, required: ["count"] },
      }),
    ]);
    const outcome = await executeToolCall(makeCall("svc.count", {}), context);
    expect(outcome).toMatchObject({ status: "error", error: { code: "OUTPUT_INVALID" } });
    expect(errorOf(outcome).details).toEqual([
      { path: "/count", expected: "type integer", received: 'string "three"' },
    ]);
  });

  it("answers TOOL_ERROR, not a crash, for a result holding a BigInt or a cycle", async () => {
    const cyclic: Record<string, unknown> = { name: "loop" };
    cyclic["self"] = cyclic;
    const { context } = createTestContext([tool("svc.big", () => ({ id: 10n })), tool("svc.cycle", () => cyclic)]);
    for (const name of ["svc.big", "svc.cycle"]) {
      const result = await runToolCall(makeCall(name, {}), context);
      expect(result.outcome).toMatchObject({
        status: "error",
        error: { code: "TOOL_ERROR", message: expect.stringContaining("JSON") },
      });
      expect(result.json).toBeUndefined();
    }
  });

  it("serializes an undefined result as null", async () => {
    const { context } = createTestContext([tool("svc.nothing", () => undefined)]);
    const result = await runToolCall(makeCall("svc.nothing", {}), context);
    expect(result.outcome.status).toBe("ok");
    expect(result.json).toBe("null");
  });

  it("refuses a program's result over maxProgramResultBytes with RESULT_TOO_LARGE", async () => {
    const { context } = createTestContext([tool("svc.dump", () => "x".repeat(200))], {
      results: { maxProgramResultBytes: 100 },
    });
    const outcome = await executeToolCall(makeCall("svc.dump", {}, { caller: "program", programId: "p1" }), context);
    expect(outcome).toMatchObject({
      status: "error",
      error: { code: "RESULT_TOO_LARGE", details: { bytes: 202, limit: 100 } },
    });
  });

  it("counts bytes, not characters, against the result budget", async () => {
    const { context } = createTestContext([tool("svc.text", () => "é".repeat(40))], {
      results: { maxProgramResultBytes: 60 },
    });
    // 40 characters, 82 bytes of JSON.
    await expect(executeToolCall(makeCall("svc.text", {}, { caller: "program" }), context)).resolves.toMatchObject({
      error: { code: "RESULT_TOO_LARGE", details: { bytes: 82 } },
    });
  });

  it("refuses a direct result over maxDirectResultBytes with RESULT_TOO_LARGE when no spill store is configured", async () => {
    const { context } = createTestContext([tool("svc.dump", () => "x".repeat(200))], {
      results: { maxDirectResultBytes: 100 },
    });
    await expect(executeToolCall(makeCall("svc.dump", {}), context)).resolves.toMatchObject({
      error: { code: "RESULT_TOO_LARGE" },
    });
  });

  it("emits one tool-call-start and one tool-call-end per call, whatever its outcome", async () => {
    const { context, events } = createTestContext(
      [tool("svc.ok", () => 1), tool("svc.fail", () => Promise.reject(new Error("x")))],
      {
        permissions: { rules: [{ tools: "svc.denied", decision: "deny" }] },
      },
    );
    await Promise.all([
      executeToolCall(makeCall("svc.ok", {}, { id: "a" }), context),
      executeToolCall(makeCall("svc.fail", {}, { id: "b" }), context),
      executeToolCall(makeCall("svc.missing", {}, { id: "c" }), context),
      executeToolCall(makeCall("svc.ok", "not an object", { id: "d" }), context),
    ]);
    expect(
      events
        .filter((event) => event.type === "tool-call-start")
        .map((event) => (event as { callId: string }).callId)
        .sort(),
    ).toEqual(["a", "b", "c", "d"]);
    const ends = endsOf(events);
    expect(ends.map((event) => [event.callId, event.status, event.code]).sort()).toEqual([
      ["a", "ok", undefined],
      ["b", "error", "TOOL_ERROR"],
      ["c", "invalid", "TOOL_NOT_FOUND"],
      ["d", "invalid", "INPUT_INVALID"],
    ]);
    expect(ends.find((event) => event.callId === "c")?.startedAt).toBeUndefined();
    expect(ends.find((event) => event.callId === "a")?.startedAt).toEqual(expect.any(Number));
  });

  it("keeps a status consistent with its code for every failed outcome", async () => {
    const { context } = createTestContext([
      tool("svc.fail", () => Promise.reject(new ToolError("no", { code: "CANCELLED" }))),
    ]);
    const outcome = await executeToolCall(makeCall("svc.fail", {}), context);
    expect(outcome.status).toBe(statusForCode(errorOf(outcome).code));
  });
});

describe("executeToolCall deadlines", () => {
  const start = Date.parse("2026-03-01T00:00:00.000Z");

  beforeEach(() => {
    // setImmediate stays real so drainMicrotasks works; time moves only when the test says so.
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"] });
    vi.setSystemTime(start);
  });

  afterEach(() => {
    vi.useRealTimers();
  });

  /** A tool that never answers on its own and remembers the signal it was given. */
  function hangingTool(extra: Partial<Parameters<typeof defineTool>[0]> = {}) {
    const seen: ToolContext[] = [];
    const answer = createDeferred<string>();
    const definition = tool(
      "svc.hang",
      (_input: unknown, context: ToolContext) => {
        seen.push(context);
        return answer.promise;
      },
      extra,
    );
    return { definition, seen, answer };
  }

  async function advance(ms: number): Promise<void> {
    vi.advanceTimersByTime(ms);
    await drainMicrotasks();
  }

  it.each([
    { binding: "tool", toolTimeoutMs: 100, runIn: 200, sessionIn: 300, expectedAt: 100, message: "its own timeout" },
    { binding: "run", toolTimeoutMs: 300, runIn: 100, sessionIn: 200, expectedAt: 100, message: "run's time budget" },
    {
      binding: "session",
      toolTimeoutMs: 300,
      runIn: 200,
      sessionIn: 150,
      expectedAt: 150,
      message: "session's time budget",
    },
  ])(
    "times out at the $binding deadline when it is the earliest of the three",
    async ({ toolTimeoutMs, runIn, sessionIn, expectedAt, message }) => {
      const { definition, seen } = hangingTool({ timeoutMs: toolTimeoutMs });
      const { context, events } = createTestContext([definition], {
        budgets: { runDeadlineAt: start + runIn, sessionDeadlineAt: start + sessionIn },
      });
      const pending = track(executeToolCall(makeCall("svc.hang", {}, { id: "slow" }), context));
      await drainMicrotasks();
      expect(seen).toHaveLength(1);

      await advance(expectedAt - 1);
      expect(pending.settled).toBe(false);
      expect(seen[0]?.signal.aborted).toBe(false);

      await advance(2);
      expect(pending.settled).toBe(true);
      expect(pending.value).toMatchObject({ callId: "slow", status: "timeout", error: { code: "TOOL_TIMEOUT" } });
      expect(pending.value !== undefined && errorOf(pending.value).message).toContain(message);
      expect(seen[0]?.signal.aborted).toBe(true);
      expect(endsOf(events)).toHaveLength(1);
    },
  );

  it("uses the call's own timeoutMs over the tool's, and the pipeline default when neither sets one", async () => {
    const { definition } = hangingTool({ timeoutMs: 1_000 });
    const { definition: plain } = { definition: tool("svc.plain", () => new Promise(() => {})) };
    const { context } = createTestContext([definition, plain], { defaultTimeoutMs: 50 });
    const overridden = track(executeToolCall(makeCall("svc.hang", {}, { timeoutMs: 20 }), context));
    const defaulted = track(executeToolCall(makeCall("svc.plain", {}), context));
    await drainMicrotasks();
    await advance(19);
    expect(overridden.settled).toBe(false);
    await advance(2);
    expect(overridden.value).toMatchObject({ status: "timeout" });
    await advance(28);
    expect(defaulted.settled).toBe(false);
    await advance(2);
    expect(defaulted.value).toMatchObject({ status: "timeout" });
  });

  it("keeps the run and session budgets binding when a call passes a timeoutMs that is not a number", async () => {
    const { definition } = hangingTool({ timeoutMs: 1_000 });
    const { context } = createTestContext([definition], { budgets: { sessionDeadlineAt: start + 100 } });
    const pending = track(executeToolCall(makeCall("svc.hang", {}, { timeoutMs: Number.NaN }), context));
    await drainMicrotasks();
    await advance(101);
    expect(pending.value).toMatchObject({ status: "timeout", error: { code: "TOOL_TIMEOUT" } });
  });

  it("drops a result that arrives after the timeout and traces it as a late result", async () => {
    const { definition, answer } = hangingTool({ timeoutMs: 10 });
    const { context, events } = createTestContext([definition]);
    const pending = track(executeToolCall(makeCall("svc.hang", {}, { id: "late" }), context));
    await drainMicrotasks();
    await advance(11);
    expect(pending.value).toMatchObject({ status: "timeout" });
    expect(events.some((event) => event.type === "tool-call-late-result")).toBe(false);

    answer.resolve("finally done");
    await drainMicrotasks();
    expect(pending.value).toMatchObject({ callId: "late", status: "timeout", error: { code: "TOOL_TIMEOUT" } });
    expect(events.filter((event) => event.type === "tool-call-late-result")).toEqual([
      { type: "tool-call-late-result", callId: "late", tool: "svc.hang", at: expect.any(Number), settled: "fulfilled" },
    ]);
    expect(endsOf(events)).toHaveLength(1);
  });

  it("traces a late rejection as a late result too, without an unhandled rejection", async () => {
    const { definition, answer } = hangingTool({ timeoutMs: 10 });
    const { context, events } = createTestContext([definition]);
    const pending = track(executeToolCall(makeCall("svc.hang", {}), context));
    await drainMicrotasks();
    await advance(11);
    answer.reject(new Error("aborted by signal"));
    await drainMicrotasks();
    expect(pending.value).toMatchObject({ status: "timeout" });
    expect(events.filter((event) => event.type === "tool-call-late-result")).toMatchObject([{ settled: "rejected" }]);
  });

  it("times a call out while it waits for approval when the run's budget runs out, without running it", async () => {
    const execute = vi.fn(() => "ran");
    const approve = vi.fn(() => new Promise<boolean>(() => {}));
    const { context } = createTestContext([tool("svc.ask", execute)], {
      permissions: { default: "ask", approve },
      budgets: { runDeadlineAt: start + 50 },
    });
    const pending = track(executeToolCall(makeCall("svc.ask", {}), context));
    await drainMicrotasks();
    expect(approve).toHaveBeenCalledTimes(1);
    await advance(49);
    expect(pending.settled).toBe(false);
    await advance(2);
    expect(pending.value).toMatchObject({
      status: "timeout",
      error: { code: "TOOL_TIMEOUT", message: expect.stringContaining("run") },
    });
    expect(execute).not.toHaveBeenCalled();
  });

  it("times a queued call out at the run's deadline, never runs it, and lets the queue move on", async () => {
    const gate = createDeferred<string>();
    const ran: string[] = [];
    const write = defineTool({
      name: "db.write",
      description: "Write.",
      inputSchema: anyObject,
      execute: (_input: unknown, toolContext) => {
        ran.push(toolContext.callId);
        return toolContext.callId === "holder" ? gate.promise : "written";
      },
    });
    const shared = createTestContext([write]);
    const budgeted = { ...shared.context, budgets: { runDeadlineAt: start + 30 } };
    const holder = track(executeToolCall(makeCall("db.write", {}, { id: "holder" }), shared.context));
    const queued = track(executeToolCall(makeCall("db.write", {}, { id: "queued" }), budgeted));
    const after = track(executeToolCall(makeCall("db.write", {}, { id: "after" }), shared.context));
    await drainMicrotasks();
    expect(ran).toEqual(["holder"]);
    await advance(31);
    expect(queued.value).toMatchObject({ status: "timeout", error: { code: "TOOL_TIMEOUT" } });
    gate.resolve("held");
    await drainMicrotasks();
    expect(holder.value).toMatchObject({ status: "ok" });
    expect(after.value).toMatchObject({ status: "ok" });
    expect(ran).toEqual(["holder", "after"]);
  });

  it("never starts a call whose run deadline has already passed", async () => {
    const execute = vi.fn(() => "ran");
    const { context } = createTestContext([tool("svc.late", execute)], { budgets: { runDeadlineAt: start - 1 } });
    const pending = track(executeToolCall(makeCall("svc.late", {}), context));
    await drainMicrotasks();
    await advance(1);
    expect(pending.value).toMatchObject({ status: "timeout", error: { code: "TOOL_TIMEOUT" } });
    expect(execute).not.toHaveBeenCalled();
  });

  it("counts a tool's own timeout from when it starts running, not from when it was queued", async () => {
    const gate = createDeferred<string>();
    const write = defineTool({
      name: "db.write",
      description: "Write.",
      inputSchema: anyObject,
      timeoutMs: 100,
      execute: (input: { id: string }) => (input.id === "first" ? gate.promise : new Promise(() => {})),
    });
    const { context } = createTestContext([write]);
    const first = track(executeToolCall(makeCall("db.write", { id: "first" }), context));
    const second = track(executeToolCall(makeCall("db.write", { id: "second" }), context));
    await drainMicrotasks();
    await advance(60);
    gate.resolve("done");
    await drainMicrotasks();
    expect(first.value).toMatchObject({ status: "ok" });
    await advance(99);
    expect(second.settled).toBe(false);
    await advance(2);
    expect(second.value).toMatchObject({ status: "timeout" });
  });
});

describe("executeToolCall cancellation", () => {
  it("gives every pending call exactly one CANCELLED outcome and never runs the queued ones", async () => {
    const controller = new AbortController();
    const running = new Map<string, AbortSignal>();
    const gates = new Map<string, Deferred<string>>();
    const execute = (_input: unknown, toolContext: ToolContext): Promise<string> => {
      running.set(toolContext.callId, toolContext.signal);
      const gate = createDeferred<string>();
      gates.set(toolContext.callId, gate);
      return gate.promise;
    };
    const tools = [
      defineTool({
        name: "db.write",
        description: "Write a row.",
        inputSchema: anyObject,
        resources: () => ["row-1"],
        execute,
      }),
      defineTool({ name: "db.read", description: "Read a row.", inputSchema: anyObject, effect: "read", execute }),
      defineTool({ name: "db.slow", description: "Other work.", inputSchema: anyObject, effect: "read", execute }),
    ];
    const { context, events } = createTestContext(tools, { signal: controller.signal });
    const ids = ["w1", "w2", "w3", "w4", "r1", "r2", "s1"];
    const outcomes = ids.map((id) =>
      executeToolCall(
        makeCall(id.startsWith("w") ? "db.write" : id.startsWith("r") ? "db.read" : "db.slow", {}, { id }),
        context,
      ),
    );
    // One finished call must keep its outcome.
    const done = executeToolCall(makeCall("db.read", {}, { id: "done" }), context);
    await drainMicrotasks();
    gates.get("done")?.resolve("early");
    await expect(done).resolves.toMatchObject({ status: "ok" });
    expect([...running.keys()].sort()).toEqual(["done", "r1", "r2", "s1", "w1"]);

    controller.abort();
    const settled = await Promise.all(outcomes);
    expect(settled.map((outcome) => outcome.callId)).toEqual(ids);
    expect(settled.every((outcome) => outcome.status === "cancelled" && outcome.error.code === "CANCELLED")).toBe(true);
    for (const id of ["w1", "r1", "r2", "s1"]) expect(running.get(id)?.aborted).toBe(true);

    // Tools that answer after the cancellation change nothing, and queued writes stay unrun.
    for (const gate of gates.values()) gate.resolve("too late");
    await drainMicrotasks();
    expect([...running.keys()]).not.toContain("w2");
    expect([...running.keys()]).not.toContain("w3");
    expect([...running.keys()]).not.toContain("w4");
    const ends = endsOf(events);
    expect(ends.map((event) => event.callId).sort()).toEqual([...ids, "done"].sort());
    expect(
      ends.filter((event) => ["w2", "w3", "w4"].includes(event.callId)).every((event) => event.startedAt === undefined),
    ).toBe(true);
    expect(
      events
        .filter((event) => event.type === "tool-call-late-result")
        .map((event) => (event as { callId: string }).callId)
        .sort(),
    ).toEqual(["r1", "r2", "s1", "w1"]);
  });

  it("answers CANCELLED without running the tool when the signal is already aborted", async () => {
    const execute = vi.fn(() => "ran");
    const { context } = createTestContext([tool("svc.any", execute)], { signal: AbortSignal.abort() });
    await expect(executeToolCall(makeCall("svc.any", {}), context)).resolves.toMatchObject({
      status: "cancelled",
      error: { code: "CANCELLED" },
    });
    expect(execute).not.toHaveBeenCalled();
  });

  it("never starts a queued read that the cancelled write ahead of it unblocks during the same cancellation", async () => {
    const controller = new AbortController();
    const started: string[] = [];
    const execute = (_input: unknown, toolContext: ToolContext): Promise<never> => {
      started.push(toolContext.callId);
      return new Promise(() => {});
    };
    const { context } = createTestContext(
      [
        defineTool({ name: "db.read", description: "Read.", inputSchema: anyObject, effect: "read", execute }),
        defineTool({ name: "db.flush", description: "Write anything.", inputSchema: anyObject, execute }),
      ],
      { signal: controller.signal },
    );
    const outcomes = [
      executeToolCall(makeCall("db.read", {}, { id: "running-read" }), context),
      executeToolCall(makeCall("db.flush", {}, { id: "queued-write" }), context),
      executeToolCall(makeCall("db.read", {}, { id: "queued-read" }), context),
    ];
    await drainMicrotasks();
    expect(started).toEqual(["running-read"]);
    // Leaving the queue, the write frees the read behind it before that read hears the abort.
    controller.abort();
    await expect(Promise.all(outcomes)).resolves.toMatchObject([
      { status: "cancelled" },
      { status: "cancelled" },
      { status: "cancelled" },
    ]);
    await drainMicrotasks();
    expect(started).toEqual(["running-read"]);
  });
});

describe("Switchyard.callTool", () => {
  it("runs a direct call through the pipeline and binds the outcome to the caller's id", async () => {
    const yard = new Switchyard({ tools: [tool("math.double", (input: { n: number }) => input.n * 2)] });
    await expect(yard.callTool("math.double", { n: 21 }, { callId: "toolu_01" })).resolves.toEqual({
      callId: "toolu_01",
      tool: "math.double",
      status: "ok",
      value: 42,
    });
    const generated = await yard.callTool("math.double", { n: 1 });
    const other = await yard.callTool("math.double", { n: 1 });
    expect(generated.callId).not.toBe(other.callId);
  });

  it("applies the session's permission rules and never runs a denied tool", async () => {
    const execute = vi.fn(() => "ran");
    const yard = new Switchyard({
      tools: [tool("shell.run", execute)],
      permissions: { rules: [{ tools: "shell.*", decision: "deny", reason: "no shell in this session" }] },
    });
    const outcome = await yard.callTool("shell.run", {});
    expect(outcome).toMatchObject({
      status: "denied",
      error: { code: "PERMISSION_DENIED", message: expect.stringContaining("no shell in this session") },
    });
    expect(execute).not.toHaveBeenCalled();
  });

  it("answers CANCELLED for a direct call whose signal aborts mid-flight", async () => {
    const controller = new AbortController();
    const yard = new Switchyard({ tools: [tool("svc.hang", () => new Promise(() => {}))] });
    const pending = yard.callTool("svc.hang", {}, { signal: controller.signal, callId: "x" });
    await drainMicrotasks();
    controller.abort();
    await expect(pending).resolves.toMatchObject({ callId: "x", status: "cancelled" });
  });
});
