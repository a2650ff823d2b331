// Task: Who are the three customers with the most tickets overall (any status)? Give names, plans and counts.
const perCustomer = new Map<string, number>();
let cursor: string | null = null;
do {
  const page = await tools.helpdesk.list_tickets({ limit: 50, ...(cursor ? { cursor } : {}) });
  for (const t of page.tickets) perCustomer.set(t.customerId, (perCustomer.get(t.customerId) ?? 0) + 1);
  cursor = page.nextCursor;
} while (cursor);

const top = [...perCustomer.entries()]
  .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
  .slice(0, 3);
const details = await Promise.all(top.map(([customerId]) => tools.helpdesk.get_customer({ customerId })));
return top.map(([customerId, tickets], i) => ({
  customerId,
  name: details[i]!.name,
  plan: details[i]!.plan,
  tickets,
}));
