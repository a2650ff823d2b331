import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import { describe, expect, it } from "vitest";
import { OrdersService } from "../../examples/orders/orders-service.js";
import { createOrdersTools } from "../../examples/orders/orders-tools.js";
import type { JsonSchema } from "../../src/contract.js";
import type { ToolContext } from "../../src/registry/define-tool.js";
import { undescribedProperties } from "../helpers/schema-descriptions.js";

// ajv-formats is CommonJS: under NodeNext its default import may be the module object.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (
  ajv: Ajv2020,
) => Ajv2020;

function createAjv(): Ajv2020 {
  const ajv = new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true });
  addFormats(ajv);
  return ajv;
}

function context(callId: string): ToolContext {
  return { signal: new AbortController().signal, callId, caller: "program", programId: "test" };
}

describe("createOrdersTools", () => {
  const [search, getPaymentContext] = createOrdersTools(new OrdersService());

  it("defines orders.search and orders.getPaymentContext as read-only tools", () => {
    expect(search).toMatchObject({ name: "orders.search", namespace: "orders", localName: "search", effect: "read" });
    expect(getPaymentContext).toMatchObject({
      name: "orders.getPaymentContext",
      namespace: "orders",
      localName: "getPaymentContext",
      effect: "read",
    });
    expect(Object.isFrozen(search)).toBe(true);
  });

  it("has draft 2020-12 schemas that compile in strict mode and describe every property", () => {
    const ajv = createAjv();
    for (const tool of [search, getPaymentContext]) {
      for (const schema of [tool.inputSchema, tool.outputSchema] as JsonSchema[]) {
        expect((schema as { $schema?: string }).$schema).toBe("https://json-schema.org/draft/2020-12/schema");
        expect(() => ajv.compile(schema)).not.toThrow();
        expect(undescribedProperties(schema)).toEqual([]);
      }
      expect(tool.inputSchema).toMatchObject({ additionalProperties: false });
      expect(tool.description.length).toBeGreaterThan(100);
    }
    expect(search.inputSchema).toMatchObject({
      properties: {
        from: { format: "date-time" },
        to: { format: "date-time" },
        pageSize: { minimum: 1, maximum: 100 },
      },
    });
  });

  it("has input examples that all validate, including a follow-up page with a cursor", () => {
    const ajv = createAjv();
    for (const tool of [search, getPaymentContext]) {
      const validate = ajv.compile(tool.inputSchema);
      expect(tool.inputExamples?.length).toBeGreaterThan(0);
      for (const example of tool.inputExamples ?? [])
        expect(validate(example), JSON.stringify(validate.errors)).toBe(true);
    }
    expect(search.inputExamples?.some((example) => typeof (example as { cursor?: unknown }).cursor === "string")).toBe(
      true,
    );
  });

  it("rejects inputs a model gets wrong: extra properties, a date without time, a page size of 500", () => {
    const validate = createAjv().compile(search.inputSchema);
    expect(validate({ customerId: "cus_1001", page_size: 20 })).toBe(false);
    expect(validate({ customerId: "cus_1001", from: "2026-09-28" })).toBe(false);
    expect(validate({ customerId: "cus_1001", pageSize: 500 })).toBe(false);
    expect(validate({ from: "2026-09-28T00:00:00Z" })).toBe(false);
  });

  it("returns results that match the output schemas, through execute", async () => {
    const ajv = createAjv();
    const validateSearch = ajv.compile(search.outputSchema as JsonSchema);
    const validatePayments = ajv.compile(getPaymentContext.outputSchema as JsonSchema);
    const page = await search.execute({ customerId: "cus_1002", pageSize: 100 }, context("call-1"));
    expect(validateSearch(page), JSON.stringify(validateSearch.errors)).toBe(true);
    const service = new OrdersService();
    const [, lookUp] = createOrdersTools(service);
    const truth = service.groundTruth();
    const interesting = [...truth.duplicates, ...truth.decoys].map((order) => order.orderId);
    for (const orderId of [...page.orders.map((order) => order.orderId), ...interesting]) {
      if (truth.permanentFailures.includes(orderId)) continue;
      let result: unknown;
      for (let attempt = 0; result === undefined && attempt < 3; attempt++) {
        try {
          result = await lookUp.execute({ orderId }, context(`call-${orderId}-${attempt}`));
        } catch {
          // UPSTREAM_UNAVAILABLE on a transient order: try again.
        }
      }
      expect(validatePayments(result), JSON.stringify(validatePayments.errors)).toBe(true);
    }
  });

  it("passes the service's ToolError through unchanged", async () => {
    await expect(getPaymentContext.execute({ orderId: "ord_missing" }, context("call-2"))).rejects.toMatchObject({
      name: "ToolError",
      code: "ORDER_NOT_FOUND",
    });
  });

  it("forwards the call's signal to the service", async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(
      search.execute({ customerId: "cus_1001" }, { ...context("call-3"), signal: controller.signal }),
    ).rejects.toMatchObject({ code: "CANCELLED" });
  });
});
