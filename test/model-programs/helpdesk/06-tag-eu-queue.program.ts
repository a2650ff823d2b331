// Task: Tag every open ticket from a customer in Germany or France with "eu-queue". Tell me how many you tagged and which customers they belong to.
const open = [];
let cursor: string | null = null;
do {
  const page = await tools.helpdesk.list_tickets({ status: "open", limit: 50, ...(cursor ? { cursor } : {}) });
  open.push(...page.tickets);
  cursor = page.nextCursor;
} while (cursor);

const ids = [...new Set(open.map((t) => t.customerId))];
const customers = await Promise.all(ids.map((customerId) => tools.helpdesk.get_customer({ customerId })));
const eu = new Set(customers.filter((c) => c.country === "DE" || c.country === "FR").map((c) => c.id));
const toTag = open.filter((t) => eu.has(t.customerId));

const failed: { ticketId: string; code: string }[] = [];
await Promise.all(
  toTag.map(async (t) => {
    try {
      await tools.helpdesk.add_tag({ ticketId: t.id, tag: "eu-queue" });
    } catch (e) {
      failed.push({ ticketId: t.id, code: isToolCallError(e) ? e.code : "UNKNOWN" });
    }
  }),
);
return { tagged: toTag.length - failed.length, failed, customers: [...eu].sort() };
