import { setMaxListeners } from "node:events";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { statusForCode, type ToolEffect, type ToolOutcome } from "../src/contract.js";
import { ToolError } from "../src/errors.js";
import { executeToolCall } from "../src/execute-tool-call.js";
import type { PermissionRule } from "../src/permissions/permission-gate.js";
import { defineTool, type ToolContext, type ToolDefinition } from "../src/registry/define-tool.js";
import type { ToolCallEndEvent } from "../src/trace/trace-events.js";
import { createTestContext, InFlightProbe } from "./helpers/pipeline-fixtures.js";

type Behaviour = "ok" | "throw" | "toolError";

interface Input {
  key: string;
  behaviour: Behaviour;
  delay: number;
  deny?: boolean;
}

const TOOLS: readonly { name: string; effect: ToolEffect; declaresResources: boolean }[] = [
  { name: "kv.get", effect: "read", declaresResources: true },
  { name: "kv.scan", effect: "read", declaresResources: false },
  { name: "kv.put", effect: "write", declaresResources: true },
  { name: "kv.flush", effect: "write", declaresResources: false },
  { name: "log.append", effect: "destructive", declaresResources: false },
];
const UNKNOWN_TOOL = "kv.gett";

const inputSchema = {
  type: "object",
  properties: {
    key: { type: "string" },
    behaviour: { enum: ["ok", "throw", "toolError"] },
    delay: { type: "integer", minimum: 0, maximum: 3 },
    deny: { type: "boolean" },
  },
  required: ["key", "behaviour", "delay"],
  additionalProperties: false,
};

/** Waits `delay` ms (0: one microtask), rejecting as soon as `signal` aborts. */
function wait(delay: number, signal: AbortSignal): Promise<void> {
  if (delay === 0) return new Promise((resolve) => queueMicrotask(resolve));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, delay);
    signal.addEventListener(
      "abort",
      () => {
        clearTimeout(timer);
        reject(new Error("aborted"));
      },
      { once: true },
    );
  });
}

/** Tools that honour their signal, count writes and reads per key, and note a start after cancellation. */
function createTools(probe: InFlightProbe, runSignal: AbortSignal, violations: string[]): ToolDefinition[] {
  return TOOLS.map(({ name, effect, declaresResources }) =>
    defineTool({
      name,
      description: `${name} for property tests.`,
      effect,
      inputSchema,
      ...(declaresResources ? { resources: (input: Input) => [input.key] } : {}),
      execute: async (input: Input, context: ToolContext) => {
        if (runSignal.aborted) violations.push(`${context.callId} started after the run was cancelled`);
        // A tool without declared resources may touch any key of its namespace.
        const namespace = name.split(".")[0] ?? "";
        const scope = declaresResources ? `${namespace}:${input.key}` : `${namespace}:*`;
        const kind = effect === "read" ? "read" : "write";
        const keys = [
          `${kind}:${scope}`,
          ...(kind === "write" ? [`write-any:${namespace}`] : [`read-any:${namespace}`]),
        ];
        for (const key of keys) probe.enter(key);
        if (kind === "write" && probe.current(`write-any:${namespace}`) > 1 && !declaresResources) {
          violations.push(`${context.callId}: a namespace-wide write overlapped another write`);
        }
        if (
          kind === "write" &&
          declaresResources &&
          (probe.current(`read:${scope}`) > 0 || probe.current(`write:${namespace}:*`) > 0)
        ) {
          violations.push(`${context.callId}: a write to ${scope} overlapped a read of it or a namespace-wide write`);
        }
        if (kind === "read" && (probe.current(`write:${scope}`) > 0 || probe.current(`write:${namespace}:*`) > 0)) {
          violations.push(`${context.callId}: a read of ${scope} overlapped a write`);
        }
        let left = false;
        const leave = (): void => {
          if (left) return;
          left = true;
          for (const key of keys) probe.leave(key);
        };
        // Stop counting the moment the signal fires: that is when the pipeline may hand the lock on.
        context.signal.addEventListener("abort", leave, { once: true });
        try {
          await wait(input.delay, context.signal);
          if (input.behaviour === "throw") throw new Error(`plain failure of ${context.callId}`);
          if (input.behaviour === "toolError")
            throw new ToolError("conflict", { code: "KV_CONFLICT", details: { key: input.key } });
          return { key: input.key, by: context.callId };
        } finally {
          leave();
        }
      },
    }),
  );
}

const callArbitrary = fc.record({
  tool: fc.oneof(
    { weight: 10, arbitrary: fc.constantFrom(...TOOLS.map((tool) => tool.name)) },
    { weight: 1, arbitrary: fc.constant(UNKNOWN_TOOL) },
  ),
  key: fc.constantFrom("a", "b", "c"),
  behaviour: fc.constantFrom<Behaviour>("ok", "throw", "toolError"),
  delay: fc.integer({ min: 0, max: 3 }),
  invalid: fc.nat(9).map((value) => value === 0),
  deny: fc.nat(7).map((value) => value === 0),
  timeoutMs: fc.option(fc.integer({ min: 1, max: 4 }), { nil: undefined }),
});

const scenarioArbitrary = fc.record({
  calls: fc.array(callArbitrary, { minLength: 1, maxLength: 12 }),
  deniedTools: fc.subarray(
    TOOLS.map((tool) => tool.name),
    { maxLength: 1 },
  ),
  cancelAfterMs: fc.option(fc.integer({ min: 0, max: 6 }), { nil: undefined }),
  maxConcurrentReads: fc.integer({ min: 1, max: 3 }),
});

describe("executeToolCall under random mixes of calls", () => {
  it("gives every call exactly one outcome bound to its id, with a status that matches its code", async () => {
    await fc.assert(
      fc.asyncProperty(scenarioArbitrary, async ({ calls, deniedTools, cancelAfterMs, maxConcurrentReads }) => {
        const controller = new AbortController();
        // Every call listens to the run's signal, as in run-program.
        setMaxListeners(0, controller.signal);
        const probe = new InFlightProbe();
        const violations: string[] = [];
        const rules: PermissionRule[] = [
          { tools: "*", decision: "deny", when: (input) => (input as Input).deny === true, reason: "denied by input" },
          ...deniedTools.map((tool): PermissionRule => ({ tools: tool, decision: "deny", reason: "denied by name" })),
        ];
        const { context, events } = createTestContext(createTools(probe, controller.signal, violations), {
          permissions: { rules },
          scheduler: { maxConcurrentReads },
          signal: controller.signal,
          defaultTimeoutMs: 1_000,
        });
        const cancelTimer =
          cancelAfterMs === undefined ? undefined : setTimeout(() => controller.abort(), cancelAfterMs);

        const ids = calls.map((_, index) => `call-${index}`);
        const outcomes: ToolOutcome[] = await Promise.all(
          calls.map((call, index) =>
            executeToolCall(
              {
                id: ids[index]!,
                tool: call.tool,
                input: call.invalid
                  ? { key: 7, behaviour: call.behaviour, delay: call.delay }
                  : { key: call.key, behaviour: call.behaviour, delay: call.delay, deny: call.deny },
                caller: "program",
                programId: "prop",
                ...(call.timeoutMs === undefined ? {} : { timeoutMs: call.timeoutMs }),
              },
              context,
            ),
          ),
        );
        clearTimeout(cancelTimer);

        expect(outcomes.map((outcome) => outcome.callId)).toEqual(ids);
        expect(new Set(outcomes.map((outcome) => outcome.callId)).size).toBe(calls.length);
        outcomes.forEach((outcome, index) => {
          const call = calls[index]!;
          if (outcome.status === "ok") {
            expect(outcome).not.toHaveProperty("error");
            expect(call.behaviour).toBe("ok");
            return;
          }
          expect(outcome.status).toBe(statusForCode(outcome.error.code));
          const code = outcome.error.code;
          if (call.tool === UNKNOWN_TOOL) expect(code).toBe("TOOL_NOT_FOUND");
          else if (call.invalid) expect(code).toBe("INPUT_INVALID");
          else if (call.deny || deniedTools.includes(call.tool))
            expect(["PERMISSION_DENIED", "CANCELLED"]).toContain(code);
          else {
            const expected = { ok: [], throw: ["TOOL_ERROR"], toolError: ["KV_CONFLICT"] }[call.behaviour] as string[];
            const allowed = [
              ...expected,
              ...(call.timeoutMs === undefined ? [] : ["TOOL_TIMEOUT"]),
              ...(cancelAfterMs === undefined ? [] : ["CANCELLED"]),
            ];
            expect(allowed).toContain(code);
          }
        });

        const ends = events.filter((event): event is ToolCallEndEvent => event.type === "tool-call-end");
        expect(ends.map((event) => event.callId).sort()).toEqual([...ids].sort());
        expect(events.filter((event) => event.type === "tool-call-start")).toHaveLength(calls.length);
        for (const end of ends) {
          const outcome = outcomes[ids.indexOf(end.callId)]!;
          expect(end.status).toBe(outcome.status);
        }

        for (const key of ["read-any:kv", "read-any:log"])
          expect(probe.peak(key)).toBeLessThanOrEqual(maxConcurrentReads);
        for (const key of ["a", "b", "c", "*"]) expect(probe.peak(`write:kv:${key}`)).toBeLessThanOrEqual(1);
        expect(violations).toEqual([]);
      }),
      { numRuns: 100 },
    );
  });
});
