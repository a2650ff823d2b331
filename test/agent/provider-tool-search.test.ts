import { describe, expect, it, vi } from "vitest";
import { createAnthropicAdapter } from "../../src/agent/anthropic-adapter.js";
import { createOpenAIResponsesAdapter } from "../../src/agent/openai-responses-adapter.js";
import { runAgent } from "../../src/agent/run-agent.js";
import { unansweredToolCalls } from "../../src/agent/transcript.js";
import { defineTool } from "../../src/registry/define-tool.js";
import { Switchyard } from "../../src/switchyard.js";
import type { ScriptedModelServer } from "../../src/testing/index.js";
import { startServer } from "./agent-fixtures.js";
import { watchEventLoop } from "../helpers/event-loop-gaps.js";

const NO_ERRORS = { unanswered: [], duplicated: [], orphaned: [] };

/** A catalog whose every tool but `core.ping` is deferred; `billing.refund` is what the model needs. */
function deferredYard() {
  const refund = vi.fn((input: { chargeId: string }) => ({ refunded: input.chargeId }));
  const tool = (name: string, description: string, execute: (input: { chargeId: string }) => unknown = () => "ok") =>
    defineTool({
      name,
      description,
      inputSchema: {
        type: "object",
        properties: { chargeId: { type: "string" } },
        required: ["chargeId"],
        additionalProperties: false,
      },
      effect: "read",
      execute,
    });
  const yard = new Switchyard({
    tools: [
      tool("core.ping", "Check the service is up."),
      tool("billing.refund", "Refund a charge to the customer's card.", refund),
      tool("billing.listInvoices", "List the invoices of a customer."),
      tool("crm.findCustomer", "Find a customer by email."),
    ],
    discovery: { defer: true, alwaysLoaded: ["core.*"] },
    results: { spill: false },
  });
  return { yard, refund };
}

const refundCall = {
  type: "tool_use" as const,
  id: "call_refund",
  name: "billing__refund",
  input: { chargeId: "ch_1" },
};
const done = { content: [{ type: "text" as const, text: "Refunded." }] };

function anthropic(server: ScriptedModelServer, toolSearch: "bm25" | "regex" | "client", stream: boolean) {
  return createAnthropicAdapter({
    apiKey: "k",
    baseURL: server.url,
    model: "claude-test",
    maxRetries: 0,
    stream,
    toolSearch,
  });
}

function responses(server: ScriptedModelServer, toolSearch: "server" | "client", stream: boolean) {
  return createOpenAIResponsesAdapter({
    apiKey: "k",
    baseURL: server.openaiBaseURL,
    model: "gpt-test",
    maxRetries: 0,
    stream,
    toolSearch,
  });
}

describe.each([false, true])("Anthropic tool search (stream %s)", (stream) => {
  it("sends deferred tools with defer_loading and the server-side BM25 search, and keeps the tools prefix fixed", async () => {
    const server = await startServer({
      script: [
        {
          content: [
            {
              type: "tool_search",
              id: "srvtoolu_s",
              query: "refund a charge",
              execution: "server",
              found: ["billing__refund"],
            },
            refundCall,
          ],
        },
        done,
      ],
    });
    const { yard, refund } = deferredYard();
    const result = await runAgent({
      yard,
      model: anthropic(server, "bm25", stream),
      task: "Refund ch_1.",
      mode: "direct",
    });
    expect(result.status).toBe("completed");
    expect(refund).toHaveBeenCalledOnce();
    const [first, second] = server.turnRequests.map((request) => request.body);
    expect(first.tools[0]).toEqual({ type: "tool_search_tool_bm25_20251119", name: "tool_search_tool_bm25" });
    const byName = Object.fromEntries(first.tools.slice(1).map((tool: any) => [tool.name, tool]));
    expect(byName.core__ping.defer_loading).toBeUndefined();
    expect(byName.core__ping.cache_control).toEqual({ type: "ephemeral" });
    for (const name of ["billing__refund", "billing__listInvoices", "crm__findCustomer"])
      expect(byName[name]).toMatchObject({ defer_loading: true });
    expect(JSON.stringify(first.tools.filter((tool: any) => tool.defer_loading))).not.toContain("cache_control");
    // The search and its references go back verbatim; the tools never change, so the cache keeps hitting.
    expect(second.tools).toEqual(first.tools);
    const replayed = second.messages.at(-2).content;
    expect(replayed.map((block: any) => block.type)).toEqual([
      "server_tool_use",
      "tool_search_tool_result",
      "tool_use",
    ]);
    expect(replayed[1].content.tool_references).toEqual([{ type: "tool_reference", tool_name: "billing__refund" }]);
  });

  it("sends the regex variant when asked", async () => {
    const server = await startServer({ script: [done] });
    const { yard } = deferredYard();
    await runAgent({ yard, model: anthropic(server, "regex", stream), task: "t", mode: "direct" });
    expect(server.turnRequests[0]!.body.tools[0]).toEqual({
      type: "tool_search_tool_regex_20251119",
      name: "tool_search_tool_regex",
    });
  });

  it("answers a client-side tool_search with tool_reference blocks from Switchyard's own search", async () => {
    const server = await startServer({
      script: [
        { content: [{ type: "tool_search", id: "toolu_search", query: "refund charge", execution: "client" }] },
        { content: [refundCall] },
        done,
      ],
    });
    const { yard, refund } = deferredYard();
    const result = await runAgent({
      yard,
      model: anthropic(server, "client", stream),
      task: "Refund ch_1.",
      mode: "direct",
    });
    expect(result.status).toBe("completed");
    expect(refund).toHaveBeenCalledOnce();
    const [first, second, third] = server.turnRequests.map((request) => request.body);
    const searchTool = first.tools.find((tool: any) => tool.name === "tool_search");
    expect(searchTool.defer_loading).toBeUndefined();
    expect(JSON.stringify(first.tools)).not.toContain("tool_search_tool_");
    const answer = second.messages.at(-1).content[0];
    expect(answer).toMatchObject({ type: "tool_result", tool_use_id: "toolu_search", is_error: false });
    expect(answer.content[0]).toEqual({ type: "tool_reference", tool_name: "billing__refund" });
    expect(second.tools).toEqual(first.tools);
    expect(third.tools).toEqual(first.tools);
    expect(unansweredToolCalls(result.messages)).toEqual(NO_ERRORS);
  });
});

describe("a client-executed tool search with a hostile pattern", () => {
  it("runs the pattern off the host's event loop and answers PATTERN_INVALID", async () => {
    // The pattern backtracks for seconds over one 116-character description: on the host's
    // thread the search held the loop that long (its 250 ms budget is checked between fields).
    const tools = Array.from({ length: 20 }, (_, index) =>
      defineTool({
        name: `docs.page_${index}`,
        description: `Page ${index}. ${"lorem ipsum dolor sit amet ".repeat(4)}`,
        inputSchema: { type: "object" },
        effect: "read",
        execute: () => "ok",
      }),
    );
    const yard = new Switchyard({ tools, discovery: { defer: true }, results: { spill: false } });
    const server = await startServer({
      script: [
        {
          content: [
            {
              type: "tool_use",
              id: "toolu_regex",
              name: "tool_search",
              input: { pattern: ".{0,99}.{0,99}.{0,99}.{0,99}~" },
            },
          ],
        },
        done,
      ],
    });
    const loop = watchEventLoop();
    try {
      const result = await runAgent({
        yard,
        model: anthropic(server, "client", false),
        task: "Find the page.",
        mode: "direct",
      });
      expect(result.status).toBe("completed");
    } finally {
      loop.stop();
      await yard.close();
    }
    const answer = server.turnRequests[1]?.body.messages.at(-1).content[0];
    expect(answer).toMatchObject({ type: "tool_result", tool_use_id: "toolu_regex", is_error: true });
    expect(JSON.stringify(answer.content)).toContain("PATTERN_INVALID");
    expect(loop.longestGapMs).toBeLessThan(200);
  });
});

describe.each([false, true])("OpenAI Responses tool search (stream %s)", (stream) => {
  it("sends deferred functions with defer_loading and the hosted tool_search, and replays its items", async () => {
    const server = await startServer({
      script: [
        {
          content: [
            { type: "tool_search", query: "refund", execution: "server", found: ["billing__refund"] },
            refundCall,
          ],
        },
        done,
      ],
    });
    const { yard, refund } = deferredYard();
    const result = await runAgent({
      yard,
      model: responses(server, "server", stream),
      task: "Refund ch_1.",
      mode: "direct",
    });
    expect(result.status).toBe("completed");
    expect(refund).toHaveBeenCalledOnce();
    const [first, second] = server.turnRequests.map((request) => request.body);
    expect(first.tools.at(-1)).toEqual({ type: "tool_search" });
    const byName = Object.fromEntries(
      first.tools.filter((tool: any) => tool.type === "function").map((tool: any) => [tool.name, tool]),
    );
    expect(byName.core__ping.defer_loading).toBeUndefined();
    expect(byName.billing__refund.defer_loading).toBe(true);
    expect(second.tools).toEqual(first.tools);
    const output = second.input.find((item: any) => item.type === "tool_search_output");
    expect(output.tools.map((tool: any) => tool.name)).toEqual(["billing__refund"]);
  });

  it("answers a client-executed tool_search_call with a tool_search_output of the found definitions", async () => {
    const server = await startServer({
      script: [
        { content: [{ type: "tool_search", id: "call_ts", query: "refund charge", execution: "client" }] },
        { content: [refundCall] },
        done,
      ],
    });
    const { yard, refund } = deferredYard();
    const result = await runAgent({
      yard,
      model: responses(server, "client", stream),
      task: "Refund ch_1.",
      mode: "direct",
    });
    expect(result.status).toBe("completed");
    expect(refund).toHaveBeenCalledOnce();
    const [first, second, third] = server.turnRequests.map((request) => request.body);
    const searchTool = first.tools.find((tool: any) => tool.type === "tool_search");
    expect(searchTool).toMatchObject({ execution: "client", parameters: { type: "object" } });
    // Deferred tools are not sent until found.
    expect(first.tools.filter((tool: any) => tool.type === "function").map((tool: any) => tool.name)).toEqual([
      "core__ping",
    ]);
    const call = second.input.find((item: any) => item.type === "tool_search_call");
    expect(call).toMatchObject({ call_id: "call_ts", execution: "client", arguments: { query: "refund charge" } });
    const output = second.input.find((item: any) => item.type === "tool_search_output");
    expect(output).toMatchObject({ call_id: "call_ts", execution: "client" });
    expect(output.tools.map((tool: any) => tool.name)).toContain("billing__refund");
    expect(output.tools.every((tool: any) => tool.type === "function" && tool.defer_loading === undefined)).toBe(true);
    expect(second.tools).toEqual(first.tools);
    expect(third.tools).toEqual(first.tools);
    expect(unansweredToolCalls(result.messages)).toEqual(NO_ERRORS);
  });
});
