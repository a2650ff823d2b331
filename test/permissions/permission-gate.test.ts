import { describe, expect, it, vi } from "vitest";
import { SwitchyardError } from "../../src/errors.js";
import { executeToolCall } from "../../src/execute-tool-call.js";
import {
  globToRegExp,
  interpretAnswer,
  PermissionGate,
  type PermissionOptions,
  type PermissionRequest,
} from "../../src/permissions/permission-gate.js";
import { defineTool } from "../../src/registry/define-tool.js";
import { createDeferred, createTestContext, drainMicrotasks, makeCall, track } from "../helpers/pipeline-fixtures.js";
import { configErrorCode } from "../helpers/config-error.js";

function request(tool: string, input: unknown = {}): Omit<PermissionRequest, "reason"> {
  return { tool, input, caller: "direct", programId: undefined, callId: "c1", effect: "write" };
}

describe("PermissionGate.decide", () => {
  it("lets the first matching rule decide even when a later rule also matches", () => {
    const gate = new PermissionGate({
      rules: [
        { tools: "orders.refund", decision: "deny", reason: "refunds are manual" },
        { tools: "orders.*", decision: "allow" },
        { tools: "*", decision: "ask" },
      ],
    });
    expect(gate.decide(request("orders.refund"))).toEqual({ decision: "deny", reason: "refunds are manual" });
    expect(gate.decide(request("orders.search"))).toEqual({ decision: "allow", reason: undefined });
    expect(gate.decide(request("billing.charge")).decision).toBe("ask");
  });

  it("falls back to the configured default when no rule matches, and to allow without one", () => {
    expect(
      new PermissionGate({ rules: [{ tools: "a.*", decision: "deny" }], default: "ask" }).decide(request("b.x")),
    ).toEqual({
      decision: "ask",
      reason: undefined,
    });
    expect(new PermissionGate().decide(request("b.x")).decision).toBe("allow");
  });

  it("matches `orders.*` against names in that namespace only", () => {
    const gate = new PermissionGate({ rules: [{ tools: "orders.*", decision: "deny" }] });
    expect(gate.decide(request("orders.search")).decision).toBe("deny");
    expect(gate.decide(request("orders.refund.partial")).decision).toBe("deny");
    expect(gate.decide(request("ordersX.search")).decision).toBe("allow");
    expect(gate.decide(request("orders")).decision).toBe("allow");
    expect(gate.decide(request("my.orders.search")).decision).toBe("allow");
  });

  it("accepts a list of globs and matches when any of them does", () => {
    const gate = new PermissionGate({ rules: [{ tools: ["shell.run", "fs.write*"], decision: "deny" }] });
    expect(gate.decide(request("shell.run")).decision).toBe("deny");
    expect(gate.decide(request("fs.writeFile")).decision).toBe("deny");
    expect(gate.decide(request("fs.read")).decision).toBe("allow");
  });

  it("applies a rule with a `when` predicate only to inputs the predicate accepts", () => {
    const when = vi.fn((input: unknown, _request: PermissionRequest) => (input as { amount: number }).amount > 100);
    const gate = new PermissionGate({
      rules: [
        { tools: "orders.refund", decision: "deny", when, reason: "large refunds need a human" },
        { tools: "orders.refund", decision: "allow" },
      ],
    });
    expect(gate.decide(request("orders.refund", { amount: 500 }))).toEqual({
      decision: "deny",
      reason: "large refunds need a human",
    });
    expect(gate.decide(request("orders.refund", { amount: 5 })).decision).toBe("allow");
    expect(when).toHaveBeenCalledTimes(2);
    expect(when.mock.calls[0]?.[1]).toMatchObject({ tool: "orders.refund", reason: "large refunds need a human" });
  });

  it("does not call a rule's predicate when the rule's globs do not match", () => {
    const when = vi.fn(() => true);
    new PermissionGate({ rules: [{ tools: "a.*", decision: "deny", when }] }).decide(request("b.c"));
    expect(when).not.toHaveBeenCalled();
  });

  it("treats a predicate that throws, or returns a truthy non-boolean, as not matching", () => {
    const gate = new PermissionGate({
      rules: [
        {
          tools: "*",
          decision: "deny",
          when: () => {
            throw new Error("boom");
          },
        },
        { tools: "*", decision: "deny", when: () => "yes" as unknown as boolean },
        { tools: "*", decision: "ask" },
      ],
    });
    expect(gate.decide(request("x.y")).decision).toBe("ask");
  });

  it("throws OPTION_INVALID for an unknown decision, an empty glob list or a bad default", () => {
    expect(configErrorCode(() => new PermissionGate({ rules: [{ tools: "*", decision: "maybe" as "allow" }] }))).toBe(
      "OPTION_INVALID",
    );
    expect(configErrorCode(() => new PermissionGate({ rules: [{ tools: [], decision: "deny" }] }))).toBe(
      "OPTION_INVALID",
    );
    expect(configErrorCode(() => new PermissionGate({ default: "sometimes" as "allow" }))).toBe("OPTION_INVALID");
  });

  it("throws one OPTION_INVALID line, never a TypeError, for rules of the wrong shape from plain JavaScript", () => {
    const messageOf = (options: unknown): string => {
      try {
        new PermissionGate(options as PermissionOptions);
      } catch (error) {
        expect(SwitchyardError.isInstance(error) && error.code).toBe("OPTION_INVALID");
        return (error as Error).message;
      }
      throw new Error("expected OPTION_INVALID");
    };
    expect(messageOf({ rules: [{ tool: "bank.pay", decision: "ask" }] })).toBe(
      'permissions.rules[0].tools must be a tool name glob or a list of them, e.g. "orders.*" (the rule has "tool": the key is "tools").',
    );
    expect(messageOf({ rules: [{ tools: ["orders.*", 5], decision: "deny" }] })).toMatch(
      /^permissions\.rules\[0\]\.tools must be/,
    );
    expect(messageOf({ rules: [null] })).toMatch(/^permissions\.rules\[0\]\.decision must be/);
    expect(messageOf({ rules: { tools: "*", decision: "deny" } })).toBe("permissions.rules must be a list of rules.");
  });
});

describe("globToRegExp", () => {
  it("treats only `*` as special, so dots and regex characters match themselves", () => {
    expect(globToRegExp("a.b").test("a.b")).toBe(true);
    expect(globToRegExp("a.b").test("aXb")).toBe(false);
    expect(globToRegExp("a+(b)").test("a+(b)")).toBe(true);
    expect(globToRegExp("$search").test("$search")).toBe(true);
    expect(globToRegExp("*").test("")).toBe(true);
    expect(globToRegExp("a*c").test("abbbc")).toBe(true);
    expect(globToRegExp("a*c").test("abbbcd")).toBe(false);
  });
});

describe("PermissionGate.check", () => {
  it("denies with the rule's reason, or a default reason when the rule gives none", async () => {
    const gate = new PermissionGate({
      rules: [
        { tools: "a.x", decision: "deny", reason: "not today" },
        { tools: "a.y", decision: "deny" },
      ],
    });
    await expect(gate.check(request("a.x"))).resolves.toEqual({ allowed: false, reason: "not today" });
    const verdict = await gate.check(request("a.y"));
    expect(verdict.allowed).toBe(false);
    expect(verdict).toHaveProperty("reason", expect.stringContaining("a.y"));
  });

  it("denies an ask when no approver is configured", async () => {
    const verdict = await new PermissionGate({ default: "ask" }).check(request("a.x"));
    expect(verdict).toEqual({ allowed: false, reason: expect.stringContaining("no approver") });
  });

  it("denies an ask when the approver throws or rejects", async () => {
    const throwing = new PermissionGate({
      default: "ask",
      approve: () => {
        throw new Error("approver crashed");
      },
    });
    const rejecting = new PermissionGate({ default: "ask", approve: () => Promise.reject(new Error("offline")) });
    await expect(throwing.check(request("a.x"))).resolves.toEqual({
      allowed: false,
      reason: expect.stringContaining("approver failed"),
    });
    await expect(rejecting.check(request("a.x"))).resolves.toEqual({
      allowed: false,
      reason: expect.stringContaining("approver failed"),
    });
  });

  it("passes the asking rule's reason to the approver and returns the approver's own refusal reason", async () => {
    const approve = vi.fn(() => ({ approved: false, reason: "the operator said no" }));
    const gate = new PermissionGate({
      rules: [{ tools: "*", decision: "ask", reason: "writes need a look" }],
      approve,
    });
    await expect(gate.check(request("a.x", { n: 1 }))).resolves.toEqual({
      allowed: false,
      reason: "the operator said no",
    });
    expect(approve).toHaveBeenCalledWith(
      expect.objectContaining({ tool: "a.x", input: { n: 1 }, reason: "writes need a look" }),
    );
  });

  it("does not call the approver for allow or deny decisions", async () => {
    const approve = vi.fn(() => true);
    const gate = new PermissionGate({
      rules: [
        { tools: "a.allowed", decision: "allow" },
        { tools: "a.denied", decision: "deny" },
      ],
      approve,
    });
    await gate.check(request("a.allowed"));
    await gate.check(request("a.denied"));
    expect(approve).not.toHaveBeenCalled();
  });
});

describe("interpretAnswer", () => {
  it("allows only a clear yes", () => {
    expect(interpretAnswer(true, "no")).toEqual({ allowed: true });
    expect(interpretAnswer({ approved: true }, "no")).toEqual({ allowed: true });
    expect(interpretAnswer(false, "default")).toEqual({ allowed: false, reason: "default" });
    expect(interpretAnswer({ approved: false }, "default")).toEqual({ allowed: false, reason: "default" });
    expect(interpretAnswer("yes" as unknown as boolean, "default")).toEqual({ allowed: false, reason: "default" });
    expect(interpretAnswer(null as unknown as boolean, "default")).toEqual({ allowed: false, reason: "default" });
  });
});

describe("permissions in the pipeline", () => {
  const inputSchema = {
    type: "object",
    properties: { amount: { type: "integer", minimum: 0 } },
    required: ["amount"],
    additionalProperties: false,
  };

  it("never executes a denied tool and returns PERMISSION_DENIED with the rule's reason", async () => {
    const execute = vi.fn(() => "refunded");
    const { context } = createTestContext(
      [defineTool({ name: "orders.refund", description: "Refund.", inputSchema, execute })],
      {
        permissions: { rules: [{ tools: "orders.*", decision: "deny", reason: "refunds go through support" }] },
      },
    );
    const outcome = await executeToolCall(makeCall("orders.refund", { amount: 5 }, { id: "r1" }), context);
    expect(outcome).toMatchObject({ callId: "r1", status: "denied", error: { code: "PERMISSION_DENIED" } });
    expect(outcome.status !== "ok" && outcome.error.message).toContain("refunds go through support");
    expect(execute).not.toHaveBeenCalled();
  });

  it("runs an asked tool once the approver says yes, and not at all when it says no", async () => {
    const execute = vi.fn((input: { amount: number }) => input.amount);
    const approve = vi.fn((request: PermissionRequest) => (request.input as { amount: number }).amount < 10);
    const { context } = createTestContext(
      [defineTool({ name: "orders.refund", description: "Refund.", inputSchema, execute })],
      {
        permissions: { default: "ask", approve },
      },
    );
    await expect(executeToolCall(makeCall("orders.refund", { amount: 5 }), context)).resolves.toMatchObject({
      status: "ok",
      value: 5,
    });
    await expect(executeToolCall(makeCall("orders.refund", { amount: 50 }), context)).resolves.toMatchObject({
      status: "denied",
      error: { code: "PERMISSION_DENIED" },
    });
    expect(execute).toHaveBeenCalledTimes(1);
    expect(approve).toHaveBeenCalledTimes(2);
  });

  it("denies an ask when the approver is missing or throws, without executing the tool", async () => {
    const execute = vi.fn(() => "done");
    const tool = defineTool({ name: "orders.refund", description: "Refund.", inputSchema, execute });
    const missing = createTestContext([tool], { permissions: { default: "ask" } }).context;
    const throwing = createTestContext([tool], {
      permissions: {
        default: "ask",
        approve: () => {
          throw new Error("no");
        },
      },
    }).context;
    await expect(executeToolCall(makeCall("orders.refund", { amount: 1 }), missing)).resolves.toMatchObject({
      status: "denied",
    });
    await expect(executeToolCall(makeCall("orders.refund", { amount: 1 }), throwing)).resolves.toMatchObject({
      status: "denied",
    });
    expect(execute).not.toHaveBeenCalled();
  });

  it("never shows invalid input to the approver: the outcome is INPUT_INVALID", async () => {
    const approve = vi.fn(() => true);
    const when = vi.fn(() => true);
    const execute = vi.fn(() => "done");
    const { context } = createTestContext(
      [defineTool({ name: "orders.refund", description: "Refund.", inputSchema, execute })],
      {
        permissions: { rules: [{ tools: "*", decision: "ask", when }], approve },
      },
    );
    const outcome = await executeToolCall(makeCall("orders.refund", { amount: "all of it" }), context);
    expect(outcome).toMatchObject({ status: "invalid", error: { code: "INPUT_INVALID" } });
    expect(approve).not.toHaveBeenCalled();
    expect(when).not.toHaveBeenCalled();
    expect(execute).not.toHaveBeenCalled();
  });

  it("keeps two asks pending at once and settles each with its own answer, resolved in reverse order", async () => {
    const answers = new Map<string, ReturnType<typeof createDeferred<boolean>>>();
    const approve = vi.fn((request: PermissionRequest) => {
      const answer = createDeferred<boolean>();
      answers.set(request.callId, answer);
      return answer.promise;
    });
    const execute = vi.fn((input: { amount: number }) => input.amount);
    const { context } = createTestContext(
      [defineTool({ name: "orders.refund", description: "Refund.", inputSchema, execute })],
      {
        permissions: { default: "ask", approve },
      },
    );
    const first = track(executeToolCall(makeCall("orders.refund", { amount: 1 }, { id: "first" }), context));
    const second = track(executeToolCall(makeCall("orders.refund", { amount: 2 }, { id: "second" }), context));
    await drainMicrotasks();
    expect(approve).toHaveBeenCalledTimes(2);
    expect(first.settled || second.settled).toBe(false);

    answers.get("second")?.resolve(false);
    await drainMicrotasks();
    expect(second.value).toMatchObject({ callId: "second", status: "denied" });
    expect(first.settled).toBe(false);

    answers.get("first")?.resolve(true);
    await drainMicrotasks();
    expect(first.value).toMatchObject({ callId: "first", status: "ok", value: 1 });
    expect(execute).toHaveBeenCalledTimes(1);
    expect(execute).toHaveBeenCalledWith({ amount: 1 }, expect.anything());
  });

  it("resolves a call cancelled while its ask is pending as CANCELLED, and never runs it after a late yes", async () => {
    const answer = createDeferred<boolean>();
    const execute = vi.fn(() => "done");
    const controller = new AbortController();
    const { context } = createTestContext(
      [defineTool({ name: "orders.refund", description: "Refund.", inputSchema, execute })],
      {
        permissions: { default: "ask", approve: () => answer.promise },
        signal: controller.signal,
      },
    );
    const pending = executeToolCall(makeCall("orders.refund", { amount: 1 }), context);
    await drainMicrotasks();
    controller.abort();
    await expect(pending).resolves.toMatchObject({ status: "cancelled", error: { code: "CANCELLED" } });
    answer.resolve(true);
    await drainMicrotasks();
    expect(execute).not.toHaveBeenCalled();
  });
});
