// The helpdesk corpus: cursor pages, a customer lookup typed only by observation, writes.

import { expect } from "vitest";
import { Switchyard } from "../../src/switchyard.js";
import {
  type Comment,
  createHelpdeskData,
  createHelpdeskTools,
  type HelpdeskData,
  type HelpdeskStats,
  type Ticket,
} from "./catalogs/helpdesk.js";
import { describeCorpus } from "./corpus.js";

interface Context {
  readonly data: HelpdeskData;
  readonly stats: HelpdeskStats;
}

const ticketsWith = (data: HelpdeskData, status?: Ticket["status"]): Ticket[] =>
  data.tickets.filter((ticket) => status === undefined || ticket.status === status);
const customerOf = (data: HelpdeskData, id: string) => data.customers.find((customer) => customer.id === id)!;
const commentsOf = (data: HelpdeskData, ticketId: string): Comment[] =>
  data.comments.filter((comment) => comment.ticketId === ticketId);
const pagesOf = (count: number, size: number): number => Math.max(1, Math.ceil(count / size));

describeCorpus<Context>("helpdesk (cursor pages)", {
  folder: "helpdesk",
  open: async () => {
    const data = createHelpdeskData();
    const { tools, stats } = createHelpdeskTools(data);
    const yard = new Switchyard({ tools });
    return { yard, context: { data, stats }, close: () => yard.close() };
  },
  entries: {
    "01-customer-shape.program.ts": {
      expected: ({ data }) => {
        const oldest = data.tickets[0]!;
        return { ticket: oldest.id, customer: customerOf(data, oldest.customerId) };
      },
    },
    "02-open-by-priority.program.ts": {
      expected: ({ data }) => {
        const open = ticketsWith(data, "open");
        const byPriority = { low: 0, normal: 0, high: 0, urgent: 0 };
        for (const ticket of open) byPriority[ticket.priority]++;
        return { total: open.length, byPriority, pages: pagesOf(open.length, 50), complete: true };
      },
    },
    "03-enterprise-urgent.program.ts": {
      expected: ({ data }) => {
        const urgent = ticketsWith(data, "open").filter((ticket) => ticket.priority === "urgent");
        const customers = [...new Set(urgent.map((ticket) => ticket.customerId))];
        const enterprise = customers
          .map((id) => customerOf(data, id))
          .filter((customer) => customer.plan === "enterprise")
          .sort((a, b) => a.id.localeCompare(b.id))
          .map((customer) => ({
            id: customer.id,
            name: customer.name,
            tickets: urgent.filter((ticket) => ticket.customerId === customer.id).map((ticket) => ticket.id),
          }));
        return { urgentOpenTickets: urgent.length, customersChecked: customers.length, enterprise };
      },
    },
    "04-waiting-for-agent.program.ts": {
      expected: ({ data }) => {
        const open = ticketsWith(data, "open");
        const waiting = open.filter((ticket) => !commentsOf(data, ticket.id).some((c) => c.author === "agent"));
        return {
          openTickets: open.length,
          waitingForAgent: waiting.length,
          oldest: waiting.slice(0, 5).map((t) => ({ id: t.id, createdAt: t.createdAt, subject: t.subject })),
          complete: true,
        };
      },
    },
    "05-first-response.program.ts": {
      expected: ({ data }) => {
        const closed = ticketsWith(data, "closed");
        const minutes = closed.flatMap((ticket) => {
          const reply = commentsOf(data, ticket.id).find((comment) => comment.author === "agent");
          return reply === undefined ? [] : [(Date.parse(reply.createdAt) - Date.parse(ticket.createdAt)) / 60_000];
        });
        const average =
          minutes.length === 0 ? null : Math.round((minutes.reduce((a, b) => a + b, 0) / minutes.length) * 10) / 10;
        return {
          closedTickets: closed.length,
          answered: minutes.length,
          neverAnswered: closed.length - minutes.length,
          averageMinutes: average,
        };
      },
    },
    "06-tag-eu-queue.program.ts": {
      expected: ({ data }) => {
        const eu = ticketsWith(data, "open").filter((ticket) =>
          ["DE", "FR"].includes(customerOf(data, ticket.customerId).country),
        );
        return {
          tagged: eu.length,
          failed: [],
          customers: [...new Set(eu.map((ticket) => ticket.customerId))].sort(),
          taggedIds: eu.map((ticket) => ticket.id),
        };
      },
      check: (output, expected, _result, { data }) => {
        const { taggedIds, ...answer } = expected as { taggedIds: string[] };
        expect(output).toEqual(answer);
        const tagged = data.tickets.filter((ticket) => ticket.tags.includes("eu-queue")).map((ticket) => ticket.id);
        expect(tagged).toEqual(taggedIds);
      },
    },
    "07-top-customers.program.ts": {
      expected: ({ data }) => {
        const counts = new Map<string, number>();
        for (const ticket of data.tickets) counts.set(ticket.customerId, (counts.get(ticket.customerId) ?? 0) + 1);
        return [...counts]
          .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
          .slice(0, 3)
          .map(([customerId, tickets]) => {
            const customer = customerOf(data, customerId);
            return { customerId, name: customer.name, plan: customer.plan, tickets };
          });
      },
    },
    "08-comment-sweep-budget.program.ts": {
      // Far fewer calls than the sweep needs: the program must stop on its own and say so.
      limits: { maxToolCalls: 60 },
      expected: ({ data }) => data.tickets.length,
      check: (output, totalTickets, result, { data }) => {
        const answer = output as { ticketsDone: number; comments: number; complete: boolean };
        expect(answer.complete).toBe(false);
        expect(answer.ticketsDone).toBeGreaterThan(0);
        expect(answer.ticketsDone).toBeLessThan(totalTickets as number);
        const done = data.tickets.slice(0, answer.ticketsDone);
        expect(answer.comments).toBe(done.reduce((sum, ticket) => sum + commentsOf(data, ticket.id).length, 0));
        expect(result.calls.length).toBeLessThanOrEqual(60);
      },
    },
    "09-customers-named-moss.program.ts": {
      expected: ({ data }) =>
        data.customers
          .filter((customer) => customer.name.toLowerCase().includes("moss"))
          .slice(0, 10)
          .map((customer) => ({
            id: customer.id,
            name: customer.name,
            open: ticketsWith(data, "open").filter((ticket) => ticket.customerId === customer.id).length,
            pending: ticketsWith(data, "pending").filter((ticket) => ticket.customerId === customer.id).length,
          }))
          .sort((a, b) => a.id.localeCompare(b.id)),
    },
    "10-resume-from-cursor.program.ts": {
      expected: ({ data }) => ({ pending: ticketsWith(data, "pending").length, restarted: true }),
    },
    "11-busiest-day.program.ts": {
      expected: ({ data }) => {
        const perDay = new Map<string, number>();
        for (const ticket of data.tickets) {
          const day = ticket.createdAt.slice(0, 10);
          perDay.set(day, (perDay.get(day) ?? 0) + 1);
        }
        const [day, tickets] = [...perDay].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))[0]!;
        return { day, tickets, days: perDay.size };
      },
    },
  },
});
