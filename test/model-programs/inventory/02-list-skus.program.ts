// Task: List every SKU in the catalog. Pages sometimes time out, so retry a page rather than giving up.
const skus: string[] = [];
let cursor: string | undefined;
let retries = 0;
while (true) {
  let page;
  try {
    page = await tools.inventory.list_skus(cursor === undefined ? {} : { cursor });
  } catch (e) {
    if (isToolCallError(e) && e.code === "TOOL_TIMEOUT" && retries < 3) {
      retries++;
      continue;
    }
    throw e;
  }
  skus.push(...page.skus);
  if (page.nextCursor === null) break;
  cursor = page.nextCursor;
}
return { count: skus.length, first: skus[0], last: skus[skus.length - 1], retries };
