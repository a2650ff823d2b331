// A helpdesk API with cursor pages, for the model-program corpus: tickets paged by status,
// comments paged per ticket, customers looked up one by one (no outputSchema: observed),
// tags written back. Data is generated from a fixed seed, so each task's answer is computed
// from the same data the tools serve.

import { createRandom } from "../../../examples/orders/orders-service.js";
import { ToolError } from "../../../src/errors.js";
import { defineTool, type ToolDefinition } from "../../../src/registry/define-tool.js";

export type Status = "open" | "pending" | "closed";
export type Priority = "low" | "normal" | "high" | "urgent";
export type Plan = "free" | "pro" | "enterprise";

export interface Ticket {
  id: string;
  customerId: string;
  subject: string;
  status: Status;
  priority: Priority;
  createdAt: string;
  tags: string[];
}

export interface Customer {
  id: string;
  name: string;
  plan: Plan;
  country: string;
  email: string;
}

export interface Comment {
  id: string;
  ticketId: string;
  author: "customer" | "agent";
  body: string;
  createdAt: string;
}

export interface HelpdeskData {
  readonly tickets: Ticket[];
  readonly customers: Customer[];
  readonly comments: Comment[];
}

const COUNTRIES = ["DE", "FR", "US", "GB", "JP"];
const PLANS: Plan[] = ["free", "free", "pro", "pro", "enterprise"];
const PRIORITIES: Priority[] = ["low", "normal", "normal", "high", "urgent"];
const STATUSES: Status[] = ["open", "open", "pending", "closed", "closed"];
const SUBJECTS = ["Login fails", "Invoice wrong", "Export is slow", "API returns 500", "Feature request", "Refund"];

export function createHelpdeskData(): HelpdeskData {
  const random = createRandom(20);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const customers: Customer[] = Array.from({ length: 25 }, (_, index) => {
    const id = `cus_${String(index + 1).padStart(3, "0")}`;
    return {
      id,
      name: `${pick(["Ada", "Bo", "Cy", "Di", "Ed", "Fay"])} ${pick(["Lind", "Moss", "Nash", "Ortiz", "Park"])} ${index + 1}`,
      plan: pick(PLANS),
      country: pick(COUNTRIES),
      email: `${id}@example.com`,
    };
  });
  const start = Date.UTC(2026, 8, 1);
  const tickets: Ticket[] = Array.from({ length: 137 }, (_, index) => ({
    id: `t_${String(index + 1).padStart(4, "0")}`,
    customerId: pick(customers).id,
    subject: pick(SUBJECTS),
    status: pick(STATUSES),
    priority: pick(PRIORITIES),
    createdAt: new Date(start + index * 3_600_000 * 5).toISOString(),
    tags: random() < 0.3 ? ["billing"] : [],
  }));
  const comments: Comment[] = [];
  for (const ticket of tickets) {
    const count = Math.floor(random() * 7);
    for (let index = 0; index < count; index++) {
      comments.push({
        id: `${ticket.id}_c${index + 1}`,
        ticketId: ticket.id,
        // The first comment is the customer's; a third of tickets never hear from an agent.
        author: index === 0 || random() < 0.4 ? "customer" : "agent",
        body: `comment ${index + 1} on ${ticket.subject}`,
        createdAt: new Date(Date.parse(ticket.createdAt) + (index + 1) * 1_800_000).toISOString(),
      });
    }
  }
  return { tickets, customers, comments };
}

const TICKET_SCHEMA = {
  type: "object",
  properties: {
    id: { type: "string" },
    customerId: { type: "string" },
    subject: { type: "string" },
    status: { enum: ["open", "pending", "closed"] },
    priority: { enum: ["low", "normal", "high", "urgent"] },
    createdAt: { type: "string", description: "ISO 8601 date-time (UTC)." },
    tags: { type: "array", items: { type: "string" } },
  },
  required: ["id", "customerId", "subject", "status", "priority", "createdAt", "tags"],
  additionalProperties: false,
} as const;

/** The cursor of a page: where the next page starts, bound to the query it came from. */
function encodeCursor(query: string, offset: number): string {
  return Buffer.from(JSON.stringify({ query, offset })).toString("base64url");
}

function decodeCursor(cursor: string, query: string): number {
  try {
    const parsed = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as { query: string; offset: number };
    if (parsed.query === query && Number.isInteger(parsed.offset)) return parsed.offset;
  } catch {
    // fall through
  }
  throw new ToolError("The cursor does not belong to this query; start again without one.", {
    code: "CURSOR_INVALID",
  });
}

/** Counters the corpus test reads: calls by tool. */
export interface HelpdeskStats {
  readonly calls: Map<string, number>;
}

export function createHelpdeskTools(data: HelpdeskData): { tools: ToolDefinition[]; stats: HelpdeskStats } {
  const stats: HelpdeskStats = { calls: new Map() };
  const count = (name: string): void => {
    stats.calls.set(name, (stats.calls.get(name) ?? 0) + 1);
  };
  const listTickets = defineTool({
    name: "helpdesk.list_tickets",
    description:
      "Lists tickets, oldest first, one page at a time. Pass the previous page's nextCursor to get the next page; nextCursor is null on the last page.",
    effect: "read",
    inputSchema: {
      type: "object",
      properties: {
        status: { enum: ["open", "pending", "closed"], description: "Only tickets in this status. Omit for all." },
        cursor: { type: "string", description: "nextCursor of the previous page, with the same status." },
        limit: { type: "integer", minimum: 1, maximum: 50, description: "Page size. Default 20." },
      },
      additionalProperties: false,
    },
    outputSchema: {
      type: "object",
      properties: {
        tickets: { type: "array", items: TICKET_SCHEMA },
        nextCursor: { type: ["string", "null"] },
      },
      required: ["tickets", "nextCursor"],
      additionalProperties: false,
    },
    execute: (input: { status?: Status; cursor?: string; limit?: number }) => {
      count("list_tickets");
      const query = input.status ?? "*";
      const offset = input.cursor === undefined ? 0 : decodeCursor(input.cursor, query);
      const limit = input.limit ?? 20;
      const matching = data.tickets.filter((ticket) => input.status === undefined || ticket.status === input.status);
      const page = matching.slice(offset, offset + limit).map((ticket) => ({ ...ticket, tags: [...ticket.tags] }));
      const next = offset + limit < matching.length ? encodeCursor(query, offset + limit) : null;
      return { tickets: page, nextCursor: next };
    },
  });
  const getCustomer = defineTool({
    name: "helpdesk.get_customer",
    description: "Looks one customer up by id (cus_...). Unknown ids fail with CUSTOMER_NOT_FOUND.",
    effect: "read",
    inputSchema: {
      type: "object",
      properties: { customerId: { type: "string", pattern: "^cus_" } },
      required: ["customerId"],
      additionalProperties: false,
    },
    // No outputSchema, as many real tools: programs see its observed type after a first result.
    execute: (input: { customerId: string }) => {
      count("get_customer");
      const customer = data.customers.find((candidate) => candidate.id === input.customerId);
      if (customer === undefined) {
        throw new ToolError(`No customer ${input.customerId}.`, { code: "CUSTOMER_NOT_FOUND" });
      }
      return { ...customer };
    },
  });
  const listComments = defineTool({
    name: "helpdesk.list_comments",
    description:
      "Lists the comments of one ticket, oldest first, 3 per page. Pass nextCursor for the next page; null on the last.",
    effect: "read",
    inputSchema: {
      type: "object",
      properties: { ticketId: { type: "string" }, cursor: { type: "string" } },
      required: ["ticketId"],
      additionalProperties: false,
    },
    outputSchema: {
      type: "object",
      properties: {
        comments: {
          type: "array",
          items: {
            type: "object",
            properties: {
              id: { type: "string" },
              author: { enum: ["customer", "agent"] },
              body: { type: "string" },
              createdAt: { type: "string" },
            },
            required: ["id", "author", "body", "createdAt"],
          },
        },
        nextCursor: { type: ["string", "null"] },
      },
      required: ["comments", "nextCursor"],
    },
    execute: (input: { ticketId: string; cursor?: string }) => {
      count("list_comments");
      const offset = input.cursor === undefined ? 0 : decodeCursor(input.cursor, input.ticketId);
      const all = data.comments.filter((comment) => comment.ticketId === input.ticketId);
      const page = all.slice(offset, offset + 3).map(({ ticketId: _ticketId, ...comment }) => comment);
      return { comments: page, nextCursor: offset + 3 < all.length ? encodeCursor(input.ticketId, offset + 3) : null };
    },
  });
  const addTag = defineTool({
    name: "helpdesk.add_tag",
    description: "Adds a tag to a ticket (idempotent) and returns the ticket's tags.",
    effect: "write",
    inputSchema: {
      type: "object",
      properties: { ticketId: { type: "string" }, tag: { type: "string", minLength: 1, maxLength: 32 } },
      required: ["ticketId", "tag"],
      additionalProperties: false,
    },
    outputSchema: {
      type: "object",
      properties: { ticketId: { type: "string" }, tags: { type: "array", items: { type: "string" } } },
      required: ["ticketId", "tags"],
    },
    resources: (input) => [`ticket:${(input as { ticketId: string }).ticketId}`],
    execute: (input: { ticketId: string; tag: string }) => {
      count("add_tag");
      const ticket = data.tickets.find((candidate) => candidate.id === input.ticketId);
      if (ticket === undefined) throw new ToolError(`No ticket ${input.ticketId}.`, { code: "TICKET_NOT_FOUND" });
      if (!ticket.tags.includes(input.tag)) ticket.tags.push(input.tag);
      return { ticketId: ticket.id, tags: [...ticket.tags] };
    },
  });
  const searchCustomers = defineTool({
    name: "helpdesk.search_customers",
    description: "Finds customers whose name contains the text (case-insensitive). At most 10.",
    effect: "read",
    inputSchema: {
      type: "object",
      properties: { text: { type: "string", minLength: 1 } },
      required: ["text"],
      additionalProperties: false,
    },
    outputSchema: {
      type: "object",
      properties: {
        customers: {
          type: "array",
          items: {
            type: "object",
            properties: { id: { type: "string" }, name: { type: "string" } },
            required: ["id", "name"],
          },
        },
      },
      required: ["customers"],
    },
    execute: (input: { text: string }) => {
      count("search_customers");
      const text = input.text.toLowerCase();
      const customers = data.customers
        .filter((customer) => customer.name.toLowerCase().includes(text))
        .slice(0, 10)
        .map(({ id, name }) => ({ id, name }));
      return { customers };
    },
  });
  return { tools: [listTickets, getCustomer, listComments, addTag, searchCustomers], stats };
}
