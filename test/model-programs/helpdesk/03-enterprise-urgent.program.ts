// Task: Which enterprise customers have urgent tickets that are still open? List each with its ticket ids.
const urgent: { id: string; customerId: string }[] = [];
let cursor: string | null = null;
do {
  const page = await tools.helpdesk.list_tickets({ status: "open", limit: 50, ...(cursor ? { cursor } : {}) });
  for (const t of page.tickets) if (t.priority === "urgent") urgent.push({ id: t.id, customerId: t.customerId });
  cursor = page.nextCursor;
} while (cursor !== null);

const customerIds = [...new Set(urgent.map((t) => t.customerId))];
const customers = await Promise.all(customerIds.map((customerId) => tools.helpdesk.get_customer({ customerId })));
const enterprise = customers
  .filter((c) => c.plan === "enterprise")
  .map((c) => ({
    id: c.id,
    name: c.name,
    tickets: urgent.filter((t) => t.customerId === c.id).map((t) => t.id),
  }))
  .sort((a, b) => a.id.localeCompare(b.id));
return { urgentOpenTickets: urgent.length, customersChecked: customers.length, enterprise };
