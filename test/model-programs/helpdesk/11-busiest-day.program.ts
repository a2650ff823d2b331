// Task: On which day (UTC) were the most tickets created, and how many? Ties: the earliest day.
async () => {
  const perDay: Record<string, number> = {};
  let cursor: string | null = null;
  do {
    const page = await tools.helpdesk.list_tickets({ limit: 50, ...(cursor ? { cursor } : {}) });
    for (const ticket of page.tickets) {
      const day = ticket.createdAt.slice(0, 10);
      perDay[day] = (perDay[day] ?? 0) + 1;
    }
    cursor = page.nextCursor;
  } while (cursor);
  const [day, tickets] = Object.entries(perDay).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))[0]!;
  return { day, tickets, days: Object.keys(perDay).length };
}
