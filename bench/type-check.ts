// Measures what type-checking a program costs: the cold check (first in a process) and the
// warm median of 20 later checks, in process and through the worker, each path in a fresh
// child process so nothing is cached. Uses 50 generated tools in 8 namespaces.
// Then the sweep rows of type-check-sweep.ts, side by side with the bare floor; writes
// bench/results/type-check.json. Run: npm run bench:type-check

import { execFile } from "node:child_process";
import { createRequire } from "node:module";
import { fileURLToPath, pathToFileURL } from "node:url";
import { promisify } from "node:util";
import type { ProgramTypeChecker } from "../src/program/type-check-program.js";
import { benchConditions, currentLoad, writeBenchResult } from "./bench-result.js";
import { median } from "./stats.js";
import { formatSweepTable, measureSweep } from "./type-check-sweep.js";
// The checker modules are imported dynamically, inside the timed region: loading TypeScript
// is part of a cold start, and the worker path's host should never load it at all.

/** Timings of one path, in ms. */
export interface TypeCheckTiming {
  /** Fresh process to first diagnostics: module (and TypeScript) load, or worker start, plus the first check. */
  readonly coldMs: number;
  readonly warmMedianMs: number;
  readonly warmMinMs: number;
  readonly warmMaxMs: number;
}

/** What `measureTypeCheck` returns: one row per path plus the size of the workload. */
export interface TypeCheckMeasurement {
  readonly tools: number;
  readonly namespaces: number;
  readonly declarationBytes: number;
  readonly programLines: number;
  readonly inProcess: TypeCheckTiming;
  readonly worker: TypeCheckTiming;
  /** lintProgram on the same program, in process; cold includes loading TypeScript when not yet loaded. */
  readonly lint: TypeCheckTiming;
}

const WARM_RUNS = 20;

// ---- the workload ----

interface FieldSpec {
  readonly name: string;
  readonly type: string;
  readonly doc: string;
}

interface NamespaceSpec {
  readonly name: string;
  readonly entity: string;
  /** Fields of the namespace's entity, most important first. */
  readonly fields: readonly FieldSpec[];
  /** Filter fields list/search tools take. */
  readonly filters: readonly FieldSpec[];
  readonly tools: readonly string[];
}

const ADDRESS = "{ line1: string; line2?: string; city: string; postalCode: string; country: string }";
const MONEY = '{ amount: number; currency: "USD" | "EUR" | "GBP" }';

const NAMESPACES: readonly NamespaceSpec[] = [
  {
    name: "orders",
    entity: "Order",
    fields: [
      { name: "id", type: "string", doc: "Order id, e.g. ord_123." },
      { name: "customerId", type: "string", doc: "Owning customer." },
      { name: "status", type: '"pending" | "paid" | "shipped" | "cancelled" | "refunded"', doc: "Lifecycle state." },
      { name: "total", type: MONEY, doc: "Grand total including tax." },
      { name: "lines", type: "{ sku: string; quantity: number; unitPrice: number }[]", doc: "Line items." },
      { name: "createdAt", type: "string", doc: "ISO 8601 timestamp." },
      { name: "shippingAddress", type: ADDRESS, doc: "Where the order ships." },
      { name: "tags", type: "string[]", doc: "Free-form labels." },
    ],
    filters: [
      { name: "customerId", type: "string", doc: "Only this customer's orders." },
      { name: "status", type: '"pending" | "paid" | "shipped" | "cancelled" | "refunded"', doc: "Only this state." },
      { name: "createdAfter", type: "string", doc: "ISO date lower bound." },
    ],
    tools: ["search", "get", "create", "cancel", "refund", "addNote", "listLines"],
  },
  {
    name: "customers",
    entity: "Customer",
    fields: [
      { name: "id", type: "string", doc: "Customer id." },
      { name: "email", type: "string", doc: "Primary email." },
      { name: "name", type: "string", doc: "Display name." },
      { name: "tier", type: '"free" | "pro" | "enterprise"', doc: "Plan tier." },
      { name: "address", type: ADDRESS, doc: "Billing address." },
      { name: "createdAt", type: "string", doc: "ISO 8601 timestamp." },
      { name: "marketingOptIn", type: "boolean", doc: "Consented to email marketing." },
    ],
    filters: [
      { name: "query", type: "string", doc: "Matches name or email." },
      { name: "tier", type: '"free" | "pro" | "enterprise"', doc: "Only this tier." },
    ],
    tools: ["search", "get", "update", "merge", "listContacts", "setTier"],
  },
  {
    name: "inventory",
    entity: "StockLevel",
    fields: [
      { name: "sku", type: "string", doc: "Stock keeping unit." },
      { name: "warehouseId", type: "string", doc: "Warehouse holding the stock." },
      { name: "onHand", type: "number", doc: "Units physically present." },
      { name: "reserved", type: "number", doc: "Units promised to open orders." },
      { name: "reorderPoint", type: "number", doc: "Reorder below this level." },
      { name: "location", type: "{ aisle: string; shelf: number; bin?: string }", doc: "Pick location." },
    ],
    filters: [
      { name: "warehouseId", type: "string", doc: "Only this warehouse." },
      { name: "belowReorderPoint", type: "boolean", doc: "Only items that need reordering." },
    ],
    tools: ["checkStock", "list", "reserve", "release", "adjust", "transfer"],
  },
  {
    name: "billing",
    entity: "Invoice",
    fields: [
      { name: "id", type: "string", doc: "Invoice id." },
      { name: "customerId", type: "string", doc: "Billed customer." },
      { name: "status", type: '"draft" | "open" | "paid" | "void" | "uncollectible"', doc: "Invoice state." },
      { name: "amountDue", type: MONEY, doc: "Outstanding amount." },
      { name: "dueDate", type: "string", doc: "ISO date." },
      { name: "lines", type: "{ description: string; amount: number }[]", doc: "Invoice lines." },
    ],
    filters: [
      { name: "customerId", type: "string", doc: "Only this customer's invoices." },
      { name: "status", type: '"draft" | "open" | "paid" | "void" | "uncollectible"', doc: "Only this state." },
      { name: "overdue", type: "boolean", doc: "Only invoices past their due date." },
    ],
    tools: ["listInvoices", "getInvoice", "createInvoice", "voidInvoice", "recordPayment", "issueCredit"],
  },
  {
    name: "shipping",
    entity: "Shipment",
    fields: [
      { name: "id", type: "string", doc: "Shipment id." },
      { name: "orderId", type: "string", doc: "Order being shipped." },
      { name: "carrier", type: '"ups" | "fedex" | "dhl" | "usps"', doc: "Carrier." },
      { name: "trackingNumber", type: "string | null", doc: "Carrier tracking number once labelled." },
      { name: "status", type: '"label_created" | "in_transit" | "delivered" | "exception"', doc: "Transit state." },
      { name: "destination", type: ADDRESS, doc: "Delivery address." },
      { name: "estimatedDelivery", type: "string | null", doc: "ISO date, when known." },
    ],
    filters: [
      { name: "orderId", type: "string", doc: "Only this order's shipments." },
      { name: "carrier", type: '"ups" | "fedex" | "dhl" | "usps"', doc: "Only this carrier." },
    ],
    tools: ["createShipment", "getShipment", "track", "listShipments", "cancelShipment", "quoteRates"],
  },
  {
    name: "support",
    entity: "Ticket",
    fields: [
      { name: "id", type: "string", doc: "Ticket id." },
      { name: "customerId", type: "string", doc: "Requester." },
      { name: "subject", type: "string", doc: "One-line summary." },
      { name: "priority", type: '"low" | "normal" | "high" | "urgent"', doc: "Priority." },
      { name: "status", type: '"new" | "open" | "pending" | "solved" | "closed"', doc: "Ticket state." },
      { name: "assignee", type: "{ id: string; name: string } | null", doc: "Agent working on it." },
      { name: "messages", type: "{ author: string; body: string; at: string }[]", doc: "Conversation." },
    ],
    filters: [
      { name: "customerId", type: "string", doc: "Only this customer's tickets." },
      { name: "priority", type: '"low" | "normal" | "high" | "urgent"', doc: "Only this priority." },
    ],
    tools: ["searchTickets", "getTicket", "createTicket", "reply", "assign", "close"],
  },
  {
    name: "analytics",
    entity: "MetricPoint",
    fields: [
      { name: "metric", type: '"revenue" | "orders" | "signups" | "churn"', doc: "Metric name." },
      { name: "at", type: "string", doc: "Bucket start, ISO 8601." },
      { name: "value", type: "number", doc: "Value in the bucket." },
      { name: "dimensions", type: "{ region?: string; channel?: string }", doc: "Breakdown keys." },
    ],
    filters: [
      { name: "metric", type: '"revenue" | "orders" | "signups" | "churn"', doc: "Which metric." },
      { name: "from", type: "string", doc: "ISO date, inclusive." },
      { name: "to", type: "string", doc: "ISO date, exclusive." },
      { name: "granularity", type: '"hour" | "day" | "week" | "month"', doc: "Bucket size." },
    ],
    tools: ["query", "topCustomers", "funnel", "cohort"],
  },
  {
    name: "catalog",
    entity: "Product",
    fields: [
      { name: "sku", type: "string", doc: "Stock keeping unit." },
      { name: "title", type: "string", doc: "Product title." },
      { name: "price", type: MONEY, doc: "List price." },
      { name: "category", type: '"apparel" | "electronics" | "home" | "toys"', doc: "Top-level category." },
      {
        name: "attributes",
        type: "{ color?: string; size?: string; weightGrams?: number }",
        doc: "Variant attributes.",
      },
      { name: "active", type: "boolean", doc: "Sellable." },
    ],
    filters: [
      { name: "query", type: "string", doc: "Full-text query." },
      { name: "category", type: '"apparel" | "electronics" | "home" | "toys"', doc: "Only this category." },
    ],
    tools: [
      "searchProducts",
      "getProduct",
      "updatePrice",
      "archive",
      "listVariants",
      "bulkGet",
      "related",
      "reviews",
      "setStock",
    ],
  },
];

const pascal = (text: string): string => text.charAt(0).toUpperCase() + text.slice(1);

/** Deterministic pick of `count` items from `pool`, starting at `offset`. */
function pick<T>(pool: readonly T[], offset: number, count: number): T[] {
  return Array.from({ length: Math.min(count, pool.length) }, (_, index) => pool[(offset + index) % pool.length] as T);
}

function renderInterface(name: string, fields: readonly FieldSpec[], optionalFrom: number): string {
  const body = fields
    .map((field, index) => `  /** ${field.doc} */\n  ${field.name}${index >= optionalFrom ? "?" : ""}: ${field.type};`)
    .join("\n");
  return `interface ${name} {\n${body}\n}`;
}

/**
 * Generates the declarations text for 50 tools in 8 namespaces, in the shape the catalog's
 * generator produces: input/output interfaces with docs, then `console` and `declare const tools`.
 */
export function generateBenchDeclarations(): { text: string; tools: number; namespaces: number } {
  const interfaces: string[] = [];
  const members: string[] = [];
  let toolCount = 0;
  for (const namespace of NAMESPACES) {
    interfaces.push(renderInterface(namespace.entity, namespace.fields, namespace.fields.length - 2));
    const toolMembers: string[] = [];
    namespace.tools.forEach((tool, toolIndex) => {
      toolCount += 1;
      const typeName = `${pascal(namespace.name)}${pascal(tool)}`;
      const isListing = /^(search|list|query|top|funnel|cohort|reviews|related)/i.test(tool);
      // 3 to 8 input fields: filters and paging for listings, entity fields for the rest.
      const inputFields = isListing
        ? [
            ...namespace.filters,
            { name: "cursor", type: "string", doc: "Opaque cursor from a previous page." },
            { name: "pageSize", type: "number", doc: "1-100, default 25." },
            { name: "sort", type: '"asc" | "desc"', doc: "Sort direction." },
          ].slice(0, 3 + (toolIndex % 6))
        : // The entity's key first (required), then a rotating choice of optional fields.
          [namespace.fields[0] as FieldSpec, ...pick(namespace.fields.slice(1), toolIndex, 2 + (toolIndex % 6))];
      interfaces.push(renderInterface(`${typeName}Input`, inputFields, isListing ? 0 : 1));
      const output = isListing
        ? `interface ${typeName}Output {\n  items: ${namespace.entity}[];\n  /** Null on the last page. */\n  nextCursor: string | null;\n  totalCount: number;\n}`
        : `interface ${typeName}Output extends ${namespace.entity} {\n  /** Server time of the operation. */\n  updatedAt: string;\n}`;
      interfaces.push(output);
      toolMembers.push(
        `    /** ${pascal(tool)} in ${namespace.name}. Read-only: ${isListing}. */\n    ${tool}(input: ${typeName}Input): Promise<${typeName}Output>;`,
      );
    });
    members.push(`  ${namespace.name}: {\n${toolMembers.join("\n")}\n  };`);
  }
  const text = [
    ...interfaces,
    "declare const console: { log(...args: unknown[]): void; info(...args: unknown[]): void; warn(...args: unknown[]): void; error(...args: unknown[]): void };",
    `declare const tools: {\n${members.join("\n")}\n};`,
  ].join("\n\n");
  return { text, tools: toolCount, namespaces: NAMESPACES.length };
}

/** A realistic 40-line program over several of the generated tools; it type-checks cleanly. */
export const BENCH_PROGRAM = `const since = new Date(Date.now() - 7 * 24 * 3600 * 1000).toISOString();
const paid = [];
let cursor: string | undefined;
do {
  const page = await tools.orders.search({ status: "paid", createdAfter: since, ...(cursor ? { cursor } : {}) });
  paid.push(...page.items);
  cursor = page.nextCursor ?? undefined;
} while (cursor);

const byCustomer = new Map<string, number>();
for (const order of paid) {
  byCustomer.set(order.customerId, (byCustomer.get(order.customerId) ?? 0) + order.total.amount);
}
const top = [...byCustomer.entries()].sort((a, b) => b[1] - a[1]).slice(0, 5);

const customers = await Promise.all(
  top.map(([id]) => tools.customers.get({ id })),
);

const skus = [...new Set(paid.flatMap((order) => order.lines.map((line) => line.sku)))].slice(0, 20);
const stock = await Promise.allSettled(
  skus.map((sku) => tools.inventory.checkStock({ sku })),
);
const lowStock = stock.filter((result) => result.status === "fulfilled").length;

const overdue = await tools.billing.listInvoices({ status: "open", overdue: true, customerId: top[0]?.[0] ?? "" });
const exceptions = await tools.shipping.listShipments({ carrier: "ups", orderId: paid[0]?.id ?? "" });
const urgent = await tools.support.searchTickets({ priority: "urgent", customerId: customers[0]?.id ?? "" });

const summary = {
  window: since,
  paidOrders: paid.length,
  revenue: paid.reduce((sum, order) => sum + order.total.amount, 0),
  topCustomers: customers.map((customer) => ({ name: customer.name, tier: customer.tier })),
  lowStock,
  overdueInvoices: overdue.totalCount,
  shipmentExceptions: exceptions.items.filter((shipment) => shipment.status === "exception").length,
  urgentTickets: urgent.items.map((ticket) => ticket.subject),
};
console.log(JSON.stringify(summary));
return summary;`;

// ---- measurement ----

function timing(coldMs: number, warm: readonly number[]): TypeCheckTiming {
  return { coldMs, warmMedianMs: median(warm), warmMinMs: Math.min(...warm), warmMaxMs: Math.max(...warm) };
}

async function timeAsync(run: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await run();
  return performance.now() - started;
}

/** Runs inside the fresh child: one path, cold then warm. */
async function measureInChild(path: "in-process" | "worker"): Promise<TypeCheckTiming> {
  const { text } = generateBenchDeclarations();
  // A trailing comment makes every warm check a new program text, as real runs are.
  const programFor = (run: number): string => `${BENCH_PROGRAM}\n// run ${run}`;
  const expectClean = (diagnostics: readonly unknown[]): void => {
    if (diagnostics.length > 0) throw new Error(`bench program does not type-check: ${JSON.stringify(diagnostics)}`);
  };
  if (path === "in-process") {
    let checker: ProgramTypeChecker | undefined;
    const coldMs = await timeAsync(async () => {
      const { ProgramTypeChecker } = await import("../src/program/type-check-program.js");
      checker = new ProgramTypeChecker();
      expectClean(checker.check(programFor(0), text));
    });
    const warm: number[] = [];
    for (let run = 1; run <= WARM_RUNS; run++)
      warm.push(await timeAsync(async () => expectClean(checker?.check(programFor(run), text) ?? [])));
    return timing(coldMs, warm);
  }
  const { TypeChecker } = await import("../src/program/type-checker.js");
  const checker = new TypeChecker();
  try {
    const coldMs = await timeAsync(async () => expectClean(await checker.check(programFor(0), text)));
    const warm: number[] = [];
    for (let run = 1; run <= WARM_RUNS; run++)
      warm.push(await timeAsync(async () => expectClean(await checker.check(programFor(run), text))));
    return timing(coldMs, warm);
  } finally {
    await checker.close();
  }
}

async function measureLint(): Promise<TypeCheckTiming> {
  const coldStarted = performance.now();
  const { lintProgram } = await import("../src/program/lint-program.js");
  lintProgram(BENCH_PROGRAM);
  const coldMs = performance.now() - coldStarted;
  const warm: number[] = [];
  for (let run = 1; run <= WARM_RUNS; run++) {
    const started = performance.now();
    lintProgram(`${BENCH_PROGRAM}\n// run ${run}`);
    warm.push(performance.now() - started);
  }
  return timing(coldMs, warm);
}

const execFileAsync = promisify(execFile);

async function runChild(path: "in-process" | "worker"): Promise<TypeCheckTiming> {
  const tsxLoader = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;
  const { stdout } = await execFileAsync(
    process.execPath,
    ["--no-node-snapshot", "--import", tsxLoader, fileURLToPath(import.meta.url), "--child", path],
    { maxBuffer: 1024 * 1024 },
  );
  return JSON.parse(stdout.trim().split("\n").at(-1) ?? "{}") as TypeCheckTiming;
}

/**
 * Measures the cold and warm cost of type-checking `BENCH_PROGRAM` against 50 generated
 * tools, in process and through the worker, each in a fresh child process (run one after
 * the other, so they do not compete for CPU). Takes a few seconds.
 */
export async function measureTypeCheck(): Promise<TypeCheckMeasurement> {
  const declarations = generateBenchDeclarations();
  const inProcess = await runChild("in-process");
  const worker = await runChild("worker");
  return {
    tools: declarations.tools,
    namespaces: declarations.namespaces,
    declarationBytes: Buffer.byteLength(declarations.text),
    programLines: BENCH_PROGRAM.split("\n").length,
    inProcess,
    worker,
    lint: await measureLint(),
  };
}

/** Formats a measurement as the small table the script prints. */
export function formatTypeCheckTable(measurement: TypeCheckMeasurement): string {
  const rows: [string, TypeCheckTiming][] = [
    ["type check, in process", measurement.inProcess],
    ["type check, child process", measurement.worker],
    ["lint, in process", measurement.lint],
  ];
  const format = (ms: number): string => ms.toFixed(1).padStart(9);
  return [
    `${measurement.tools} tools in ${measurement.namespaces} namespaces (${(measurement.declarationBytes / 1024).toFixed(1)} KB of declarations), ${measurement.programLines}-line program, warm = ${WARM_RUNS} runs`,
    `${"path".padEnd(28)}${"cold ms".padStart(9)}${"warm p50".padStart(9)}${"min".padStart(9)}${"max".padStart(9)}`,
    ...rows.map(
      ([name, row]) =>
        `${name.padEnd(28)}${format(row.coldMs)}${format(row.warmMedianMs)}${format(row.warmMinMs)}${format(row.warmMaxMs)}`,
    ),
  ].join("\n");
}

const invokedDirectly = process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href;
if (invokedDirectly) {
  const childIndex = process.argv.indexOf("--child");
  if (childIndex >= 0) {
    const path = process.argv[childIndex + 1] === "worker" ? "worker" : "in-process";
    console.log(JSON.stringify(await measureInChild(path)));
  } else {
    const startLoad = currentLoad();
    const checks = await measureTypeCheck();
    console.log(formatTypeCheckTable(checks));
    const sweep = await measureSweep();
    console.log(`\n${formatSweepTable(sweep)}`);
    const ms = (value: number): string => `${value.toFixed(1)} ms`;
    const ratio = (value: number): string => `${(value / sweep.bareMs).toFixed(2)}x`;
    const written = writeBenchResult(
      "type-check",
      benchConditions(startLoad),
      {
        "sweep-bare-ms": ms(sweep.bareMs),
        "sweep-off-ms": ms(sweep.offMs),
        "sweep-off-ratio": ratio(sweep.offMs),
        "sweep-cached-ms": ms(sweep.cachedMs),
        "sweep-cached-ratio": ratio(sweep.cachedMs),
        "sweep-new-program-ms": ms(sweep.newProgramMs),
        "sweep-new-program-ratio": ratio(sweep.newProgramMs),
        "sweep-new-program-after-turn-ms": ms(sweep.newProgramAfterTurnMs),
        "sweep-new-program-after-turn-ratio": ratio(sweep.newProgramAfterTurnMs),
        "sweep-first-run-after-turn-ms": ms(sweep.firstRunAfterTurnMs),
        "sweep-first-run-after-turn-ratio": ratio(sweep.firstRunAfterTurnMs),
        "sweep-first-run-at-start-ms": ms(sweep.firstRunAtStartMs),
        "sweep-first-run-at-start-ratio": ratio(sweep.firstRunAtStartMs),
        "sweep-first-run-whole-process-ms": ms(sweep.firstRunWholeProcessMs),
        "spawn-ms": ms(sweep.spawnMs),
        "check-cold-ms": ms(checks.worker.coldMs),
        "check-warm-ms": ms(checks.worker.warmMedianMs),
      },
      [
        "Medians; the sweep's rows interleave in rounds in one process, fresh-process rows spawn one process per sample.",
        "Compiled with tsc (npm run bench:type-check), as the packed package runs.",
      ],
    );
    console.log(`\nwrote ${written}`);
  }
}
