import { describe, expect, it } from "vitest";
import { SWEEP_PROGRAM } from "../../examples/orders/sweep-program.js";
import { renderRunResultForModel } from "../../src/model-tools/render-for-model.js";
import { runAgent } from "../../src/agent/run-agent.js";
import { unansweredToolCalls } from "../../src/agent/transcript.js";
import { defineTool } from "../../src/registry/define-tool.js";
import { Switchyard } from "../../src/switchyard.js";
import { OrdersService } from "../../examples/orders/orders-service.js";
import { createOrdersTools } from "../../examples/orders/orders-tools.js";
import type { RecordedRequest } from "../../src/testing/index.js";
import {
  adapterFor,
  lastToolResults,
  ordersYard,
  startServer,
  TRANSPORTS,
  type ProviderKind,
} from "./agent-fixtures.js";

function toolNamesOf(request: RecordedRequest): string[] {
  return request.protocol === "openai"
    ? request.body.tools.map((tool: any) => tool.function.name)
    : request.body.tools.map((tool: any) => tool.name);
}

describe.each(TRANSPORTS)("programmatic mode ($label)", ({ provider, stream }) => {
  it("runs the sweep program the model sends through run_program, then returns its final answer", async () => {
    const server = await startServer({
      script: [
        {
          content: [
            { type: "text", text: "I'll sweep every customer in one program." },
            { type: "tool_use", id: "call_sweep", name: "run_program", input: { code: SWEEP_PROGRAM } },
          ],
        },
        { content: [{ type: "text", text: "Found the duplicate charges." }], stopReason: "end_turn" },
      ],
    });
    const { yard, service } = ordersYard();
    const result = await runAgent({
      yard,
      model: adapterFor(server, provider, stream),
      task: "Find every order charged twice.",
      mode: "programmatic",
    });

    expect(result.status).toBe("completed");
    expect(result.finalText).toBe("Found the duplicate charges.");
    expect(result.steps).toBe(2);
    expect(result.runs).toHaveLength(1);
    const run = result.runs[0]!;
    expect(run.ok, run.error?.message).toBe(true);
    const truth = service.groundTruth();
    const output = run.output as { candidates: { orderId: string }[] };
    expect(output.candidates.map((candidate) => candidate.orderId).sort()).toEqual(
      truth.duplicates.map((duplicate) => duplicate.orderId).sort(),
    );

    // The model saw only run_program, and got the rendered run back under its own call id.
    expect(toolNamesOf(server.turnRequests[0]!)).toEqual(["run_program"]);
    expect(server.turnRequests.every((request) => request.stream === stream)).toBe(true);
    const [answer] = lastToolResults(server.turnRequests[1]!.body, provider);
    expect(answer).toMatchObject({ id: "call_sweep", content: renderRunResultForModel(run) });
    if (provider === "anthropic") expect(answer!.isError).toBe(false);
    expect(unansweredToolCalls(result.messages)).toEqual({ unanswered: [], duplicated: [], orphaned: [] });
    expect(result.usage.requests).toHaveLength(2);
  });
});

describe.each<ProviderKind>(["anthropic", "openai", "openai-responses"])("direct mode (%s)", (provider) => {
  it("calls orders.search, then getPaymentContext for a few orders, each through the pipeline", async () => {
    let orderIds: string[] = [];
    const server = await startServer({
      script: [
        {
          content: [
            {
              type: "tool_use",
              id: "call_search",
              name: "orders__search",
              input: { customerId: "cus_1001", pageSize: 3 },
            },
          ],
        },
        (request) => {
          const page = JSON.parse(lastToolResults(request.body, provider)[0]!.content) as {
            orders: { orderId: string }[];
          };
          orderIds = page.orders.map((order) => order.orderId);
          return {
            content: orderIds.map((orderId, index) => ({
              type: "tool_use" as const,
              id: `call_pay_${index}`,
              name: "orders__getPaymentContext",
              input: { orderId },
            })),
          };
        },
        { content: [{ type: "text", text: "Checked three orders." }] },
      ],
    });
    const { yard, service } = ordersYard();
    const started: string[] = [];
    const result = await runAgent({
      yard,
      model: adapterFor(server, provider),
      task: "Check cus_1001's first orders.",
      mode: "direct",
      onEvent: (event) => {
        if (event.type === "tool-call-start") started.push(`${event.name}=${event.tool}`);
      },
    });

    expect(result.status).toBe("completed");
    expect(orderIds).toHaveLength(3);
    expect(toolNamesOf(server.turnRequests[0]!)).toEqual([
      "orders__search",
      "orders__getPaymentContext",
      "results__read",
    ]);
    expect(started).toEqual([
      "orders__search=orders.search",
      "orders__getPaymentContext=orders.getPaymentContext",
      "orders__getPaymentContext=orders.getPaymentContext",
      "orders__getPaymentContext=orders.getPaymentContext",
    ]);
    const payments = lastToolResults(server.turnRequests[2]!.body, provider);
    expect(payments.map((answer) => answer.id)).toEqual(["call_pay_0", "call_pay_1", "call_pay_2"]);
    // Each payment result is bound to its own order; only an order whose lookups are seeded to fail may answer with an error.
    const truth = service.groundTruth(["cus_1001"]);
    const transient = new Set(truth.transientFailures.map((failure) => failure.orderId));
    payments.forEach((answer, index) => {
      const orderId = orderIds[index]!;
      if (truth.permanentFailures.includes(orderId)) expect(answer.content).toMatch(/^error /);
      else if (!(transient.has(orderId) && answer.content.startsWith("error")))
        expect(JSON.parse(answer.content).orderId).toBe(orderId);
    });
    expect(result.runs).toEqual([]);
    expect(unansweredToolCalls(result.messages).unanswered).toEqual([]);
  });
});

describe("hybrid mode", () => {
  it("offers run_program with the direct-callable tools, and a tool's callers decide where it appears", async () => {
    const service = new OrdersService();
    const programOnly = defineTool({
      name: "audit.log",
      description: "Record a note.",
      inputSchema: { type: "object" },
      callers: ["program"],
      execute: () => "ok",
    });
    const directOnly = defineTool({
      name: "ui.ask",
      description: "Ask the user.",
      inputSchema: { type: "object" },
      callers: ["direct"],
      execute: () => "yes",
    });
    const yard = new Switchyard({ tools: [...createOrdersTools(service), programOnly, directOnly] });
    const server = await startServer({
      script: [
        {
          content: [
            {
              type: "tool_use",
              id: "toolu_direct",
              name: "orders__search",
              input: { customerId: "cus_1002", pageSize: 2 },
            },
            { type: "tool_use", id: "toolu_program", name: "run_program", input: { code: SWEEP_PROGRAM } },
          ],
        },
        { content: [{ type: "text", text: "Done." }] },
      ],
    });
    const result = await runAgent({ yard, model: adapterFor(server, "anthropic"), task: "Sweep.", mode: "hybrid" });

    expect(result.status).toBe("completed");
    expect(toolNamesOf(server.turnRequests[0]!)).toEqual([
      "run_program",
      "orders__search",
      "orders__getPaymentContext",
      "ui__ask",
      "results__read",
    ]);
    const description: string = server.turnRequests[0]!.body.tools[0].description;
    expect(description).toContain("audit");
    expect(description).not.toContain("ask(");
    const answers = lastToolResults(server.turnRequests[1]!.body, "anthropic");
    expect(answers.map((answer) => answer.id)).toEqual(["toolu_direct", "toolu_program"]);
    expect(JSON.parse(answers[0]!.content).orders).toHaveLength(2);
    expect(answers[1]!.content).toMatch(/^output: /);
    expect(result.runs).toHaveLength(1);
  });

  it("never runs a catalog tool that is not offered in the mode", async () => {
    const { yard } = ordersYard();
    const server = await startServer({
      script: [
        { content: [{ type: "tool_use", id: "toolu_x", name: "orders__search", input: { customerId: "cus_1001" } }] },
        { content: [{ type: "text", text: "ok" }] },
      ],
    });
    const calls: string[] = [];
    yard.trace.subscribe((event) => {
      if (event.type === "tool-call-start") calls.push(event.tool);
    });
    const result = await runAgent({ yard, model: adapterFor(server, "anthropic"), task: "t", mode: "programmatic" });
    expect(result.status).toBe("completed");
    const [answer] = lastToolResults(server.turnRequests[1]!.body, "anthropic");
    expect(answer).toMatchObject({ id: "toolu_x", isError: true });
    expect(answer!.content).toMatch(/^error TOOL_NOT_FOUND: .*Available tools: run_program/);
    expect(calls).toEqual([]);
  });

  it("offers search_tools when discovery defers tools, and answers it with references and declarations", async () => {
    const { yard } = ordersYard({ discovery: { defer: true } });
    const server = await startServer({
      script: [
        {
          content: [
            {
              type: "tool_use",
              id: "toolu_find",
              name: "search_tools",
              input: { query: "payment attempts of an order", limit: 1 },
            },
          ],
        },
        { content: [{ type: "tool_use", id: "toolu_bad", name: "search_tools", input: { pattern: "([" } }] },
        { content: [{ type: "text", text: "Found it." }] },
      ],
    });
    const result = await runAgent({ yard, model: adapterFor(server, "anthropic"), task: "t", mode: "programmatic" });
    expect(result.status).toBe("completed");
    expect(toolNamesOf(server.turnRequests[0]!)).toEqual(["run_program", "search_tools"]);
    const [found] = lastToolResults(server.turnRequests[1]!.body, "anthropic");
    expect(found).toMatchObject({ id: "toolu_find", isError: false });
    expect(found!.content).toMatch(/^Found \d+ tools:\n- orders\.getPaymentContext: /);
    expect(found!.content).toContain("getPaymentContext(input:");
    const [refused] = lastToolResults(server.turnRequests[2]!.body, "anthropic");
    expect(refused).toMatchObject({
      id: "toolu_bad",
      isError: true,
      content: expect.stringMatching(/^error PATTERN_INVALID/),
    });
  });
});

describe.each<ProviderKind>(["anthropic", "openai"])(
  "direct mode over a deferred catalog, search first (%s)",
  (provider) => {
    it("offers search_tools and no catalog tool, then appends each found tool's definition, and never runs a tool not yet found", async () => {
      const { yard } = ordersYard({ discovery: { defer: true } });
      const server = await startServer({
        script: [
          // Calling a tool before finding it: not offered, so never run.
          {
            content: [
              { type: "tool_use", id: "toolu_early", name: "orders__search", input: { customerId: "cus_1001" } },
            ],
          },
          {
            content: [
              {
                type: "tool_use",
                id: "toolu_find",
                name: "search_tools",
                input: { query: "list a customer's orders", limit: 1 },
              },
            ],
          },
          {
            content: [
              {
                type: "tool_use",
                id: "toolu_page",
                name: "orders__search",
                input: { customerId: "cus_1001", pageSize: 2 },
              },
            ],
          },
          { content: [{ type: "text", text: "Two orders." }] },
        ],
      });
      const calls: string[] = [];
      yard.trace.subscribe((event) => {
        if (event.type === "tool-call-start") calls.push(event.tool);
      });
      const result = await runAgent({
        yard,
        model: adapterFor(server, provider),
        task: "List two orders of cus_1001.",
        mode: "direct",
        deferDirectTools: true,
      });
      expect(result.status).toBe("completed");
      const offered = server.turnRequests.map(toolNamesOf);
      // results.read is session plumbing a program cannot call: discovery never defers it.
      expect(offered).toEqual([
        ["search_tools", "results__read"],
        ["search_tools", "results__read"],
        ["search_tools", "results__read", "orders__search"],
        ["search_tools", "results__read", "orders__search"],
      ]);
      const [early] = lastToolResults(server.turnRequests[1]!.body, provider);
      expect(early!.content).toMatch(/^error TOOL_NOT_FOUND/);
      const [page] = lastToolResults(server.turnRequests[3]!.body, provider);
      expect(JSON.parse(page!.content).orders).toHaveLength(2);
      expect(calls).toEqual(["orders.search"]);
    });

    it("offers every tool up front without the option, deferred catalog or not", async () => {
      const { yard } = ordersYard({ discovery: { defer: true } });
      const server = await startServer({ script: [{ content: [{ type: "text", text: "ok" }] }] });
      await runAgent({ yard, model: adapterFor(server, provider), task: "t", mode: "direct" });
      expect(toolNamesOf(server.turnRequests[0]!)).toEqual([
        "orders__search",
        "orders__getPaymentContext",
        "results__read",
      ]);
    });
  },
);
