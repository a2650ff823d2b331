// Task: Count the comments on every ticket. This may be more calls than one run allows: if the budget runs low, stop and tell me how far you got.
let ticketsDone = 0;
let comments = 0;
let cursor: string | null = null;
let stoppedEarly = false;
outer: do {
  const page = await tools.helpdesk.list_tickets({ limit: 10, ...(cursor ? { cursor } : {}) });
  for (const ticket of page.tickets) {
    const budget = await tools.$budget();
    if (budget.callsLeft < 5 || budget.timeLeftMs < 2_000) {
      stoppedEarly = true;
      break outer;
    }
    let next: string | null = null;
    do {
      const commentPage = await tools.helpdesk.list_comments({ ticketId: ticket.id, ...(next ? { cursor: next } : {}) });
      comments += commentPage.comments.length;
      next = commentPage.nextCursor;
    } while (next);
    ticketsDone++;
  }
  cursor = page.nextCursor;
} while (cursor);
return { ticketsDone, comments, complete: !stoppedEarly, resumeNote: stoppedEarly ? "stopped on budget" : null };
