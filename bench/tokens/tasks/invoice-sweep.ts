// Paginated API sweep: 1,000 invoices behind a cursor, at most 100 per page, so 10 pages that
// can only be read one after another. Filter (open, more than 30 days overdue) and aggregate
// per region. Direct mode cannot group anything: each page needs the previous cursor.

import { ToolError } from "../../../src/errors.js";
import { defineTool } from "../../../src/registry/define-tool.js";
import {
  createRandom,
  defineTask,
  formatCents,
  mentionsAmount,
  mentionsNumber,
  pick,
  randomId,
  randomInt,
  type DirectSession,
} from "../task.js";

const INVOICE_COUNT = 1000;
const MAX_LIMIT = 100;
const AS_OF = "2026-10-31";
const OVERDUE_DAYS = 30;
const REGIONS = ["AMER", "APAC", "EMEA"] as const;
const COMPANIES = [
  "Acme",
  "Globex",
  "Initech",
  "Umbrella",
  "Stark",
  "Wayne",
  "Tyrell",
  "Cyberdyne",
  "Soylent",
  "Hooli",
  "Vandelay",
  "Wonka",
  "Gringotts",
  "Oscorp",
  "Pied Piper",
];
const SUFFIXES = ["GmbH", "Ltd", "Inc", "SA", "BV", "KK", "Pty"];

interface Invoice {
  readonly invoiceId: string;
  readonly customerName: string;
  readonly region: (typeof REGIONS)[number];
  readonly issuedOn: string;
  readonly dueOn: string;
  readonly amountCents: number;
  readonly currency: "USD";
  readonly status: "paid" | "open" | "void";
}

export interface InvoiceSweepAnswer {
  readonly invoicesRead: number;
  readonly byRegion: readonly { readonly region: string; readonly count: number; readonly totalCents: number }[];
}

const DAY_MS = 86_400_000;

function generate(seed: number): Invoice[] {
  const random = createRandom(seed);
  const start = Date.parse("2026-05-01T00:00:00Z");
  const invoices: Invoice[] = [];
  for (let index = 0; index < INVOICE_COUNT; index++) {
    const issued = start + randomInt(random, 0, 170) * DAY_MS;
    const roll = random();
    invoices.push({
      invoiceId: `inv_${randomId(random, 10)}`,
      customerName: `${pick(random, COMPANIES)} ${pick(random, SUFFIXES)}`,
      region: pick(random, REGIONS),
      issuedOn: new Date(issued).toISOString().slice(0, 10),
      dueOn: new Date(issued + pick(random, [15, 30, 45, 60]) * DAY_MS).toISOString().slice(0, 10),
      amountCents: randomInt(random, 20_000, 4_800_000),
      currency: "USD",
      status: roll < 0.62 ? "paid" : roll < 0.95 ? "open" : "void",
    });
  }
  return invoices.sort((a, b) =>
    a.issuedOn < b.issuedOn ? -1 : a.issuedOn > b.issuedOn ? 1 : a.invoiceId < b.invoiceId ? -1 : 1,
  );
}

/** Open and due more than `OVERDUE_DAYS` before `AS_OF`. */
function isOverdue(invoice: Invoice): boolean {
  return (
    invoice.status === "open" &&
    Date.parse(`${AS_OF}T00:00:00Z`) - Date.parse(`${invoice.dueOn}T00:00:00Z`) > OVERDUE_DAYS * DAY_MS
  );
}

function aggregate(invoices: readonly Invoice[]): InvoiceSweepAnswer["byRegion"] {
  return REGIONS.map((region) => {
    const matching = invoices.filter((invoice) => invoice.region === region && isOverdue(invoice));
    return {
      region,
      count: matching.length,
      totalCents: matching.reduce((sum, invoice) => sum + invoice.amountCents, 0),
    };
  });
}

export const invoiceSweep = defineTask<InvoiceSweepAnswer>({
  id: "invoice-sweep",
  title: "Paginated invoice sweep",
  question:
    `As of ${AS_OF}, how much is owed on open invoices that are more than ${OVERDUE_DAYS} days past their due date? ` +
    "Give the count and total per region (AMER, APAC, EMEA), and make sure every invoice was read.",
  control: false,
  note: "1,000 invoices over 10 cursor pages (sequential), filter + sum",
  createWorld() {
    const invoices = generate(20261031);
    const tools = [
      defineTool({
        name: "receivables.listInvoices",
        description:
          "List invoices, oldest issue date first, one page at a time. Each invoice has its id, customer, region, issue and due dates, " +
          "amount in US cents and status (paid, open, void). Pass the returned nextCursor to get the next page; nextCursor is null on the last page.",
        inputSchema: {
          type: "object",
          properties: {
            limit: {
              type: "integer",
              minimum: 1,
              maximum: MAX_LIMIT,
              default: 50,
              description: `Invoices per page, 1-${MAX_LIMIT}. Default 50.`,
            },
            cursor: { type: "string", description: "nextCursor of the previous page; omit for the first page." },
          },
          additionalProperties: false,
        },
        outputSchema: {
          type: "object",
          properties: {
            invoices: {
              type: "array",
              items: {
                type: "object",
                properties: {
                  invoiceId: { type: "string" },
                  customerName: { type: "string" },
                  region: { type: "string", enum: [...REGIONS] },
                  issuedOn: { type: "string", description: "YYYY-MM-DD" },
                  dueOn: { type: "string", description: "YYYY-MM-DD" },
                  amountCents: { type: "integer", description: "Amount in US cents." },
                  currency: { type: "string", enum: ["USD"] },
                  status: { type: "string", enum: ["paid", "open", "void"] },
                },
                required: [
                  "invoiceId",
                  "customerName",
                  "region",
                  "issuedOn",
                  "dueOn",
                  "amountCents",
                  "currency",
                  "status",
                ],
              },
            },
            nextCursor: { type: ["string", "null"] },
            totalCount: { type: "integer", description: "Invoices in the whole listing." },
          },
          required: ["invoices", "nextCursor", "totalCount"],
        },
        effect: "read",
        execute: ({ limit = 50, cursor }: { limit?: number; cursor?: string }) => {
          let offset = 0;
          if (cursor !== undefined) {
            const match = /^c_(\d+)_([0-9a-f]{6})$/.exec(cursor);
            if (match === null || checksum(Number(match[1])) !== match[2])
              throw new ToolError("cursor is not one this API issued.", { code: "CURSOR_INVALID" });
            offset = Number(match[1]);
          }
          const end = offset + limit;
          return {
            invoices: invoices.slice(offset, end),
            nextCursor: end < invoices.length ? `c_${end}_${checksum(end)}` : null,
            totalCount: invoices.length,
          };
        },
      }),
    ];
    const byRegion = aggregate(invoices);
    const leanList = defineTool({
      name: "receivables.listInvoices",
      description:
        `${tools[0]!.description} Optional server-side filters, applied before paging: status, dueBefore (due strictly ` +
        "before this date); fields picks which invoice fields to return. totalCount counts the filtered listing, " +
        "unfilteredCount every invoice.",
      inputSchema: {
        type: "object",
        properties: {
          limit: { type: "integer", minimum: 1, maximum: MAX_LIMIT, default: 50 },
          cursor: { type: "string", description: "nextCursor of the previous page of the same query." },
          status: { type: "string", enum: ["paid", "open", "void"] },
          dueBefore: { type: "string", description: "YYYY-MM-DD; only invoices due strictly before it." },
          fields: {
            type: "array",
            items: {
              type: "string",
              enum: ["invoiceId", "customerName", "region", "issuedOn", "dueOn", "amountCents", "currency", "status"],
            },
            minItems: 1,
            uniqueItems: true,
          },
        },
        additionalProperties: false,
      },
      effect: "read",
      execute: ({
        limit = 50,
        cursor,
        status,
        dueBefore,
        fields,
      }: {
        limit?: number;
        cursor?: string;
        status?: string;
        dueBefore?: string;
        fields?: (keyof Invoice)[];
      }) => {
        const matching = invoices.filter(
          (invoice) =>
            (status === undefined || invoice.status === status) &&
            (dueBefore === undefined || invoice.dueOn < dueBefore),
        );
        let offset = 0;
        if (cursor !== undefined) {
          const match = /^f_(\d+)$/.exec(cursor);
          if (match === null) throw new ToolError("cursor is not one this API issued.", { code: "CURSOR_INVALID" });
          offset = Number(match[1]);
        }
        const end = offset + limit;
        return {
          invoices: matching
            .slice(offset, end)
            .map((invoice) =>
              fields === undefined ? invoice : Object.fromEntries(fields.map((field) => [field, invoice[field]])),
            ),
          nextCursor: end < matching.length ? `f_${end}` : null,
          totalCount: matching.length,
          unfilteredCount: invoices.length,
        };
      },
    });
    const overdueBefore = new Date(Date.parse(`${AS_OF}T00:00:00Z`) - OVERDUE_DAYS * DAY_MS).toISOString().slice(0, 10);
    return {
      tools,
      truth: { invoicesRead: INVOICE_COUNT, byRegion },
      lean: {
        note: "status and due-date filters before paging; region and amount only",
        tools: [leanList],
        async solveDirect(session: DirectSession) {
          const seen: Pick<Invoice, "region" | "amountCents">[] = [];
          let cursor: string | undefined;
          let unfiltered = 0;
          for (;;) {
            const [page] = await session.call([
              {
                tool: "receivables.listInvoices",
                input: {
                  limit: MAX_LIMIT,
                  status: "open",
                  dueBefore: overdueBefore,
                  fields: ["region", "amountCents"],
                  ...(cursor === undefined ? {} : { cursor }),
                },
              },
            ]);
            seen.push(...(page!.value.invoices as Pick<Invoice, "region" | "amountCents">[]));
            unfiltered = page!.value.unfilteredCount as number;
            if (page!.value.nextCursor === null) break;
            cursor = page!.value.nextCursor as string;
          }
          return {
            invoicesRead: unfiltered,
            byRegion: REGIONS.map((region) => {
              const matching = seen.filter((invoice) => invoice.region === region);
              return {
                region,
                count: matching.length,
                totalCents: matching.reduce((sum, invoice) => sum + invoice.amountCents, 0),
              };
            }),
          };
        },
      },
      checkAnswer(text) {
        const problems: string[] = [];
        if (!mentionsNumber(text, INVOICE_COUNT))
          problems.push(`does not say that all ${INVOICE_COUNT} invoices were read`);
        for (const row of byRegion) {
          if (!text.includes(row.region)) problems.push(`does not name ${row.region}`);
          if (!mentionsNumber(text, row.count)) problems.push(`misses ${row.region}'s count of ${row.count}`);
          if (!mentionsAmount(text, row.totalCents))
            problems.push(`misses ${row.region}'s total of ${formatCents(row.totalCents)}`);
        }
        return problems;
      },
      async solveDirect(session: DirectSession) {
        const seen: Invoice[] = [];
        let cursor: string | undefined;
        for (;;) {
          const [page] = await session.call([
            {
              tool: "receivables.listInvoices",
              input: { limit: MAX_LIMIT, ...(cursor === undefined ? {} : { cursor }) },
            },
          ]);
          seen.push(...(page!.value.invoices as Invoice[]));
          if (page!.value.nextCursor === null) break;
          cursor = page!.value.nextCursor as string;
        }
        return { invoicesRead: seen.length, byRegion: aggregate(seen) };
      },
      program: `const asOf = Date.parse("${AS_OF}T00:00:00Z");
const dayMs = 86_400_000;
const totals: Record<string, { region: string; count: number; totalCents: number }> = {};
for (const region of ["AMER", "APAC", "EMEA"]) totals[region] = { region, count: 0, totalCents: 0 };
let read = 0;
let pages = 0;
let totalCount = 0;
let cursor: string | undefined;
const seen = new Set<string>();
while (true) {
  const page = await tools.receivables.listInvoices({ limit: ${MAX_LIMIT}, ...(cursor ? { cursor } : {}) });
  pages++;
  totalCount = page.totalCount;
  for (const invoice of page.invoices) {
    read++;
    if (invoice.status !== "open") continue;
    if (asOf - Date.parse(invoice.dueOn + "T00:00:00Z") <= ${OVERDUE_DAYS} * dayMs) continue;
    const bucket = totals[invoice.region]!;
    bucket.count++;
    bucket.totalCents += invoice.amountCents;
  }
  if (page.nextCursor === null) break;
  if (seen.has(page.nextCursor)) throw new Error("cursor repeated after page " + pages);
  seen.add(page.nextCursor);
  cursor = page.nextCursor;
}
return { invoicesRead: read, totalCount, pages, complete: read === totalCount, byRegion: Object.values(totals) };`,
      programMistake: { find: "invoice.amountCents", replace: "invoice.amount_cents" },
      answerFromOutput(output) {
        const report = output as InvoiceSweepAnswer & { complete: boolean };
        if (!report.complete) throw new Error("the program reports an incomplete sweep");
        return {
          invoicesRead: report.invoicesRead,
          byRegion: report.byRegion.map(({ region, count, totalCents }) => ({ region, count, totalCents })),
        };
      },
      searchQueries: ["list invoices page by page"],
      requiredTools: ["receivables.listInvoices"],
      render(answer) {
        const lines = [
          `Read all ${answer.invoicesRead} invoices. Open and more than ${OVERDUE_DAYS} days overdue as of ${AS_OF}:`,
        ];
        for (const row of answer.byRegion)
          lines.push(`- ${row.region}: ${row.count} invoices, USD ${formatCents(row.totalCents)}`);
        lines.push(`Total: USD ${formatCents(answer.byRegion.reduce((sum, row) => sum + row.totalCents, 0))}.`);
        return lines.join("\n");
      },
    };
  },
});

function checksum(offset: number): string {
  let hash = 2166136261;
  for (const char of `receivables:${offset}`) hash = Math.imul(hash ^ char.charCodeAt(0), 16777619);
  return (hash >>> 0).toString(16).padStart(8, "0").slice(0, 6);
}
