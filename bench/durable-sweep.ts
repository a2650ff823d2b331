// The durable benches' workload: a sequential sweep of SWEEP_CALLS pages, each answer naming the
// next cursor, so no call can start before the one before it answered (the worst case for a
// journal: nothing to batch), and its instant `api.page` tool.

import { defineTool } from "../src/registry/define-tool.js";

/** Calls one sweep makes. */
export const SWEEP_CALLS = 2_000;

/** The sweep; returns the sum of the items. */
export const SWEEP = `let cursor = 0; let sum = 0;
while (cursor !== null) { const page = await tools.api.page({ cursor }); sum += page.item; cursor = page.next; }
return sum;`;

/** One page of the sweep: its item and the next cursor, null after the last. */
export function pageOf(cursor: number): { item: number; next: number | null } {
  return { item: cursor * 2, next: cursor + 1 < SWEEP_CALLS ? cursor + 1 : null };
}

/** `api.page`, answering at once with `pageOf`. */
export function pageTool() {
  return defineTool({
    name: "api.page",
    description: "One page of a listing.",
    inputSchema: { type: "object", properties: { cursor: { type: "number" } }, required: ["cursor"] },
    execute: (input: { cursor: number }) => pageOf(input.cursor),
  });
}
