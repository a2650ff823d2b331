import { describe, expect, it, vi } from "vitest";
import type { ModelRequest } from "../../src/agent/model-adapter.js";
import { buildOpenAIRequest, fromOpenAICompletion } from "../../src/agent/openai-adapter.js";
import { runAgent } from "../../src/agent/run-agent.js";
import { defineTool } from "../../src/registry/define-tool.js";
import { Switchyard } from "../../src/switchyard.js";
import { adapterFor, ordersYard, startServer } from "./agent-fixtures.js";

describe("buildOpenAIRequest", () => {
  it("sends the system prompt first, tool results as role tool messages bound by tool_call_id, then user text", () => {
    const request: ModelRequest = {
      system: "sys",
      messages: [
        { role: "user", content: [{ type: "text", text: "task" }] },
        {
          role: "assistant",
          content: [
            { type: "text", text: "calling" },
            { type: "tool_call", id: "call_1", name: "a__b", input: { x: 1 }, inputText: '{"x": 1}' },
          ],
        },
        {
          role: "user",
          content: [
            { type: "tool_result", callId: "call_1", content: "r", isError: false },
            { type: "text", text: "continue" },
          ],
        },
      ],
      tools: [{ name: "a__b", description: "d", inputSchema: { $schema: "x", type: "object" } }],
      maxTokens: 99,
    };
    expect(buildOpenAIRequest(request, { model: "m" })).toEqual({
      model: "m",
      messages: [
        { role: "system", content: "sys" },
        { role: "user", content: "task" },
        {
          role: "assistant",
          content: "calling",
          tool_calls: [{ id: "call_1", type: "function", function: { name: "a__b", arguments: '{"x": 1}' } }],
        },
        { role: "tool", tool_call_id: "call_1", content: "r" },
        { role: "user", content: "continue" },
      ],
      tools: [{ type: "function", function: { name: "a__b", description: "d", parameters: { type: "object" } } }],
      max_completion_tokens: 99,
    });
    expect(buildOpenAIRequest(request, { model: "m", maxTokensField: "max_tokens" })).toMatchObject({ max_tokens: 99 });
  });
});

describe("fromOpenAICompletion", () => {
  const completion = (finishReason: string, message: Record<string, unknown>) =>
    ({
      id: "c",
      object: "chat.completion",
      created: 0,
      model: "m",
      choices: [
        {
          index: 0,
          finish_reason: finishReason,
          logprobs: null,
          message: { role: "assistant", content: null, refusal: null, ...message },
        },
      ],
    }) as never;

  it("maps finish_reason length to max_tokens and keeps cut arguments as text without an input", () => {
    const turn = fromOpenAICompletion(
      completion("length", {
        tool_calls: [{ id: "call_1", type: "function", function: { name: "f", arguments: '{"a": "b' } }],
      }),
    );
    expect(turn.stopReason).toBe("max_tokens");
    expect(turn.rawStopReason).toBe("length");
    expect(turn.content).toEqual([
      { type: "tool_call", id: "call_1", name: "f", input: undefined, inputText: '{"a": "b' },
    ]);
  });

  it("treats a `stop` that carries tool calls as tool use, and content_filter as a refusal", () => {
    expect(
      fromOpenAICompletion(
        completion("stop", { tool_calls: [{ id: "c1", type: "function", function: { name: "f", arguments: "{}" } }] }),
      ).stopReason,
    ).toBe("tool_use");
    expect(fromOpenAICompletion(completion("stop", { content: "hi" })).stopReason).toBe("end_turn");
    expect(fromOpenAICompletion(completion("content_filter", {})).stopReason).toBe("refusal");
    expect(fromOpenAICompletion(completion("stop", { refusal: "no" })).stopReason).toBe("refusal");
  });
});

describe.each([false, true])("the OpenAI adapter on the real SDK (stream: %s)", (stream) => {
  it("round-trips tool_calls with their tool_call_id and records usage with cached tokens", async () => {
    const server = await startServer({
      apiKey: "test-key",
      script: [
        {
          content: [
            { type: "text", text: "Searching." },
            {
              type: "tool_use",
              id: "call_abc",
              name: "orders__search",
              input: { customerId: "cus_1003", pageSize: 2 },
            },
          ],
          usage: { inputTokens: 300, cacheReadTokens: 700, outputTokens: 12 },
        },
        {
          content: [{ type: "text", text: "Two orders." }],
          usage: { inputTokens: 100, cacheReadTokens: 1000, outputTokens: 4 },
        },
      ],
    });
    const { yard } = ordersYard();
    const result = await runAgent({
      yard,
      model: adapterFor(server, "openai", stream),
      task: "List two orders.",
      mode: "direct",
    });
    expect(result).toMatchObject({ status: "completed", finalText: "Two orders." });

    const first = server.turnRequests[0]!;
    expect(first.headers.authorization).toBe("Bearer test-key");
    expect(first.stream).toBe(stream);
    if (stream) expect(first.body.stream_options).toEqual({ include_usage: true });
    expect(first.body.tools.map((tool: any) => tool.function.name)).toEqual([
      "orders__search",
      "orders__getPaymentContext",
      "results__read",
    ]);

    const messages = server.turnRequests[1]!.body.messages;
    expect(messages.at(-2)).toEqual({
      role: "assistant",
      content: "Searching.",
      tool_calls: [
        {
          id: "call_abc",
          type: "function",
          function: { name: "orders__search", arguments: '{"customerId":"cus_1003","pageSize":2}' },
        },
      ],
    });
    expect(messages.at(-1)).toMatchObject({ role: "tool", tool_call_id: "call_abc" });
    expect(JSON.parse(messages.at(-1).content).orders).toHaveLength(2);

    expect(result.usage.requests).toEqual([
      { input: 1000, output: 12, cacheRead: 700, cacheCreation: 0 },
      { input: 1100, output: 4, cacheRead: 1000, cacheCreation: 0 },
    ]);
  });

  it("answers a tool call whose arguments are not JSON with INPUT_INVALID and never runs the tool", async () => {
    const execute = vi.fn(() => "ran");
    const yard = new Switchyard({
      tools: [defineTool({ name: "x.run", description: "Run.", inputSchema: { type: "object" }, execute })],
    });
    const server = await startServer({
      script: [
        {
          content: [{ type: "tool_use", id: "call_bad", name: "x__run", inputText: "{not json" }],
          stopReason: "tool_use",
        },
        { content: [{ type: "text", text: "ok" }] },
      ],
    });
    const result = await runAgent({ yard, model: adapterFor(server, "openai", stream), task: "t", mode: "direct" });
    expect(result.status).toBe("completed");
    expect(execute).not.toHaveBeenCalled();
    const messages = server.turnRequests[1]!.body.messages;
    expect(messages.at(-2).tool_calls[0].function.arguments).toBe("{not json");
    expect(messages.at(-1)).toEqual({
      role: "tool",
      tool_call_id: "call_bad",
      content: "error INPUT_INVALID: The tool arguments were not valid JSON; send a JSON object.",
    });
  });
});
