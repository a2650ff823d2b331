// A hand-written catalog of SaaS-style tools for the search benchmark: ten services (CRM,
// billing, helpdesk tickets, calendar, storage, analytics, email, chat, projects, HR) with
// the near-duplicate names real catalogs have (crm.createContact, email.createContact,
// tickets.createContact). Schemas are built from small helpers; every description is
// written for its tool, the way an API author would.

/** A tool as the benchmark catalog stores it: what a model would be shown in full. */
export interface CatalogTool {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: { [keyword: string]: unknown };
}

type Property = { [keyword: string]: unknown };

const string = (description: string, extra: Property = {}): Property => ({ type: "string", description, ...extra });
const integer = (description: string, extra: Property = {}): Property => ({ type: "integer", description, ...extra });
const number = (description: string, extra: Property = {}): Property => ({ type: "number", description, ...extra });
const boolean = (description: string): Property => ({ type: "boolean", description });
const oneOf = (description: string, values: readonly string[]): Property => ({
  type: "string",
  enum: values,
  description,
});
const list = (description: string, items: Property): Property => ({ type: "array", items, description });
const object = (
  description: string,
  properties: Record<string, Property>,
  required: readonly string[] = [],
): Property => ({
  type: "object",
  description,
  properties,
  ...(required.length > 0 ? { required } : {}),
});

// Pagination and time-window parameters, repeated across list endpoints as real APIs do.
const page = {
  limit: integer("Maximum number of items to return (1-100).", { minimum: 1, maximum: 100, default: 25 }),
  cursor: string("Opaque cursor from the previous page's next_cursor; omit for the first page."),
};
const isoTime = (description: string): Property => string(description, { format: "date-time" });
const email = (description: string): Property => string(description, { format: "email" });
const money = {
  amount: integer("Amount in the smallest currency unit (e.g. cents)."),
  currency: string("Three-letter ISO 4217 currency code, e.g. usd."),
};
const address = object("Postal address.", {
  line1: string("Street address."),
  city: string("City."),
  postal_code: string("Postal or ZIP code."),
  country: string("Two-letter ISO country code."),
});

function tool(
  name: string,
  description: string,
  properties: Record<string, Property> = {},
  required: readonly string[] = [],
): CatalogTool {
  return {
    name,
    description,
    inputSchema: {
      type: "object",
      properties,
      ...(required.length > 0 ? { required } : {}),
      additionalProperties: false,
    },
  };
}

const crm: CatalogTool[] = [
  tool(
    "crm.createContact",
    "Create a person record in the CRM with name, email, phone and the company they work for. Returns the new contact with its id.",
    {
      first_name: string("Given name."),
      last_name: string("Family name."),
      email: email("Primary email address."),
      phone: string("Phone number in E.164 format."),
      company_id: string("Id of the company the contact belongs to."),
      owner_id: string("Id of the sales rep who owns the contact."),
    },
    ["email"],
  ),
  tool(
    "crm.getContact",
    "Fetch one CRM contact by id, with their company, owner, lifecycle stage and custom properties.",
    { contact_id: string("Id of the contact.") },
    ["contact_id"],
  ),
  tool("crm.listContacts", "List CRM contacts, filtered by owner, company or creation date, sorted by last activity.", {
    owner_id: string("Only contacts owned by this user."),
    company_id: string("Only contacts of this company."),
    created_after: isoTime("Created after."),
    ...page,
  }),
  tool(
    "crm.updateContact",
    "Change fields of an existing CRM contact, such as email, phone, lifecycle stage or owner. Only the fields you send are modified.",
    {
      contact_id: string("Id of the contact."),
      properties: object("Fields to change, by property name.", {}),
      owner_id: string("Id of the new owner."),
    },
    ["contact_id"],
  ),
  tool(
    "crm.deleteContact",
    "Permanently delete a CRM contact and detach it from its deals and companies.",
    { contact_id: string("Id of the contact.") },
    ["contact_id"],
  ),
  tool(
    "crm.searchContacts",
    "Search CRM contacts by name, email domain, company or lifecycle stage. Returns matching contacts, most recently active first.",
    {
      query: string("Free-text search over name and email."),
      lifecycle_stage: oneOf("Only contacts at this stage.", ["subscriber", "lead", "opportunity", "customer"]),
      ...page,
    },
  ),
  tool(
    "crm.mergeContacts",
    "Merge two duplicate CRM contacts into one; activities, deals and notes of the secondary record move to the primary.",
    {
      primary_id: string("Contact that survives the merge."),
      secondary_id: string("Duplicate contact that is merged away."),
    },
    ["primary_id", "secondary_id"],
  ),
  tool(
    "crm.createCompany",
    "Create an account (organization) in the CRM with its domain, industry and size.",
    {
      name: string("Company name."),
      domain: string("Website domain, used to associate contacts automatically."),
      industry: string("Industry label."),
      employee_count: integer("Number of employees."),
    },
    ["name"],
  ),
  tool(
    "crm.getCompany",
    "Fetch a CRM company (account) by id, including its contacts, open deals and annual revenue.",
    { company_id: string("Id of the company.") },
    ["company_id"],
  ),
  tool("crm.listCompanies", "List companies (accounts) in the CRM, filtered by industry or owner.", {
    industry: string("Only companies in this industry."),
    owner_id: string("Only companies owned by this user."),
    ...page,
  }),
  tool(
    "crm.createDeal",
    "Open a new deal (sales opportunity) in a pipeline stage, with amount, expected close date and associated company.",
    {
      name: string("Deal name."),
      pipeline_id: string("Pipeline the deal belongs to."),
      stage: string("Pipeline stage id."),
      ...money,
      close_date: string("Expected close date (YYYY-MM-DD).", { format: "date" }),
      company_id: string("Associated company."),
      owner_id: string("Sales rep responsible for the deal."),
    },
    ["name", "pipeline_id", "stage"],
  ),
  tool(
    "crm.getDeal",
    "Fetch one deal by id: amount, stage, expected close date, owner (the sales rep responsible) and associated contacts.",
    { deal_id: string("Id of the deal.") },
    ["deal_id"],
  ),
  tool(
    "crm.updateDeal",
    "Update a deal's amount, close date, owner or other properties.",
    { deal_id: string("Id of the deal."), properties: object("Fields to change.", {}) },
    ["deal_id"],
  ),
  tool(
    "crm.moveDealStage",
    "Move a deal to another stage of its pipeline, e.g. from proposal to closed won or closed lost.",
    {
      deal_id: string("Id of the deal."),
      stage: string("Target stage id, such as closedwon or closedlost."),
      lost_reason: string("Why the deal was lost, when moving to a lost stage."),
    },
    ["deal_id", "stage"],
  ),
  tool("crm.listDeals", "List deals in the sales pipeline, filtered by stage, owner or expected close date range.", {
    pipeline_id: string("Only deals in this pipeline."),
    stage: string("Only deals in this stage."),
    owner_id: string("Only deals owned by this rep."),
    close_after: string("Expected close date on or after (YYYY-MM-DD)."),
    close_before: string("Expected close date on or before (YYYY-MM-DD)."),
    ...page,
  }),
  tool("crm.listPipelines", "List the sales pipelines and their stages, with the win probability of each stage.", {}),
  tool(
    "crm.addNote",
    "Attach a note to a contact, company or deal timeline in the CRM.",
    {
      record_type: oneOf("Kind of record.", ["contact", "company", "deal"]),
      record_id: string("Id of the record."),
      body: string("Note text (Markdown)."),
    },
    ["record_type", "record_id", "body"],
  ),
  tool(
    "crm.listActivities",
    "List the activity timeline of a CRM record: calls, emails, meetings and notes, newest first.",
    {
      record_type: oneOf("Kind of record.", ["contact", "company", "deal"]),
      record_id: string("Id of the record."),
      ...page,
    },
    ["record_type", "record_id"],
  ),
  tool(
    "crm.logCall",
    "Log a phone call with a contact on the CRM timeline, with duration and outcome.",
    {
      contact_id: string("Contact who was called."),
      duration_seconds: integer("Length of the call in seconds."),
      outcome: oneOf("Call result.", ["connected", "voicemail", "no_answer", "busy"]),
      notes: string("Summary of the conversation."),
    },
    ["contact_id"],
  ),
  tool(
    "crm.createTask",
    "Create a follow-up task for a sales rep, optionally linked to a contact or deal, with a due date.",
    {
      title: string("What needs doing."),
      due_at: isoTime("When the task is due."),
      assignee_id: string("User who should do it."),
      deal_id: string("Related deal."),
      contact_id: string("Related contact."),
    },
    ["title"],
  ),
  tool(
    "crm.listInvoices",
    "List the invoices recorded against a CRM company or deal (as synced from the billing system), for account reviews.",
    {
      company_id: string("Company whose invoices to list."),
      deal_id: string("Deal whose invoices to list."),
      ...page,
    },
  ),
  tool("crm.listOwners", "List CRM users who can own records (sales reps), with their teams and email addresses.", {
    team_id: string("Only owners in this team."),
    ...page,
  }),
  tool(
    "crm.assignOwner",
    "Reassign a contact, company or deal to a different owner (sales rep).",
    {
      record_type: oneOf("Kind of record.", ["contact", "company", "deal"]),
      record_id: string("Id of the record."),
      owner_id: string("New owner."),
    },
    ["record_type", "record_id", "owner_id"],
  ),
  tool(
    "crm.importContacts",
    "Bulk import contacts into the CRM from a CSV file URL, matching existing records by email.",
    {
      file_url: string("URL of the CSV file."),
      update_existing: boolean("Update contacts that already exist instead of skipping them."),
    },
    ["file_url"],
  ),
];

const billing: CatalogTool[] = [
  tool(
    "billing.createCustomer",
    "Create a billing customer that can be charged, invoiced and subscribed to plans.",
    {
      email: email("Customer's billing email."),
      name: string("Customer or company name."),
      address,
      tax_id: string("VAT or other tax identifier."),
    },
    ["email"],
  ),
  tool(
    "billing.getCustomer",
    "Retrieve a billing customer with their balance, default payment method and tax settings.",
    { customer_id: string("Id of the customer.") },
    ["customer_id"],
  ),
  tool(
    "billing.updateCustomer",
    "Update a billing customer's email, name, address or tax id.",
    { customer_id: string("Id of the customer."), email: email("New billing email."), address },
    ["customer_id"],
  ),
  tool("billing.listCustomers", "List billing customers, optionally filtered by email or creation date.", {
    email: email("Only customers with this email."),
    created_after: isoTime("Only customers created after this time."),
    ...page,
  }),
  tool(
    "billing.createCharge",
    "Charge a customer's card or other payment method immediately for a one-time amount.",
    {
      customer_id: string("Customer to charge."),
      ...money,
      payment_method_id: string("Payment method; defaults to the customer's default."),
      description: string("Shown on the receipt."),
    },
    ["customer_id", "amount", "currency"],
  ),
  tool(
    "billing.getCharge",
    "Retrieve a charge with its status, amount refunded, failure reason and receipt URL.",
    { charge_id: string("Id of the charge.") },
    ["charge_id"],
  ),
  tool("billing.listCharges", "List charges, newest first, filtered by customer, status or date range.", {
    customer_id: string("Only this customer's charges."),
    status: oneOf("Only charges with this status.", ["succeeded", "pending", "failed"]),
    created_after: isoTime("Created after."),
    ...page,
  }),
  tool(
    "billing.createRefund",
    "Refund a charge in full or in part; the money goes back to the original payment method.",
    {
      charge_id: string("Charge to refund."),
      amount: integer("Amount to refund in cents; omit for a full refund."),
      reason: oneOf("Why.", ["duplicate", "fraudulent", "requested_by_customer"]),
    },
    ["charge_id"],
  ),
  tool("billing.listRefunds", "List refunds, optionally only those of one charge.", {
    charge_id: string("Only refunds of this charge."),
    ...page,
  }),
  tool(
    "billing.createInvoice",
    "Create a draft invoice for a customer from their pending invoice items.",
    {
      customer_id: string("Customer to invoice."),
      due_days: integer("Days until the invoice is due."),
      memo: string("Note printed on the invoice."),
    },
    ["customer_id"],
  ),
  tool(
    "billing.addInvoiceItem",
    "Add a line item (product, quantity, unit price) to a customer's next or draft invoice.",
    {
      customer_id: string("Customer."),
      invoice_id: string("Draft invoice; omit to add to the next invoice."),
      description: string("Line description."),
      quantity: integer("Quantity."),
      unit_amount: integer("Unit price in cents."),
    },
    ["customer_id", "unit_amount"],
  ),
  tool(
    "billing.finalizeInvoice",
    "Finalize a draft invoice so it can be paid; assigns its number and locks the line items.",
    { invoice_id: string("Draft invoice.") },
    ["invoice_id"],
  ),
  tool(
    "billing.sendInvoice",
    "Email a finalized invoice to the customer with a link to pay it online.",
    { invoice_id: string("Invoice to send.") },
    ["invoice_id"],
  ),
  tool(
    "billing.voidInvoice",
    "Void a finalized invoice that should not be paid; it stays in the records, marked void.",
    { invoice_id: string("Invoice to void.") },
    ["invoice_id"],
  ),
  tool(
    "billing.getInvoice",
    "Retrieve an invoice with its line items, totals, tax, payment status and PDF link.",
    { invoice_id: string("Id of the invoice.") },
    ["invoice_id"],
  ),
  tool(
    "billing.listInvoices",
    "List invoices, filtered by customer, status (draft, open, paid, void, uncollectible) or due date.",
    {
      customer_id: string("Only this customer's invoices."),
      status: oneOf("Invoice status.", ["draft", "open", "paid", "void", "uncollectible"]),
      due_before: isoTime("Due before."),
      ...page,
    },
  ),
  tool(
    "billing.createSubscription",
    "Subscribe a customer to a recurring price (plan), optionally with a trial period.",
    {
      customer_id: string("Customer."),
      price_id: string("Recurring price to subscribe to."),
      trial_days: integer("Free trial length in days."),
      quantity: integer("Seats or units."),
    },
    ["customer_id", "price_id"],
  ),
  tool(
    "billing.updateSubscription",
    "Change a subscription's plan, quantity (seats) or billing anchor, with proration.",
    {
      subscription_id: string("Subscription."),
      price_id: string("New price (plan)."),
      quantity: integer("New quantity."),
      proration: oneOf("How to prorate.", ["create_prorations", "none", "always_invoice"]),
    },
    ["subscription_id"],
  ),
  tool(
    "billing.cancelSubscription",
    "Cancel a customer's subscription, now or at the end of the current billing period.",
    {
      subscription_id: string("Subscription to cancel."),
      at_period_end: boolean("Keep it active until the period ends."),
    },
    ["subscription_id"],
  ),
  tool(
    "billing.listSubscriptions",
    "List subscriptions by customer, price or status (active, trialing, past_due, canceled).",
    {
      customer_id: string("Only this customer's subscriptions."),
      status: oneOf("Status.", ["active", "trialing", "past_due", "canceled"]),
      ...page,
    },
  ),
  tool(
    "billing.attachPaymentMethod",
    "Save a card or bank account to a customer and optionally make it their default payment method.",
    {
      customer_id: string("Customer."),
      payment_method_id: string("Tokenized payment method."),
      set_default: boolean("Make it the default."),
    },
    ["customer_id", "payment_method_id"],
  ),
  tool(
    "billing.listPaymentMethods",
    "List the saved cards and bank accounts of a customer.",
    { customer_id: string("Customer."), type: oneOf("Kind.", ["card", "bank_account"]) },
    ["customer_id"],
  ),
  tool(
    "billing.createCoupon",
    "Create a discount coupon (percent or amount off) that can be applied to subscriptions and invoices.",
    {
      percent_off: number("Percentage discount."),
      amount_off: integer("Fixed discount in cents."),
      duration: oneOf("How long it applies.", ["once", "repeating", "forever"]),
      code: string("Promotion code customers type."),
    },
  ),
  tool(
    "billing.listPayouts",
    "List payouts of the account balance to the bank account, with arrival dates and status.",
    { status: oneOf("Status.", ["paid", "pending", "in_transit", "failed"]), ...page },
  ),
  tool("billing.getBalance", "Get the account's available and pending balance per currency.", {}),
  tool(
    "billing.deleteCustomer",
    "Delete a billing customer and cancel their active subscriptions; past invoices and charges are kept.",
    { customer_id: string("Id of the customer.") },
    ["customer_id"],
  ),
  tool(
    "billing.createPrice",
    "Create a price for a product: one-time or recurring, with amount and billing interval.",
    {
      product_id: string("Product."),
      unit_amount: integer("Price in cents."),
      currency: string("Currency."),
      interval: oneOf("Billing interval for recurring prices.", ["day", "week", "month", "year"]),
    },
    ["product_id", "unit_amount", "currency"],
  ),
  tool(
    "billing.listDisputes",
    "List payment disputes (chargebacks) opened by cardholders, with their evidence deadlines.",
    { status: string("Dispute status."), ...page },
  ),
];

const tickets: CatalogTool[] = [
  tool(
    "tickets.createTicket",
    "Open a support ticket on behalf of a customer, with subject, description, priority and requester.",
    {
      subject: string("One-line summary of the problem."),
      description: string("Full description."),
      priority: oneOf("Priority.", ["low", "normal", "high", "urgent"]),
      requester_email: email("Customer who reported it."),
      tags: list("Tags.", string("Tag.")),
    },
    ["subject", "requester_email"],
  ),
  tool(
    "tickets.getTicket",
    "Fetch a support ticket with its status, priority, assignee, tags and SLA timers.",
    { ticket_id: string("Ticket id.") },
    ["ticket_id"],
  ),
  tool(
    "tickets.updateTicket",
    "Change a ticket's status, priority, type, tags or custom fields.",
    {
      ticket_id: string("Ticket id."),
      status: oneOf("New status.", ["new", "open", "pending", "solved", "closed"]),
      priority: oneOf("New priority.", ["low", "normal", "high", "urgent"]),
    },
    ["ticket_id"],
  ),
  tool(
    "tickets.assignTicket",
    "Assign a support ticket to an agent or a group of agents.",
    { ticket_id: string("Ticket id."), agent_id: string("Agent."), group_id: string("Agent group.") },
    ["ticket_id"],
  ),
  tool(
    "tickets.closeTicket",
    "Mark a support ticket as solved and notify the requester.",
    { ticket_id: string("Ticket id."), resolution_note: string("Closing comment.") },
    ["ticket_id"],
  ),
  tool("tickets.searchTickets", "Search support tickets by keyword, status, requester, assignee or tag.", {
    query: string("Keywords in subject and comments."),
    status: string("Status."),
    assignee_id: string("Assigned agent."),
    tag: string("Tag."),
    ...page,
  }),
  tool("tickets.listTickets", "List support tickets in a view or queue, sorted by update time.", {
    view_id: string("Queue or view."),
    sort: oneOf("Order.", ["updated_desc", "created_desc", "priority"]),
    ...page,
  }),
  tool(
    "tickets.addComment",
    "Reply on a ticket: a public comment the customer sees, or an internal note for agents.",
    {
      ticket_id: string("Ticket id."),
      body: string("Comment text."),
      public: boolean("Visible to the requester; false makes it an internal note."),
    },
    ["ticket_id", "body"],
  ),
  tool(
    "tickets.listComments",
    "List the conversation of a ticket: public replies and internal notes, oldest first.",
    { ticket_id: string("Ticket id."), ...page },
    ["ticket_id"],
  ),
  tool(
    "tickets.mergeTickets",
    "Merge duplicate tickets into a target ticket; their comments are copied and they are closed.",
    {
      target_id: string("Ticket that remains."),
      source_ids: list("Tickets to merge into it.", string("Ticket id.")),
    },
    ["target_id", "source_ids"],
  ),
  tool(
    "tickets.createContact",
    "Create an end user (customer) in the helpdesk so tickets can be filed for them.",
    {
      name: string("Full name."),
      email: email("Email address."),
      organization_id: string("Helpdesk organization."),
    },
    ["email"],
  ),
  tool(
    "tickets.getContact",
    "Fetch a helpdesk end user with their organization and recent tickets.",
    { contact_id: string("End-user id.") },
    ["contact_id"],
  ),
  tool("tickets.listAgents", "List helpdesk agents with their groups, roles and availability.", {
    group_id: string("Only agents in this group."),
    ...page,
  }),
  tool(
    "tickets.addTags",
    "Add tags to a ticket for routing and reporting.",
    { ticket_id: string("Ticket id."), tags: list("Tags to add.", string("Tag.")) },
    ["ticket_id", "tags"],
  ),
  tool(
    "tickets.applyMacro",
    "Apply a macro (saved reply with field changes) to a ticket.",
    { ticket_id: string("Ticket id."), macro_id: string("Macro.") },
    ["ticket_id", "macro_id"],
  ),
  tool("tickets.listMacros", "List the saved replies (macros) agents can apply to tickets.", {
    query: string("Filter by title."),
    ...page,
  }),
  tool(
    "tickets.getSatisfactionRatings",
    "List customer satisfaction (CSAT) ratings left on solved tickets, with comments.",
    {
      score: oneOf("Only good or bad ratings.", ["good", "bad"]),
      start_time: isoTime("From."),
      ...page,
    },
  ),
  tool(
    "tickets.listSlaBreaches",
    "List tickets that breached or are about to breach their SLA response or resolution targets.",
    { policy_id: string("SLA policy."), ...page },
  ),
  tool(
    "tickets.escalateTicket",
    "Escalate a ticket to a higher tier or to engineering, raising its priority and notifying the escalation group.",
    {
      ticket_id: string("Ticket id."),
      reason: string("Why it needs escalation."),
      tier: integer("Target support tier."),
    },
    ["ticket_id", "reason"],
  ),
  tool(
    "tickets.createArticle",
    "Publish a help center (knowledge base) article in a section.",
    { title: string("Title."), body: string("HTML body."), section_id: string("Section.") },
    ["title", "body", "section_id"],
  ),
  tool(
    "tickets.searchArticles",
    "Search help center (knowledge base) articles by keyword, to suggest answers to customers.",
    { query: string("Keywords."), locale: string("Language, e.g. en-us."), ...page },
    ["query"],
  ),
  tool(
    "tickets.listInvoices",
    "List the invoices of the helpdesk subscription itself (seats, plan), for the account admin.",
    { ...page },
  ),
  tool(
    "tickets.deleteTicket",
    "Delete a ticket, e.g. spam; deleted tickets can be recovered by an admin for 30 days.",
    { ticket_id: string("Ticket id.") },
    ["ticket_id"],
  ),
];

const calendar: CatalogTool[] = [
  tool(
    "calendar.createEvent",
    "Schedule a calendar event (meeting) with title, start and end time, attendees, location and video conference link.",
    {
      calendar_id: string("Calendar to add to; default primary."),
      title: string("Event title."),
      start: isoTime("Start time."),
      end: isoTime("End time."),
      attendees: list("People to invite.", email("Attendee email.")),
      location: string("Room or address."),
      add_video_link: boolean("Attach a video conference link."),
      recurrence: string("RRULE for repeating events."),
    },
    ["title", "start", "end"],
  ),
  tool(
    "calendar.getEvent",
    "Fetch one calendar event with its attendees and their responses.",
    { event_id: string("Event id."), calendar_id: string("Calendar id.") },
    ["event_id"],
  ),
  tool(
    "calendar.updateEvent",
    "Change an event's time, title, location or attendees; attendees are notified of the update.",
    {
      event_id: string("Event id."),
      start: isoTime("New start."),
      end: isoTime("New end."),
      title: string("New title."),
      notify: boolean("Send update emails."),
    },
    ["event_id"],
  ),
  tool(
    "calendar.deleteEvent",
    "Cancel and delete a calendar event, optionally notifying attendees.",
    { event_id: string("Event id."), notify: boolean("Send cancellation emails.") },
    ["event_id"],
  ),
  tool(
    "calendar.listEvents",
    "List events of a calendar between two times, expanding recurring events into single occurrences.",
    {
      calendar_id: string("Calendar id; default primary."),
      time_min: isoTime("Window start."),
      time_max: isoTime("Window end."),
      query: string("Text filter on title and description."),
      ...page,
    },
  ),
  tool(
    "calendar.findFreeSlots",
    "Find times when all given people are free (free/busy lookup), to propose a meeting slot.",
    {
      attendees: list("People who must attend.", email("Email.")),
      duration_minutes: integer("Meeting length."),
      time_min: isoTime("Search from."),
      time_max: isoTime("Search until."),
      working_hours_only: boolean("Only within working hours."),
    },
    ["attendees", "duration_minutes"],
  ),
  tool(
    "calendar.getFreeBusy",
    "Return busy intervals of one or more calendars in a time window.",
    { calendars: list("Calendar ids or emails.", string("Id.")), time_min: isoTime("From."), time_max: isoTime("To.") },
    ["calendars"],
  ),
  tool(
    "calendar.respondToEvent",
    "Accept, decline or tentatively accept an event invitation.",
    {
      event_id: string("Event id."),
      response: oneOf("Answer.", ["accepted", "declined", "tentative"]),
      comment: string("Note to the organizer."),
    },
    ["event_id", "response"],
  ),
  tool(
    "calendar.addAttendees",
    "Invite more people to an existing event.",
    { event_id: string("Event id."), attendees: list("Emails to invite.", email("Email.")) },
    ["event_id", "attendees"],
  ),
  tool(
    "calendar.listCalendars",
    "List the calendars the user can see: own, shared and subscribed, with access roles.",
    {},
  ),
  tool(
    "calendar.createCalendar",
    "Create a secondary calendar, e.g. for a team or a project.",
    { name: string("Calendar name."), time_zone: string("IANA time zone.") },
    ["name"],
  ),
  tool(
    "calendar.shareCalendar",
    "Share a calendar with a person or group with read or write access.",
    {
      calendar_id: string("Calendar."),
      email: email("Person or group."),
      role: oneOf("Access.", ["freeBusyReader", "reader", "writer", "owner"]),
    },
    ["calendar_id", "email", "role"],
  ),
  tool(
    "calendar.setReminder",
    "Set reminders (popup or email) minutes before an event.",
    {
      event_id: string("Event id."),
      minutes_before: integer("Minutes before start."),
      method: oneOf("How to remind.", ["popup", "email"]),
    },
    ["event_id", "minutes_before"],
  ),
  tool(
    "calendar.setOutOfOffice",
    "Block time as out of office and automatically decline meetings in that period.",
    {
      start: isoTime("From."),
      end: isoTime("To."),
      decline_message: string("Message sent when declining."),
    },
    ["start", "end"],
  ),
  tool(
    "calendar.bookRoom",
    "Reserve a meeting room resource for a time slot, checking its capacity and availability.",
    {
      room_id: string("Room resource."),
      start: isoTime("Start."),
      end: isoTime("End."),
      event_id: string("Event to attach the room to."),
    },
    ["room_id", "start", "end"],
  ),
  tool("calendar.listRooms", "List bookable meeting rooms with building, floor, capacity and equipment.", {
    building: string("Building."),
    min_capacity: integer("Minimum seats."),
  }),
  tool(
    "calendar.createContact",
    "Add a person to the calendar's contact directory so they can be invited by name.",
    { name: string("Name."), email: email("Email.") },
    ["email"],
  ),
  tool(
    "calendar.getWorkingHours",
    "Get a user's working hours and time zone, used for scheduling suggestions.",
    { user_email: email("User.") },
    ["user_email"],
  ),
  tool(
    "calendar.createBookingLink",
    "Create a public booking page link where others can pick a free slot to meet with you.",
    {
      title: string("Page title."),
      duration_minutes: integer("Slot length."),
      buffer_minutes: integer("Gap between bookings."),
    },
    ["title", "duration_minutes"],
  ),
  tool(
    "calendar.quickAdd",
    "Create an event from a natural-language sentence such as 'Lunch with Ana tomorrow at noon'.",
    { text: string("The sentence.") },
    ["text"],
  ),
  tool(
    "calendar.moveEvent",
    "Move an event from one calendar to another, changing its organizer calendar.",
    { event_id: string("Event id."), destination_calendar_id: string("Target calendar.") },
    ["event_id", "destination_calendar_id"],
  ),
];

const storage: CatalogTool[] = [
  tool(
    "storage.uploadFile",
    "Upload a file to cloud storage into a folder, from base64 content or a URL.",
    {
      folder_id: string("Destination folder; default root."),
      name: string("File name."),
      content_base64: string("File content, base64."),
      source_url: string("Fetch content from this URL instead."),
    },
    ["name"],
  ),
  tool(
    "storage.downloadFile",
    "Download a file's content from cloud storage (base64), or get a temporary download URL for large files.",
    { file_id: string("File id."), as_url: boolean("Return a signed URL instead of content.") },
    ["file_id"],
  ),
  tool(
    "storage.getFileMetadata",
    "Get a stored file's name, size, MIME type, owner, modification time and parent folder.",
    { file_id: string("File id.") },
    ["file_id"],
  ),
  tool("storage.listFiles", "List files and folders inside a cloud storage folder.", {
    folder_id: string("Folder; default root."),
    order_by: oneOf("Sort.", ["name", "modified", "size"]),
    ...page,
  }),
  tool(
    "storage.searchFiles",
    "Search cloud storage for files by name, full text, type or owner.",
    {
      query: string("Text in the name or content."),
      mime_type: string("Only this type, e.g. application/pdf."),
      owner_email: email("Owner."),
      modified_after: isoTime("Modified after."),
      ...page,
    },
    ["query"],
  ),
  tool(
    "storage.createFolder",
    "Create a folder in cloud storage.",
    { name: string("Folder name."), parent_id: string("Parent folder; default root.") },
    ["name"],
  ),
  tool(
    "storage.moveFile",
    "Move a file or folder to another folder in cloud storage.",
    { file_id: string("File or folder."), destination_folder_id: string("New parent.") },
    ["file_id", "destination_folder_id"],
  ),
  tool(
    "storage.renameFile",
    "Rename a file or folder in cloud storage.",
    { file_id: string("File or folder."), new_name: string("New name.") },
    ["file_id", "new_name"],
  ),
  tool(
    "storage.copyFile",
    "Make a copy of a file, optionally into another folder.",
    {
      file_id: string("File."),
      destination_folder_id: string("Folder for the copy."),
      name: string("Name of the copy."),
    },
    ["file_id"],
  ),
  tool(
    "storage.deleteFile",
    "Move a file or folder to the trash; it can be restored for 30 days.",
    { file_id: string("File or folder.") },
    ["file_id"],
  ),
  tool(
    "storage.restoreFile",
    "Restore a trashed file or folder to its original location.",
    { file_id: string("Trashed file.") },
    ["file_id"],
  ),
  tool("storage.emptyTrash", "Permanently delete everything in the trash.", {}),
  tool(
    "storage.shareFile",
    "Share a file or folder with people, giving view, comment or edit permission.",
    {
      file_id: string("File or folder."),
      emails: list("People to share with.", email("Email.")),
      role: oneOf("Permission.", ["viewer", "commenter", "editor"]),
      notify: boolean("Email them."),
    },
    ["file_id", "emails", "role"],
  ),
  tool(
    "storage.createShareLink",
    "Create a shareable link to a file, public or restricted to the organization, with optional expiry.",
    {
      file_id: string("File."),
      audience: oneOf("Who can open it.", ["anyone", "organization"]),
      expires_at: isoTime("Expiry."),
    },
    ["file_id"],
  ),
  tool(
    "storage.listPermissions",
    "List who has access to a file or folder and with which role.",
    { file_id: string("File or folder.") },
    ["file_id"],
  ),
  tool(
    "storage.revokePermission",
    "Remove a person's access to a shared file or folder.",
    { file_id: string("File or folder."), email: email("Person.") },
    ["file_id", "email"],
  ),
  tool(
    "storage.listVersions",
    "List previous versions (revisions) of a file with their authors and timestamps.",
    { file_id: string("File.") },
    ["file_id"],
  ),
  tool(
    "storage.restoreVersion",
    "Roll a file back to a previous version.",
    { file_id: string("File."), version_id: string("Version to restore.") },
    ["file_id", "version_id"],
  ),
  tool("storage.getStorageQuota", "Get used and total storage space for the user or the organization.", {}),
  tool("storage.listRecentFiles", "List files the user opened or edited recently.", { ...page }),
  tool(
    "storage.addComment",
    "Add a comment on a stored document, optionally anchored to a passage.",
    { file_id: string("File."), text: string("Comment text."), anchor: string("Quoted passage.") },
    ["file_id", "text"],
  ),
  tool(
    "storage.convertFile",
    "Convert a document to another format, such as DOCX to PDF or XLSX to CSV.",
    {
      file_id: string("File."),
      target_format: oneOf("Output format.", ["pdf", "docx", "csv", "txt", "png"]),
    },
    ["file_id", "target_format"],
  ),
];

const analytics: CatalogTool[] = [
  tool(
    "analytics.runReport",
    "Run a report over tracked web and app traffic: metrics (sessions, users, conversions) broken down by dimensions (page, country, source) for a date range.",
    {
      metrics: list("Metrics to compute.", string("Metric name.")),
      dimensions: list("Breakdowns.", string("Dimension name.")),
      start_date: string("First day (YYYY-MM-DD)."),
      end_date: string("Last day (YYYY-MM-DD)."),
      filters: string("Filter expression."),
    },
    ["metrics", "start_date", "end_date"],
  ),
  tool("analytics.getRealtime", "Get active users right now, by page and country.", {
    dimensions: list("Breakdowns.", string("Dimension.")),
  }),
  tool(
    "analytics.trackEvent",
    "Record a custom product event for a user (e.g. signup_completed) with properties.",
    {
      event: string("Event name."),
      user_id: string("User who did it."),
      properties: object("Event properties.", {}),
      timestamp: isoTime("When; default now."),
    },
    ["event"],
  ),
  tool(
    "analytics.queryEvents",
    "Count or list raw product events by name, user and property filters over a time range.",
    {
      event: string("Event name."),
      where: string("Property filter."),
      from: isoTime("From."),
      to: isoTime("To."),
      group_by: string("Property to group counts by."),
    },
    ["event"],
  ),
  tool(
    "analytics.getFunnel",
    "Compute a conversion funnel: how many users completed each step in order, and where they dropped off.",
    {
      steps: list("Event names in order.", string("Event.")),
      from: isoTime("From."),
      to: isoTime("To."),
      window_days: integer("Days a user has to convert."),
    },
    ["steps"],
  ),
  tool(
    "analytics.getRetention",
    "Compute cohort retention: of users who did a first event, how many came back in later weeks.",
    {
      start_event: string("Event that puts a user in a cohort."),
      return_event: string("Event that counts as returning."),
      period: oneOf("Bucket size.", ["day", "week", "month"]),
    },
    ["start_event"],
  ),
  tool("analytics.listDashboards", "List saved analytics dashboards and their charts.", { ...page }),
  tool(
    "analytics.getDashboard",
    "Fetch a dashboard with the current values of each chart.",
    { dashboard_id: string("Dashboard.") },
    ["dashboard_id"],
  ),
  tool(
    "analytics.createDashboard",
    "Create a dashboard from a list of saved reports.",
    { title: string("Title."), report_ids: list("Reports to show.", string("Report id.")) },
    ["title"],
  ),
  tool("analytics.listMetrics", "List the metrics and dimensions available for reports, with their definitions.", {}),
  tool(
    "analytics.getUserProfile",
    "Get one tracked user's profile properties and recent event history.",
    { user_id: string("Tracked user id.") },
    ["user_id"],
  ),
  tool(
    "analytics.createSegment",
    "Define a user segment (cohort) by properties and behaviour, reusable in reports.",
    { name: string("Segment name."), definition: string("Filter expression.") },
    ["name", "definition"],
  ),
  tool(
    "analytics.exportData",
    "Export raw event data for a date range as a CSV or JSON file.",
    {
      start_date: string("First day."),
      end_date: string("Last day."),
      format: oneOf("File format.", ["csv", "json"]),
    },
    ["start_date", "end_date"],
  ),
  tool(
    "analytics.createAlert",
    "Alert by email when a metric crosses a threshold or changes sharply.",
    {
      metric: string("Metric to watch."),
      condition: oneOf("Trigger.", ["above", "below", "change_percent"]),
      threshold: number("Value."),
      email: email("Who to notify."),
    },
    ["metric", "condition", "threshold"],
  ),
  tool(
    "analytics.getTopPages",
    "List the most viewed pages of the website for a period, with views and average time on page.",
    { start_date: string("From."), end_date: string("To."), limit: integer("How many pages.") },
  ),
  tool(
    "analytics.getTrafficSources",
    "Break down website visits by acquisition source: search, social, referral, email campaigns, direct.",
    { start_date: string("From."), end_date: string("To.") },
  ),
  tool(
    "analytics.runSqlQuery",
    "Run a read-only SQL query on the analytics warehouse and return the rows.",
    { sql: string("SELECT statement."), max_rows: integer("Row cap.") },
    ["sql"],
  ),
  tool("analytics.listExperiments", "List A/B tests with their variants, traffic split and status.", {
    status: oneOf("Status.", ["running", "completed", "draft"]),
  }),
  tool(
    "analytics.getExperimentResults",
    "Get an A/B test's conversion per variant with confidence intervals and the winner, if significant.",
    { experiment_id: string("Experiment.") },
    ["experiment_id"],
  ),
  tool(
    "analytics.annotateChart",
    "Add an annotation (e.g. a release or outage note) on a date so it shows on charts.",
    { date: string("Day."), text: string("Note.") },
    ["date", "text"],
  ),
  tool(
    "analytics.listEvents",
    "List the names of the custom product events being tracked, with their volume over the last 30 days.",
    { ...page },
  ),
];

const email_: CatalogTool[] = [
  tool(
    "email.sendMessage",
    "Send an email to one or more recipients, with subject, plain text or HTML body, cc, bcc and attachments.",
    {
      to: list("Recipients.", email("Address.")),
      cc: list("Copy.", email("Address.")),
      bcc: list("Blind copy.", email("Address.")),
      subject: string("Subject line."),
      body: string("Message body."),
      html: boolean("Body is HTML."),
      attachments: list(
        "Files to attach.",
        object("Attachment.", { filename: string("Name."), content_base64: string("Content.") }),
      ),
    },
    ["to", "subject", "body"],
  ),
  tool(
    "email.replyToMessage",
    "Reply to an email in its thread, optionally to all recipients.",
    {
      message_id: string("Message replied to."),
      body: string("Reply text."),
      reply_all: boolean("Reply to everyone."),
    },
    ["message_id", "body"],
  ),
  tool(
    "email.forwardMessage",
    "Forward an email with its attachments to other people, with an optional note.",
    {
      message_id: string("Message."),
      to: list("Recipients.", email("Address.")),
      note: string("Text above the forwarded message."),
    },
    ["message_id", "to"],
  ),
  tool(
    "email.listMessages",
    "List messages in the mailbox, newest first, filtered by folder/label, sender, unread status or date.",
    {
      label: string("Folder or label, e.g. INBOX."),
      from: string("Sender."),
      unread_only: boolean("Only unread."),
      after: isoTime("Received after."),
      ...page,
    },
  ),
  tool(
    "email.searchMessages",
    "Search the mailbox with a query (words, from:, to:, subject:, has:attachment, before:/after:).",
    { query: string("Search query."), ...page },
    ["query"],
  ),
  tool(
    "email.getMessage",
    "Read one email: headers, body and attachment list.",
    { message_id: string("Message id."), format: oneOf("Body format.", ["text", "html", "raw"]) },
    ["message_id"],
  ),
  tool(
    "email.getThread",
    "Read a whole email conversation (thread), all messages in order.",
    { thread_id: string("Thread id.") },
    ["thread_id"],
  ),
  tool(
    "email.createDraft",
    "Save an email draft without sending it.",
    { to: list("Recipients.", email("Address.")), subject: string("Subject."), body: string("Body.") },
    ["subject"],
  ),
  tool("email.sendDraft", "Send a previously saved draft.", { draft_id: string("Draft.") }, ["draft_id"]),
  tool(
    "email.archiveMessage",
    "Archive an email: remove it from the inbox without deleting it.",
    { message_id: string("Message.") },
    ["message_id"],
  ),
  tool("email.deleteMessage", "Move an email to the trash.", { message_id: string("Message.") }, ["message_id"]),
  tool(
    "email.markAsRead",
    "Mark emails as read or unread.",
    { message_ids: list("Messages.", string("Id.")), read: boolean("True for read, false for unread.") },
    ["message_ids"],
  ),
  tool(
    "email.addLabel",
    "Apply a label (folder) to emails, creating the label if needed.",
    { message_ids: list("Messages.", string("Id.")), label: string("Label name.") },
    ["message_ids", "label"],
  ),
  tool(
    "email.getAttachment",
    "Download an attachment of an email as base64.",
    { message_id: string("Message."), attachment_id: string("Attachment.") },
    ["message_id", "attachment_id"],
  ),
  tool(
    "email.createContact",
    "Add a contact to the address book with name, email and phone.",
    { name: string("Name."), email: email("Email."), phone: string("Phone.") },
    ["email"],
  ),
  tool(
    "email.searchContacts",
    "Look up people in the address book by name or email.",
    { query: string("Name or email fragment.") },
    ["query"],
  ),
  tool(
    "email.createFilter",
    "Create a mail rule that automatically labels, archives or forwards incoming messages matching criteria.",
    {
      from: string("Match sender."),
      subject_contains: string("Match subject."),
      action: oneOf("What to do.", ["label", "archive", "forward", "delete"]),
      action_value: string("Label or forwarding address."),
    },
    ["action"],
  ),
  tool(
    "email.setAutoReply",
    "Turn the vacation auto-responder on or off, with its message and dates.",
    { enabled: boolean("On or off."), message: string("Reply text."), start: isoTime("From."), end: isoTime("Until.") },
    ["enabled"],
  ),
  tool(
    "email.createCampaign",
    "Create a marketing email campaign to a mailing list, from a template, to send now or schedule.",
    {
      list_id: string("Audience list."),
      template_id: string("Template."),
      subject: string("Subject line."),
      send_at: isoTime("Schedule time; omit to keep as draft."),
    },
    ["list_id", "subject"],
  ),
  tool(
    "email.getCampaignStats",
    "Get a campaign's delivery, open, click, bounce and unsubscribe rates.",
    { campaign_id: string("Campaign.") },
    ["campaign_id"],
  ),
  tool(
    "email.addSubscriber",
    "Add a subscriber to a mailing list with merge fields, respecting double opt-in.",
    {
      list_id: string("Mailing list."),
      email: email("Subscriber."),
      merge_fields: object("Name and other fields.", {}),
    },
    ["list_id", "email"],
  ),
  tool(
    "email.unsubscribe",
    "Unsubscribe an address from a mailing list.",
    { list_id: string("Mailing list."), email: email("Address.") },
    ["list_id", "email"],
  ),
  tool("email.listTemplates", "List reusable email templates with their subjects and variables.", { ...page }),
  tool("email.deleteContact", "Remove a contact from the address book.", { contact_id: string("Contact.") }, [
    "contact_id",
  ]),
];

const chat: CatalogTool[] = [
  tool(
    "chat.postMessage",
    "Post a message in a chat channel or direct conversation, optionally as a thread reply.",
    {
      channel_id: string("Channel or DM id."),
      text: string("Message text (Markdown)."),
      thread_ts: string("Parent message timestamp to reply in thread."),
    },
    ["channel_id", "text"],
  ),
  tool(
    "chat.sendDirectMessage",
    "Send a private direct message to one user.",
    { user_id: string("Recipient."), text: string("Message.") },
    ["user_id", "text"],
  ),
  tool(
    "chat.updateMessage",
    "Edit the text of a message the bot posted earlier.",
    { channel_id: string("Channel."), ts: string("Message timestamp."), text: string("New text.") },
    ["channel_id", "ts", "text"],
  ),
  tool(
    "chat.deleteMessage",
    "Delete a message from a channel.",
    { channel_id: string("Channel."), ts: string("Message timestamp.") },
    ["channel_id", "ts"],
  ),
  tool(
    "chat.getChannelHistory",
    "Read recent messages of a channel, newest first, between optional timestamps.",
    { channel_id: string("Channel."), oldest: string("From timestamp."), latest: string("Until timestamp."), ...page },
    ["channel_id"],
  ),
  tool(
    "chat.getThreadReplies",
    "Read all replies in a message thread.",
    { channel_id: string("Channel."), thread_ts: string("Parent timestamp.") },
    ["channel_id", "thread_ts"],
  ),
  tool(
    "chat.searchMessages",
    "Search chat messages across channels by keyword, sender or date.",
    { query: string("Keywords, from:@user, in:#channel."), sort: oneOf("Order.", ["score", "timestamp"]), ...page },
    ["query"],
  ),
  tool("chat.listChannels", "List public and private channels the bot can see, with member counts and topics.", {
    include_private: boolean("Include private channels."),
    ...page,
  }),
  tool(
    "chat.createChannel",
    "Create a new public or private chat channel.",
    { name: string("Channel name, lowercase."), private: boolean("Private channel.") },
    ["name"],
  ),
  tool(
    "chat.archiveChannel",
    "Archive a chat channel so no new messages can be posted.",
    { channel_id: string("Channel.") },
    ["channel_id"],
  ),
  tool(
    "chat.inviteToChannel",
    "Add users to a channel.",
    { channel_id: string("Channel."), user_ids: list("Users to add.", string("User id.")) },
    ["channel_id", "user_ids"],
  ),
  tool(
    "chat.removeFromChannel",
    "Remove (kick) a user from a channel.",
    { channel_id: string("Channel."), user_id: string("User.") },
    ["channel_id", "user_id"],
  ),
  tool(
    "chat.setChannelTopic",
    "Set the topic or purpose line of a channel.",
    { channel_id: string("Channel."), topic: string("Topic text.") },
    ["channel_id", "topic"],
  ),
  tool(
    "chat.addReaction",
    "React to a message with an emoji.",
    { channel_id: string("Channel."), ts: string("Message timestamp."), emoji: string("Emoji name, e.g. thumbsup.") },
    ["channel_id", "ts", "emoji"],
  ),
  tool(
    "chat.pinMessage",
    "Pin a message to the channel so everyone can find it.",
    { channel_id: string("Channel."), ts: string("Message timestamp.") },
    ["channel_id", "ts"],
  ),
  tool("chat.listUsers", "List workspace members with display names, titles and time zones.", { ...page }),
  tool(
    "chat.getUserPresence",
    "Tell whether a user is active or away, and their status emoji and text.",
    { user_id: string("User.") },
    ["user_id"],
  ),
  tool("chat.lookupUserByEmail", "Find a workspace member by their email address.", { email: email("Email.") }, [
    "email",
  ]),
  tool(
    "chat.setStatus",
    "Set the bot user's or a user's status text, emoji and expiry.",
    { text: string("Status text."), emoji: string("Emoji."), expires_at: isoTime("Clear at.") },
    ["text"],
  ),
  tool(
    "chat.scheduleMessage",
    "Schedule a message to be posted in a channel at a later time.",
    { channel_id: string("Channel."), text: string("Message."), post_at: isoTime("When to post.") },
    ["channel_id", "text", "post_at"],
  ),
  tool(
    "chat.uploadFile",
    "Share a file into one or more channels, with an optional comment.",
    {
      channels: list("Channels.", string("Channel id.")),
      filename: string("Name."),
      content_base64: string("Content."),
      initial_comment: string("Message with the file."),
    },
    ["channels", "filename"],
  ),
  tool(
    "chat.setReminder",
    "Create a reminder for a user at a time ('remind me to ... tomorrow at 9').",
    {
      text: string("What to remind."),
      time: string("When, natural language or timestamp."),
      user_id: string("Who; default self."),
    },
    ["text", "time"],
  ),
];

const projects: CatalogTool[] = [
  tool(
    "projects.createIssue",
    "Create an issue (bug, task or story) in a project, with title, description, assignee, priority and labels.",
    {
      project_id: string("Project."),
      title: string("Issue title."),
      description: string("Markdown description."),
      type: oneOf("Kind.", ["bug", "task", "story", "epic"]),
      assignee_id: string("Assignee."),
      priority: oneOf("Priority.", ["lowest", "low", "medium", "high", "highest"]),
      labels: list("Labels.", string("Label.")),
    },
    ["project_id", "title"],
  ),
  tool(
    "projects.getIssue",
    "Fetch an issue with its status, assignee, comments count, links and history.",
    { issue_key: string("Issue key, e.g. WEB-123.") },
    ["issue_key"],
  ),
  tool(
    "projects.updateIssue",
    "Edit an issue's title, description, assignee, priority, labels or estimate.",
    { issue_key: string("Issue key."), fields: object("Fields to change.", {}) },
    ["issue_key"],
  ),
  tool(
    "projects.transitionIssue",
    "Move an issue through its workflow: to do, in progress, in review, done.",
    { issue_key: string("Issue key."), status: string("Target status.") },
    ["issue_key", "status"],
  ),
  tool(
    "projects.searchIssues",
    "Search issues with a query language (project, status, assignee, labels, text), sorted.",
    { jql: string("Query, e.g. project = WEB AND status = Open."), ...page },
    ["jql"],
  ),
  tool(
    "projects.assignIssue",
    "Assign an issue to a team member, or unassign it.",
    { issue_key: string("Issue key."), assignee_id: string("Assignee; null to unassign.") },
    ["issue_key"],
  ),
  tool(
    "projects.addComment",
    "Comment on an issue.",
    { issue_key: string("Issue key."), body: string("Comment (Markdown).") },
    ["issue_key", "body"],
  ),
  tool(
    "projects.linkIssues",
    "Link two issues: blocks, is blocked by, duplicates, relates to.",
    {
      from_key: string("Issue."),
      to_key: string("Other issue."),
      link_type: oneOf("Relation.", ["blocks", "duplicates", "relates"]),
    },
    ["from_key", "to_key", "link_type"],
  ),
  tool(
    "projects.listSprints",
    "List sprints of a board: active, future and closed, with dates and goals.",
    { board_id: string("Board."), state: oneOf("State.", ["active", "future", "closed"]) },
    ["board_id"],
  ),
  tool(
    "projects.createSprint",
    "Create a sprint on a board with a goal and start and end dates.",
    {
      board_id: string("Board."),
      name: string("Name."),
      goal: string("Sprint goal."),
      start: isoTime("Start."),
      end: isoTime("End."),
    },
    ["board_id", "name"],
  ),
  tool(
    "projects.moveToSprint",
    "Move issues into a sprint (or back to the backlog).",
    { sprint_id: string("Sprint; omit for backlog."), issue_keys: list("Issues.", string("Key.")) },
    ["issue_keys"],
  ),
  tool(
    "projects.getSprintReport",
    "Get a sprint's burndown, completed and incomplete issues and velocity.",
    { sprint_id: string("Sprint.") },
    ["sprint_id"],
  ),
  tool("projects.listProjects", "List projects with their keys, leads and issue types.", { ...page }),
  tool(
    "projects.createProject",
    "Create a project with a key, lead and template (scrum or kanban).",
    {
      name: string("Name."),
      key: string("Short key, e.g. WEB."),
      lead_id: string("Project lead."),
      template: oneOf("Template.", ["scrum", "kanban"]),
    },
    ["name", "key"],
  ),
  tool(
    "projects.logWork",
    "Log time spent on an issue (worklog).",
    {
      issue_key: string("Issue key."),
      time_spent_minutes: integer("Minutes worked."),
      comment: string("What was done."),
      started: isoTime("When."),
    },
    ["issue_key", "time_spent_minutes"],
  ),
  tool(
    "projects.listReleases",
    "List releases (versions) of a project with release dates and status.",
    { project_id: string("Project.") },
    ["project_id"],
  ),
  tool(
    "projects.createRelease",
    "Create a release (fix version) for a project with a planned date.",
    { project_id: string("Project."), name: string("Version name."), release_date: string("Planned date.") },
    ["project_id", "name"],
  ),
  tool("projects.getBacklog", "List issues in a board's backlog, ranked.", { board_id: string("Board."), ...page }, [
    "board_id",
  ]),
  tool("projects.listMyIssues", "List issues assigned to the current user that are not done, by priority.", {
    ...page,
  }),
  tool(
    "projects.watchIssue",
    "Start or stop watching an issue to get notifications about changes.",
    { issue_key: string("Issue key."), watch: boolean("True to watch, false to stop.") },
    ["issue_key"],
  ),
  tool(
    "projects.deleteIssue",
    "Delete an issue and its subtasks permanently.",
    { issue_key: string("Issue key."), delete_subtasks: boolean("Also delete subtasks.") },
    ["issue_key"],
  ),
];

const hr: CatalogTool[] = [
  tool(
    "hr.getEmployee",
    "Fetch an employee record: job title, department, manager, start date, location and work email.",
    { employee_id: string("Employee.") },
    ["employee_id"],
  ),
  tool("hr.listEmployees", "List employees in the company directory, filtered by department, location or manager.", {
    department: string("Department."),
    location: string("Office."),
    manager_id: string("Manager."),
    ...page,
  }),
  tool(
    "hr.searchEmployees",
    "Find employees by name, title or skill in the directory.",
    { query: string("Name, title or skill.") },
    ["query"],
  ),
  tool(
    "hr.getOrgChart",
    "Get the reporting tree under a manager: direct and indirect reports.",
    { manager_id: string("Top of the tree."), depth: integer("Levels.") },
    ["manager_id"],
  ),
  tool(
    "hr.requestTimeOff",
    "Submit a time-off request (vacation, sick leave, parental leave) for approval.",
    {
      employee_id: string("Employee."),
      type: oneOf("Leave type.", ["vacation", "sick", "parental", "unpaid"]),
      start_date: string("First day off."),
      end_date: string("Last day off."),
      note: string("Note for the approver."),
    },
    ["employee_id", "type", "start_date", "end_date"],
  ),
  tool(
    "hr.approveTimeOff",
    "Approve or deny a pending time-off request.",
    { request_id: string("Request."), approve: boolean("True to approve."), comment: string("Reason.") },
    ["request_id", "approve"],
  ),
  tool(
    "hr.getTimeOffBalance",
    "Get an employee's remaining vacation and sick days.",
    { employee_id: string("Employee.") },
    ["employee_id"],
  ),
  tool("hr.listTimeOff", "List who is out of office (on leave) in a date range.", {
    start_date: string("From."),
    end_date: string("To."),
    department: string("Department."),
  }),
  tool(
    "hr.createEmployee",
    "Add a new hire to the HR system and start onboarding.",
    {
      first_name: string("Given name."),
      last_name: string("Family name."),
      work_email: email("Work email."),
      job_title: string("Title."),
      department: string("Department."),
      manager_id: string("Manager."),
      start_date: string("First day."),
    },
    ["first_name", "last_name", "start_date"],
  ),
  tool(
    "hr.terminateEmployee",
    "Record an employee's departure, last working day and reason, and start offboarding.",
    { employee_id: string("Employee."), last_day: string("Last day."), reason: string("Reason.") },
    ["employee_id", "last_day"],
  ),
  tool(
    "hr.updateEmployee",
    "Change an employee's title, department, manager or salary, effective on a date.",
    {
      employee_id: string("Employee."),
      changes: object("Fields to change.", {}),
      effective_date: string("Effective date."),
    },
    ["employee_id", "changes"],
  ),
  tool("hr.listJobOpenings", "List open job requisitions with hiring manager and number of applicants.", {
    department: string("Department."),
    ...page,
  }),
  tool(
    "hr.listCandidates",
    "List applicants for a job opening with their pipeline stage.",
    { job_id: string("Opening."), stage: string("Stage."), ...page },
    ["job_id"],
  ),
  tool(
    "hr.scheduleInterview",
    "Schedule an interview with a candidate and interviewers.",
    {
      candidate_id: string("Candidate."),
      interviewer_ids: list("Interviewers.", string("Employee id.")),
      start: isoTime("Start."),
      duration_minutes: integer("Length."),
    },
    ["candidate_id", "interviewer_ids", "start"],
  ),
  tool(
    "hr.getPayslip",
    "Get an employee's payslip for a pay period: gross, deductions, net pay.",
    { employee_id: string("Employee."), period: string("Pay period, YYYY-MM.") },
    ["employee_id", "period"],
  ),
  tool(
    "hr.submitExpense",
    "Submit an expense report with receipt for reimbursement.",
    {
      employee_id: string("Employee."),
      ...money,
      category: oneOf("Category.", ["travel", "meals", "equipment", "other"]),
      receipt_url: string("Receipt image."),
      description: string("What it was for."),
    },
    ["employee_id", "amount", "currency", "category"],
  ),
  tool("hr.listHolidays", "List the public holidays observed by each office location in a year.", {
    year: integer("Year."),
    location: string("Office."),
  }),
  tool(
    "hr.getEmergencyContact",
    "Get the emergency contact (name, relationship, phone) on file for an employee.",
    { employee_id: string("Employee.") },
    ["employee_id"],
  ),
];

/** The full hand-written catalog, in a fixed order. */
export const saasTools: readonly CatalogTool[] = [
  ...crm,
  ...billing,
  ...tickets,
  ...calendar,
  ...storage,
  ...analytics,
  ...email_,
  ...chat,
  ...projects,
  ...hr,
];
