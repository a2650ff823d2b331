// Task: Which open tickets have not had a single reply from an agent yet? Give me the count and the five oldest.
async function allPages<T>(fetch: (cursor?: string) => Promise<{ nextCursor: string | null } & T>): Promise<T[]> {
  const pages: T[] = [];
  let cursor: string | undefined;
  for (;;) {
    const page = await fetch(cursor);
    pages.push(page);
    if (page.nextCursor === null) return pages;
    cursor = page.nextCursor;
  }
}

const ticketPages = await allPages((cursor) =>
  tools.helpdesk.list_tickets({ status: "open", limit: 50, ...(cursor ? { cursor } : {}) }),
);
const open = ticketPages.flatMap((page) => page.tickets);

const answered = await Promise.all(
  open.map(async (ticket) => {
    const pages = await allPages((cursor) =>
      tools.helpdesk.list_comments({ ticketId: ticket.id, ...(cursor ? { cursor } : {}) }),
    );
    return pages.some((page) => page.comments.some((comment) => comment.author === "agent"));
  }),
);
const waiting = open.filter((_, index) => !answered[index]);
return {
  openTickets: open.length,
  waitingForAgent: waiting.length,
  oldest: waiting.slice(0, 5).map((t) => ({ id: t.id, createdAt: t.createdAt, subject: t.subject })),
  complete: true,
};
