// Task: What does a helpdesk customer record look like? Show me the customer behind the oldest ticket.
const page = await tools.helpdesk.list_tickets({ limit: 1 });
const oldest = page.tickets[0];
if (!oldest) return { ticket: null, customer: null };
const customer = await tools.helpdesk.get_customer({ customerId: oldest.customerId });
return { ticket: oldest.id, customer };
