// Runs the model-written sweep program outside the sandbox: types stripped by esbuild, the
// body evaluated as an AsyncFunction, and a stand-in bridge that validates like the pipeline
// (schemas in and out, JSON copies, errors as plain { code, message } data).

import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import { transform } from "esbuild";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { OrdersService, type SearchOrdersPage, type SearchOrdersQuery } from "../../examples/orders/orders-service.js";
import { createOrdersTools } from "../../examples/orders/orders-tools.js";
import {
  SWEEP_CONCURRENCY,
  SWEEP_CUSTOMER_IDS,
  SWEEP_MAX_RETRIES,
  SWEEP_PROGRAM,
} from "../../examples/orders/sweep-program.js";
import { ToolError } from "../../src/errors.js";
import { defineTool, type ToolDefinition } from "../../src/registry/define-tool.js";

const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (
  ajv: Ajv2020,
) => Ajv2020;

interface SweepOutput {
  checked: number;
  candidates: {
    orderId: string;
    customerId: string;
    currency: string;
    orderAmount: number;
    paymentIds: string[];
    amounts: number[];
    capturedAt: (string | null)[];
    refunded: boolean;
  }[];
  failed: { orderId: string; code: string; message: string }[];
  complete: boolean;
  notes: string[];
}

interface BridgeCall {
  readonly tool: string;
  readonly code?: string;
  readonly bytesOut: number;
}

type ProgramFunction = (tools: unknown, console: { log(...args: unknown[]): void }) => Promise<unknown>;

const AsyncFunction = Object.getPrototypeOf(async () => {}).constructor as new (...parameters: string[]) => ProgramFunction;

/** Strips the program's types and evaluates it as the body of an async function. */
async function compileProgram(source: string): Promise<ProgramFunction> {
  // A bare body with top-level await and return is not a module esbuild accepts: wrap it.
  const { code } = await transform(`async function __program() {\n${source}\n}`, { loader: "ts", target: "es2022" });
  const body = code.slice(code.indexOf("{") + 1, code.lastIndexOf("}"));
  return new AsyncFunction("tools", "console", body);
}

/** A stand-in for the sandbox bridge: `tools.<namespace>.<name>(input)` over tool definitions. */
function createBridge(definitions: readonly ToolDefinition[]) {
  const ajv = new Ajv2020({ allErrors: true, strict: false });
  addFormats(ajv);
  const calls: BridgeCall[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  let nextCallId = 1;
  const tools: Record<string, Record<string, (input: unknown) => Promise<unknown>>> = {};
  for (const definition of definitions) {
    const validateInput = ajv.compile(definition.inputSchema);
    const validateOutput = definition.outputSchema === undefined ? undefined : ajv.compile(definition.outputSchema);
    const namespace = (tools[definition.namespace ?? ""] ??= {});
    namespace[definition.localName] = async (input: unknown) => {
      const callId = `call_${nextCallId++}`;
      const fail = (code: string, message: string) => {
        calls.push({ tool: definition.name, code, bytesOut: 0 });
        return Object.assign(new Error(message), { code, callId });
      };
      const copy: unknown = JSON.parse(JSON.stringify(input ?? null));
      if (!validateInput(copy)) throw fail("INPUT_INVALID", ajv.errorsText(validateInput.errors));
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      try {
        // Yield to the event loop, as a call crossing the isolate boundary does.
        await new Promise((resolve) => setImmediate(resolve));
        let value: unknown;
        try {
          value = await definition.execute(copy, {
            signal: new AbortController().signal,
            callId,
            caller: "program",
            programId: "sweep",
          });
        } catch (error) {
          if (error instanceof ToolError) throw fail(error.code, error.message);
          throw fail("TOOL_ERROR", (error as Error).message);
        }
        if (validateOutput !== undefined && !validateOutput(value)) {
          throw fail("OUTPUT_INVALID", ajv.errorsText(validateOutput.errors));
        }
        const json = JSON.stringify(value);
        calls.push({ tool: definition.name, bytesOut: Buffer.byteLength(json) });
        return JSON.parse(json) as unknown;
      } finally {
        inFlight--;
      }
    };
  }
  return { tools, calls, maxInFlight: () => maxInFlight };
}

/** Runs a program over tool definitions; the output goes through JSON as it would leave the isolate. */
async function runProgram(source: string, definitions: readonly ToolDefinition[]) {
  const bridge = createBridge(definitions);
  const logs: string[] = [];
  const program = await compileProgram(source);
  const returned = await program(bridge.tools, { log: (...args) => logs.push(args.map(String).join(" ")) });
  const output = JSON.parse(JSON.stringify(returned)) as SweepOutput;
  return { output, logs, calls: bridge.calls, maxInFlight: bridge.maxInFlight() };
}

const byCustomerThenOrder = <T extends { customerId: string; orderId: string }>(items: readonly T[]) =>
  [...items].sort((a, b) => a.customerId.localeCompare(b.customerId) || a.orderId.localeCompare(b.orderId));

/** The program with another list of customers in its constant. */
function sweepFor(customerIds: readonly string[]): string {
  const line = `const customerIds = ${JSON.stringify(SWEEP_CUSTOMER_IDS)};`;
  expect(SWEEP_PROGRAM).toContain(line);
  return SWEEP_PROGRAM.replace(line, `const customerIds = ${JSON.stringify(customerIds)};`);
}

describe("SWEEP_PROGRAM", () => {
  it("sweeps every customer the service has", () => {
    expect([...SWEEP_CUSTOMER_IDS]).toEqual([...new OrdersService().customerIds]);
  });

  it("finds exactly the duplicate charges, lists the permanent failures and reports the sweep incomplete", async () => {
    const service = new OrdersService();
    const truth = service.groundTruth(SWEEP_CUSTOMER_IDS);
    const { output, logs } = await runProgram(SWEEP_PROGRAM, createOrdersTools(service));

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
    expect(logs).toEqual([`checked ${service.orderCount} orders of 6 customers; 8 candidates, 2 lookups failed`]);
  });

  it("retries only UPSTREAM_UNAVAILABLE, at most 3 times, and reads each page once", async () => {
    const service = new OrdersService();
    const truth = service.groundTruth();
    const { calls } = await runProgram(SWEEP_PROGRAM, createOrdersTools(service));
    const lookups = calls.filter((call) => call.tool === "orders.getPaymentContext");
    const transientRetries = truth.transientFailures.reduce((total, failure) => total + failure.failuresBeforeSuccess, 0);
    expect(lookups).toHaveLength(service.orderCount + transientRetries + truth.permanentFailures.length * SWEEP_MAX_RETRIES);
    expect(new Set(lookups.flatMap((call) => (call.code === undefined ? [] : [call.code])))).toEqual(
      new Set(["UPSTREAM_UNAVAILABLE"]),
    );
    const searches = calls.filter((call) => call.tool === "orders.search");
    expect(searches).toHaveLength(9); // pageSize 100: 72, 148, 95, 61, 126, 110 orders
    expect(searches.every((call) => call.code === undefined)).toBe(true);
  });

  it(`never has more than ${SWEEP_CONCURRENCY} payment lookups in flight, and does run them in parallel`, async () => {
    const { maxInFlight } = await runProgram(SWEEP_PROGRAM, createOrdersTools(new OrdersService()));
    expect(maxInFlight).toBeLessThanOrEqual(SWEEP_CONCURRENCY);
    expect(maxInFlight).toBeGreaterThan(1);
  });

  it("reports the sweep complete when every page was read and every lookup succeeded", async () => {
    const service = new OrdersService();
    const healthy = service.customerIds.filter((customerId) => service.groundTruth([customerId]).permanentFailures.length === 0);
    expect(healthy.length).toBe(4);
    const { output } = await runProgram(sweepFor(healthy), createOrdersTools(service));
    const truth = service.groundTruth(healthy);
    expect(output.complete).toBe(true);
    expect(output.failed).toEqual([]);
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
    const { output } = await runProgram(sweepFor(["cus_1001"]), [stuck, getPaymentContext]);
    expect(output.complete).toBe(false);
    expect(output.notes).toEqual([expect.stringMatching(/^cus_1001: cursor repeated after page 2/)]);
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
    const { output } = await runProgram(sweepFor(["cus_1005", "cus_1004"]), [flaky, getPaymentContext]);
    expect(output.complete).toBe(false);
    expect(output.notes).toEqual([expect.stringMatching(/^cus_1005: search failed on page 2 \(CURSOR_MISMATCH\)/)]);
    expect(output.checked).toBe(100 + 61);
  });

  it("returns far fewer bytes than the tool results it read", async () => {
    const { output, calls } = await runProgram(SWEEP_PROGRAM, createOrdersTools(new OrdersService()));
    const bytesRead = calls.reduce((total, call) => total + call.bytesOut, 0);
    const bytesReturned = Buffer.byteLength(JSON.stringify(output));
    expect(bytesReturned * 20).toBeLessThan(bytesRead);
  });

  it("type-checks under strict settings against declarations generated from the schemas", () => {
    const diagnostics = typeCheck(SWEEP_PROGRAM);
    expect(diagnostics).toEqual([]);
  });
});

// What the schema-to-TypeScript station should produce for the two tools, written by hand.
const DECLARATIONS = `
interface OrdersSearchInput {
  customerId: string;
  from?: string;
  to?: string;
  pageSize?: number;
  cursor?: string;
}
interface OrderSummary {
  orderId: string;
  customerId: string;
  createdAt: string;
  currency: "EUR" | "USD" | "GBP";
  amount: number;
  itemCount: number;
}
interface OrdersSearchOutput {
  orders: OrderSummary[];
  nextCursor: string | null;
}
interface Payment {
  id: string;
  amount: number;
  status: "captured" | "failed" | "refunded";
  capturedAt: string | null;
  refundId?: string;
}
interface PaymentContext {
  orderId: string;
  currency: "EUR" | "USD" | "GBP";
  amount: number;
  payments: Payment[];
}
declare const tools: {
  orders: {
    search(input: OrdersSearchInput): Promise<OrdersSearchOutput>;
    getPaymentContext(input: { orderId: string }): Promise<PaymentContext>;
  };
};
declare const console: { log(...args: unknown[]): void };
`;

function typeCheck(source: string): string[] {
  const fileName = "/virtual/sweep.ts";
  const text = `${DECLARATIONS}\nasync function __program() {\n${source}\n}\nexport {};\n`;
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
    name === fileName ? ts.createSourceFile(name, text, languageVersion) : getSourceFile(name, languageVersion, ...rest);
  const fileExists = host.fileExists.bind(host);
  host.fileExists = (name) => name === fileName || fileExists(name);
  const program = ts.createProgram([fileName], options, host);
  return ts
    .getPreEmitDiagnostics(program)
    .map((diagnostic) => ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n"));
}
