import { describe, expect, it, vi } from "vitest";
import { runAgent } from "../../src/agent/run-agent.js";
import { CONTINUE_AFTER_TRUNCATION } from "../../src/agent/stop-policy.js";
import { unansweredToolCalls } from "../../src/agent/transcript.js";
import { defineTool } from "../../src/registry/define-tool.js";
import { Switchyard } from "../../src/switchyard.js";
import { adapterFor, startServer, TRANSPORTS, type ProviderKind } from "./agent-fixtures.js";

/** A session with one spied tool, `lookup.find`, offered directly as `lookup__find`. */
function spiedYard() {
  const execute = vi.fn((input: { key: string }) => ({ found: input.key }));
  const tool = defineTool({
    name: "lookup.find",
    description: "Find a key.",
    inputSchema: {
      type: "object",
      properties: { key: { type: "string" } },
      required: ["key"],
      additionalProperties: false,
    },
    effect: "read",
    execute,
  });
  return { yard: new Switchyard({ tools: [tool] }), execute };
}

const PROVIDERS: ProviderKind[] = ["anthropic", "openai"];

describe("end_turn", () => {
  it.each(PROVIDERS)("is the final answer: status completed with the turn's text (%s)", async (provider) => {
    const server = await startServer({
      script: [{ content: [{ type: "text", text: "All done." }], stopReason: "end_turn" }],
    });
    const { yard } = spiedYard();
    const result = await runAgent({ yard, model: adapterFor(server, provider), task: "t", mode: "direct" });
    expect(result).toMatchObject({ status: "completed", finalText: "All done.", steps: 1 });
    expect(result.stop).toBeUndefined();
    expect(result.messages.at(-1)).toEqual({ role: "assistant", content: [{ type: "text", text: "All done." }] });
  });
});

describe("max_tokens", () => {
  it.each(PROVIDERS)(
    "continues after a cut text turn by asking for a concise continuation, and the cut text is not the answer (%s)",
    async (provider) => {
      const server = await startServer({
        script: [
          { content: [{ type: "text", text: "The first part of a long ans" }], stopReason: "max_tokens" },
          { content: [{ type: "text", text: "Short answer." }] },
        ],
      });
      const { yard } = spiedYard();
      const result = await runAgent({ yard, model: adapterFor(server, provider), task: "t", mode: "direct" });
      expect(result).toMatchObject({ status: "completed", finalText: "Short answer.", steps: 2 });
      const second = server.turnRequests[1]!.body;
      if (provider === "anthropic") {
        expect(second.messages.slice(-2)).toEqual([
          { role: "assistant", content: [{ type: "text", text: "The first part of a long ans" }] },
          {
            role: "user",
            content: [{ type: "text", text: CONTINUE_AFTER_TRUNCATION, cache_control: { type: "ephemeral" } }],
          },
        ]);
      } else {
        expect(second.messages.slice(-2)).toEqual([
          { role: "assistant", content: "The first part of a long ans" },
          { role: "user", content: CONTINUE_AFTER_TRUNCATION },
        ]);
      }
    },
  );

  it.each(PROVIDERS)(
    "stops with status max_tokens under onMaxTokens: stop; the text is shown but is not a final answer (%s)",
    async (provider) => {
      const server = await startServer({
        script: [{ content: [{ type: "text", text: "Partial" }], stopReason: "max_tokens" }],
      });
      const { yard } = spiedYard();
      const result = await runAgent({
        yard,
        model: adapterFor(server, provider),
        task: "t",
        mode: "direct",
        stopPolicy: { onMaxTokens: "stop" },
      });
      expect(result).toMatchObject({
        status: "max_tokens",
        finalText: null,
        lastText: "Partial",
        stop: { code: "MAX_TOKENS" },
      });
    },
  );

  it("stops after maxConsecutiveTruncations cut turns in a row", async () => {
    const cut = { content: [{ type: "text" as const, text: "..." }], stopReason: "max_tokens" as const };
    const server = await startServer({ script: [cut, cut, cut] });
    const { yard } = spiedYard();
    const result = await runAgent({
      yard,
      model: adapterFor(server, "anthropic"),
      task: "t",
      mode: "direct",
      stopPolicy: { maxConsecutiveTruncations: 2 },
    });
    expect(result).toMatchObject({ status: "max_tokens", steps: 3 });
  });
});

describe.each(TRANSPORTS)("a tool call cut by max_tokens ($label)", ({ provider, stream }) => {
  it("is never executed: the turn is kept without it and the model is asked to continue", async () => {
    const server = await startServer({
      script: [
        {
          content: [
            { type: "text", text: "Looking it up." },
            { type: "tool_use", id: "call_cut", name: "lookup__find", inputText: '{"key": "abc' },
          ],
          stopReason: "max_tokens",
        },
        { content: [{ type: "text", text: "Gave up." }] },
      ],
    });
    const { yard, execute } = spiedYard();
    const dropped: string[] = [];
    const result = await runAgent({
      yard,
      model: adapterFor(server, provider, stream),
      task: "t",
      mode: "direct",
      onEvent: (event) => {
        if (event.type === "tool-call-dropped") dropped.push(event.callId);
      },
    });
    expect(execute).not.toHaveBeenCalled();
    expect(dropped).toEqual(["call_cut"]);
    expect(result.status).toBe("completed");
    const body = JSON.stringify(server.turnRequests[1]!.body);
    expect(body).not.toContain("call_cut");
    expect(body).toContain("Looking it up.");
    expect(unansweredToolCalls(result.messages)).toEqual({ unanswered: [], duplicated: [], orphaned: [] });
  });
});

describe("a complete tool call in a max_tokens turn", () => {
  it("is not executed either: only a tool_use turn runs tools", async () => {
    const server = await startServer({
      script: [
        {
          content: [{ type: "tool_use", id: "toolu_whole", name: "lookup__find", input: { key: "k" } }],
          stopReason: "max_tokens",
        },
      ],
    });
    const { yard, execute } = spiedYard();
    const result = await runAgent({
      yard,
      model: adapterFor(server, "anthropic"),
      task: "t",
      mode: "direct",
      stopPolicy: { onMaxTokens: "stop" },
    });
    expect(execute).not.toHaveBeenCalled();
    expect(result.status).toBe("max_tokens");
    expect(result.messages.some((message) => message.content.some((block) => block.type === "tool_call"))).toBe(false);
  });
});

describe("pause_turn", () => {
  it("continues by sending the paused assistant response back exactly as received", async () => {
    const serverToolUse = {
      type: "server_tool_use",
      id: "srvtoolu_1",
      name: "web_search",
      input: { query: "duplicate charges" },
    };
    const server = await startServer({
      script: [
        {
          content: [
            { type: "text", text: "Searching." },
            { type: "raw", block: serverToolUse },
          ],
          stopReason: "pause_turn",
        },
        { content: [{ type: "text", text: "Resumed and done." }] },
      ],
    });
    const { yard } = spiedYard();
    const result = await runAgent({ yard, model: adapterFor(server, "anthropic"), task: "t", mode: "direct" });
    expect(result).toMatchObject({ status: "completed", finalText: "Resumed and done.", steps: 2 });
    const resumed = server.turnRequests[1]!.body.messages;
    expect(resumed.at(-1)).toEqual({
      role: "assistant",
      content: [{ type: "text", text: "Searching." }, serverToolUse],
    });
  });
});

describe("stop_sequence", () => {
  it.each(PROVIDERS)("completes and records the stop sequence (%s)", async (provider) => {
    const server = await startServer({
      script: [{ content: [{ type: "text", text: "Answer: 42" }], stopReason: "stop_sequence", stopSequence: "###" }],
    });
    const { yard } = spiedYard();
    const result = await runAgent({ yard, model: adapterFor(server, provider), task: "t", mode: "direct" });
    expect(result.status).toBe("completed");
    expect(result.finalText).toBe("Answer: 42");
    // OpenAI reports a matched stop sequence as a plain `stop` and does not say which one.
    expect(result.stopSequence).toBe(provider === "anthropic" ? "###" : undefined);
  });
});

describe("refusal", () => {
  it.each(PROVIDERS)("stops with status refused and runs nothing (%s)", async (provider) => {
    const server = await startServer({
      script: [
        {
          content: [
            { type: "text", text: "I can't help with that." },
            { type: "tool_use", id: "call_r", name: "lookup__find", input: { key: "x" } },
          ],
          stopReason: "refusal",
        },
      ],
    });
    const { yard, execute } = spiedYard();
    const result = await runAgent({ yard, model: adapterFor(server, provider), task: "t", mode: "direct" });
    expect(result).toMatchObject({
      status: "refused",
      finalText: null,
      lastText: "I can't help with that.",
      stop: { code: "REFUSED" },
    });
    expect(execute).not.toHaveBeenCalled();
  });
});

describe("context window exceeded", () => {
  it("stops with context_exceeded on Anthropic's model_context_window_exceeded stop reason", async () => {
    const server = await startServer({
      script: [{ content: [{ type: "text", text: "Partial" }], stopReason: "model_context_window_exceeded" }],
    });
    const { yard } = spiedYard();
    const result = await runAgent({ yard, model: adapterFor(server, "anthropic"), task: "t", mode: "direct" });
    expect(result).toMatchObject({ status: "context_exceeded", finalText: null, stop: { code: "CONTEXT_EXCEEDED" } });
  });

  it("stops with context_exceeded on Anthropic's HTTP 400 'prompt is too long'", async () => {
    const server = await startServer({
      script: [{ error: { status: 400, message: "prompt is too long: 210000 tokens > 200000 maximum" } }],
    });
    const { yard } = spiedYard();
    const result = await runAgent({ yard, model: adapterFor(server, "anthropic"), task: "t", mode: "direct" });
    expect(result.status).toBe("context_exceeded");
    expect(result.stop?.message).toContain("prompt is too long");
    expect(result.usage.requests).toEqual([]);
  });

  it("stops with context_exceeded on OpenAI's HTTP 400 context_length_exceeded", async () => {
    const server = await startServer({
      script: [
        {
          error: {
            status: 400,
            message: "This model's maximum context length is 128000 tokens.",
            code: "context_length_exceeded",
          },
        },
      ],
    });
    const { yard } = spiedYard();
    const result = await runAgent({ yard, model: adapterFor(server, "openai"), task: "t", mode: "direct" });
    expect(result.status).toBe("context_exceeded");
  });

  it("reports any other failed request as model_error, keeping the transcript", async () => {
    const server = await startServer({ script: [{ error: { status: 500, message: "upstream exploded" } }] });
    const { yard } = spiedYard();
    const result = await runAgent({ yard, model: adapterFor(server, "anthropic"), task: "the task", mode: "direct" });
    expect(result).toMatchObject({ status: "model_error", stop: { code: "MODEL_ERROR" } });
    expect(result.messages).toHaveLength(1);
  });
});

describe("maxSteps", () => {
  it("ends with step_limit (STEP_LIMIT) after the last turn's results are appended", async () => {
    const call = (id: string) => ({
      content: [{ type: "tool_use" as const, id, name: "lookup__find", input: { key: id } }],
    });
    const server = await startServer({ script: [call("toolu_1"), call("toolu_2"), call("toolu_3")] });
    const { yard, execute } = spiedYard();
    const result = await runAgent({
      yard,
      model: adapterFor(server, "anthropic"),
      task: "t",
      mode: "direct",
      maxSteps: 2,
    });
    expect(result).toMatchObject({ status: "step_limit", steps: 2, stop: { code: "STEP_LIMIT" } });
    expect(server.turnRequests).toHaveLength(2);
    expect(execute).toHaveBeenCalledTimes(2);
    expect(result.messages.at(-1)?.content).toEqual([
      { type: "tool_result", callId: "toolu_2", content: '{"found":"toolu_2"}', isError: false },
    ]);
    expect(unansweredToolCalls(result.messages).unanswered).toEqual([]);
  });
});

describe("budgets", () => {
  it("ends with budget_exceeded before a request once the token budget is used up", async () => {
    const call = {
      content: [{ type: "tool_use" as const, name: "lookup__find", input: { key: "k" } }],
      usage: { inputTokens: 900, outputTokens: 200 },
    };
    const server = await startServer({ script: [call, call] });
    const { yard } = spiedYard();
    const result = await runAgent({
      yard,
      model: adapterFor(server, "anthropic"),
      task: "t",
      mode: "direct",
      budgets: { maxTotalTokens: 1000 },
    });
    expect(result).toMatchObject({ status: "budget_exceeded", steps: 1, stop: { code: "BUDGET_EXCEEDED" } });
    expect(result.usage.total).toEqual({ input: 900, output: 200, cacheRead: 0, cacheCreation: 0 });
  });
});
