// yard.check: the steps of a run before its sandbox (compile, the run's contract, the type check
// with lint) and nothing after them. Each error is compared with the one `run` gives for the same
// program and options, and what must not happen is asserted: no tool call, no run-queue place, no
// program approval asked.

import { describe, expect, it } from "vitest";
import type { RunResult } from "../src/contract.js";
import { SwitchyardError } from "../src/errors.js";
import { defineTool } from "../src/registry/define-tool.js";
import { RunQueue } from "../src/sandbox/run-queue.js";
import { type CheckOptions, Switchyard, type SwitchyardOptions } from "../src/switchyard.js";
import { createDeferred } from "./helpers/pipeline-fixtures.js";

function createYard(options: SwitchyardOptions = {}) {
  const calls: unknown[] = [];
  const gate = { held: undefined as Promise<void> | undefined };
  const search = defineTool({
    name: "orders.search",
    description: "Search a customer's orders.",
    effect: "read",
    inputSchema: {
      type: "object",
      properties: { customerId: { type: "string" } },
      required: ["customerId"],
      additionalProperties: false,
    },
    outputSchema: {
      type: "object",
      properties: { orders: { type: "array", items: { type: "object", properties: { id: { type: "string" } } } } },
      required: ["orders"],
    },
    execute: async (input: unknown) => {
      calls.push(input);
      await gate.held;
      return { orders: [{ id: "o1" }] };
    },
  });
  return { yard: new Switchyard({ tools: [search], ...options }), calls, gate };
}

/** The check's error next to the run's, for one program and one set of options. */
async function checkAndRun(yard: Switchyard, source: string, options: CheckOptions & { input?: unknown } = {}) {
  const checked = await yard.check(source, options);
  const ran: RunResult = await yard.run(source, options);
  return { checked, ran };
}

const INPUT_SCHEMA = {
  type: "object",
  properties: { customerId: { type: "string" } },
  required: ["customerId"],
  additionalProperties: false,
} as const;

describe("Switchyard.check", () => {
  it("gives the TYPE_ERROR run gives, with every diagnostic's line and column, and calls no tool", async () => {
    const { yard, calls } = createYard();
    try {
      const source = `const page = await tools.orders.search({ customerId: "c1" });
const wrong = await tools.orders.search({ customerID: "c1" });
return page.orders.length;`;
      const checked = await yard.check(source);
      expect(checked.ok).toBe(false);
      expect(checked.error).toMatchObject({ code: "TYPE_ERROR", line: 2, column: expect.any(Number) });
      expect(checked.error?.message).toContain("customerID");
      expect(calls).toEqual([]);
      const ran = await yard.run(source);
      expect(checked.error).toEqual(ran.error);
      expect(checked.warnings).toEqual(ran.warnings);
      expect(calls).toEqual([]);
    } finally {
      await yard.close();
    }
  });

  it("passes a good program with run's lint warnings, running nothing", async () => {
    const { yard, calls } = createYard();
    try {
      const source = `const out: string[] = [];
for (const customerId of ["a", "b"]) {
  const page = await tools.orders.search({ customerId });
  out.push(...page.orders.map((order) => String(order.id)));
}
return out;`;
      const checked = await yard.check(source);
      expect(checked).toEqual({
        ok: true,
        warnings: [expect.objectContaining({ code: "serial-await-in-loop", line: 3, severity: "warning" })],
      });
      expect(calls).toEqual([]);
      const ran = await yard.run(source);
      expect(ran.ok).toBe(true);
      expect(ran.warnings).toEqual(checked.warnings);
    } finally {
      await yard.close();
    }
  });

  it("gives SYNTAX_ERROR and SOURCE_TOO_LARGE as run does", async () => {
    const { yard } = createYard();
    try {
      const syntax = await checkAndRun(yard, "const x = ;\nreturn x;");
      expect(syntax.checked.error).toMatchObject({ code: "SYNTAX_ERROR", line: 1 });
      expect(syntax.checked.error).toEqual(syntax.ran.error);
      const large = await checkAndRun(yard, `return ${JSON.stringify("x".repeat(2_000))};`, {
        limits: { maxSourceBytes: 1_000 },
      });
      expect(large.checked.error).toMatchObject({ code: "SOURCE_TOO_LARGE" });
      expect(large.checked.error).toEqual(large.ran.error);
    } finally {
      await yard.close();
    }
  });

  it("types `input` from inputSchema without a value, so a misspelled field is the TYPE_ERROR of a run with an input", async () => {
    const { yard } = createYard();
    try {
      const source = "return await tools.orders.search({ customerId: input.customerID });";
      const checked = await yard.check(source, { inputSchema: INPUT_SCHEMA });
      const ran = await yard.run(source, { inputSchema: INPUT_SCHEMA, input: { customerId: "c1" } });
      expect(checked.error).toMatchObject({ code: "TYPE_ERROR", line: 1 });
      expect(checked.error).toEqual(ran.error);
      expect(await yard.check("return input.customerId.length;", { inputSchema: INPUT_SCHEMA })).toEqual({
        ok: true,
        warnings: [],
      });
    } finally {
      await yard.close();
    }
  });

  it("declares `input` for hasInput (as any without a schema) and not otherwise, as a run with and without one", async () => {
    const { yard } = createYard();
    try {
      const source = "return input.anything;";
      expect(await yard.check(source, { hasInput: true })).toEqual({ ok: true, warnings: [] });
      const without = await checkAndRun(yard, source);
      expect(without.checked.error).toMatchObject({ code: "TYPE_ERROR", line: 1 });
      expect(without.checked.error).toEqual(without.ran.error);
    } finally {
      await yard.close();
    }
  });

  it("checks a given input as run does: INPUT_INVALID with every failing path, INPUT_TOO_LARGE", async () => {
    const { yard, calls } = createYard();
    try {
      const invalid = await checkAndRun(yard, "return input.customerId;", {
        inputSchema: INPUT_SCHEMA,
        input: { customerId: 7, extra: true },
      });
      expect(invalid.checked.error).toMatchObject({ code: "INPUT_INVALID" });
      expect(invalid.checked.error).toEqual(invalid.ran.error);
      const large = await checkAndRun(yard, "return input;", {
        input: "x".repeat(2_000),
        limits: { maxInputBytes: 100 },
      });
      expect(large.checked.error).toMatchObject({ code: "INPUT_TOO_LARGE" });
      expect(large.checked.error).toEqual(large.ran.error);
      expect(calls).toEqual([]);
    } finally {
      await yard.close();
    }
  });

  it("refuses a wrong return shape under outputSchema with the run's TYPE_ERROR at that return", async () => {
    const { yard } = createYard();
    try {
      const outputSchema = { type: "object", properties: { count: { type: "number" } }, required: ["count"] };
      const result = await checkAndRun(yard, 'const n = 1;\nreturn { count: "one" };', { outputSchema });
      expect(result.checked.error).toMatchObject({ code: "TYPE_ERROR", line: 2 });
      expect(result.checked.error).toEqual(result.ran.error);
    } finally {
      await yard.close();
    }
  });

  it("follows typeCheck: type errors are warnings in warn mode, unchecked when off", async () => {
    const { yard } = createYard({ typeCheck: "warn" });
    try {
      const source = 'const z: number = "s";\nreturn z;';
      const warned = await yard.check(source);
      expect(warned.ok).toBe(true);
      expect(warned.warnings).toEqual([expect.objectContaining({ line: 1, severity: "error" })]);
      expect(warned.warnings).toEqual((await yard.run(source)).warnings);
      expect(await yard.check(source, { typeCheck: "off" })).toEqual({ ok: true, warnings: [] });
      expect((await yard.check(source, { typeCheck: "error" })).error).toMatchObject({ code: "TYPE_ERROR", line: 1 });
    } finally {
      await yard.close();
    }
  });

  it("redacts a secret the error quotes, as run does", async () => {
    const secret = "sk-check-canary-0123456789";
    const { yard } = createYard({ redaction: { secrets: [secret] } });
    try {
      const result = await checkAndRun(yard, `const key: number = "${secret}";\nreturn key;`);
      expect(result.checked.error).toMatchObject({ code: "TYPE_ERROR", line: 1 });
      expect(result.checked.error?.message).not.toContain(secret);
      expect(result.checked.error?.message).toContain("[REDACTED");
      expect(result.checked.error).toEqual(result.ran.error);
    } finally {
      await yard.close();
    }
  });

  it("takes no place in the run queue: it checks while a run now would end RUN_QUEUE_FULL", async () => {
    const runQueue = new RunQueue({ memoryBudgetMb: 128, maxQueuedRuns: 1 });
    const { yard, calls, gate } = createYard({ runQueue });
    const release = createDeferred();
    gate.held = release.promise;
    try {
      const source = 'return await tools.orders.search({ customerId: "c1" });';
      // One run in the sandbox (holding the memory budget), one waiting: the queue is full.
      const holding = yard.run(source);
      while (calls.length < 1) await new Promise((resolve) => setTimeout(resolve, 10));
      const waiting = yard.run(source);
      while (runQueue.stats().queued < 1) await new Promise((resolve) => setTimeout(resolve, 10));
      expect((await yard.run(source)).error).toMatchObject({ code: "RUN_QUEUE_FULL" });
      const before = runQueue.stats();
      const checking = yard.check(source);
      expect(runQueue.stats()).toEqual(before);
      expect(await checking).toEqual({ ok: true, warnings: [] });
      expect(runQueue.stats()).toEqual(before);
      expect(calls).toHaveLength(1);
      release.resolve();
      expect((await holding).ok).toBe(true);
      expect((await waiting).ok).toBe(true);
    } finally {
      release.resolve();
      await yard.close();
    }
  });

  it("never asks approveProgram, which a run of the same program asks once", async () => {
    const asked: string[] = [];
    const { yard, calls } = createYard({
      permissions: {
        approveProgram: (source) => {
          asked.push(source);
          return false;
        },
      },
    });
    try {
      const source = 'return await tools.orders.search({ customerId: "c1" });';
      expect(await yard.check(source)).toEqual({ ok: true, warnings: [] });
      expect(asked).toEqual([]);
      expect((await yard.run(source)).error).toMatchObject({ code: "PERMISSION_DENIED" });
      expect(asked).toHaveLength(1);
      expect(calls).toEqual([]);
    } finally {
      await yard.close();
    }
  });

  it("throws as run does for limits it does not know and a schema ajv cannot compile", async () => {
    const { yard } = createYard();
    try {
      const unknownLimit = await yard
        .check("return 1;", { limits: { noSuchLimit: 1 } as never })
        .catch((error: unknown) => error);
      expect(SwitchyardError.isInstance(unknownLimit) && unknownLimit.code).toBe("OPTION_INVALID");
      const badSchema = await yard
        .check("return 1;", { inputSchema: { type: "not-a-type" } })
        .catch((error: unknown) => error);
      expect(SwitchyardError.isInstance(badSchema) && badSchema.code).toBe("SCHEMA_INVALID");
    } finally {
      await yard.close();
    }
  });
});
