// The workload of the type-check cost rows: a 37-line paginated sweep a model would write (20 pages
// of 8 tickets, each ticket's customer looked up: 180 instant tool calls), its two typed tools, and
// the same sweep in plain JavaScript for a bare isolated-vm isolate, the floor the rows compare with.

import { transform } from "esbuild";
import type { ToolDefinition } from "../src/registry/define-tool.js";
import { defineTool } from "../src/registry/define-tool.js";

const PAGES = 20;
const PAGE_SIZE = 8;
/** Tool calls the sweep makes: one per page, one per ticket. */
export const SWEEP_CALLS = PAGES + PAGES * PAGE_SIZE;

/** The sweep, as a model writes it. */
export const SWEEP_PROGRAM = `// Every page is followed to the end; a failed lookup is kept, never dropped.
interface Failure { id: string; error: string }
const shown = 10;
const tiers = new Map<string, number>();
const failed: Failure[] = [];
const urgent: string[] = [];
let cursor: string | null = null;
let pages = 0;
let seen = 0;
do {
  const page = await tools.tickets.list({ pageSize: ${PAGE_SIZE}, ...(cursor === null ? {} : { cursor }) });
  pages += 1;
  const settled = await Promise.allSettled(
    page.items.map((ticket) => tools.customers.get({ id: ticket.customerId })),
  );
  settled.forEach((result, index) => {
    const ticket = page.items[index];
    if (ticket === undefined) return;
    seen += 1;
    if (result.status === "rejected") {
      failed.push({ id: ticket.id, error: String(result.reason) });
      return;
    }
    const customer = result.value;
    tiers.set(customer.tier, (tiers.get(customer.tier) ?? 0) + 1);
    if (ticket.priority === "urgent" && customer.tier !== "free") urgent.push(\`\${ticket.id}:\${customer.name}\`);
  });
  cursor = page.nextCursor;
} while (cursor !== null);
const byTier = [...tiers.entries()].sort((a, b) => b[1] - a[1]);
return {
  scope: { pages, tickets: seen },
  complete: failed.length === 0,
  byTier: Object.fromEntries(byTier),
  urgent: urgent.slice(0, shown),
  failed,
};`;

const TIERS = ["free", "pro", "enterprise"] as const;
const PRIORITIES = ["low", "normal", "high", "urgent"] as const;

function listTickets(input: { cursor?: string; pageSize?: number }) {
  const page = input.cursor === undefined ? 0 : Number(input.cursor);
  const size = input.pageSize ?? PAGE_SIZE;
  const items = Array.from({ length: size }, (_, index) => ({
    id: `t${page}-${index}`,
    customerId: `c${page * size + index}`,
    priority: PRIORITIES[(page + index) % PRIORITIES.length] as string,
  }));
  return { items, nextCursor: page + 1 < PAGES ? String(page + 1) : null };
}

function getCustomer(input: { id: string }) {
  const number = Number(input.id.slice(1));
  return { id: input.id, name: `Customer ${number}`, tier: TIERS[number % TIERS.length] as string };
}

/** The sweep's two tools, with input and output schemas, instant and read-only. */
export function sweepTools(): ToolDefinition[] {
  return [
    defineTool({
      name: "tickets.list",
      description: "Lists support tickets, a page at a time.",
      effect: "read",
      inputSchema: {
        type: "object",
        properties: { cursor: { type: "string" }, pageSize: { type: "integer", minimum: 1, maximum: 50 } },
        additionalProperties: false,
      },
      outputSchema: {
        type: "object",
        properties: {
          items: {
            type: "array",
            items: {
              type: "object",
              properties: {
                id: { type: "string" },
                customerId: { type: "string" },
                priority: { type: "string", enum: [...PRIORITIES] },
              },
              required: ["id", "customerId", "priority"],
            },
          },
          nextCursor: { type: ["string", "null"] },
        },
        required: ["items", "nextCursor"],
      },
      execute: (input: unknown) => listTickets(input as { cursor?: string; pageSize?: number }),
    }),
    defineTool({
      name: "customers.get",
      description: "Gets one customer by id.",
      effect: "read",
      inputSchema: {
        type: "object",
        properties: { id: { type: "string" } },
        required: ["id"],
        additionalProperties: false,
      },
      outputSchema: {
        type: "object",
        properties: { id: { type: "string" }, name: { type: "string" }, tier: { type: "string", enum: [...TIERS] } },
        required: ["id", "name", "tier"],
      },
      execute: (input: unknown) => getCustomer(input as { id: string }),
    }),
  ];
}

/** Answers a bare isolate's call as the tools do: JSON in, JSON out. */
export function answerBareCall(path: string, inputJson: string): string {
  const input = JSON.parse(inputJson) as never;
  return JSON.stringify(path === "tickets.list" ? listTickets(input) : getCustomer(input));
}

/**
 * The sweep as a bare isolate runs it: the program's JavaScript (types stripped once, untimed)
 * in an async function over a `tools` object whose two functions cross with `hostCall`, and
 * the result returned as JSON.
 */
export async function bareSweepScript(): Promise<string> {
  const { code } = await transform(`async function sweep() {\n${SWEEP_PROGRAM}\n}`, { loader: "ts" });
  const call = `(path, input) => hostCall.apply(undefined, [path, JSON.stringify(input)], { result: { promise: true, copy: true } }).then((text) => JSON.parse(text))`;
  return `(async () => { const call = ${call}; const tools = { tickets: { list: (input) => call("tickets.list", input) }, customers: { get: (input) => call("customers.get", input) } };\n${code}\nreturn JSON.stringify(await sweep()); })()`;
}
