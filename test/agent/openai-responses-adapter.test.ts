import { describe, expect, it } from "vitest";
import type { ModelRequest } from "../../src/agent/model-adapter.js";
import {
  buildOpenAIResponsesRequest,
  createOpenAIResponsesAdapter,
  isStrictCompatible,
} from "../../src/agent/openai-responses-adapter.js";
import { runAgent } from "../../src/agent/run-agent.js";
import { unansweredToolCalls } from "../../src/agent/transcript.js";
import { defineTool } from "../../src/registry/define-tool.js";
import { Switchyard } from "../../src/switchyard.js";
import { adapterFor, startServer } from "./agent-fixtures.js";

const CLOSED = {
  type: "object",
  properties: { id: { type: "string", description: "The id." } },
  required: ["id"],
  additionalProperties: false,
};

const TOOLS: ModelRequest["tools"] = [
  {
    name: "a__strict",
    description: "Strict.",
    inputSchema: { $schema: "https://json-schema.org/draft/2020-12/schema", ...CLOSED },
  },
  { name: "b__loose", description: "Loose.", inputSchema: { type: "object", properties: { q: { type: "string" } } } },
];

const HISTORY: ModelRequest["messages"] = [
  { role: "user", content: [{ type: "text", text: "task" }] },
  {
    role: "assistant",
    content: [
      {
        type: "provider",
        provider: "openai-responses",
        block: { type: "reasoning", id: "rs_1", summary: [], encrypted_content: "enc-1" },
      },
      { type: "text", text: "Looking.", providerItemId: "msg_1" },
      {
        type: "tool_call",
        id: "call_1",
        name: "a__strict",
        input: { id: "x" },
        inputText: '{"id":"x"}',
        providerItemId: "fc_1",
      },
      { type: "provider", provider: "anthropic", block: { type: "thinking", thinking: "not for openai" } },
    ],
    responseId: "resp_1",
  },
  { role: "user", content: [{ type: "tool_result", callId: "call_1", content: '{"ok":true}', isError: false }] },
];

describe("buildOpenAIResponsesRequest", () => {
  it("sends a stateless turn: store false, encrypted reasoning asked for, the whole transcript as items in order", () => {
    const body = buildOpenAIResponsesRequest(
      { system: "sys", messages: HISTORY, tools: TOOLS, maxTokens: 100 },
      { model: "gpt-test" },
    );
    expect(body).toMatchObject({
      model: "gpt-test",
      instructions: "sys",
      max_output_tokens: 100,
      store: false,
      include: ["reasoning.encrypted_content"],
    });
    expect(body.previous_response_id).toBeUndefined();
    expect(body.input).toEqual([
      { role: "user", content: "task" },
      { type: "reasoning", id: "rs_1", summary: [], encrypted_content: "enc-1" },
      {
        type: "message",
        id: "msg_1",
        role: "assistant",
        status: "completed",
        content: [{ type: "output_text", text: "Looking.", annotations: [] }],
      },
      { type: "function_call", call_id: "call_1", name: "a__strict", arguments: '{"id":"x"}', id: "fc_1" },
      { type: "function_call_output", call_id: "call_1", output: '{"ok":true}' },
    ]);
  });

  it("marks a tool strict only when its schema already meets strict mode, and drops $schema", () => {
    const body = buildOpenAIResponsesRequest(
      { system: undefined, messages: HISTORY, tools: TOOLS, maxTokens: 100 },
      { model: "m" },
    );
    expect(body.tools).toEqual([
      { type: "function", name: "a__strict", description: "Strict.", parameters: CLOSED, strict: true },
      {
        type: "function",
        name: "b__loose",
        description: "Loose.",
        parameters: { type: "object", properties: { q: { type: "string" } } },
        strict: false,
      },
    ]);
    const off = buildOpenAIResponsesRequest(
      { system: undefined, messages: HISTORY, tools: TOOLS, maxTokens: 100 },
      { model: "m", strict: false },
    );
    expect(off.tools?.every((tool) => tool.type === "function" && tool.strict === false)).toBe(true);
  });

  it("chains with previous_response_id: store true, and only what came after the stored response", () => {
    const body = buildOpenAIResponsesRequest(
      { system: "sys", messages: HISTORY, tools: [], maxTokens: 100 },
      { model: "m", state: "previous-response" },
    );
    expect(body).toMatchObject({ store: true, previous_response_id: "resp_1", instructions: "sys" });
    expect(body.include).toBeUndefined();
    expect(body.input).toEqual([{ type: "function_call_output", call_id: "call_1", output: '{"ok":true}' }]);
  });

  it("in hosted mode offers programmatic tool calling and maps callers to allowed_callers", () => {
    const body = buildOpenAIResponsesRequest(
      {
        system: undefined,
        messages: [],
        tools: [
          { ...TOOLS[0]!, callers: ["direct", "program"] },
          { ...TOOLS[1]!, callers: ["program"] },
        ],
        maxTokens: 10,
        mode: "hosted",
      },
      { model: "m" },
    );
    expect(body.tools?.[0]).toEqual({ type: "programmatic_tool_calling" });
    expect(body.tools?.slice(1).map((tool) => (tool as { allowed_callers?: unknown }).allowed_callers)).toEqual([
      ["direct", "programmatic"],
      ["programmatic"],
    ]);
  });

  it("ignores callers outside hosted mode", () => {
    const body = buildOpenAIResponsesRequest(
      {
        system: undefined,
        messages: [],
        tools: [{ ...TOOLS[0]!, callers: ["program"] }],
        maxTokens: 10,
        mode: "direct",
      },
      { model: "m" },
    );
    expect(JSON.stringify(body)).not.toContain("allowed_callers");
    expect(JSON.stringify(body)).not.toContain("programmatic_tool_calling");
  });
});

describe("isStrictCompatible", () => {
  it.each([
    ["a closed object with every property required", CLOSED, true],
    ["an optional property", { ...CLOSED, required: [] }, false],
    ["an open object", { ...CLOSED, additionalProperties: true }, false],
    ["an unsupported keyword", { ...CLOSED, properties: { id: { type: "string", minLength: 1 } } }, false],
    ["a nested open object", { ...CLOSED, properties: { id: { type: "object", properties: {} } } }, false],
    ["a root that is not an object", { type: "string" }, false],
    ["true", true, false],
  ])("is %s → %s", (_label, schema, expected) => {
    expect(isStrictCompatible(schema as never)).toBe(expected);
  });
});

describe("the Responses adapter through the real SDK", () => {
  const lookup = () =>
    defineTool({
      name: "lookup.find",
      description: "Find a key.",
      inputSchema: {
        type: "object",
        properties: { key: { type: "string" } },
        required: ["key"],
        additionalProperties: false,
      },
      effect: "read",
      execute: (input: { key: string }) => ({ found: input.key }),
    });

  it.each([false, true])(
    "carries encrypted reasoning and item ids to the next turn and reports cached tokens (stream %s)",
    async (stream) => {
      const server = await startServer({
        script: [
          {
            content: [
              { type: "reasoning", id: "rs_a", summary: "Need the key.", encryptedContent: "gAAAA-secret" },
              { type: "tool_use", id: "call_a", name: "lookup__find", input: { key: "k1" } },
              { type: "tool_use", id: "call_b", name: "lookup__find", input: { key: "k2" } },
            ],
            usage: { inputTokens: 100, cacheReadTokens: 400, outputTokens: 20 },
          },
          { content: [{ type: "text", text: "Found both." }] },
        ],
      });
      const yard = new Switchyard({ tools: [lookup()] });
      const result = await runAgent({
        yard,
        model: adapterFor(server, "openai-responses", stream),
        task: "t",
        mode: "direct",
      });
      expect(result).toMatchObject({ status: "completed", finalText: "Found both." });
      expect(result.usage.requests[0]).toEqual({ input: 500, output: 20, cacheRead: 400, cacheCreation: 0 });
      const second = server.turnRequests[1]!.body;
      expect(second.store).toBe(false);
      const kinds = second.input.map((item: any) => item.type ?? item.role);
      expect(kinds).toEqual([
        "user",
        "reasoning",
        "function_call",
        "function_call",
        "function_call_output",
        "function_call_output",
      ]);
      expect(second.input[1]).toMatchObject({ id: "rs_a", encrypted_content: "gAAAA-secret" });
      expect(second.input[2].id).toMatch(/^fc_s/);
      expect(second.input.slice(4).map((item: any) => JSON.parse(item.output).found)).toEqual(["k1", "k2"]);
      expect(unansweredToolCalls(result.messages)).toEqual({ unanswered: [], duplicated: [], orphaned: [] });
    },
  );

  it("chains turns with previous_response_id when state is previous-response", async () => {
    const server = await startServer({
      script: [
        { content: [{ type: "tool_use", id: "call_a", name: "lookup__find", input: { key: "k1" } }] },
        { content: [{ type: "text", text: "Done." }] },
      ],
    });
    const model = createOpenAIResponsesAdapter({
      apiKey: "k",
      baseURL: server.openaiBaseURL,
      model: "gpt-test",
      maxRetries: 0,
      state: "previous-response",
    });
    const yard = new Switchyard({ tools: [lookup()] });
    const result = await runAgent({ yard, model, task: "t", mode: "direct" });
    expect(result.status).toBe("completed");
    const [first, second] = server.turnRequests.map((request) => request.body);
    expect(first.store).toBe(true);
    expect(first.previous_response_id).toBeUndefined();
    expect(second.previous_response_id).toBe("resp_s1");
    expect(second.input).toEqual([{ type: "function_call_output", call_id: "call_a", output: '{"found":"k1"}' }]);
  });

  it.each([false, true])(
    "reports a prompt too long for the context window as context_exceeded (stream %s)",
    async (stream) => {
      const server = await startServer({
        script: [
          {
            error: {
              status: 400,
              message: "Your input exceeds the context window of this model.",
              code: "context_length_exceeded",
            },
          },
        ],
      });
      const yard = new Switchyard({ tools: [lookup()] });
      const model = adapterFor(server, "openai-responses", stream);
      const result = await runAgent({ yard, model, task: "t", mode: "direct" });
      expect(result).toMatchObject({ status: "context_exceeded", stop: { code: "CONTEXT_EXCEEDED" } });
    },
  );
});
