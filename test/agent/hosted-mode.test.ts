import { describe, expect, it, vi } from "vitest";
import type { AgentEvent } from "../../src/agent/agent-events.js";
import { runAgent } from "../../src/agent/run-agent.js";
import { unansweredToolCalls } from "../../src/agent/transcript.js";
import { SwitchyardError } from "../../src/errors.js";
import { defineTool } from "../../src/registry/define-tool.js";
import { Switchyard } from "../../src/switchyard.js";
import type { RecordedRequest, ScriptedBlock } from "../../src/testing/index.js";
import type { TraceEvent } from "../../src/trace/trace-events.js";
import { createDeferred } from "../helpers/pipeline-fixtures.js";
import { adapterFor, startServer, type ProviderKind } from "./agent-fixtures.js";

const HOSTED: readonly { provider: ProviderKind; stream: boolean; label: string }[] = [
  { provider: "anthropic", stream: false, label: "anthropic json" },
  { provider: "anthropic", stream: true, label: "anthropic sse" },
  { provider: "openai-responses", stream: false, label: "openai responses json" },
  { provider: "openai-responses", stream: true, label: "openai responses sse" },
];

const NO_ERRORS = { unanswered: [], duplicated: [], orphaned: [] };

/** The hosted program's tool results in a recorded request, in the order sent, as the provider shaped them. */
function hostedResults(
  request: RecordedRequest,
): { id: string; content: string; isError: boolean | undefined; caller?: unknown }[] {
  if (request.protocol === "anthropic") {
    return request.body.messages
      .at(-1)
      .content.filter((block: any) => block.type === "tool_result")
      .map((block: any) => ({ id: block.tool_use_id, content: block.content, isError: block.is_error }));
  }
  return request.body.input
    .filter((item: any) => item.type === "function_call_output")
    .map((item: any) => ({ id: item.call_id, content: item.output, isError: undefined, caller: item.caller }));
}

function itemsTool(execute: (input: { n: number }) => unknown, callers?: ("direct" | "program")[]) {
  return defineTool({
    name: "items.get",
    description: "Get an item.",
    inputSchema: {
      type: "object",
      properties: { n: { type: "integer" } },
      required: ["n"],
      additionalProperties: false,
    },
    effect: "read",
    ...(callers === undefined ? {} : { callers }),
    execute,
  });
}

const program = (id: string): ScriptedBlock => ({ type: "hosted_program", id, code: "run the sweep" });

describe.each(HOSTED)("hosted mode ($label)", ({ provider, stream }) => {
  it("sends the provider's code execution tool and each tool's allowed callers", async () => {
    const server = await startServer({ script: [{ content: [{ type: "text", text: "Nothing to do." }] }] });
    const direct = defineTool({
      name: "notes.add",
      description: "Add a note.",
      inputSchema: { type: "object" },
      callers: ["direct"],
      execute: () => "ok",
    });
    const yard = new Switchyard({ tools: [itemsTool(() => 1, ["program"]), direct], results: { spill: false } });
    await runAgent({ yard, model: adapterFor(server, provider, stream), task: "t", mode: "hosted" });
    const { tools } = server.turnRequests[0]!.body;
    if (provider === "anthropic") {
      expect(tools[0]).toEqual({ type: "code_execution_20260120", name: "code_execution" });
      expect(tools.find((tool: any) => tool.name === "items__get").allowed_callers).toEqual([
        "code_execution_20260120",
      ]);
      expect(tools.find((tool: any) => tool.name === "notes__add").allowed_callers).toEqual(["direct"]);
    } else {
      expect(tools[0]).toEqual({ type: "programmatic_tool_calling" });
      expect(tools.find((tool: any) => tool.name === "items__get").allowed_callers).toEqual(["programmatic"]);
      expect(tools.find((tool: any) => tool.name === "notes__add").allowed_callers).toEqual(["direct"]);
    }
    // Switchyard's own sandbox is not offered: the provider runs the program.
    expect(JSON.stringify(tools)).not.toContain("run_program");
  });

  it("passes a hosted program's 30 parallel calls through the pipeline and returns them in the provider's order", async () => {
    const gates = new Map<number, ReturnType<typeof createDeferred<void>>>();
    const allStarted = createDeferred<void>();
    const execute = vi.fn(async (input: { n: number }) => {
      const gate = createDeferred<void>();
      gates.set(input.n, gate);
      if (gates.size === 30) allStarted.resolve();
      await gate.promise;
      return { n: input.n };
    });
    const yard = new Switchyard({ tools: [itemsTool(execute)] });
    const trace: TraceEvent[] = [];
    yard.trace.subscribe((event) => trace.push(event));
    const ids = Array.from({ length: 30 }, (_, n) => `call_h${String(n).padStart(2, "0")}`);
    const server = await startServer({
      script: [
        {
          content: [
            program("prog_1"),
            ...ids.map(
              (id, n): ScriptedBlock => ({
                type: "tool_use",
                id,
                name: "items__get",
                input: { n },
                hostedBy: "prog_1",
              }),
            ),
          ],
        },
        {
          content: [
            { type: "hosted_program_result", id: "prog_1", output: "30 items" },
            { type: "text", text: "Got 30 items." },
          ],
        },
      ],
    });
    const events: AgentEvent[] = [];
    const running = runAgent({
      yard,
      model: adapterFor(server, provider, stream),
      task: "Get 30 items.",
      mode: "hosted",
      onEvent: (event) => events.push(event),
    });
    await allStarted.promise;
    for (let n = 29; n >= 0; n--) gates.get(n)!.resolve();
    const result = await running;

    expect(result).toMatchObject({ status: "completed", finalText: "Got 30 items.", steps: 2 });
    expect(execute).toHaveBeenCalledTimes(30);
    const answers = hostedResults(server.turnRequests[1]!);
    expect(answers.map((answer) => answer.id)).toEqual(ids);
    expect(answers.map((answer) => JSON.parse(answer.content).n)).toEqual(ids.map((_, n) => n));
    const ends = trace.filter((event) => event.type === "tool-call-end");
    expect(ends).toHaveLength(30);
    for (const end of ends) {
      expect(end).toMatchObject({
        caller: "hosted-program",
        hostedCaller: { provider, toolId: "prog_1" },
        status: "ok",
      });
    }
    const starts = events.filter((event) => event.type === "tool-call-start");
    expect(starts.every((event) => event.type === "tool-call-start" && event.caller === "hosted-program")).toBe(true);
    if (provider === "anthropic") {
      const body = server.turnRequests[1]!.body;
      // A hosted program's results travel alone: tool_result blocks only, after the calls with their callers.
      expect(body.messages.at(-1).content.every((block: any) => block.type === "tool_result")).toBe(true);
      const calls = body.messages.at(-2).content.filter((block: any) => block.type === "tool_use");
      expect(calls[0].caller).toEqual({ type: "code_execution_20260120", tool_id: "prog_1" });
      expect(body.messages.at(-2).content[0]).toMatchObject({ type: "server_tool_use", id: "prog_1" });
    } else {
      const input = server.turnRequests[1]!.body.input;
      expect(input.find((item: any) => item.type === "program")).toMatchObject({
        call_id: "prog_1",
        fingerprint: "fp-prog_1",
      });
      expect(
        answers.every((answer) => JSON.stringify(answer.caller) === '{"type":"program","caller_id":"prog_1"}'),
      ).toBe(true);
      const calls = input.filter((item: any) => item.type === "function_call");
      expect(calls.map((call: any) => call.call_id)).toEqual(ids);
      expect(calls[0].caller).toEqual({ type: "program", caller_id: "prog_1" });
    }
    // The program's result stays in the transcript for the model, and every call is answered.
    expect(JSON.stringify(result.messages)).toContain("30 items");
    expect(unansweredToolCalls(result.messages)).toEqual(NO_ERRORS);
  });

  it("answers a denied call to the hosted program as an error result, and never runs the tool", async () => {
    const execute = vi.fn(() => ({ secret: true }));
    const yard = new Switchyard({
      tools: [itemsTool(execute)],
      permissions: {
        rules: [
          {
            tools: "items.get",
            decision: "deny",
            when: (input) => (input as { n: number }).n === 1,
            reason: "item 1 is off limits",
          },
        ],
      },
    });
    const server = await startServer({
      script: [
        {
          content: [
            program("prog_d"),
            { type: "tool_use", id: "call_denied", name: "items__get", input: { n: 1 }, hostedBy: "prog_d" },
          ],
        },
        {
          content: [
            { type: "hosted_program_result", id: "prog_d", output: "denied" },
            { type: "text", text: "Could not." },
          ],
        },
      ],
    });
    const result = await runAgent({ yard, model: adapterFor(server, provider, stream), task: "t", mode: "hosted" });
    expect(result.status).toBe("completed");
    expect(execute).not.toHaveBeenCalled();
    const [answer] = hostedResults(server.turnRequests[1]!);
    expect(answer!.id).toBe("call_denied");
    expect(answer!.content).toBe("error PERMISSION_DENIED: Permission denied for items.get: item 1 is off limits");
    if (provider === "anthropic") expect(answer!.isError).toBe(true);
  });

  it("answers an ask-denied call with PERMISSION_DENIED and the rule's reason", async () => {
    const execute = vi.fn(() => ({ n: 1 }));
    const approve = vi.fn(() => ({ approved: false, reason: "not today" }));
    const yard = new Switchyard({
      tools: [itemsTool(execute)],
      permissions: { rules: [{ tools: "items.get", decision: "ask", reason: "items cost money" }], approve },
    });
    const server = await startServer({
      script: [
        {
          content: [
            program("prog_a"),
            { type: "tool_use", id: "call_ask", name: "items__get", input: { n: 1 }, hostedBy: "prog_a" },
          ],
        },
        { content: [{ type: "text", text: "Stopped." }] },
      ],
    });
    await runAgent({ yard, model: adapterFor(server, provider, stream), task: "t", mode: "hosted" });
    expect(approve).toHaveBeenCalledWith(expect.objectContaining({ caller: "hosted-program", tool: "items.get" }));
    expect(execute).not.toHaveBeenCalled();
    const [answer] = hostedResults(server.turnRequests[1]!);
    expect(answer!.content).toContain("error PERMISSION_DENIED");
    expect(answer!.content).toContain("not today");
  });

  it("refuses a hosted call to a tool only a model turn may call, before the tool runs", async () => {
    const execute = vi.fn(() => ({ n: 1 }));
    const yard = new Switchyard({ tools: [itemsTool(execute, ["direct"])] });
    const server = await startServer({
      script: [
        {
          content: [
            program("prog_x"),
            { type: "tool_use", id: "call_x", name: "items__get", input: { n: 1 }, hostedBy: "prog_x" },
          ],
        },
        { content: [{ type: "text", text: "ok" }] },
      ],
    });
    await runAgent({ yard, model: adapterFor(server, provider, stream), task: "t", mode: "hosted" });
    expect(execute).not.toHaveBeenCalled();
    expect(hostedResults(server.turnRequests[1]!)[0]!.content).toContain(
      "cannot be called from the provider's hosted program",
    );
  });

  it("leaves a valid transcript when cancelled while the hosted program's calls are running", async () => {
    const started = createDeferred<void>();
    const never = createDeferred<never>();
    // Each call waits until the run is cancelled; the pipeline answers it CANCELLED.
    const yard = new Switchyard({
      tools: [
        itemsTool(() => {
          started.resolve();
          return never.promise;
        }),
      ],
    });
    const server = await startServer({
      script: [
        {
          content: [
            program("prog_c"),
            { type: "tool_use", id: "call_c1", name: "items__get", input: { n: 1 }, hostedBy: "prog_c" },
            { type: "tool_use", id: "call_c2", name: "items__get", input: { n: 2 }, hostedBy: "prog_c" },
          ],
        },
      ],
    });
    const controller = new AbortController();
    const running = runAgent({
      yard,
      model: adapterFor(server, provider, stream),
      task: "t",
      mode: "hosted",
      signal: controller.signal,
    });
    await started.promise;
    controller.abort();
    const result = await running;
    expect(result.status).toBe("cancelled");
    expect(server.turnRequests).toHaveLength(1);
    expect(unansweredToolCalls(result.messages)).toEqual(NO_ERRORS);
    const results = result.messages.at(-1)!.content;
    expect(results.map((block) => block.type === "tool_result" && block.content.split(":")[0])).toEqual([
      "error CANCELLED",
      "error CANCELLED",
    ]);
  });

  it("leaves a valid transcript when cancelled while the model's hosted turn is in flight", async () => {
    const yard = new Switchyard({ tools: [itemsTool(() => ({ n: 1 }))] });
    const requested = createDeferred<void>();
    const server = await startServer({
      script: [
        () => {
          requested.resolve();
          return { content: [program("prog_w"), { type: "text", text: "late" }], delayMs: 5_000 };
        },
      ],
    });
    const controller = new AbortController();
    const running = runAgent({
      yard,
      model: adapterFor(server, provider, stream),
      task: "t",
      mode: "hosted",
      signal: controller.signal,
    });
    await requested.promise;
    controller.abort();
    const result = await running;
    expect(result.status).toBe("cancelled");
    expect(result.messages).toEqual([{ role: "user", content: [{ type: "text", text: "t" }] }]);
  });
});

describe.each([false, true])("Anthropic containers (stream %s)", (stream) => {
  function hostedTurn(programId: string, callId: string): { content: ScriptedBlock[] } {
    return {
      content: [
        program(programId),
        { type: "tool_use", id: callId, name: "items__get", input: { n: 1 }, hostedBy: programId },
      ],
    };
  }

  it("reuses the container on the next turn and in a later run over the same transcript", async () => {
    const yard = new Switchyard({ tools: [itemsTool((input) => input)] });
    const server = await startServer({
      script: [
        hostedTurn("prog_1", "call_1"),
        {
          content: [
            { type: "hosted_program_result", id: "prog_1", output: "one" },
            { type: "text", text: "First." },
          ],
        },
        { content: [{ type: "text", text: "Second." }] },
      ],
    });
    const events: AgentEvent[] = [];
    const model = adapterFor(server, "anthropic", stream);
    const first = await runAgent({ yard, model, task: "one", mode: "hosted", onEvent: (event) => events.push(event) });
    const containerId = first.container?.id;
    expect(containerId).toMatch(/^container_s/);
    expect(server.turnRequests[0]!.body.container).toBeUndefined();
    expect(server.turnRequests[1]!.body.container).toBe(containerId);
    expect(events.filter((event) => event.type === "container-start")).toHaveLength(1);

    const second = await runAgent({ yard, model, task: "two", mode: "hosted", messages: first.messages });
    expect(second.status).toBe("completed");
    expect(server.turnRequests[2]!.body.container).toBe(containerId);
  });

  it("continues a paused hosted turn in the same container", async () => {
    const yard = new Switchyard({ tools: [itemsTool((input) => input)] });
    const server = await startServer({
      script: [
        { content: [program("prog_p")], stopReason: "pause_turn" },
        {
          content: [
            { type: "hosted_program_result", id: "prog_p", output: "done" },
            { type: "text", text: "Resumed." },
          ],
        },
      ],
    });
    const result = await runAgent({ yard, model: adapterFor(server, "anthropic", stream), task: "t", mode: "hosted" });
    expect(result).toMatchObject({ status: "completed", finalText: "Resumed.", steps: 2 });
    const resumed = server.turnRequests[1]!.body;
    expect(resumed.container).toBe(result.container?.id);
    expect(resumed.messages.at(-1)).toMatchObject({
      role: "assistant",
      content: [{ type: "server_tool_use", id: "prog_p" }],
    });
  });

  it("starts a new container when the one in use expired, drops the lost program and says so", async () => {
    const yard = new Switchyard({ tools: [itemsTool((input) => input)] });
    const past = new Date(Date.now() - 1_000).toISOString();
    const server = await startServer({
      script: [
        { ...hostedTurn("prog_old", "call_old"), container: { id: "container_old", expiresAt: past } },
        { content: [{ type: "text", text: "Starting over." }] },
      ],
    });
    const events: AgentEvent[] = [];
    const result = await runAgent({
      yard,
      model: adapterFor(server, "anthropic", stream),
      task: "t",
      mode: "hosted",
      onEvent: (event) => events.push(event),
    });
    expect(result.status).toBe("completed");
    expect(events.find((event) => event.type === "container-expired")).toMatchObject({
      containerId: "container_old",
      lostCalls: ["call_old"],
    });
    const retry = server.turnRequests[1]!.body;
    expect(retry.container).toBeUndefined();
    expect(JSON.stringify(retry.messages)).not.toContain("call_old");
    expect(JSON.stringify(retry.messages)).not.toContain("prog_old");
    expect(retry.messages.at(-1).content.at(-1).text).toContain("container_old expired");
    expect(unansweredToolCalls(result.messages)).toEqual(NO_ERRORS);
  });

  it("starts a new container when the API says the named one is gone", async () => {
    const yard = new Switchyard({ tools: [itemsTool((input) => input)] });
    const future = new Date(Date.now() + 60_000).toISOString();
    const server = await startServer({
      script: [
        { ...hostedTurn("prog_g", "call_g"), container: { id: "container_gone", expiresAt: future } },
        { error: { status: 400, message: "Container container_gone has expired." } },
        { content: [{ type: "text", text: "Fresh start." }] },
      ],
    });
    const events: AgentEvent[] = [];
    const result = await runAgent({
      yard,
      model: adapterFor(server, "anthropic", stream),
      task: "t",
      mode: "hosted",
      onEvent: (event) => events.push(event),
    });
    expect(result).toMatchObject({ status: "completed", finalText: "Fresh start." });
    expect(server.turnRequests[1]!.body.container).toBe("container_gone");
    expect(server.turnRequests[2]!.body.container).toBeUndefined();
    expect(events.some((event) => event.type === "container-expired")).toBe(true);
    expect(unansweredToolCalls(result.messages)).toEqual(NO_ERRORS);
  });
});

describe("mode support", () => {
  it("refuses hosted mode on Chat Completions before any request", async () => {
    const server = await startServer({ script: [{ content: [{ type: "text", text: "never" }] }] });
    const yard = new Switchyard({ tools: [itemsTool(() => 1)] });
    const attempt = runAgent({ yard, model: adapterFor(server, "openai"), task: "t", mode: "hosted" });
    await expect(attempt).rejects.toThrow(SwitchyardError);
    await expect(attempt).rejects.toMatchObject({ code: "OPTION_INVALID", message: expect.stringContaining("hosted") });
    expect(server.requests).toHaveLength(0);
  });
});
