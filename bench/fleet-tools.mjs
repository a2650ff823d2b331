// The tool of bench:fleet, as a plain module both the bench process and `switchyard worker`
// load: a read that answers after a 1 ms timer, like a fast local service.

export const tools = [
  {
    name: "bench.work",
    description: "Answers after 1 ms.",
    effect: "read",
    inputSchema: { type: "object", properties: { i: { type: "number" }, n: { type: "number" } } },
    execute: (input) => new Promise((resolve) => setTimeout(() => resolve(input.i + input.n), 1)),
  },
];
