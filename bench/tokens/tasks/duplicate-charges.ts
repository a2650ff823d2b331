// Duplicate-charge sweep over two customers of the orders demo (171 orders, 5 duplicates, 3
// decoys, 6 lookups that fail transiently and 1 that always fails). Reuses the demo's service,
// tools and sweep program; the answer is the duplicates plus the orders that could not be checked.

import { OrdersService, type PaymentContext, type SearchOrdersPage } from "../../../examples/orders/orders-service.js";
import { createOrdersTools } from "../../../examples/orders/orders-tools.js";
import {
  SWEEP_MAX_RETRIES,
  SWEEP_WINDOW,
  sweepProgramFor,
  type SweepReport,
} from "../../../examples/orders/sweep-program.js";
import { leanTool, oneOfFilter } from "../lean-api.js";
import { callWithRetries, defineTask, mentionsNumber, type CallRequest, type DirectSession } from "../task.js";

const CUSTOMERS = ["cus_1004", "cus_1006"] as const;
const PAGE_SIZE = 100;
const MAX_ATTEMPTS = SWEEP_MAX_RETRIES + 1;

export interface DuplicateChargeAnswer {
  /** Orders charged twice, sorted by orderId; `refunded` when one charge was already returned. */
  readonly duplicates: readonly { readonly orderId: string; readonly refunded: boolean }[];
  /** Orders whose payments could not be read, sorted. */
  readonly unchecked: readonly string[];
  readonly ordersChecked: number;
}

const PROGRAM = sweepProgramFor(CUSTOMERS);

export const duplicateCharges = defineTask<DuplicateChargeAnswer>({
  id: "duplicate-charges",
  title: "Duplicate-charge sweep",
  question:
    `Check every order of customers ${CUSTOMERS.join(" and ")} placed from ${SWEEP_WINDOW.from} to ${SWEEP_WINDOW.to} for duplicate ` +
    "charges: two or more successful payments (captured, or captured and later refunded) each for the full order amount. " +
    "List the duplicated orders, say whether one charge was already refunded, and list any order you could not check.",
  control: false,
  note: "171 orders over 3 pages, one payment lookup each, transient failures retried",
  createWorld() {
    const service = new OrdersService();
    const truthData = service.groundTruth([...CUSTOMERS]);
    const truth: DuplicateChargeAnswer = {
      duplicates: truthData.duplicates.map(({ orderId, refunded }) => ({ orderId, refunded })).sort(byOrderId),
      unchecked: [...truthData.permanentFailures].sort(),
      ordersChecked: truthData.orderCount,
    };
    const tools = createOrdersTools(service);
    return {
      tools,
      truth,
      solveDirect: (session: DirectSession) => solveDirect(session, {}, {}),
      lean: {
        note: "order fields on request; payments filtered by status, two fields each",
        tools: [
          leanTool(tools[0], {
            listField: "orders",
            itemFields: ["orderId", "customerId", "createdAt", "currency", "amount", "itemCount"],
            description: `${tools[0].description} Optional: fields (which order fields to return).`,
          }),
          leanTool(tools[1], {
            listField: "payments",
            itemFields: ["id", "amount", "status", "capturedAt", "refundId"],
            filters: [
              oneOfFilter(
                "statuses",
                "status",
                ["captured", "failed", "refunded"],
                "Only payments with these statuses.",
              ),
            ],
            description: `${tools[1].description} Optional: statuses (which payments to return), fields (which payment fields).`,
          }),
        ],
        solveDirect: (session: DirectSession) =>
          solveDirect(
            session,
            { fields: ["orderId"] },
            { statuses: ["captured", "refunded"], fields: ["amount", "status"] },
          ),
      },
      checkAnswer(text) {
        const problems: string[] = [];
        const mentioned = new Set(text.match(/\bord_[a-z0-9]+/g) ?? []);
        const expected = new Set([...truth.duplicates.map((duplicate) => duplicate.orderId), ...truth.unchecked]);
        for (const id of expected) if (!mentioned.has(id)) problems.push(`does not mention ${id}`);
        for (const id of mentioned)
          if (!expected.has(id)) problems.push(`names ${id}, which is neither charged twice nor unchecked`);
        if (!mentionsNumber(text, truth.ordersChecked))
          problems.push(`does not say that ${truth.ordersChecked} orders were checked`);
        return problems;
      },
      program: PROGRAM,
      programMistake: { find: "page.nextCursor === null", replace: "page.next_cursor === null" },
      answerFromOutput(output) {
        const report = output as SweepReport;
        return {
          duplicates: report.candidates.map(({ orderId, refunded }) => ({ orderId, refunded })).sort(byOrderId),
          unchecked: report.failed.map((failure) => failure.orderId).sort(),
          ordersChecked: report.checked,
        };
      },
      searchQueries: ["list a customer's orders in a time window", "payment attempts of one order"],
      requiredTools: ["orders.search", "orders.getPaymentContext"],
      render(answer) {
        const lines = [`I checked ${answer.ordersChecked} orders of ${CUSTOMERS.join(" and ")}.`];
        lines.push(`Duplicate charges (${answer.duplicates.length}):`);
        for (const duplicate of answer.duplicates)
          lines.push(
            `- ${duplicate.orderId}${duplicate.refunded ? " (one charge already refunded)" : " (not refunded: needs follow-up)"}`,
          );
        lines.push(
          answer.unchecked.length === 0
            ? "Every order was checked."
            : `Could not check (payment service kept failing): ${answer.unchecked.join(", ")}.`,
        );
        return lines.join("\n");
      },
    };
  },
});

/** Lists every order, looks each one's payments up with retries, and finds the orders charged twice. */
async function solveDirect(
  session: DirectSession,
  searchExtras: Record<string, unknown>,
  paymentExtras: Record<string, unknown>,
): Promise<DuplicateChargeAnswer> {
  const orderIds = await listAllOrders(session, searchExtras);
  const lookups = await callWithRetries(
    session,
    orderIds.map(
      (orderId): CallRequest => ({ tool: "orders.getPaymentContext", input: { orderId, ...paymentExtras } }),
    ),
    (result) => result.code === "UPSTREAM_UNAVAILABLE",
    MAX_ATTEMPTS,
  );
  const duplicates: { orderId: string; refunded: boolean }[] = [];
  const unchecked: string[] = [];
  lookups.forEach((result, index) => {
    if (!result.ok) {
      unchecked.push(orderIds[index]!);
      return;
    }
    const context = result.value as Pick<PaymentContext, "orderId" | "amount"> & {
      payments: { amount: number; status: string }[];
    };
    const charges = context.payments.filter(
      (payment) =>
        (payment.status === "captured" || payment.status === "refunded") && payment.amount === context.amount,
    );
    if (charges.length >= 2)
      duplicates.push({ orderId: context.orderId, refunded: charges.some((payment) => payment.status === "refunded") });
  });
  return { duplicates: duplicates.sort(byOrderId), unchecked: unchecked.sort(), ordersChecked: orderIds.length };
}

/** Pages every customer to the end; the customers' pages are independent of each other. */
async function listAllOrders(session: DirectSession, extras: Record<string, unknown>): Promise<string[]> {
  const orderIds: string[] = [];
  let open = CUSTOMERS.map((customerId) => ({ customerId, cursor: undefined as string | undefined }));
  while (open.length > 0) {
    const pages = await session.call(
      open.map(({ customerId, cursor }) => ({
        tool: "orders.search",
        input: {
          customerId,
          from: SWEEP_WINDOW.from,
          to: SWEEP_WINDOW.to,
          pageSize: PAGE_SIZE,
          ...(cursor === undefined ? {} : { cursor }),
          ...extras,
        },
      })),
    );
    const next: typeof open = [];
    pages.forEach((result, index) => {
      if (!result.ok) throw new Error(`orders.search failed: ${result.text}`);
      const page = result.value as Pick<SearchOrdersPage, "nextCursor"> & { orders: { orderId: string }[] };
      for (const order of page.orders) orderIds.push(order.orderId);
      if (page.nextCursor !== null) next.push({ customerId: open[index]!.customerId, cursor: page.nextCursor });
    });
    open = next;
  }
  return orderIds;
}

function byOrderId(a: { orderId: string }, b: { orderId: string }): number {
  return a.orderId < b.orderId ? -1 : a.orderId > b.orderId ? 1 : 0;
}
