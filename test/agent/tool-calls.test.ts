import { describe, expect, it, vi } from "vitest";
import { runAgent } from "../../src/agent/run-agent.js";
import { toolCallsOf, unansweredToolCalls } from "../../src/agent/transcript.js";
import { defineTool } from "../../src/registry/define-tool.js";
import { Switchyard } from "../../src/switchyard.js";
import type { RecordedRequest } from "../../src/testing/index.js";
import { createDeferred } from "../helpers/pipeline-fixtures.js";
import { adapterFor, lastToolResults, startServer, type ProviderKind } from "./agent-fixtures.js";

/** Every tool-call id of a recorded Anthropic body against its results: each must be answered once. */
function answeredOnce(request: RecordedRequest): boolean {
  const uses: string[] = [];
  const results: string[] = [];
  for (const message of request.body.messages) {
    for (const block of Array.isArray(message.content) ? message.content : []) {
      if (block.type === "tool_use") uses.push(block.id);
      if (block.type === "tool_result") results.push(block.tool_use_id);
    }
  }
  return (
    uses.length > 0 &&
    JSON.stringify([...uses].sort()) === JSON.stringify([...results].sort()) &&
    new Set(results).size === results.length
  );
}

describe.each<ProviderKind>(["anthropic", "openai", "openai-responses"])(
  "a turn with 30 parallel tool calls (%s)",
  (provider) => {
    it("runs them concurrently and returns 30 results in one message, in call order, whatever order they finish in", async () => {
      const started: string[] = [];
      const gates = new Map<string, ReturnType<typeof createDeferred<void>>>();
      const allStarted = createDeferred<void>();
      const tool = defineTool({
        name: "items.get",
        description: "Get an item.",
        inputSchema: { type: "object", properties: { n: { type: "integer" } }, required: ["n"] },
        effect: "read",
        execute: async (input: { n: number }) => {
          const gate = createDeferred<void>();
          gates.set(String(input.n), gate);
          started.push(String(input.n));
          if (started.length === 30) allStarted.resolve();
          await gate.promise;
          return { n: input.n };
        },
      });
      const yard = new Switchyard({ tools: [tool] });
      const ids = Array.from({ length: 30 }, (_, n) => `call_${String(n).padStart(2, "0")}`);
      const server = await startServer({
        script: [
          { content: ids.map((id, n) => ({ type: "tool_use" as const, id, name: "items__get", input: { n } })) },
          { content: [{ type: "text", text: "Got them all." }] },
        ],
      });
      const running = runAgent({ yard, model: adapterFor(server, provider), task: "Get 30 items.", mode: "direct" });
      await allStarted.promise;
      // Every call is in flight at once; finish them last-first.
      for (let n = 29; n >= 0; n--) gates.get(String(n))!.resolve();
      const result = await running;

      expect(result.status).toBe("completed");
      const next = server.turnRequests[1]!.body;
      const answers = lastToolResults(next, provider);
      expect(answers.map((answer) => answer.id)).toEqual(ids);
      expect(answers.map((answer) => JSON.parse(answer.content).n)).toEqual(ids.map((_, n) => n));
      if (provider === "anthropic") {
        // One user message holds all 30, and it directly follows the assistant turn with the 30 calls.
        expect(next.messages.at(-1).role).toBe("user");
        expect(next.messages.at(-1).content.filter((block: any) => block.type === "tool_result")).toHaveLength(30);
        expect(
          next.messages
            .at(-2)
            .content.filter((block: any) => block.type === "tool_use")
            .map((block: any) => block.id),
        ).toEqual(ids);
      } else if (provider === "openai") {
        expect(next.messages.slice(-30).every((message: any) => message.role === "tool")).toBe(true);
        expect(next.messages.at(-31).tool_calls.map((call: any) => call.id)).toEqual(ids);
      } else {
        // The 30 function_call items, in order, then their 30 outputs in the same order.
        expect(next.input.slice(-60, -30).map((item: any) => [item.type, item.call_id])).toEqual(
          ids.map((id) => ["function_call", id]),
        );
      }
    });
  },
);

describe("a denied call", () => {
  it.each<ProviderKind>(["anthropic", "openai", "openai-responses"])(
    "comes back as an error result without running the tool, and the loop goes on (%s)",
    async (provider) => {
      const execute = vi.fn(() => "deleted");
      const tool = defineTool({
        name: "files.delete",
        description: "Delete a file.",
        inputSchema: { type: "object" },
        effect: "destructive",
        execute,
      });
      const yard = new Switchyard({
        tools: [tool],
        permissions: {
          rules: [
            {
              tools: "files.*",
              decision: "deny",
              when: (input) => (input as { path?: string }).path !== "/tmp/scratch",
              reason: "Deleting files is not allowed here.",
            },
          ],
        },
      });
      const server = await startServer({
        script: [
          { content: [{ type: "tool_use", id: "call_del", name: "files__delete", input: { path: "/etc/passwd" } }] },
          { content: [{ type: "text", text: "I was not allowed to delete it." }] },
        ],
      });
      const result = await runAgent({ yard, model: adapterFor(server, provider), task: "Delete it.", mode: "direct" });
      expect(execute).not.toHaveBeenCalled();
      expect(result).toMatchObject({ status: "completed", finalText: "I was not allowed to delete it." });
      const [answer] = lastToolResults(server.turnRequests[1]!.body, provider);
      expect(answer!.id).toBe("call_del");
      expect(answer!.content).toMatch(/^error PERMISSION_DENIED: .*Deleting files is not allowed here/);
      if (provider === "anthropic") expect(answer!.isError).toBe(true);
      expect(result.messages[2]).toMatchObject({
        role: "user",
        content: [{ type: "tool_result", callId: "call_del", isError: true }],
      });
    },
  );
});

describe("a tool that every call to is denied", () => {
  it("is not offered to the model at all, in direct mode as in run_program", async () => {
    const keep = defineTool({
      name: "files.read",
      description: "Read a file.",
      inputSchema: { type: "object" },
      effect: "read",
      execute: () => "text",
    });
    const drop = defineTool({
      name: "files.delete",
      description: "Delete a file.",
      inputSchema: { type: "object" },
      execute: () => "deleted",
    });
    const yard = new Switchyard({
      tools: [keep, drop],
      permissions: { rules: [{ tools: "files.delete", decision: "deny" }] },
    });
    const server = await startServer({ script: [{ content: [{ type: "text", text: "Nothing to do." }] }] });
    await runAgent({ yard, model: adapterFor(server, "anthropic"), task: "t", mode: "hybrid" });
    const body = server.turnRequests[0]!.body as { tools: { name: string; description: string }[] };
    expect(body.tools.map((tool) => tool.name)).toEqual(["run_program", "files__read", "results__read"]);
    expect(body.tools[0]!.description).not.toContain("delete(");
  });
});

describe("cancellation mid-turn", () => {
  it("answers every call of the turn (the running ones CANCELLED), so the history stays valid for a later request", async () => {
    const hanging = createDeferred<void>();
    let inFlight = 0;
    const slow = defineTool({
      name: "slow.wait",
      description: "Wait.",
      inputSchema: { type: "object" },
      effect: "read",
      execute: (_input, { signal }) =>
        new Promise((_resolve, reject) => {
          if (++inFlight === 2) hanging.resolve();
          signal.addEventListener("abort", () => reject(new Error("aborted")));
        }),
    });
    const fast = defineTool({
      name: "fast.now",
      description: "Now.",
      inputSchema: { type: "object" },
      effect: "read",
      execute: () => "now",
    });
    const yard = new Switchyard({ tools: [slow, fast] });
    const server = await startServer({
      script: [
        {
          content: [
            { type: "tool_use", id: "toolu_slow_1", name: "slow__wait", input: {} },
            { type: "tool_use", id: "toolu_fast", name: "fast__now", input: {} },
            { type: "tool_use", id: "toolu_slow_2", name: "slow__wait", input: {} },
          ],
        },
        { content: [{ type: "text", text: "Picking up after the interruption." }] },
      ],
    });
    const controller = new AbortController();
    const running = runAgent({
      yard,
      model: adapterFor(server, "anthropic"),
      task: "Wait twice.",
      mode: "direct",
      signal: controller.signal,
    });
    await hanging.promise;
    controller.abort();
    const result = await running;

    expect(result).toMatchObject({ status: "cancelled", stop: { code: "CANCELLED" }, steps: 1 });
    expect(unansweredToolCalls(result.messages)).toEqual({ unanswered: [], duplicated: [], orphaned: [] });
    const last = result.messages.at(-1)!;
    expect(last.content.map((block) => (block.type === "tool_result" ? [block.callId, block.isError] : null))).toEqual([
      ["toolu_slow_1", true],
      ["toolu_fast", false],
      ["toolu_slow_2", true],
    ]);
    expect(last.content[0]).toMatchObject({ content: expect.stringMatching(/^error CANCELLED/) });

    // The transcript is sent again as it is: the provider sees every tool_use answered once.
    const resumed = await runAgent({
      yard,
      model: adapterFor(server, "anthropic"),
      task: "Go on.",
      mode: "direct",
      messages: result.messages,
    });
    expect(resumed.status).toBe("completed");
    expect(answeredOnce(server.turnRequests[1]!)).toBe(true);
    expect(toolCallsOf(result.messages[1]!).map((call) => call.id)).toEqual([
      "toolu_slow_1",
      "toolu_fast",
      "toolu_slow_2",
    ]);
  });

  it("cancels a running program: run_program answers with the run's CANCELLED error", async () => {
    const started = createDeferred<void>();
    const slow = defineTool({
      name: "slow.wait",
      description: "Wait.",
      inputSchema: { type: "object" },
      outputSchema: { type: "string" },
      effect: "read",
      execute: (_input, { signal }) =>
        new Promise<string>((_resolve, reject) => {
          started.resolve();
          signal.addEventListener("abort", () => reject(new Error("aborted")));
        }),
    });
    const yard = new Switchyard({ tools: [slow] });
    const server = await startServer({
      script: [
        {
          content: [
            {
              type: "tool_use",
              id: "toolu_prog",
              name: "run_program",
              input: { code: "return await tools.slow.wait({});" },
            },
          ],
        },
      ],
    });
    const controller = new AbortController();
    const running = runAgent({
      yard,
      model: adapterFor(server, "anthropic"),
      task: "t",
      mode: "programmatic",
      signal: controller.signal,
    });
    await started.promise;
    controller.abort();
    const result = await running;
    expect(result.status).toBe("cancelled");
    expect(result.runs).toHaveLength(1);
    expect(result.runs[0]!.error?.code).toBe("CANCELLED");
    expect(result.messages.at(-1)!.content).toEqual([
      { type: "tool_result", callId: "toolu_prog", content: expect.stringMatching(/^error CANCELLED/), isError: true },
    ]);
  });

  it("cancels a pending model request: nothing is appended after the task", async () => {
    const server = await startServer({ script: [{ content: [{ type: "text", text: "late" }], delayMs: 2_000 }] });
    const yard = new Switchyard();
    const controller = new AbortController();
    const running = runAgent({
      yard,
      model: adapterFor(server, "anthropic"),
      task: "t",
      mode: "direct",
      signal: controller.signal,
    });
    while (server.turnRequests.length === 0) await new Promise((resolve) => setImmediate(resolve));
    controller.abort();
    const result = await running;
    expect(result.status).toBe("cancelled");
    expect(result.messages).toHaveLength(1);
  });
});
