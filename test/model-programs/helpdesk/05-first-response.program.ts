// Task: For closed tickets, what is the average time in minutes from the ticket being opened to the first agent comment? Ignore tickets an agent never answered, but tell me how many those were.
const closed = [];
let cursor: string | null = null;
do {
  const page = await tools.helpdesk.list_tickets({ status: "closed", limit: 50, ...(cursor ? { cursor } : {}) });
  closed.push(...page.tickets);
  cursor = page.nextCursor;
} while (cursor);

async function firstAgentCommentAt(ticketId: string): Promise<string | null> {
  let next: string | null = null;
  do {
    const page = await tools.helpdesk.list_comments({ ticketId, ...(next ? { cursor: next } : {}) });
    const agent = page.comments.find((c) => c.author === "agent");
    if (agent) return agent.createdAt;
    next = page.nextCursor;
  } while (next);
  return null;
}

const firstReplies = await Promise.all(closed.map((t) => firstAgentCommentAt(t.id)));
const minutes: number[] = [];
closed.forEach((ticket, i) => {
  const reply = firstReplies[i];
  if (reply) minutes.push((Date.parse(reply) - Date.parse(ticket.createdAt)) / 60_000);
});
const average = minutes.length === 0 ? null : Math.round((minutes.reduce((a, b) => a + b, 0) / minutes.length) * 10) / 10;
return { closedTickets: closed.length, answered: minutes.length, neverAnswered: closed.length - minutes.length, averageMinutes: average };
