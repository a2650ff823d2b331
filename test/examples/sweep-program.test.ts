// The model-written sweep program run in the real sandbox (type check, isolate, bridge,
// schema validation) against the orders service: its answer, its retry and paging
// discipline, its bounded parallelism, and what it reports when paging goes wrong.

import ts from "typescript";
import { describe, expect, it } from "vitest";
import { OrdersService, type SearchOrdersPage, type SearchOrdersQuery } from "../../examples/orders/orders-service.js";
import { createOrdersTools } from "../../examples/orders/orders-tools.js";
import {
  SWEEP_CONCURRENCY,
  SWEEP_CUSTOMER_IDS,
  SWEEP_MAX_RETRIES,
  SWEEP_PROGRAM,
  sweepProgramFor,
  type SweepReport,
} from "../../examples/orders/sweep-program.js";
import { ToolError } from "../../src/errors.js";
import { defineTool, type ToolDefinition } from "../../src/registry/define-tool.js";
import { RUNTIME_DECLARATIONS } from "../../src/schema/generate-declarations.js";
import { Switchyard } from "../../src/switchyard.js";

/** Runs `source` in a fresh session over `tools`; the run must succeed with no warnings. */
async function runSweep(source: string, tools: readonly ToolDefinition[]) {
  const yard = new Switchyard({ tools });
  try {
    const result = await yard.run(source);
    expect(result.ok, result.error?.message).toBe(true);
    expect(result.warnings).toEqual([]);
    return { result, output: result.output as unknown as SweepReport };
  } finally {
    await yard.close();
  }
}

const byCustomerThenOrder = <T extends { customerId: string; orderId: string }>(items: readonly T[]) =>
  [...items].sort((a, b) => a.customerId.localeCompare(b.customerId) || a.orderId.localeCompare(b.orderId));

describe("SWEEP_PROGRAM", () => {
  it("sweeps every customer the service has", () => {
    expect([...SWEEP_CUSTOMER_IDS]).toEqual([...new OrdersService().customerIds]);
  });

  it("is SWEEP_CUSTOMER_IDS swept by sweepProgramFor, which changes nothing but the customer list", () => {
    expect(sweepProgramFor(SWEEP_CUSTOMER_IDS)).toBe(SWEEP_PROGRAM);
    const other = sweepProgramFor(["cus_1004"]);
    expect(other).toBe(SWEEP_PROGRAM.replace(JSON.stringify(SWEEP_CUSTOMER_IDS), JSON.stringify(["cus_1004"])));
    expect(other).not.toBe(SWEEP_PROGRAM);
  });

  it("finds exactly the duplicate charges, lists the permanent failures and reports the sweep incomplete", async () => {
    const service = new OrdersService();
    const truth = service.groundTruth(SWEEP_CUSTOMER_IDS);
    const { output, result } = await runSweep(SWEEP_PROGRAM, createOrdersTools(service));

    expect(output.checked).toBe(service.orderCount);
    expect(output.candidates.map(({ orderId, customerId, refunded }) => ({ orderId, customerId, refunded }))).toEqual(
      byCustomerThenOrder(truth.duplicates),
    );
    expect(output.candidates.filter((candidate) => candidate.refunded)).toHaveLength(3);
    for (const candidate of output.candidates) {
      expect(candidate.paymentIds).toHaveLength(2);
      expect(candidate.amounts).toEqual([candidate.orderAmount, candidate.orderAmount]);
      expect(["EUR", "USD", "GBP"]).toContain(candidate.currency);
    }
    expect(output.failed).toEqual(
      [...truth.permanentFailures].sort().map((orderId) => ({
        orderId,
        code: "UPSTREAM_UNAVAILABLE",
        message: "payment service unavailable, retry later",
      })),
    );
    expect(output.complete).toBe(false);
    expect(output.notes).toEqual([]);
    expect(result.logs).toEqual([
      `checked ${service.orderCount} orders of 6 customers; 8 candidates, 2 lookups failed`,
    ]);
  });

  it(`retries only UPSTREAM_UNAVAILABLE, at most ${SWEEP_MAX_RETRIES} times, and reads each page once`, async () => {
    const service = new OrdersService();
    const truth = service.groundTruth();
    const { result } = await runSweep(SWEEP_PROGRAM, createOrdersTools(service));
    const lookups = result.calls.filter((call) => call.tool === "orders.getPaymentContext");
    const transientRetries = truth.transientFailures.reduce(
      (total, failure) => total + failure.failuresBeforeSuccess,
      0,
    );
    expect(lookups).toHaveLength(
      service.orderCount + transientRetries + truth.permanentFailures.length * SWEEP_MAX_RETRIES,
    );
    expect(new Set(lookups.flatMap((call) => (call.code === undefined ? [] : [call.code])))).toEqual(
      new Set(["UPSTREAM_UNAVAILABLE"]),
    );
    const searches = result.calls.filter((call) => call.tool === "orders.search");
    expect(searches).toHaveLength(9); // pageSize 100: 72, 148, 95, 61, 126, 110 orders
    expect(searches.every((call) => call.status === "ok" && call.code === undefined)).toBe(true);
    expect(result.calls).toHaveLength(lookups.length + searches.length);
  });

  it(`never has more than ${SWEEP_CONCURRENCY} payment lookups in flight, and does run them in parallel`, async () => {
    // A millisecond of latency per request, so lookups the program starts together overlap.
    const service = new OrdersService({ latencyMs: 1 });
    const [search, getPaymentContext] = createOrdersTools(service);
    let inFlight = 0;
    let maxInFlight = 0;
    const counted = defineTool({
      ...getPaymentContext,
      execute: async (input, context) => {
        maxInFlight = Math.max(maxInFlight, ++inFlight);
        try {
          return await getPaymentContext.execute(input, context);
        } finally {
          inFlight--;
        }
      },
    });
    await runSweep(SWEEP_PROGRAM, [search, counted]);
    expect(maxInFlight).toBeLessThanOrEqual(SWEEP_CONCURRENCY);
    expect(maxInFlight).toBeGreaterThan(1);
  });

  it("reports the sweep complete when every page was read and every lookup succeeded", async () => {
    const service = new OrdersService();
    const healthy = service.customerIds.filter(
      (customerId) => service.groundTruth([customerId]).permanentFailures.length === 0,
    );
    expect(healthy.length).toBe(4);
    const { output } = await runSweep(sweepProgramFor(healthy), createOrdersTools(service));
    const truth = service.groundTruth(healthy);
    expect(output.complete).toBe(true);
    expect(output.failed).toEqual([]);
    expect(output.notes).toEqual([]);
    expect(output.checked).toBe(truth.orderCount);
    expect(output.candidates.map((candidate) => candidate.orderId).sort()).toEqual(
      truth.duplicates.map((duplicate) => duplicate.orderId).sort(),
    );
  });

  it("stops paging with a note, and reports incomplete, when a cursor repeats", async () => {
    const service = new OrdersService();
    const [search, getPaymentContext] = createOrdersTools(service);
    const stuck = defineTool<SearchOrdersQuery, SearchOrdersPage>({
      ...search,
      execute: async ({ customerId }) => {
        const page = await service.searchOrders({ customerId, pageSize: 3 });
        return { ...page, nextCursor: "c3R1Y2s" };
      },
    });
    const { output } = await runSweep(sweepProgramFor(["cus_1001"]), [stuck, getPaymentContext]);
    expect(output.complete).toBe(false);
    expect(output.notes).toEqual([expect.stringMatching(/^cus_1001: cursor repeated after page 2/)]);
    expect(output.checked).toBe(6);
  });

  it("notes a search that fails and reports incomplete instead of dropping the customer silently", async () => {
    const service = new OrdersService();
    const [search, getPaymentContext] = createOrdersTools(service);
    const flaky = defineTool<SearchOrdersQuery, SearchOrdersPage>({
      ...search,
      execute: async (input, context) => {
        if (input.customerId === "cus_1005" && input.cursor !== undefined) {
          throw new ToolError("cursor belongs to a different query", { code: "CURSOR_MISMATCH" });
        }
        return search.execute(input, context);
      },
    });
    const { output } = await runSweep(sweepProgramFor(["cus_1005", "cus_1004"]), [flaky, getPaymentContext]);
    expect(output.complete).toBe(false);
    expect(output.notes).toEqual([expect.stringMatching(/^cus_1005: search failed on page 2 \(CURSOR_MISMATCH\)/)]);
    expect(output.checked).toBe(100 + 61);
  });

  it("type-checks under stricter settings than the sandbox's against the declarations generated from the schemas", async () => {
    const yard = new Switchyard({ tools: createOrdersTools(new OrdersService()), typeCheck: "off" });
    try {
      const declarations = `${RUNTIME_DECLARATIONS}\n${yard.declarations()}`;
      expect(typeCheck(SWEEP_PROGRAM, declarations)).toEqual([]);
      // The check can fail: a misspelt field is reported.
      const misspelt = SWEEP_PROGRAM.replace("page.nextCursor === null", "page.next_cursor === null");
      expect(typeCheck(misspelt, declarations)).toContainEqual(expect.stringContaining("'next_cursor'"));
    } finally {
      await yard.close();
    }
  });
});

/**
 * Diagnostics of `source` as the body of an async function beside `declarations`, with the
 * project's own strict flags (the sandbox's check leaves out the last three).
 */
function typeCheck(source: string, declarations: string): string[] {
  const fileName = "/virtual/sweep.ts";
  const text = `${declarations}\nasync function __program() {\n${source}\n}\nexport {};\n`;
  const options: ts.CompilerOptions = {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    lib: ["lib.es2022.d.ts"],
    types: [],
    strict: true,
    noUncheckedIndexedAccess: true,
    exactOptionalPropertyTypes: true,
    noImplicitReturns: true,
    noEmit: true,
  };
  const host = ts.createCompilerHost(options);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (name, languageVersion, ...rest) =>
    name === fileName
      ? ts.createSourceFile(name, text, languageVersion)
      : getSourceFile(name, languageVersion, ...rest);
  const fileExists = host.fileExists.bind(host);
  host.fileExists = (name) => name === fileName || fileExists(name);
  const program = ts.createProgram([fileName], options, host);
  return ts
    .getPreEmitDiagnostics(program)
    .map((diagnostic) => ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n"));
}
