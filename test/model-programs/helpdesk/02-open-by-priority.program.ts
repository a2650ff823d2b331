// Task: How many open tickets are there, broken down by priority?
const counts: Record<string, number> = { low: 0, normal: 0, high: 0, urgent: 0 };
let cursor: string | null = null;
let pages = 0;
do {
  const page = await tools.helpdesk.list_tickets({ status: "open", limit: 50, ...(cursor ? { cursor } : {}) });
  for (const ticket of page.tickets) counts[ticket.priority] = (counts[ticket.priority] ?? 0) + 1;
  cursor = page.nextCursor;
  pages++;
} while (cursor);
const total = Object.values(counts).reduce((sum, n) => sum + n, 0);
return { total, byPriority: counts, pages, complete: true };
