// The program a competent model writes for the duplicate-charge sweep: page every customer's
// orders to the end, look up each order's payments eight at a time with retries, and return
// the scope, the evidence, the failures and whether the sweep was complete. It is the body of
// an async function that sees only `tools` and `console`; it is kept as text, not imported.

import { ORDERS_TIME_RANGE } from "./orders-service.js";

/** The customers the sweep covers, in the order it pages them. */
export const SWEEP_CUSTOMER_IDS: readonly string[] = [
  "cus_1001",
  "cus_1002",
  "cus_1003",
  "cus_1004",
  "cus_1005",
  "cus_1006",
];

/** The window the sweep asks for: `from` inclusive, `to` exclusive. It covers all generated data. */
export const SWEEP_WINDOW = ORDERS_TIME_RANGE;

/** Most payment lookups the program keeps in flight at once. */
export const SWEEP_CONCURRENCY = 8;

/** Retries of one lookup after UPSTREAM_UNAVAILABLE, on top of the first attempt. */
export const SWEEP_MAX_RETRIES = 3;

/** What the sweep returns; the program declares the same shapes for itself, in its own text. */
export interface SweepReport {
  /** Orders found across every page that was read. */
  readonly checked: number;
  /** Orders with two or more successful charges each equal to the order amount, with their evidence. */
  readonly candidates: readonly {
    readonly orderId: string;
    readonly customerId: string;
    readonly currency: string;
    readonly orderAmount: number;
    readonly paymentIds: readonly string[];
    readonly amounts: readonly number[];
    readonly capturedAt: readonly (string | null)[];
    readonly refunded: boolean;
  }[];
  /** Orders whose lookup still failed after retries. */
  readonly failed: readonly { readonly orderId: string; readonly code: string; readonly message: string }[];
  /** True when every page was read and every lookup succeeded. */
  readonly complete: boolean;
  /** Why paging stopped early for a customer, one line each. */
  readonly notes: readonly string[];
}

/**
 * TypeScript source of the sweep over `customerIds`, as the body of an async function
 * (top-level `await` and `return`). It returns a SweepReport. Only the customer list varies.
 */
export function sweepProgramFor(customerIds: readonly string[]): string {
  return `// Find orders charged twice: two or more successful payments (captured or later refunded),
// each for the full order amount. Page every customer to the end; report what could not be checked.
const customerIds = ${JSON.stringify(customerIds)};
const from = ${JSON.stringify(SWEEP_WINDOW.from)};
const to = ${JSON.stringify(SWEEP_WINDOW.to)};
const pageSize = 100;
const concurrency = ${SWEEP_CONCURRENCY};
const maxRetries = ${SWEEP_MAX_RETRIES};

type OrderRef = { orderId: string; customerId: string };
type Candidate = {
  orderId: string;
  customerId: string;
  currency: string;
  orderAmount: number;
  paymentIds: string[];
  amounts: number[];
  capturedAt: (string | null)[];
  refunded: boolean;
};
type Failure = { orderId: string; code: string; message: string };

const orders: OrderRef[] = [];
const candidates: Candidate[] = [];
const failed: Failure[] = [];
const notes: string[] = [];
let allPagesRead = true;

// 1. Collect every order, following cursors until nextCursor is null.
for (const customerId of customerIds) {
  const seenCursors = new Set<string>();
  let cursor: string | null = null;
  let pages = 0;
  while (true) {
    let page;
    try {
      page = await tools.orders.search({ customerId, from, to, pageSize, ...(cursor ? { cursor } : {}) });
    } catch (e) {
      const code = (e as { code?: string }).code ?? "UNKNOWN";
      notes.push(customerId + ": search failed on page " + (pages + 1) + " (" + code + "): " + (e as Error).message);
      allPagesRead = false;
      break;
    }
    pages++;
    for (const order of page.orders) orders.push({ orderId: order.orderId, customerId });
    if (page.nextCursor === null) break;
    if (seenCursors.has(page.nextCursor)) {
      notes.push(customerId + ": cursor repeated after page " + pages + ", stopped paging");
      allPagesRead = false;
      break;
    }
    seenCursors.add(page.nextCursor);
    cursor = page.nextCursor;
  }
}

// 2. Look up payments with bounded parallelism; retry the upstream's transient failures.
async function getPayments(orderId: string) {
  for (let attempt = 0; ; attempt++) {
    try {
      return await tools.orders.getPaymentContext({ orderId });
    } catch (e) {
      if ((e as { code?: string }).code !== "UPSTREAM_UNAVAILABLE" || attempt >= maxRetries) throw e;
    }
  }
}

async function check(order: OrderRef) {
  try {
    const context = await getPayments(order.orderId);
    const charges = context.payments.filter(
      (p) => (p.status === "captured" || p.status === "refunded") && p.amount === context.amount,
    );
    if (charges.length >= 2) {
      candidates.push({
        orderId: order.orderId,
        customerId: order.customerId,
        currency: context.currency,
        orderAmount: context.amount,
        paymentIds: charges.map((p) => p.id),
        amounts: charges.map((p) => p.amount),
        capturedAt: charges.map((p) => p.capturedAt),
        refunded: charges.some((p) => p.status === "refunded"),
      });
    }
  } catch (e) {
    failed.push({
      orderId: order.orderId,
      code: (e as { code?: string }).code ?? "UNKNOWN",
      message: (e as Error).message,
    });
  }
}

let next = 0;
async function worker() {
  while (next < orders.length) {
    const order = orders[next++]!;
    await check(order);
  }
}
await Promise.all(Array.from({ length: Math.min(concurrency, orders.length) }, () => worker()));

// Workers finish in any order: sort so the report is stable.
candidates.sort((a, b) => a.customerId.localeCompare(b.customerId) || a.orderId.localeCompare(b.orderId));
failed.sort((a, b) => a.orderId.localeCompare(b.orderId));

console.log("checked " + orders.length + " orders of " + customerIds.length + " customers; " +
  candidates.length + " candidates, " + failed.length + " lookups failed");

return {
  checked: orders.length,
  candidates,
  failed,
  complete: allPagesRead && failed.length === 0,
  notes,
};
`;
}

/** The sweep over every customer (SWEEP_CUSTOMER_IDS); see sweepProgramFor. */
export const SWEEP_PROGRAM = sweepProgramFor(SWEEP_CUSTOMER_IDS);
