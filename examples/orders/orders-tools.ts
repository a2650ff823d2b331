// The orders service as two Switchyard tools, `orders.search` and `orders.getPaymentContext`,
// with the schemas, descriptions and examples a model reads. Both are read-only; neither
// retries on its own: a transient UPSTREAM_UNAVAILABLE is the caller's to retry.

import { defineTool, type JsonSchema, type ToolDefinition } from "switchyard-runtime";
import {
  DEFAULT_PAGE_SIZE,
  MAX_PAGE_SIZE,
  type GetPaymentContextInput,
  type OrdersService,
  type PaymentContext,
  type SearchOrdersPage,
  type SearchOrdersQuery,
} from "./orders-service.js";

const DRAFT_2020_12 = "https://json-schema.org/draft/2020-12/schema";

const CURRENCY_SCHEMA = {
  type: "string",
  enum: ["EUR", "USD", "GBP"],
  description: "ISO 4217 currency code; every amount of the order and its payments is in this currency.",
} as const;

export const SEARCH_INPUT_SCHEMA: JsonSchema = {
  $schema: DRAFT_2020_12,
  type: "object",
  properties: {
    customerId: {
      type: "string",
      minLength: 1,
      description: 'The customer whose orders to list, e.g. "cus_1001".',
    },
    from: {
      type: "string",
      format: "date-time",
      description:
        "Inclusive lower bound on the order's createdAt, as an ISO 8601 date-time with offset " +
        '(e.g. "2026-09-28T00:00:00Z"). Omit for no lower bound.',
    },
    to: {
      type: "string",
      format: "date-time",
      description:
        "Exclusive upper bound on the order's createdAt, as an ISO 8601 date-time with offset; must be later " +
        "than from. Omit for no upper bound.",
    },
    pageSize: {
      type: "integer",
      minimum: 1,
      maximum: MAX_PAGE_SIZE,
      default: DEFAULT_PAGE_SIZE,
      description: `Orders per page, 1 to ${MAX_PAGE_SIZE}. Default ${DEFAULT_PAGE_SIZE}. Keep it the same on every page of one query.`,
    },
    cursor: {
      type: "string",
      minLength: 1,
      description:
        "Omit on the first page. To read the next page, pass the nextCursor of the previous page unchanged, " +
        "together with exactly the same customerId, from, to and pageSize: a cursor used with a different " +
        "query fails with CURSOR_MISMATCH, an altered one with CURSOR_INVALID.",
    },
  },
  required: ["customerId"],
  additionalProperties: false,
};

const ORDER_SUMMARY_SCHEMA = {
  type: "object",
  properties: {
    orderId: { type: "string", description: "The order's id; pass it to orders.getPaymentContext." },
    customerId: { type: "string", description: "The customer who placed the order." },
    createdAt: { type: "string", format: "date-time", description: "When the order was placed (UTC)." },
    currency: CURRENCY_SCHEMA,
    amount: {
      type: "integer",
      minimum: 0,
      description: "The order total in minor units (cents or pence): 1999 means 19.99.",
    },
    itemCount: { type: "integer", minimum: 1, description: "Number of items in the order." },
  },
  required: ["orderId", "customerId", "createdAt", "currency", "amount", "itemCount"],
  additionalProperties: false,
} as const;

export const SEARCH_OUTPUT_SCHEMA: JsonSchema = {
  $schema: DRAFT_2020_12,
  type: "object",
  properties: {
    orders: {
      type: "array",
      items: ORDER_SUMMARY_SCHEMA,
      description: "This page's orders, oldest first (by createdAt, then orderId).",
    },
    nextCursor: {
      type: ["string", "null"],
      description: "Cursor of the next page of the same query; null when this is the last page.",
    },
  },
  required: ["orders", "nextCursor"],
  additionalProperties: false,
};

export const PAYMENT_CONTEXT_INPUT_SCHEMA: JsonSchema = {
  $schema: DRAFT_2020_12,
  type: "object",
  properties: {
    orderId: {
      type: "string",
      minLength: 1,
      description: 'An orderId returned by orders.search, e.g. "ord_0k3x9q2m7a".',
    },
  },
  required: ["orderId"],
  additionalProperties: false,
};

export const PAYMENT_CONTEXT_OUTPUT_SCHEMA: JsonSchema = {
  $schema: DRAFT_2020_12,
  type: "object",
  properties: {
    orderId: { type: "string", description: "The order the payments belong to." },
    currency: CURRENCY_SCHEMA,
    amount: { type: "integer", minimum: 0, description: "The order total in minor units." },
    payments: {
      type: "array",
      description: "Every payment attempt on the order, oldest first; failed attempts included.",
      items: {
        type: "object",
        properties: {
          id: { type: "string", description: "The payment's id." },
          amount: {
            type: "integer",
            minimum: 0,
            description: "Amount of this payment in minor units, in the order's currency.",
          },
          status: {
            type: "string",
            enum: ["captured", "failed", "refunded"],
            description:
              "captured: money taken and kept; failed: the attempt took no money; refunded: money was taken, " +
              "then returned (see refundId).",
          },
          capturedAt: {
            type: ["string", "null"],
            format: "date-time",
            description: "When the money was taken (UTC); null for a failed attempt.",
          },
          refundId: { type: "string", description: "The refund's id; present only when status is refunded." },
        },
        required: ["id", "amount", "status", "capturedAt"],
        additionalProperties: false,
      },
    },
  },
  required: ["orderId", "currency", "amount", "payments"],
  additionalProperties: false,
};

/**
 * Builds the two read-only tools of the orders demo over one service instance:
 * `orders.search` (one page of a customer's orders) and `orders.getPaymentContext` (the
 * payment attempts of one order). Errors are the service's `ToolError`s, passed through.
 */
export function createOrdersTools(
  service: OrdersService,
): [ToolDefinition<SearchOrdersQuery, SearchOrdersPage>, ToolDefinition<GetPaymentContextInput, PaymentContext>] {
  const search = defineTool<SearchOrdersQuery, SearchOrdersPage>({
    name: "orders.search",
    description:
      "List one page of a customer's orders placed in a time window, oldest first (by createdAt, then orderId). " +
      "Each order has its id, creation time, currency and total amount in minor units; payments are not " +
      "included (use orders.getPaymentContext). To read every order, call again with cursor set to the " +
      "returned nextCursor and the same customerId, from, to and pageSize, until nextCursor is null. " +
      "Errors: CUSTOMER_NOT_FOUND, INPUT_INVALID (bad date range or pageSize), CURSOR_MISMATCH (cursor " +
      "reused with a different query), CURSOR_INVALID (cursor altered or not issued by this tool).",
    inputSchema: SEARCH_INPUT_SCHEMA,
    outputSchema: SEARCH_OUTPUT_SCHEMA,
    inputExamples: [
      { customerId: "cus_1001", from: "2026-09-28T00:00:00Z", to: "2026-10-12T00:00:00Z" },
      {
        customerId: "cus_1001",
        from: "2026-09-28T00:00:00Z",
        to: "2026-10-12T00:00:00Z",
        pageSize: 50,
        cursor: "eyJxIjoiYzFkNGYwOWEyYjdlNmEzMSIsIm8iOjUwfQ",
      },
    ],
    effect: "read",
    execute: (input, { signal }) => service.searchOrders(input, { signal }),
  });

  const getPaymentContext = defineTool<GetPaymentContextInput, PaymentContext>({
    name: "orders.getPaymentContext",
    description:
      "Get every payment attempt on one order: amount, status (captured, failed or refunded), capture time " +
      "and refund id, with the order's currency and total. Amounts are integers in minor units. " +
      "Errors: ORDER_NOT_FOUND; UPSTREAM_UNAVAILABLE when the payment service is briefly down: retry the " +
      "same call a few times before reporting the order as not checked.",
    inputSchema: PAYMENT_CONTEXT_INPUT_SCHEMA,
    outputSchema: PAYMENT_CONTEXT_OUTPUT_SCHEMA,
    inputExamples: [{ orderId: "ord_0k3x9q2m7a" }],
    effect: "read",
    execute: (input, { signal }) => service.getPaymentContext(input, { signal }),
  });

  return [search, getPaymentContext];
}
