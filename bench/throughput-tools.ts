// The tool and program of bench:throughput's I/O-bound workload, in a module of their own so
// the prototype worker that runs tools itself (throughput-local-worker.ts) loads the same ones.

import { defineTool, type ToolDefinition } from "../src/registry/define-tool.js";

/** 20 sequential calls to a 2 ms tool: a paginated sweep's shape. */
export const IO_BOUND_PROGRAM = `
  let pages = 0;
  for (let page = 0; page < 20; page++) {
    const answer = await tools.api.page({ page });
    pages += answer.page === page ? 1 : 0;
  }
  return pages;`;

/** `api.page`: answers after 2 ms with the page it was asked for; `api.noop` at once. */
export function ioTools(): ToolDefinition[] {
  return [
    defineTool({
      name: "api.noop",
      description: "Answers at once.",
      effect: "read",
      inputSchema: { type: "object" },
      execute: () => true,
    }),
    defineTool({
      name: "api.page",
      description: "Returns one page after 2 ms.",
      effect: "read",
      inputSchema: { type: "object", properties: { page: { type: "integer" } }, required: ["page"] },
      execute: (input: { page: number }) =>
        new Promise((resolve) => setTimeout(() => resolve({ page: input.page, items: [] }), 2)),
    }),
  ];
}
