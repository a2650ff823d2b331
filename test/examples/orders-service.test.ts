import { afterEach, describe, expect, it, vi } from "vitest";
import {
  ORDERS_CUSTOMERS,
  ORDERS_TIME_RANGE,
  OrdersService,
  type OrderSummary,
  type PaymentContext,
  type SearchOrdersQuery,
} from "../../examples/orders/orders-service.js";
import { ToolError } from "../../src/errors.js";

/** Pages one query to the end and returns every order plus the number of pages read. */
async function readAll(service: OrdersService, query: Omit<SearchOrdersQuery, "cursor">) {
  const orders: OrderSummary[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const page: Awaited<ReturnType<OrdersService["searchOrders"]>> = await service.searchOrders(
      cursor === null ? query : { ...query, cursor },
    );
    orders.push(...page.orders);
    cursor = page.nextCursor;
    pages++;
  } while (cursor !== null && pages < 1000);
  return { orders, pages };
}

async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(ToolError);
    return (error as ToolError).code;
  }
  throw new Error("expected the call to throw");
}

/** Reads one order's payments, retrying transient failures; undefined for a permanent one. */
async function lookUp(service: OrdersService, orderId: string): Promise<PaymentContext | undefined> {
  for (let attempt = 0; attempt < 5; attempt++) {
    try {
      return await service.getPaymentContext({ orderId });
    } catch (error) {
      if ((error as ToolError).code !== "UPSTREAM_UNAVAILABLE") throw error;
    }
  }
  return undefined;
}

const byTimeThenId = (a: OrderSummary, b: OrderSummary) =>
  a.createdAt < b.createdAt
    ? -1
    : a.createdAt > b.createdAt
      ? 1
      : a.orderId < b.orderId
        ? -1
        : a.orderId > b.orderId
          ? 1
          : 0;

describe("OrdersService data", () => {
  it("holds 500+ orders over six customers, each customer with 60 to 150 orders", async () => {
    const service = new OrdersService();
    expect(service.orderCount).toBeGreaterThanOrEqual(500);
    expect(service.customerIds).toHaveLength(6);
    let total = 0;
    for (const customer of ORDERS_CUSTOMERS) {
      const { orders } = await readAll(service, { customerId: customer.id, pageSize: 100 });
      expect(orders.length).toBe(customer.orderCount);
      expect(orders.length).toBeGreaterThanOrEqual(60);
      expect(orders.length).toBeLessThanOrEqual(150);
      total += orders.length;
    }
    expect(total).toBe(service.orderCount);
  });

  it("uses integer minor-unit amounts, three currencies and timestamps inside the time range", async () => {
    const service = new OrdersService();
    const all = (
      await Promise.all(service.customerIds.map((customerId) => readAll(service, { customerId, pageSize: 100 })))
    ).flatMap(({ orders }) => orders);
    expect(new Set(all.map((order) => order.currency))).toEqual(new Set(["EUR", "USD", "GBP"]));
    for (const order of all) {
      expect(Number.isInteger(order.amount) && order.amount > 0).toBe(true);
      expect(order.createdAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
      expect(order.createdAt >= ORDERS_TIME_RANGE.from && order.createdAt < ORDERS_TIME_RANGE.to).toBe(true);
    }
  });

  it("gives two services with the same seed identical orders, payments and ground truth", async () => {
    const first = new OrdersService();
    const second = new OrdersService();
    for (const customerId of first.customerIds) {
      const a = await readAll(first, { customerId, pageSize: 100 });
      const b = await readAll(second, { customerId, pageSize: 100 });
      expect(b.orders).toEqual(a.orders);
      for (const order of a.orders.slice(0, 10)) {
        expect(await lookUp(second, order.orderId)).toEqual(await lookUp(first, order.orderId));
      }
    }
    expect(second.groundTruth()).toEqual(first.groundTruth());
  });

  it("generates different data from a different seed", async () => {
    const a = await new OrdersService().searchOrders({ customerId: "cus_1001" });
    const b = await new OrdersService({ seed: 7 }).searchOrders({ customerId: "cus_1001" });
    expect(b.orders.map((order) => order.orderId)).not.toEqual(a.orders.map((order) => order.orderId));
  });
});

describe("OrdersService.searchOrders", () => {
  it("returns every order of a customer exactly once, by createdAt then orderId, when paged to the end", async () => {
    const service = new OrdersService();
    const { orders, pages } = await readAll(service, { customerId: "cus_1002", pageSize: 7 });
    expect(orders).toHaveLength(148);
    expect(pages).toBe(Math.ceil(148 / 7));
    expect(new Set(orders.map((order) => order.orderId)).size).toBe(orders.length);
    expect(orders.every((order) => order.customerId === "cus_1002")).toBe(true);
    expect([...orders].sort(byTimeThenId)).toEqual(orders);
  });

  it("breaks ties between orders placed in the same second by orderId", async () => {
    const service = new OrdersService();
    const all = (
      await Promise.all(service.customerIds.map((customerId) => readAll(service, { customerId, pageSize: 100 })))
    ).map(({ orders }) => orders);
    const ties = all.flatMap((orders) =>
      orders.slice(1).filter((order, index) => order.createdAt === orders[index]?.createdAt),
    );
    expect(ties.length).toBeGreaterThan(0);
    for (const orders of all) expect([...orders].sort(byTimeThenId)).toEqual(orders);
  });

  it("uses 25 orders per page by default and returns nextCursor null on the last page", async () => {
    const service = new OrdersService();
    const first = await service.searchOrders({ customerId: "cus_1004" });
    expect(first.orders).toHaveLength(25);
    expect(first.nextCursor).toEqual(expect.any(String));
    const { pages } = await readAll(service, { customerId: "cus_1004" });
    expect(pages).toBe(3);
    const single = await service.searchOrders({ customerId: "cus_1004", pageSize: 100 });
    expect(single.orders).toHaveLength(61);
    expect(single.nextCursor).toBeNull();
  });

  it("keeps only orders with from <= createdAt < to", async () => {
    const service = new OrdersService();
    const everything = (await readAll(service, { customerId: "cus_1005", pageSize: 100 })).orders;
    const from = "2026-09-28T00:00:00Z";
    const to = "2026-10-12T00:00:00Z";
    const window = (await readAll(service, { customerId: "cus_1005", from, to, pageSize: 10 })).orders;
    const expected = everything.filter((order) => order.createdAt >= from && order.createdAt < to);
    expect(window).toEqual(expected);
    expect(window.length).toBeGreaterThan(10);
  });

  it("treats bounds with different offsets naming the same instant as the same query", async () => {
    const service = new OrdersService();
    const page = await service.searchOrders({ customerId: "cus_1001", from: "2026-09-28T00:00:00Z", pageSize: 5 });
    const next = await service.searchOrders({
      customerId: "cus_1001",
      from: "2026-09-28T08:00:00+08:00",
      pageSize: 5,
      cursor: page.nextCursor ?? "",
    });
    expect(next.orders[0]?.orderId).not.toBe(page.orders[0]?.orderId);
  });

  it("rejects a cursor reused with a different customerId, from, to or pageSize with CURSOR_MISMATCH", async () => {
    const service = new OrdersService();
    const query = { customerId: "cus_1001", from: "2026-09-01T00:00:00Z", to: "2026-10-15T00:00:00Z", pageSize: 10 };
    const { nextCursor } = await service.searchOrders(query);
    const cursor = nextCursor ?? "";
    for (const changed of [
      { customerId: "cus_1002" },
      { from: "2026-09-02T00:00:00Z" },
      { to: "2026-10-16T00:00:00Z" },
      { pageSize: 20 },
    ]) {
      expect(await codeOf(service.searchOrders({ ...query, ...changed, cursor }))).toBe("CURSOR_MISMATCH");
    }
    await expect(service.searchOrders({ ...query, pageSize: 20, cursor })).rejects.toThrow(
      /same customerId, from, to and pageSize|repeat the customerId, from, to and pageSize/,
    );
    await expect(service.searchOrders({ ...query, cursor })).resolves.toMatchObject({ orders: expect.any(Array) });
  });

  it("reports CURSOR_MISMATCH, not CURSOR_INVALID, for a cursor whose offset lies past the other query's end", async () => {
    const service = new OrdersService();
    const first = await service.searchOrders({ customerId: "cus_1002", pageSize: 100 });
    const cursor = first.nextCursor ?? "";
    expect(await codeOf(service.searchOrders({ customerId: "cus_1004", pageSize: 100, cursor }))).toBe(
      "CURSOR_MISMATCH",
    );
  });

  it("accepts pageSize 25 given explicitly for a cursor issued with the default page size", async () => {
    const service = new OrdersService();
    const { nextCursor } = await service.searchOrders({ customerId: "cus_1003" });
    await expect(
      service.searchOrders({ customerId: "cus_1003", pageSize: 25, cursor: nextCursor ?? "" }),
    ).resolves.toBeDefined();
  });

  it("rejects a malformed or forged cursor with CURSOR_INVALID", async () => {
    const service = new OrdersService();
    const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");
    const { nextCursor } = await service.searchOrders({ customerId: "cus_1001", pageSize: 10 });
    const payload = JSON.parse(Buffer.from(nextCursor ?? "", "base64url").toString("utf8")) as { q: string; o: number };
    for (const cursor of [
      "not a cursor!",
      "cursor_demo_page2",
      Buffer.from("hello").toString("base64url"),
      encode({ page: 2 }),
      encode({ q: payload.q, o: -10 }),
      encode({ q: payload.q, o: 1.5 }),
      encode({ q: payload.q, o: 10_000 }),
    ]) {
      expect(await codeOf(service.searchOrders({ customerId: "cus_1001", pageSize: 10, cursor }))).toBe(
        "CURSOR_INVALID",
      );
    }
  });

  it("rejects an unknown customer, an empty or reversed range and an out-of-range page size", async () => {
    const service = new OrdersService();
    expect(await codeOf(service.searchOrders({ customerId: "cus_9999" }))).toBe("CUSTOMER_NOT_FOUND");
    const bad: SearchOrdersQuery[] = [
      { customerId: "cus_1001", from: "2026-10-01T00:00:00Z", to: "2026-10-01T00:00:00Z" },
      { customerId: "cus_1001", from: "2026-10-02T00:00:00Z", to: "2026-10-01T00:00:00Z" },
      { customerId: "cus_1001", from: "yesterday" },
      { customerId: "cus_1001", from: "2026-10-01" },
      { customerId: "cus_1001", pageSize: 0 },
      { customerId: "cus_1001", pageSize: 101 },
      { customerId: "cus_1001", pageSize: 2.5 },
    ];
    for (const query of bad) expect(await codeOf(service.searchOrders(query))).toBe("INPUT_INVALID");
  });
});

describe("OrdersService.getPaymentContext", () => {
  it("fails each transient order with UPSTREAM_UNAVAILABLE 1 or 2 times, then succeeds", async () => {
    const service = new OrdersService();
    const { transientFailures } = service.groundTruth();
    expect(transientFailures.length).toBe(Math.round(service.orderCount * 0.03));
    expect(new Set(transientFailures.map((failure) => failure.failuresBeforeSuccess))).toEqual(new Set([1, 2]));
    for (const { orderId, failuresBeforeSuccess } of transientFailures) {
      for (let attempt = 0; attempt < failuresBeforeSuccess; attempt++) {
        await expect(service.getPaymentContext({ orderId })).rejects.toMatchObject({
          code: "UPSTREAM_UNAVAILABLE",
          message: "payment service unavailable, retry later",
        });
      }
      await expect(service.getPaymentContext({ orderId })).resolves.toMatchObject({ orderId });
      await expect(service.getPaymentContext({ orderId })).resolves.toMatchObject({ orderId });
    }
  });

  it("counts attempts per service instance: a new service fails the transient orders again", async () => {
    const first = new OrdersService();
    const [transient] = first.groundTruth().transientFailures;
    const orderId = transient?.orderId ?? "";
    expect(await lookUp(first, orderId)).toBeDefined();
    expect(await codeOf(new OrdersService().getPaymentContext({ orderId }))).toBe("UPSTREAM_UNAVAILABLE");
  });

  it("fails the permanent orders with UPSTREAM_UNAVAILABLE on every attempt", async () => {
    const service = new OrdersService();
    const { permanentFailures } = service.groundTruth();
    expect(permanentFailures).toHaveLength(2);
    for (const orderId of permanentFailures) {
      for (let attempt = 0; attempt < 6; attempt++) {
        expect(await codeOf(service.getPaymentContext({ orderId }))).toBe("UPSTREAM_UNAVAILABLE");
      }
    }
  });

  it("rejects an unknown order with ORDER_NOT_FOUND", async () => {
    expect(await codeOf(new OrdersService().getPaymentContext({ orderId: "ord_missing" }))).toBe("ORDER_NOT_FOUND");
  });

  it("returns copies: mutating a result does not change the service's data", async () => {
    const service = new OrdersService();
    const [order] = (await service.searchOrders({ customerId: "cus_1001" })).orders;
    const orderId = order?.orderId ?? "";
    const context = await lookUp(service, orderId);
    Object.assign(context?.payments[0] ?? {}, { amount: -1 });
    Object.assign(order ?? {}, { amount: -1 });
    expect((await lookUp(service, orderId))?.payments[0]?.amount).toBeGreaterThan(0);
    expect((await service.searchOrders({ customerId: "cus_1001" })).orders[0]?.amount).toBeGreaterThan(0);
  });
});

describe("OrdersService.groundTruth", () => {
  it("lists a handful of duplicate charges, some refunded, and no decoy or failing order among them", () => {
    const truth = new OrdersService().groundTruth();
    expect(truth.duplicates).toHaveLength(8);
    expect(truth.duplicates.filter((duplicate) => duplicate.refunded)).toHaveLength(3);
    expect(truth.decoys).toHaveLength(13);
    const duplicateIds = new Set(truth.duplicates.map((duplicate) => duplicate.orderId));
    for (const decoy of truth.decoys) expect(duplicateIds.has(decoy.orderId)).toBe(false);
    for (const orderId of truth.permanentFailures) expect(duplicateIds.has(orderId)).toBe(false);
    // Two duplicates sit behind transient failures: a sweep that does not retry misses them.
    expect(truth.transientFailures.filter((failure) => duplicateIds.has(failure.orderId))).toHaveLength(2);
  });

  it("matches the rule 'two or more successful charges each equal to the order amount' over all data", async () => {
    const service = new OrdersService();
    const truth = service.groundTruth();
    const permanent = new Set(truth.permanentFailures);
    const found: { orderId: string; refunded: boolean }[] = [];
    for (const customerId of service.customerIds) {
      for (const order of (await readAll(service, { customerId, pageSize: 100 })).orders) {
        const context = await lookUp(service, order.orderId);
        if (context === undefined) {
          expect(permanent.has(order.orderId)).toBe(true);
          continue;
        }
        expect(context).toMatchObject({ orderId: order.orderId, currency: order.currency, amount: order.amount });
        const charges = context.payments.filter(
          (payment) => payment.status !== "failed" && payment.amount === context.amount,
        );
        if (charges.length >= 2) {
          found.push({ orderId: order.orderId, refunded: charges.some((payment) => payment.status === "refunded") });
        }
      }
    }
    expect(found).toEqual(truth.duplicates.map(({ orderId, refunded }) => ({ orderId, refunded })));
  });

  it("builds decoys that look like duplicates but are not", async () => {
    const service = new OrdersService();
    const truth = service.groundTruth();
    const kinds = new Set(truth.decoys.map((decoy) => decoy.kind));
    expect(kinds).toEqual(new Set(["failed-then-captured", "split-capture", "single-refund"]));
    let evenSplits = 0;
    for (const decoy of truth.decoys) {
      const context = await lookUp(service, decoy.orderId);
      const payments = context?.payments ?? [];
      const sum = (statuses: string[]) =>
        payments
          .filter((payment) => statuses.includes(payment.status))
          .reduce((total, payment) => total + payment.amount, 0);
      if (decoy.kind === "failed-then-captured") {
        expect(payments.map((payment) => payment.status)).toEqual(["failed", "captured"]);
        expect(payments[0]?.capturedAt).toBeNull();
        expect(payments.every((payment) => payment.amount === context?.amount)).toBe(true);
      } else if (decoy.kind === "split-capture") {
        expect(payments.map((payment) => payment.status)).toEqual(["captured", "captured"]);
        expect(sum(["captured"])).toBe(context?.amount);
        if (payments[0]?.amount === payments[1]?.amount) evenSplits++;
      } else {
        expect(payments).toHaveLength(1);
        expect(payments[0]).toMatchObject({ status: "refunded", refundId: expect.stringMatching(/^re_/) });
      }
    }
    expect(evenSplits).toBe(1);
  });

  it("gives duplicate charges two full-amount charges within minutes, refunded ones with a refund id", async () => {
    const service = new OrdersService();
    for (const duplicate of service.groundTruth().duplicates) {
      const context = await lookUp(service, duplicate.orderId);
      const [first, second] = context?.payments ?? [];
      expect(context?.payments).toHaveLength(2);
      expect(first?.amount).toBe(context?.amount);
      expect(second?.amount).toBe(context?.amount);
      const minutesApart = (Date.parse(second?.capturedAt ?? "") - Date.parse(first?.capturedAt ?? "")) / 60_000;
      expect(minutesApart).toBeGreaterThanOrEqual(1);
      expect(minutesApart).toBeLessThanOrEqual(8);
      expect(second?.status).toBe(duplicate.refunded ? "refunded" : "captured");
      expect(second?.refundId !== undefined).toBe(duplicate.refunded);
    }
  });

  it("restricts every list to the customers asked for", () => {
    const service = new OrdersService();
    const all = service.groundTruth();
    const some = service.groundTruth(["cus_1002", "cus_1005"]);
    expect(some.orderCount).toBe(148 + 126);
    expect(some.duplicates).toEqual(
      all.duplicates.filter((d) => d.customerId === "cus_1002" || d.customerId === "cus_1005"),
    );
    expect(service.groundTruth([]).duplicates).toEqual([]);
  });
});

describe("OrdersService latency", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("answers after latencyMs and rejects with CANCELLED when the signal aborts first", async () => {
    vi.useFakeTimers();
    const service = new OrdersService({ latencyMs: 200 });
    let settled = false;
    const answered = service.searchOrders({ customerId: "cus_1001" }).finally(() => {
      settled = true;
    });
    await vi.advanceTimersByTimeAsync(199);
    expect(settled).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await expect(answered).resolves.toMatchObject({ orders: expect.any(Array) });

    const controller = new AbortController();
    const cancelled = service.getPaymentContext({ orderId: "ord_missing" }, { signal: controller.signal });
    const cancelledCode = codeOf(cancelled);
    controller.abort();
    expect(await cancelledCode).toBe("CANCELLED");
    expect(vi.getTimerCount()).toBe(0);
  });

  it("rejects at once with CANCELLED when the signal is already aborted", async () => {
    const controller = new AbortController();
    controller.abort();
    const service = new OrdersService();
    expect(await codeOf(service.searchOrders({ customerId: "cus_1001" }, { signal: controller.signal }))).toBe(
      "CANCELLED",
    );
  });
});
