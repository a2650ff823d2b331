import { getEventListeners } from "node:events";
import { describe, expect, it, vi } from "vitest";
import { runAgent } from "../../src/agent/run-agent.js";
import { defineTool } from "../../src/registry/define-tool.js";
import { Switchyard } from "../../src/switchyard.js";
import type { RecordedRequest } from "../../src/testing/index.js";
import { adapterFor, startServer } from "./agent-fixtures.js";

const noop = (name: string) =>
  defineTool({ name, description: "No-op.", inputSchema: { type: "object" }, effect: "read", execute: () => null });

describe("runAgent options", () => {
  it("throws OPTION_INVALID before any request for a history with an unanswered tool call, or a bad maxSteps", async () => {
    const server = await startServer({ script: [] });
    const yard = new Switchyard();
    const model = adapterFor(server, "anthropic");
    await expect(
      runAgent({
        yard,
        model,
        task: "t",
        mode: "direct",
        messages: [{ role: "assistant", content: [{ type: "tool_call", id: "toolu_open", name: "x", input: {} }] }],
      }),
    ).rejects.toMatchObject({ code: "OPTION_INVALID", message: expect.stringContaining("toolu_open") });
    await expect(runAgent({ yard, model, task: "t", mode: "direct", maxSteps: 0 })).rejects.toMatchObject({
      code: "OPTION_INVALID",
    });
    expect(server.requests).toHaveLength(0);
  });

  it("throws TOOL_NAME_COLLISION before any request when two tools share a provider name", async () => {
    const server = await startServer({ script: [] });
    const yard = new Switchyard({ tools: [noop("a.b"), noop("a__b")] });
    await expect(
      runAgent({ yard, model: adapterFor(server, "anthropic"), task: "t", mode: "direct" }),
    ).rejects.toMatchObject({ code: "TOOL_NAME_COLLISION" });
    expect(server.requests).toHaveLength(0);
  });

  it("builds the toolset once per catalog version: reused while the catalog is unchanged, rebuilt after a change", async () => {
    const yard = new Switchyard({ tools: [noop("a.one")] });
    const programTool = vi.spyOn(yard, "programTool");
    const server = await startServer({
      script: [
        { content: [{ type: "tool_use", id: "toolu_1", name: "a__one", input: {} }] },
        () => {
          yard.registry.addAll([noop("b.two")]);
          return { content: [{ type: "tool_use", id: "toolu_2", name: "a__one", input: {} }] };
        },
        { content: [{ type: "text", text: "done" }] },
      ],
    });
    const result = await runAgent({ yard, model: adapterFor(server, "anthropic"), task: "t", mode: "hybrid" });
    expect(result.status).toBe("completed");
    const offered = (request: RecordedRequest): string[] =>
      request.body.tools.map((tool: { name: string }) => tool.name);
    const [first, second, third] = server.turnRequests.map(offered);
    expect(second).toEqual(first);
    expect(first).not.toContain("b__two");
    expect(third).toContain("b__two");
    expect(programTool).toHaveBeenCalledTimes(2);
  });

  it("throws TOOL_NAME_COLLISION when a catalog change mid-run brings a clash, and lets go of the caller's signal", async () => {
    const yard = new Switchyard({ tools: [noop("a.b")] });
    const server = await startServer({
      script: [
        () => {
          yard.registry.addAll([noop("a__b")]);
          return { content: [{ type: "tool_use", id: "toolu_1", name: "a__b", input: {} }] };
        },
      ],
    });
    const controller = new AbortController();
    const running = runAgent({
      yard,
      model: adapterFor(server, "anthropic"),
      task: "t",
      mode: "direct",
      signal: controller.signal,
      budgets: { timeMs: 60_000 },
    });
    await expect(running).rejects.toMatchObject({ code: "TOOL_NAME_COLLISION" });
    expect(server.turnRequests).toHaveLength(1);
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);
  });

  it("ends with budget_exceeded when the time budget runs out mid-request", async () => {
    const server = await startServer({ script: [{ content: [{ type: "text", text: "late" }], delayMs: 5_000 }] });
    const result = await runAgent({
      yard: new Switchyard(),
      model: adapterFor(server, "anthropic"),
      task: "t",
      mode: "direct",
      budgets: { timeMs: 50 },
    });
    expect(result).toMatchObject({ status: "budget_exceeded", stop: { code: "BUDGET_EXCEEDED" } });
  });

  it("keeps running when an event listener throws", async () => {
    const server = await startServer({ script: [{ content: [{ type: "text", text: "fine" }] }] });
    const result = await runAgent({
      yard: new Switchyard(),
      model: adapterFor(server, "openai"),
      task: "t",
      mode: "direct",
      onEvent: () => {
        throw new Error("broken view");
      },
    });
    expect(result).toMatchObject({ status: "completed", finalText: "fine" });
  });

  it("continues an earlier transcript: the old history is sent, then the new task", async () => {
    const server = await startServer({
      script: [{ content: [{ type: "text", text: "first" }] }, { content: [{ type: "text", text: "second" }] }],
    });
    const yard = new Switchyard();
    const model = adapterFor(server, "anthropic");
    const first = await runAgent({ yard, model, task: "one", mode: "direct", system: "" });
    const second = await runAgent({ yard, model, task: "two", mode: "direct", system: "", messages: first.messages });
    expect(second.finalText).toBe("second");
    const body = server.turnRequests[1]!.body;
    expect(body.system).toBeUndefined();
    expect(body.messages.map((message: { role: string }) => message.role)).toEqual(["user", "assistant", "user"]);
    expect(second.messages).toHaveLength(4);
  });
});
