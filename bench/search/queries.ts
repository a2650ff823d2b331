// Labeled queries for the search benchmark: what a model writes when it looks for a tool,
// with the tool(s) a person would say answer it and the regex a model would send in regex
// mode. Labels were written from the task, not from the engine's output: when two tools
// both answer (a file listing with or without sizes), both are listed.

export interface LabeledQuery {
  /** Natural-language query, as a model or user phrases it. */
  readonly query: string;
  /** Full names of the tools that answer it; a hit on any of them counts. */
  readonly answers: readonly string[];
  /** The pattern a model would send in regex mode. */
  readonly pattern: string;
}

const q = (query: string, answers: string | readonly string[], pattern: string): LabeledQuery => ({
  query,
  answers: typeof answers === "string" ? [answers] : answers,
  pattern,
});

export const queries: readonly LabeledQuery[] = [
  // billing
  q("create a refund for a charge", "billing.createRefund", "refund"),
  q("give the customer their money back for a duplicate payment", "billing.createRefund", "refund"),
  q("charge the customer's card 49 dollars", "billing.createCharge", "create.*charge"),
  q("show all unpaid invoices for a customer", "billing.listInvoices", "list.*invoice"),
  q("send the invoice to the client by email", "billing.sendInvoice", "send.*invoice"),
  q("cancel a subscription at the end of the billing period", "billing.cancelSubscription", "cancel.*subscription"),
  q("upgrade customer to a bigger plan with more seats", "billing.updateSubscription", "update.*subscription"),
  q("start a 14 day free trial subscription", "billing.createSubscription", "create.*subscription"),
  q("make a 20% off discount code", "billing.createCoupon", "coupon|discount"),
  q("how much money is available in our account balance", "billing.getBalance", "balance"),
  q("list chargebacks we need to respond to", "billing.listDisputes", "dispute|chargeback"),
  q("save a new credit card for the customer", "billing.attachPaymentMethod", "payment.?method"),
  q("why did this payment fail", "billing.getCharge", "get.*charge"),
  q("void an invoice that was sent by mistake", "billing.voidInvoice", "void"),
  q("add a line item to the next invoice", "billing.addInvoiceItem", "invoice.?item"),
  q("when does the next payout hit our bank", "billing.listPayouts", "payout"),
  // crm
  q("who owns this deal in the crm", ["crm.getDeal", "crm.listOwners"], "crm.*deal"),
  q("add a new lead to the crm", "crm.createContact", "crm.*create.*contact"),
  q("move the deal to closed won", "crm.moveDealStage", "deal.*stage"),
  q("log a phone call with a prospect", "crm.logCall", "call"),
  q("merge two duplicate contact records", "crm.mergeContacts", "merge.*contact"),
  q("what deals are expected to close this quarter", "crm.listDeals", "list.*deal"),
  q("add a note to the account timeline", "crm.addNote", "note"),
  q("reassign these accounts to another sales rep", "crm.assignOwner", "assign.*owner"),
  q("import a csv of contacts into the crm", "crm.importContacts", "import"),
  q("show the stages of our sales pipeline", "crm.listPipelines", "pipeline"),
  q("set up a follow up reminder task for the rep", "crm.createTask", "crm.*task"),
  q("look up a company account and its open deals", "crm.getCompany", "get.*company"),
  q("find crm contacts that are customers", "crm.searchContacts", "crm.*contact"),
  // tickets
  q("open a support ticket for a customer", "tickets.createTicket", "create.*ticket"),
  q("reply to the customer on their ticket", "tickets.addComment", "ticket.*comment|comment"),
  q("escalate this issue to engineering", "tickets.escalateTicket", "escalat"),
  q("mark the ticket as solved", "tickets.closeTicket", "close.*ticket|solved"),
  q("which tickets breached the SLA", "tickets.listSlaBreaches", "sla"),
  q("customer satisfaction scores on tickets", "tickets.getSatisfactionRatings", "satisfaction|csat"),
  q("search knowledge base articles about password reset", "tickets.searchArticles", "article"),
  q("give the ticket to an agent", "tickets.assignTicket", "assign.*ticket"),
  q("combine duplicate tickets", "tickets.mergeTickets", "merge.*ticket"),
  q("apply a canned response to a ticket", "tickets.applyMacro", "macro"),
  // calendar
  q("find upcoming meetings next week", "calendar.listEvents", "calendar.*list.*event"),
  q("schedule a meeting with the team tomorrow at 3pm", ["calendar.createEvent", "calendar.quickAdd"], "create.*event"),
  q("when are Ana and Bob both free for a 30 minute call", ["calendar.findFreeSlots", "calendar.getFreeBusy"], "free"),
  q("decline the meeting invitation", "calendar.respondToEvent", "respond|decline"),
  q("reschedule the event to friday", "calendar.updateEvent", "update.*event"),
  q("cancel tomorrow's standup meeting", "calendar.deleteEvent", "delete.*event"),
  q("book a conference room for 10 people", ["calendar.bookRoom", "calendar.listRooms"], "room"),
  q(
    "set out of office while I'm on vacation",
    ["calendar.setOutOfOffice", "email.setAutoReply"],
    "out.?of.?office|auto.?reply",
  ),
  q("share my calendar with my assistant", "calendar.shareCalendar", "share.*calendar"),
  q("remind me 10 minutes before the event", "calendar.setReminder", "calendar.*reminder"),
  q("create a booking page where clients pick a time", "calendar.createBookingLink", "booking"),
  // storage + filesystem MCP
  q(
    "list files in a directory",
    ["filesystem.list_directory", "filesystem.list_directory_with_sizes", "storage.listFiles"],
    "list.*(dir|file)",
  ),
  q("read the contents of a text file", ["filesystem.read_text_file", "filesystem.read_file"], "read.*file"),
  q("write text to a new file on disk", "filesystem.write_file", "write"),
  q("make a new folder", ["filesystem.create_directory", "storage.createFolder"], "create.*(folder|directory)"),
  q("rename a file", ["filesystem.move_file", "storage.renameFile"], "rename"),
  q("find files matching a glob pattern", "filesystem.search_files", "search.*file"),
  q("show the directory tree recursively", "filesystem.directory_tree", "tree"),
  q(
    "get the size and modification time of a file",
    ["filesystem.get_file_info", "storage.getFileMetadata", "filesystem.list_directory_with_sizes"],
    "file.*info|metadata",
  ),
  q("replace some lines in a file and show the diff", "filesystem.edit_file", "edit"),
  q("which folders am I allowed to access", "filesystem.list_allowed_directories", "allowed"),
  q("read several files at once", "filesystem.read_multiple_files", "multiple"),
  q("open an image file as base64", "filesystem.read_media_file", "media|image"),
  q("share a document with a coworker as editor", "storage.shareFile", "share.*file"),
  q("get a public link to a file", "storage.createShareLink", "link"),
  q("restore an older version of the document", "storage.restoreVersion", "version"),
  q("recover a file I deleted from the trash", "storage.restoreFile", "restore"),
  q("convert the docx to pdf", "storage.convertFile", "convert"),
  q("how much storage space is left", "storage.getStorageQuota", "quota|storage"),
  q("upload a file to the cloud drive", "storage.uploadFile", "upload"),
  q("who has access to this folder", "storage.listPermissions", "permission"),
  // analytics
  q("how many users visited the site last month by country", "analytics.runReport", "report"),
  q("conversion funnel from signup to purchase", "analytics.getFunnel", "funnel"),
  q("weekly retention of new users", "analytics.getRetention", "retention"),
  q("track a signup event for a user", "analytics.trackEvent", "track"),
  q("results of the a/b test on the pricing page", "analytics.getExperimentResults", "experiment"),
  q("where does our website traffic come from", "analytics.getTrafficSources", "traffic|source"),
  q("most popular pages on the website", "analytics.getTopPages", "page"),
  q("alert me when signups drop below 100", "analytics.createAlert", "alert"),
  q("run a sql query on the warehouse", "analytics.runSqlQuery", "sql"),
  q("how many people are on the site right now", "analytics.getRealtime", "realtime"),
  // email
  q("send an email with an attachment", "email.sendMessage", "send.*(message|email)"),
  q("find emails from john about the contract", "email.searchMessages", "search.*message"),
  q("show unread emails in my inbox", "email.listMessages", "list.*message"),
  q("forward this email to my manager", "email.forwardMessage", "forward"),
  q("save an email draft", "email.createDraft", "draft"),
  q("automatically label emails from the newsletter", "email.createFilter", "filter|rule"),
  q("open and click rates of the newsletter campaign", "email.getCampaignStats", "campaign.*stat"),
  q("add someone to the mailing list", "email.addSubscriber", "subscriber"),
  q("add a person to my address book", "email.createContact", "email.*contact"),
  q("download the pdf attached to an email", "email.getAttachment", "attachment"),
  // chat
  q("post a message in the engineering channel", "chat.postMessage", "post.*message"),
  q("send a DM to a colleague", "chat.sendDirectMessage", "direct"),
  q("read the latest messages in a channel", "chat.getChannelHistory", "history"),
  q("create a private channel for the project", "chat.createChannel", "create.*channel"),
  q("react with thumbs up to a message", "chat.addReaction", "reaction|emoji"),
  q("is this user online right now", "chat.getUserPresence", "presence"),
  q("find a slack user by their email address", "chat.lookupUserByEmail", "lookup.*email|user.*email"),
  q("post this message tomorrow morning", "chat.scheduleMessage", "schedule.*message"),
  q("add people to a channel", "chat.inviteToChannel", "invite"),
  // projects
  q("file a bug report in the project tracker", "projects.createIssue", "create.*issue"),
  q("move the issue to in progress", "projects.transitionIssue", "transition"),
  q("log 2 hours of work on a ticket", "projects.logWork", "log.*work|worklog"),
  q("what's in the current sprint", ["projects.listSprints", "projects.getSprintReport"], "sprint"),
  q("mark this issue as blocking another one", "projects.linkIssues", "link"),
  q("what issues are assigned to me", "projects.listMyIssues", "my.*issue"),
  // hr
  q("request vacation days next month", "hr.requestTimeOff", "time.?off"),
  q("how many vacation days do I have left", "hr.getTimeOffBalance", "balance"),
  q("who reports to this manager", "hr.getOrgChart", "org.*chart|report"),
  q("who is on leave this week", "hr.listTimeOff", "list.*time.?off"),
  q("onboard a new hire starting monday", "hr.createEmployee", "create.*employee"),
  q("submit a receipt for reimbursement", "hr.submitExpense", "expense"),
  q("schedule an interview with a candidate", "hr.scheduleInterview", "interview"),
  q("get my payslip for march", "hr.getPayslip", "payslip"),
  // knowledge graph (memory MCP)
  q(
    "remember facts about a person in the knowledge graph",
    ["memory.create_entities", "memory.add_observations"],
    "entit|observation",
  ),
  q("link two entities with a relation", "memory.create_relations", "relation"),
  q("search the knowledge graph for a name", "memory.search_nodes", "search.*node"),
  q("forget an observation about an entity", "memory.delete_observations", "delete.*observation"),
  q("dump the whole knowledge graph", "memory.read_graph", "graph"),
  // everything MCP
  q("add two numbers together", "everything.get-sum", "sum|add"),
  q("echo back a string", "everything.echo", "echo"),
  q("compress a file with gzip", "everything.gzip-file-as-resource", "gzip|compress"),
  q("print environment variables of the server", "everything.get-env", "env"),
  q(
    "run a long operation that reports progress",
    "everything.trigger-long-running-operation",
    "long.?running|progress",
  ),
];
