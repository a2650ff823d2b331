// Task: Find the customers with "Moss" in their name and tell me how many open and pending tickets each has.
const { customers } = await tools.helpdesk.search_customers({ text: "moss" });
const wanted = new Set(customers.map((c) => c.id));
const counts = new Map(customers.map((c) => [c.id, { name: c.name, open: 0, pending: 0 }]));
for (const status of ["open", "pending"] as const) {
  let cursor: string | null = null;
  do {
    const page = await tools.helpdesk.list_tickets({ status, limit: 50, ...(cursor ? { cursor } : {}) });
    for (const t of page.tickets) {
      if (wanted.has(t.customerId)) counts.get(t.customerId)![status]++;
    }
    cursor = page.nextCursor;
  } while (cursor);
}
return [...counts.entries()].map(([id, c]) => ({ id, ...c })).sort((a, b) => a.id.localeCompare(b.id));
