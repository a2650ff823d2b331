// The story the three framework examples share: a support desk whose tools already exist in the
// framework (list open tickets page by page, look a customer's tier up). The model is asked which
// open tickets belong to premium customers; the program it writes pages to the end and looks
// every customer up in parallel. The examples use a scripted model so they run offline.

export interface Ticket {
  readonly id: string;
  readonly customerId: string;
  readonly subject: string;
}

const SUBJECTS = ["login fails", "invoice wrong", "export slow", "API 500", "seat limit"];

/** 23 open tickets over 9 customers. */
export const TICKETS: readonly Ticket[] = Array.from({ length: 23 }, (_, index) => ({
  id: `T-${100 + index}`,
  customerId: `cus_${(index * 4) % 9}`,
  subject: SUBJECTS[index % SUBJECTS.length]!,
}));

const PREMIUM = new Set(["cus_2", "cus_5", "cus_7"]);
export const PAGE_SIZE = 5;

/** One page of open tickets: what the framework tools' `execute` returns. */
export function listOpenTickets(cursor: number): { tickets: Ticket[]; nextCursor: number | null } {
  const tickets = TICKETS.slice(cursor, cursor + PAGE_SIZE);
  return { tickets, nextCursor: cursor + PAGE_SIZE < TICKETS.length ? cursor + PAGE_SIZE : null };
}

/** A customer's tier. */
export function tierOf(customerId: string): { tier: "premium" | "standard" } {
  return { tier: PREMIUM.has(customerId) ? "premium" : "standard" };
}

export const TASK = "Which open tickets belong to premium customers?";

/** The program the scripted model writes: 5 pages, then 9 tier lookups at once. */
export const DESK_PROGRAM = `
const tickets: { id: string; customerId: string }[] = [];
let cursor: number | null = 0;
while (cursor !== null) {
  const page = (await tools.desk.listOpenTickets({ cursor })) as { tickets: typeof tickets; nextCursor: number | null };
  tickets.push(...page.tickets);
  cursor = page.nextCursor;
}
const customers = [...new Set(tickets.map((ticket) => ticket.customerId))];
const tiers = await Promise.all(customers.map((customerId) => tools.desk.customerTier({ customerId })));
const premium = new Set(customers.filter((_, index) => (tiers[index] as { tier: string }).tier === "premium"));
return { scanned: tickets.length, premiumTickets: tickets.filter((ticket) => premium.has(ticket.customerId)).map((ticket) => ticket.id) };
`;

/** The scripted model's final answer, read from the run_program result it was sent. */
export function answerFromRunResultText(text: string): string {
  const line = text.split("\n").find((entry) => entry.startsWith("output: "));
  if (line === undefined) return `The program did not finish:\n${text}`;
  const output = JSON.parse(line.slice("output: ".length)) as { scanned: number; premiumTickets: string[] };
  return `${output.premiumTickets.length} of ${output.scanned} open tickets belong to premium customers: ${output.premiumTickets.join(", ")}.`;
}

/** The answer, computed directly, for tests. */
export function expectedDeskAnswer(): string {
  const premium = TICKETS.filter((ticket) => PREMIUM.has(ticket.customerId)).map((ticket) => ticket.id);
  return `${premium.length} of ${TICKETS.length} open tickets belong to premium customers: ${premium.join(", ")}.`;
}
