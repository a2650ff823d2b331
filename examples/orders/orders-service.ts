// An in-process orders and payments service for the duplicate-charge sweep demo. Its data is
// generated from a seeded PRNG, so every instance with the same seed holds the same orders,
// payments, decoys and failing lookups; it knows its own ground truth so tests can grade a
// program's answer. It is a stand-in for an HTTP API: it never touches the network or disk.

import { createHash } from "node:crypto";
import { ToolError } from "switchyard-runtime";

export type Currency = "EUR" | "USD" | "GBP";
export type PaymentStatus = "captured" | "failed" | "refunded";

/** One order as `searchOrders` lists it. Amounts are integers in minor units (cents, pence). */
export interface OrderSummary {
  readonly orderId: string;
  readonly customerId: string;
  /** ISO 8601 UTC timestamp with second precision, e.g. `2026-09-14T08:31:07Z`. */
  readonly createdAt: string;
  readonly currency: Currency;
  readonly amount: number;
  readonly itemCount: number;
}

/** One payment attempt on an order. */
export interface Payment {
  readonly id: string;
  /** Minor units, in the order's currency. */
  readonly amount: number;
  readonly status: PaymentStatus;
  /** When the money was taken; `null` for a failed attempt, which never captured anything. */
  readonly capturedAt: string | null;
  /** Set when the payment was refunded. */
  readonly refundId?: string;
}

/** Every payment attempt on one order, as `getPaymentContext` returns it. */
export interface PaymentContext {
  readonly orderId: string;
  readonly currency: Currency;
  readonly amount: number;
  readonly payments: readonly Payment[];
}

export interface SearchOrdersQuery {
  readonly customerId: string;
  /** Inclusive lower bound on `createdAt` (ISO 8601 date-time). Omitted: no lower bound. */
  readonly from?: string;
  /** Exclusive upper bound on `createdAt` (ISO 8601 date-time). Omitted: no upper bound. */
  readonly to?: string;
  /** Orders per page, 1 to 100. Default 25. */
  readonly pageSize?: number;
  /** `nextCursor` of the previous page of the same query. */
  readonly cursor?: string;
}

export interface SearchOrdersPage {
  readonly orders: readonly OrderSummary[];
  /** Pass back as `cursor` to read the next page; `null` on the last page. */
  readonly nextCursor: string | null;
}

export interface GetPaymentContextInput {
  readonly orderId: string;
}

/** Per-request options, as a tool's `execute` receives them. */
export interface OrdersRequestOptions {
  readonly signal?: AbortSignal;
}

export interface OrdersServiceOptions {
  /** PRNG seed for the generated data. Default 20261012. */
  readonly seed?: number;
  /** Simulated latency of every request in milliseconds, via `setTimeout`. Default 0 (none). */
  readonly latencyMs?: number;
}

/** An order that was charged twice for its full amount. */
export interface DuplicateChargeTruth {
  readonly orderId: string;
  readonly customerId: string;
  /** One of the two charges has already been refunded. */
  readonly refunded: boolean;
}

/** Orders that look suspicious but are not duplicate charges. */
export type DecoyKind = "failed-then-captured" | "split-capture" | "single-refund";

/** What the generated data really contains, for grading a sweep. */
export interface OrdersGroundTruth {
  readonly orderCount: number;
  /** Sorted by customerId, then createdAt, then orderId (the order a full sweep meets them). */
  readonly duplicates: readonly DuplicateChargeTruth[];
  readonly decoys: readonly { readonly orderId: string; readonly customerId: string; readonly kind: DecoyKind }[];
  /** Orders whose first one or two lookups fail with UPSTREAM_UNAVAILABLE. */
  readonly transientFailures: readonly { readonly orderId: string; readonly failuresBeforeSuccess: number }[];
  /** Orders whose lookup fails with UPSTREAM_UNAVAILABLE every time. Never duplicates. */
  readonly permanentFailures: readonly string[];
}

/** The customers of the generated data, their order counts and usual currency. */
export const ORDERS_CUSTOMERS: readonly {
  readonly id: string;
  readonly orderCount: number;
  readonly currency: Currency;
}[] = [
  { id: "cus_1001", orderCount: 72, currency: "EUR" },
  { id: "cus_1002", orderCount: 148, currency: "USD" },
  { id: "cus_1003", orderCount: 95, currency: "GBP" },
  { id: "cus_1004", orderCount: 61, currency: "EUR" },
  { id: "cus_1005", orderCount: 126, currency: "USD" },
  { id: "cus_1006", orderCount: 110, currency: "EUR" },
];

/** The window every generated order falls in: `from` inclusive, `to` exclusive. */
export const ORDERS_TIME_RANGE = { from: "2026-09-01T00:00:00Z", to: "2026-11-01T00:00:00Z" } as const;

export const DEFAULT_PAGE_SIZE = 25;
export const MAX_PAGE_SIZE = 100;

const CURRENCIES: readonly Currency[] = ["EUR", "USD", "GBP"];
const DEFAULT_SEED = 20261012;
const DUPLICATE_COUNT = 8;
const REFUNDED_DUPLICATE_COUNT = 3;
const DECOY_COUNTS: Readonly<Record<DecoyKind, number>> = {
  "failed-then-captured": 5,
  "split-capture": 4,
  "single-refund": 4,
};
const TRANSIENT_FAILURE_SHARE = 0.03;
const PERMANENT_FAILURE_COUNT = 2;

type OrderKind = "normal" | "duplicate" | "duplicate-refunded" | DecoyKind;

interface StoredOrder {
  readonly summary: OrderSummary;
  readonly payments: Payment[];
  readonly kind: OrderKind;
  /** Lookups that fail before one succeeds; Infinity for a permanent failure. */
  readonly failuresBeforeSuccess: number;
}

interface CursorPayload {
  readonly q: string;
  readonly o: number;
}

/**
 * The orders and payments service of the demo. Data is fixed at construction; the only state
 * that changes is the count of lookups per order, which drives the transient failures, so
 * each instance starts with every transient failure armed.
 */
export class OrdersService {
  readonly #orders: readonly StoredOrder[];
  readonly #ordersByCustomer: ReadonlyMap<string, readonly StoredOrder[]>;
  readonly #ordersById: ReadonlyMap<string, StoredOrder>;
  readonly #attempts = new Map<string, number>();
  readonly #latencyMs: number;

  constructor(options: OrdersServiceOptions = {}) {
    const latencyMs = options.latencyMs ?? 0;
    if (!(Number.isFinite(latencyMs) && latencyMs >= 0)) {
      throw new RangeError("OrdersService: latencyMs must be a non-negative number.");
    }
    this.#latencyMs = latencyMs;
    this.#orders = generateOrders(options.seed ?? DEFAULT_SEED);
    const byCustomer = new Map<string, StoredOrder[]>();
    for (const customer of ORDERS_CUSTOMERS) byCustomer.set(customer.id, []);
    for (const order of this.#orders) byCustomer.get(order.summary.customerId)?.push(order);
    this.#ordersByCustomer = byCustomer;
    this.#ordersById = new Map(this.#orders.map((order) => [order.summary.orderId, order]));
  }

  /** The customer ids, in a fixed order. */
  get customerIds(): readonly string[] {
    return ORDERS_CUSTOMERS.map((customer) => customer.id);
  }

  /** The number of orders across all customers. */
  get orderCount(): number {
    return this.#orders.length;
  }

  /**
   * Lists one page of a customer's orders, ordered by `createdAt`, then `orderId`. The cursor
   * is bound to its query: reusing it with another customerId, from, to or pageSize throws
   * `ToolError` CURSOR_MISMATCH; a cursor this service did not issue throws CURSOR_INVALID.
   * Also throws CUSTOMER_NOT_FOUND, INPUT_INVALID (bad date, range or page size) and
   * CANCELLED when the signal aborts.
   */
  async searchOrders(query: SearchOrdersQuery, options: OrdersRequestOptions = {}): Promise<SearchOrdersPage> {
    await this.#delay(options.signal);
    const normalized = normalizeQuery(query);
    const orders = this.#ordersByCustomer.get(normalized.customerId);
    if (orders === undefined) {
      throw new ToolError(
        `No customer with id "${normalized.customerId}". Check the id; customer ids look like "cus_1001".`,
        { code: "CUSTOMER_NOT_FOUND" },
      );
    }
    const matching = orders.filter((order) => {
      const createdAtMs = Date.parse(order.summary.createdAt);
      return (
        (normalized.fromMs === null || createdAtMs >= normalized.fromMs) &&
        (normalized.toMs === null || createdAtMs < normalized.toMs)
      );
    });
    const queryHash = hashQuery(normalized);
    const offset = query.cursor === undefined ? 0 : readCursor(query.cursor, queryHash, matching.length);
    const end = offset + normalized.pageSize;
    return {
      orders: matching.slice(offset, end).map((order) => ({ ...order.summary })),
      nextCursor: end < matching.length ? writeCursor({ q: queryHash, o: end }) : null,
    };
  }

  /**
   * Returns every payment attempt on one order. A few orders fail their first one or two
   * lookups with `ToolError` UPSTREAM_UNAVAILABLE (counted per service instance), and a
   * couple fail every time. Throws ORDER_NOT_FOUND for an unknown id and CANCELLED when the
   * signal aborts.
   */
  async getPaymentContext(input: GetPaymentContextInput, options: OrdersRequestOptions = {}): Promise<PaymentContext> {
    await this.#delay(options.signal);
    const order = this.#ordersById.get(input.orderId);
    if (order === undefined) {
      throw new ToolError(`No order with id "${input.orderId}". Use an orderId returned by orders.search.`, {
        code: "ORDER_NOT_FOUND",
      });
    }
    const attempt = (this.#attempts.get(input.orderId) ?? 0) + 1;
    this.#attempts.set(input.orderId, attempt);
    if (attempt <= order.failuresBeforeSuccess) {
      throw new ToolError("payment service unavailable, retry later", { code: "UPSTREAM_UNAVAILABLE" });
    }
    return {
      orderId: order.summary.orderId,
      currency: order.summary.currency,
      amount: order.summary.amount,
      payments: order.payments.map((payment) => ({ ...payment })),
    };
  }

  /**
   * What the data really holds, optionally restricted to some customers: the duplicate
   * charges (with their refund state), the decoys, and the orders whose lookups fail.
   */
  groundTruth(customerIds?: readonly string[]): OrdersGroundTruth {
    const wanted = customerIds === undefined ? undefined : new Set(customerIds);
    // #orders is sorted by customer, then createdAt, then id: lists below keep that order.
    const orders = this.#orders.filter((order) => wanted === undefined || wanted.has(order.summary.customerId));
    const pick = ({ summary }: StoredOrder) => ({ orderId: summary.orderId, customerId: summary.customerId });
    return {
      orderCount: orders.length,
      duplicates: orders
        .filter((order) => order.kind === "duplicate" || order.kind === "duplicate-refunded")
        .map((order) => ({ ...pick(order), refunded: order.kind === "duplicate-refunded" })),
      decoys: orders.flatMap((order) =>
        order.kind === "failed-then-captured" || order.kind === "split-capture" || order.kind === "single-refund"
          ? [{ ...pick(order), kind: order.kind }]
          : [],
      ),
      transientFailures: orders
        .filter((order) => order.failuresBeforeSuccess > 0 && Number.isFinite(order.failuresBeforeSuccess))
        .map((order) => ({ orderId: order.summary.orderId, failuresBeforeSuccess: order.failuresBeforeSuccess })),
      permanentFailures: orders
        .filter((order) => order.failuresBeforeSuccess === Number.POSITIVE_INFINITY)
        .map((order) => order.summary.orderId),
    };
  }

  async #delay(signal: AbortSignal | undefined): Promise<void> {
    throwIfAborted(signal);
    if (this.#latencyMs === 0) return;
    await new Promise<void>((resolve, reject) => {
      const onAbort = () => {
        clearTimeout(timer);
        reject(cancelled());
      };
      const timer = setTimeout(() => {
        signal?.removeEventListener("abort", onAbort);
        resolve();
      }, this.#latencyMs);
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  }
}

function cancelled(): ToolError {
  return new ToolError("The request was cancelled before the orders service answered.", { code: "CANCELLED" });
}

function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw cancelled();
}

// ---------------------------------------------------------------------------------------
// Queries and cursors

interface NormalizedQuery {
  readonly customerId: string;
  readonly fromMs: number | null;
  readonly toMs: number | null;
  readonly pageSize: number;
}

function normalizeQuery(query: SearchOrdersQuery): NormalizedQuery {
  if (typeof query.customerId !== "string" || query.customerId.length === 0) {
    throw new ToolError('customerId is required, e.g. "cus_1001".', { code: "INPUT_INVALID" });
  }
  const fromMs = parseBound("from", query.from);
  const toMs = parseBound("to", query.to);
  if (fromMs !== null && toMs !== null && fromMs >= toMs) {
    throw new ToolError(`from (${query.from}) must be earlier than to (${query.to}).`, { code: "INPUT_INVALID" });
  }
  const pageSize = query.pageSize ?? DEFAULT_PAGE_SIZE;
  if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > MAX_PAGE_SIZE) {
    throw new ToolError(`pageSize must be an integer from 1 to ${MAX_PAGE_SIZE}, got ${pageSize}.`, {
      code: "INPUT_INVALID",
    });
  }
  return { customerId: query.customerId, fromMs, toMs, pageSize };
}

// Requires an explicit offset (Z or ±hh:mm), as JSON Schema's date-time format does.
const DATE_TIME_PATTERN = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i;

function parseBound(name: "from" | "to", value: string | undefined): number | null {
  if (value === undefined) return null;
  const ms = DATE_TIME_PATTERN.test(value) ? Date.parse(value) : Number.NaN;
  if (Number.isNaN(ms)) {
    throw new ToolError(
      `${name} must be an ISO 8601 date-time with an offset, e.g. "2026-09-28T00:00:00Z"; got ${JSON.stringify(value)}.`,
      { code: "INPUT_INVALID" },
    );
  }
  return ms;
}

// Bounds are hashed as instants, so "…T08:00:00+08:00" and "…T00:00:00Z" are the same query.
function hashQuery(query: NormalizedQuery): string {
  const canonical = JSON.stringify([query.customerId, query.fromMs, query.toMs, query.pageSize]);
  return createHash("sha256").update(canonical).digest("hex").slice(0, 16);
}

function writeCursor(payload: CursorPayload): string {
  return Buffer.from(JSON.stringify(payload)).toString("base64url");
}

function readCursor(cursor: string, queryHash: string, resultCount: number): number {
  const payload = decodeCursor(cursor);
  const invalid = () =>
    new ToolError(
      "cursor is not one this service issued: pass nextCursor exactly as the previous page returned it, " +
        "or omit cursor to start again from the first page.",
      { code: "CURSOR_INVALID" },
    );
  if (payload === undefined) throw invalid();
  // The query check comes first: a cursor of another query is a mismatch whatever its offset.
  if (payload.q !== queryHash) {
    throw new ToolError(
      "cursor belongs to a different query: repeat the customerId, from, to and pageSize of the call that " +
        "returned it, or omit cursor to start this query from its first page.",
      { code: "CURSOR_MISMATCH" },
    );
  }
  if (payload.o > resultCount) throw invalid();
  return payload.o;
}

function decodeCursor(cursor: string): CursorPayload | undefined {
  // Buffer's base64url decoder skips characters it does not know; check the alphabet first.
  if (!/^[A-Za-z0-9_-]+$/.test(cursor)) return undefined;
  let payload: unknown;
  try {
    payload = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
  } catch {
    return undefined;
  }
  if (typeof payload !== "object" || payload === null) return undefined;
  const { q, o } = payload as { q?: unknown; o?: unknown };
  if (typeof q !== "string" || typeof o !== "number" || !Number.isInteger(o) || o < 1) return undefined;
  return { q, o };
}

// ---------------------------------------------------------------------------------------
// Data generation

/** mulberry32: a small, fast 32-bit PRNG; good enough for demo data, not for anything secret. */
export function createRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function generateOrders(seed: number): StoredOrder[] {
  const random = createRandom(seed);
  const between = (min: number, max: number) => min + Math.floor(random() * (max - min + 1));
  const usedIds = new Set<string>();
  const newId = (prefix: string) => {
    for (;;) {
      let id = prefix;
      for (let i = 0; i < 10; i++) id += "0123456789abcdefghijklmnopqrstuvwxyz"[Math.floor(random() * 36)];
      if (!usedIds.has(id)) {
        usedIds.add(id);
        return id;
      }
    }
  };
  const rangeStartMs = Date.parse(ORDERS_TIME_RANGE.from);
  // Keep the last order a day clear of `to`, so payments are captured inside the window too.
  const rangeSeconds = (Date.parse(ORDERS_TIME_RANGE.to) - rangeStartMs) / 1000 - 86_400;

  const summaries: OrderSummary[] = [];
  for (const customer of ORDERS_CUSTOMERS) {
    const times: number[] = [];
    for (let i = 0; i < customer.orderCount; i++) {
      const previous = times[between(0, times.length - 1)];
      // Some orders share a second with an earlier one (a split basket): the id breaks the tie.
      times.push(previous !== undefined && random() < 0.05 ? previous : rangeStartMs + between(0, rangeSeconds) * 1000);
    }
    for (const timeMs of times) {
      const currency = random() < 0.88 ? customer.currency : (CURRENCIES[between(0, 2)] ?? customer.currency);
      summaries.push({
        orderId: newId("ord_"),
        customerId: customer.id,
        createdAt: isoSeconds(timeMs),
        currency,
        amount: random() < 0.9 ? between(500, 25_000) : between(25_000, 180_000),
        itemCount: between(1, 6),
      });
    }
  }
  summaries.sort(
    (a, b) =>
      compareText(a.customerId, b.customerId) ||
      compareText(a.createdAt, b.createdAt) ||
      compareText(a.orderId, b.orderId),
  );

  // Assign the special kinds to distinct, randomly chosen orders.
  const shuffled = shuffle(
    summaries.map((_, index) => index),
    random,
  );
  const kinds = new Array<OrderKind>(summaries.length).fill("normal");
  let taken = 0;
  const assign = (kind: OrderKind, count: number) => {
    for (const index of shuffled.slice(taken, taken + count)) kinds[index] = kind;
    taken += count;
  };
  assign("duplicate-refunded", REFUNDED_DUPLICATE_COUNT);
  assign("duplicate", DUPLICATE_COUNT - REFUNDED_DUPLICATE_COUNT);
  for (const [kind, count] of Object.entries(DECOY_COUNTS) as [DecoyKind, number][]) assign(kind, count);

  // Failing lookups: two duplicates fail transiently (a sweep that gives up on the first
  // error misses them); permanent failures land on normal orders of different customers.
  const failures = new Array<number>(summaries.length).fill(0);
  const transientCount = Math.round(summaries.length * TRANSIENT_FAILURE_SHARE);
  const duplicateIndexes = shuffled.slice(0, DUPLICATE_COUNT);
  const transientIndexes = [...duplicateIndexes.slice(0, 2), ...shuffled.slice(taken, taken + transientCount - 2)];
  taken += transientCount - 2;
  transientIndexes.forEach((index, position) => {
    failures[index] = position % 3 === 1 ? 2 : 1;
  });
  const permanentCustomers = new Set<string>();
  for (const index of shuffled.slice(taken)) {
    if (permanentCustomers.size === PERMANENT_FAILURE_COUNT) break;
    const customerId = summaries[index]?.customerId;
    if (kinds[index] !== "normal" || customerId === undefined || permanentCustomers.has(customerId)) continue;
    permanentCustomers.add(customerId);
    failures[index] = Number.POSITIVE_INFINITY;
  }

  let splitCount = 0;
  return summaries.map((summary, index) => {
    const kind = kinds[index] ?? "normal";
    // The first split capture is an even 50/50 split: two captures of equal amount that are
    // still not a duplicate, because neither equals the order amount.
    const halves = kind === "split-capture" && splitCount++ === 0;
    const adjusted = halves && summary.amount % 2 === 1 ? { ...summary, amount: summary.amount + 1 } : summary;
    return {
      summary: adjusted,
      payments: generatePayments(adjusted, kind, halves, { random, between, newId }),
      kind,
      failuresBeforeSuccess: failures[index] ?? 0,
    };
  });
}

interface Generators {
  readonly random: () => number;
  readonly between: (min: number, max: number) => number;
  readonly newId: (prefix: string) => string;
}

function generatePayments(
  order: OrderSummary,
  kind: OrderKind,
  halves: boolean,
  { random, between, newId }: Generators,
): Payment[] {
  const firstMs = Date.parse(order.createdAt) + between(5, 90) * 1000;
  const later = (minutesMin: number, minutesMax: number) => firstMs + between(minutesMin * 60, minutesMax * 60) * 1000;
  const captured = (amount: number, atMs: number): Payment => ({
    id: newId("pay_"),
    amount,
    status: "captured",
    capturedAt: isoSeconds(atMs),
  });
  const refunded = (payment: Payment): Payment => ({ ...payment, status: "refunded", refundId: newId("re_") });
  switch (kind) {
    case "normal":
      return [captured(order.amount, firstMs)];
    case "duplicate":
      return [captured(order.amount, firstMs), captured(order.amount, later(1, 8))];
    case "duplicate-refunded":
      return [captured(order.amount, firstMs), refunded(captured(order.amount, later(1, 8)))];
    case "failed-then-captured":
      return [
        { id: newId("pay_"), amount: order.amount, status: "failed", capturedAt: null },
        captured(order.amount, later(1, 4)),
      ];
    case "split-capture": {
      const first = halves ? order.amount / 2 : Math.round(order.amount * (0.3 + random() * 0.15));
      return [captured(first, firstMs), captured(order.amount - first, later(2, 30))];
    }
    case "single-refund":
      return [refunded(captured(order.amount, firstMs))];
  }
}

function shuffle<T>(items: T[], random: () => number): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [items[i], items[j]] = [items[j] as T, items[i] as T];
  }
  return items;
}

function isoSeconds(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
