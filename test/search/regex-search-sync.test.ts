// Library callers search with a regex synchronously (`yard.searchTools(p, { mode: "regex" })`,
// `searchAndLoad`): the match runs on a worker thread while the caller waits for at most the
// deadline, so a pattern the static check lets through cannot hold the host for seconds.

import { afterAll, describe, expect, it } from "vitest";
import { defineTool } from "../../src/registry/define-tool.js";
import { REGEX_WORKER_DEADLINE_MS } from "../../src/search/regex-search-worker.js";
import { Switchyard } from "../../src/switchyard.js";

// Bounded quantifiers pass the static check (none is unbounded), yet backtrack about 10^6 ways
// at every position of a field with no `~`.
const HOSTILE = ".{0,99}.{0,99}.{0,99}~";

const longText = (seed: string): string => `${seed} `.repeat(200).slice(0, 990);
const yard = new Switchyard({
  tools: [
    defineTool({
      name: "billing.listInvoices",
      description: longText("Lists the invoices of a customer, newest first, with their totals"),
      inputSchema: {
        type: "object",
        properties: { customer: { type: "string", description: longText("The customer whose invoices to list") } },
      },
      effect: "read",
      execute: () => [],
    }),
  ],
  typeCheck: "off",
});
afterAll(() => yard.close());

/** Runs `search` and measures how long it held the calling thread. */
function timed<T>(search: () => T): { result: T; heldMs: number } {
  const startedAt = performance.now();
  const result = search();
  return { result, heldMs: performance.now() - startedAt };
}

describe("synchronous regex search for library callers", () => {
  it("finds tools with an ordinary pattern, synchronously", () => {
    const result = yard.searchTools("list.*invoice", { mode: "regex" });
    expect(result).toMatchObject({ ok: true, references: [{ name: "billing.listInvoices" }] });
  });

  it("stops a pattern that backtracks for seconds at the deadline, in searchTools", () => {
    yard.searchTools("invoice", { mode: "regex" }); // the worker is started and has the catalog
    const { result, heldMs } = timed(() => yard.searchTools(HOSTILE, { mode: "regex" }));
    expect(result).toMatchObject({ ok: false, error: { code: "PATTERN_INVALID" } });
    expect(result.ok ? "" : result.error.message).toContain(`took over ${REGEX_WORKER_DEADLINE_MS} ms`);
    // The deadline plus the worker's stop, far from the pattern's own seconds.
    expect(heldMs).toBeLessThan(REGEX_WORKER_DEADLINE_MS + 1_000);
  });

  it("stops it in searchAndLoad too, with the same refusal, and searches normally after", () => {
    const { result, heldMs } = timed(() => {
      try {
        yard.searchAndLoad(HOSTILE, { mode: "regex" });
        return "answered";
      } catch (error) {
        return (error as { code?: string }).code;
      }
    });
    expect(result).toBe("PATTERN_INVALID");
    expect(heldMs).toBeLessThan(REGEX_WORKER_DEADLINE_MS + 3_000);
    // A new worker starts for the next search.
    expect(yard.searchTools("invoices", { mode: "regex" })).toMatchObject({ ok: true });
  });
});
