import { describe, expect, it } from "vitest";
import { buildAnthropicRequest, fromAnthropicMessage } from "../../src/agent/anthropic-adapter.js";
import type { ModelRequest } from "../../src/agent/model-adapter.js";
import { runAgent } from "../../src/agent/run-agent.js";
import { adapterFor, ordersYard, startServer } from "./agent-fixtures.js";

const TOOLS: ModelRequest["tools"] = [
  {
    name: "a__one",
    description: "One.",
    inputSchema: { $schema: "https://json-schema.org/draft/2020-12/schema", type: "object" },
    inputExamples: [{ x: 1 }],
  },
  { name: "b__two", description: "Two.", inputSchema: { type: "object" } },
];

const HISTORY: ModelRequest["messages"] = [
  { role: "user", content: [{ type: "text", text: "task" }] },
  { role: "assistant", content: [{ type: "tool_call", id: "toolu_1", name: "a__one", input: { x: 1 } }] },
  { role: "user", content: [{ type: "tool_result", callId: "toolu_1", content: "r1", isError: false }] },
  {
    role: "assistant",
    content: [
      { type: "text", text: "more" },
      { type: "tool_call", id: "toolu_2", name: "b__two", input: {} },
    ],
  },
  { role: "user", content: [{ type: "tool_result", callId: "toolu_2", content: "r2", isError: true }] },
];

function countBreakpoints(body: unknown): number {
  return JSON.stringify(body).split('"cache_control"').length - 1;
}

describe("buildAnthropicRequest", () => {
  it("puts cache breakpoints on the last tool, the system prompt and the last two user messages: four at most", () => {
    const body = buildAnthropicRequest(
      { system: "sys", messages: HISTORY, tools: TOOLS, maxTokens: 100 },
      { model: "m" },
    );
    expect(body.tools?.map((tool) => "cache_control" in tool && tool.cache_control)).toEqual([
      false,
      { type: "ephemeral" },
    ]);
    expect(body.system).toEqual([{ type: "text", text: "sys", cache_control: { type: "ephemeral" } }]);
    expect(body.messages[2]!.content).toEqual([
      {
        type: "tool_result",
        tool_use_id: "toolu_1",
        content: "r1",
        is_error: false,
        cache_control: { type: "ephemeral" },
      },
    ]);
    expect(body.messages[4]!.content).toEqual([
      {
        type: "tool_result",
        tool_use_id: "toolu_2",
        content: "r2",
        is_error: true,
        cache_control: { type: "ephemeral" },
      },
    ]);
    expect(body.messages[0]!.content).toEqual([{ type: "text", text: "task" }]);
    expect(countBreakpoints(body)).toBe(4);
  });

  it("sends input_examples, drops $schema, and omits breakpoints when caching is off", () => {
    const body = buildAnthropicRequest(
      { system: undefined, messages: HISTORY.slice(0, 1), tools: TOOLS, maxTokens: 100 },
      { model: "m", cache: false },
    );
    expect(body.tools?.[0]).toEqual({
      name: "a__one",
      description: "One.",
      input_schema: { type: "object" },
      input_examples: [{ x: 1 }],
    });
    expect(body.system).toBeUndefined();
    expect(countBreakpoints(body)).toBe(0);
  });

  it("lists a user message's tool results before its text, as the API requires", () => {
    const body = buildAnthropicRequest(
      {
        system: undefined,
        messages: [
          {
            role: "user",
            content: [
              { type: "text", text: "and continue" },
              { type: "tool_result", callId: "t", content: "c", isError: false },
            ],
          },
        ],
        tools: [],
        maxTokens: 10,
      },
      { model: "m", cache: false },
    );
    expect(body.messages[0]!.content).toEqual([
      { type: "tool_result", tool_use_id: "t", content: "c", is_error: false },
      { type: "text", text: "and continue" },
    ]);
    expect(body.tools).toBeUndefined();
  });
});

describe("fromAnthropicMessage", () => {
  it("keeps blocks it does not interpret as provider blocks and counts every input token", () => {
    const turn = fromAnthropicMessage({
      id: "msg_1",
      type: "message",
      role: "assistant",
      model: "m",
      content: [
        { type: "thinking", thinking: "hmm", signature: "sig" } as never,
        { type: "text", text: "hi", citations: null },
      ],
      stop_reason: "model_context_window_exceeded",
      stop_sequence: null,
      usage: {
        input_tokens: 10,
        output_tokens: 5,
        cache_read_input_tokens: 100,
        cache_creation_input_tokens: 20,
      } as never,
    } as never);
    expect(turn.content).toEqual([
      { type: "provider", provider: "anthropic", block: { type: "thinking", thinking: "hmm", signature: "sig" } },
      { type: "text", text: "hi" },
    ]);
    expect(turn.stopReason).toBe("context_exceeded");
    expect(turn.rawStopReason).toBe("model_context_window_exceeded");
    expect(turn.usage).toEqual({ input: 130, output: 5, cacheRead: 100, cacheCreation: 20 });
  });
});

describe("the Anthropic adapter on the real SDK", () => {
  it.each([false, true])(
    "sends cache breakpoints and input_examples, authenticates, and records cache usage (stream: %s)",
    async (stream) => {
      const server = await startServer({
        apiKey: "test-key",
        script: [
          {
            content: [{ type: "tool_use", name: "orders__search", input: { customerId: "cus_1001", pageSize: 1 } }],
            usage: { inputTokens: 50, outputTokens: 10, cacheCreationTokens: 1200 },
          },
          {
            content: [{ type: "text", text: "done" }],
            usage: { inputTokens: 40, outputTokens: 3, cacheReadTokens: 1200 },
          },
        ],
      });
      const { yard } = ordersYard();
      const result = await runAgent({
        yard,
        model: adapterFor(server, "anthropic", stream),
        task: "t",
        mode: "direct",
        maxTokens: 512,
      });
      expect(result.status).toBe("completed");

      const first = server.turnRequests[0]!;
      expect(first.headers["x-api-key"] === "test-key" || first.headers.authorization === "Bearer test-key").toBe(true);
      expect(first.body.max_tokens).toBe(512);
      expect(first.body.tools.at(-1).cache_control).toEqual({ type: "ephemeral" });
      expect(first.body.system[0].cache_control).toEqual({ type: "ephemeral" });
      expect(first.body.tools[0].input_examples).toHaveLength(2);
      expect(first.body.tools[0].input_schema.$schema).toBeUndefined();
      expect(server.turnRequests[1]!.body.messages.at(-1).content.at(-1).cache_control).toEqual({ type: "ephemeral" });
      for (const request of server.turnRequests) expect(countBreakpoints(request.body)).toBeLessThanOrEqual(4);

      expect(result.usage.requests).toEqual([
        { input: 1250, output: 10, cacheRead: 0, cacheCreation: 1200 },
        { input: 1240, output: 3, cacheRead: 1200, cacheCreation: 0 },
      ]);
      expect(result.usage.total).toEqual({ input: 2490, output: 13, cacheRead: 1200, cacheCreation: 1200 });
    },
  );
});
