// Task: Continue counting pending tickets from the cursor "resume-here" I saved last time; if that cursor is no good, start over from the beginning and say so.
let cursor: string | null = "resume-here";
let restarted = false;
let pending = 0;
for (;;) {
  let page;
  try {
    page = await tools.helpdesk.list_tickets({ status: "pending", limit: 50, ...(cursor ? { cursor } : {}) });
  } catch (e) {
    if (isToolCallError(e) && e.code === "CURSOR_INVALID" && !restarted) {
      restarted = true;
      cursor = null;
      continue;
    }
    throw e;
  }
  pending += page.tickets.length;
  if (page.nextCursor === null) break;
  cursor = page.nextCursor;
}
return { pending, restarted };
