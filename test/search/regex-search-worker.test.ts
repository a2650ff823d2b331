// Regex searches from models and programs run on a worker thread with a hard deadline: the
// pattern of issue 14 that held the host loop for about a minute must settle fast, and the
// loop must keep turning meanwhile.
import { afterEach, describe, expect, it } from "vitest";
import { loadMcpTools } from "../../bench/search/catalog/mcp-tools.js";
import { saasTools } from "../../bench/search/catalog/saas-tools.js";
import { REGEX_WORKER_DEADLINE_MS } from "../../src/search/regex-search-worker.js";
import { type SearchableTool, ToolSearch } from "../../src/search/tool-search.js";

const HOSTILE = ".{0,99}.{0,99}.{0,99}.{0,99}~";

async function largeCatalog(size: number): Promise<SearchableTool[]> {
  const real = [...(await loadMcpTools()), ...saasTools];
  const tools: SearchableTool[] = [...real];
  for (let copy = 2; tools.length < size; copy++) {
    for (const tool of real.slice(0, size - tools.length)) {
      const dot = tool.name.indexOf(".");
      tools.push({ ...tool, name: `${tool.name.slice(0, dot)}${copy}${tool.name.slice(dot)}` });
    }
  }
  return tools;
}

const searches: ToolSearch[] = [];
afterEach(async () => {
  await Promise.all(searches.splice(0).map((search) => search.close()));
});

function searchOver(tools: readonly SearchableTool[]): ToolSearch {
  const search = new ToolSearch();
  search.setTools("catalog", tools);
  searches.push(search);
  return search;
}

describe("regex search off the event loop", () => {
  it("stops the issue-14 pattern over 1,000 tools at its deadline while the host loop keeps turning", async () => {
    const search = searchOver(await largeCatalog(1_000));
    let ticks = 0;
    const ticker = setInterval(() => {
      ticks += 1;
    }, 5);
    let timerFiredFirst = false;
    const sentinel = new Promise<void>((resolve) =>
      setTimeout(() => {
        timerFiredFirst = true;
        resolve();
      }, 20),
    );
    const startedAt = Date.now();
    const result = await search.searchOffThread(HOSTILE, { mode: "regex" });
    const elapsedMs = Date.now() - startedAt;
    clearInterval(ticker);
    await sentinel;
    expect(result).toMatchObject({ ok: false, error: { code: "PATTERN_INVALID" } });
    expect(!result.ok && result.error.message).toContain(`${REGEX_WORKER_DEADLINE_MS} ms`);
    // Issue 14 measured about 60 s of a blocked loop for this pattern.
    expect(elapsedMs).toBeLessThan(5_000);
    expect(timerFiredFirst).toBe(true);
    expect(ticks).toBeGreaterThan(5);
  }, 20_000);

  it("finds what the same pattern finds on the calling thread, and keeps working after a deadline", async () => {
    const search = searchOver(saasTools);
    const onThread = search.search("list.*invoice", { mode: "regex", limit: 10 });
    expect(await search.searchOffThread("list.*invoice", { mode: "regex", limit: 10 })).toEqual(onThread);
    expect(await search.searchOffThread(HOSTILE, { mode: "regex" })).toMatchObject({ ok: false });
    expect(await search.searchOffThread("refund", { mode: "regex", limit: 3 })).toEqual(
      search.search("refund", { mode: "regex", limit: 3 }),
    );
  });

  it("runs a pattern with the flags the calling thread compiles it with (Unicode escapes, legacy escapes)", async () => {
    const search = searchOver([
      { name: "geo.straßeSuchen", description: "Sucht eine Straße.", inputSchema: { type: "object" } },
      { name: "get-user", description: "Gets a user.", inputSchema: { type: "object" } },
    ] as SearchableTool[]);
    for (const pattern of ["stra\\p{Ll}e", "get\\-user"]) {
      const onThread = search.search(pattern, { mode: "regex", limit: 5 });
      expect(onThread.ok && onThread.references.length).toBe(1);
      expect(await search.searchOffThread(pattern, { mode: "regex", limit: 5 })).toEqual(onThread);
    }
  });

  it("refuses a pattern the structural check rejects without starting a search, and follows catalog changes", async () => {
    const search = searchOver(saasTools.slice(0, 20));
    expect(await search.searchOffThread("(a+)+$", { mode: "regex" })).toMatchObject({
      ok: false,
      error: { code: "PATTERN_INVALID", message: expect.stringMatching(/repeated group/) },
    });
    expect(await search.searchOffThread("escalat", { mode: "regex" })).toEqual({ ok: true, references: [] });
    search.upsert({ name: "tickets.escalate", description: "Escalate a ticket.", inputSchema: { type: "object" } });
    const after = await search.searchOffThread("escalat", { mode: "regex" });
    expect(after.ok && after.references.map((reference) => reference.name)).toEqual(["tickets.escalate"]);
  });
});
