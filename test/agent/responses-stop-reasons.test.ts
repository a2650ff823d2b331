import { describe, expect, it, vi } from "vitest";
import type { AgentEvent } from "../../src/agent/agent-events.js";
import type { StopReason } from "../../src/agent/model-adapter.js";
import { runAgent } from "../../src/agent/run-agent.js";
import type { AgentStatus, StopPolicy } from "../../src/agent/stop-policy.js";
import { unansweredToolCalls } from "../../src/agent/transcript.js";
import { defineTool } from "../../src/registry/define-tool.js";
import { Switchyard } from "../../src/switchyard.js";
import type { ScriptedTurn } from "../../src/testing/index.js";
import { adapterFor, startServer } from "./agent-fixtures.js";

const call = { type: "tool_use" as const, id: "call_1", name: "lookup__find", input: { key: "k" } };
const done: ScriptedTurn = { content: [{ type: "text", text: "Done." }] };

/**
 * Every ending a Responses API response can have, with the stop reason it normalizes to and
 * the policy's outcome for the run. `failed` is no stop reason: it is a failed request.
 */
const CASES: readonly {
  label: string;
  script: readonly ScriptedTurn[];
  raw: string;
  stopReason: StopReason | undefined;
  status: AgentStatus;
  policy?: StopPolicy;
  toolRuns: number;
}[] = [
  {
    label: "completed with text",
    script: [done],
    raw: "completed",
    stopReason: "end_turn",
    status: "completed",
    toolRuns: 0,
  },
  {
    label: "completed with function calls",
    script: [{ content: [call] }, done],
    raw: "completed",
    stopReason: "tool_use",
    status: "completed",
    toolRuns: 1,
  },
  {
    label: "completed with a refusal part",
    script: [{ content: [{ type: "text", text: "I can't help with that." }], stopReason: "refusal" }],
    raw: "completed",
    stopReason: "refusal",
    status: "refused",
    toolRuns: 0,
  },
  {
    label: "incomplete for max_output_tokens, continued",
    script: [{ content: [{ type: "text", text: "Part" }], stopReason: "max_tokens" }, done],
    raw: "incomplete:max_output_tokens",
    stopReason: "max_tokens",
    status: "completed",
    toolRuns: 0,
  },
  {
    label: "incomplete for max_output_tokens, stopped",
    script: [{ content: [{ type: "text", text: "Part" }, call], stopReason: "max_tokens" }],
    raw: "incomplete:max_output_tokens",
    stopReason: "max_tokens",
    status: "max_tokens",
    policy: { onMaxTokens: "stop" },
    toolRuns: 0,
  },
  {
    label: "incomplete for content_filter",
    script: [
      { content: [{ type: "text", text: "Par" }], responseStatus: "incomplete", incompleteReason: "content_filter" },
    ],
    raw: "incomplete:content_filter",
    stopReason: "refusal",
    status: "refused",
    toolRuns: 0,
  },
  {
    label: "incomplete for no stated reason",
    script: [{ content: [call], responseStatus: "incomplete", incompleteReason: null }],
    raw: "incomplete",
    stopReason: "unknown",
    status: "incomplete",
    toolRuns: 0,
  },
  {
    label: "cancelled",
    script: [{ content: [{ type: "text", text: "Par" }], responseStatus: "cancelled" }],
    raw: "cancelled",
    stopReason: "unknown",
    status: "incomplete",
    toolRuns: 0,
  },
  {
    label: "queued (background mode is not used)",
    script: [{ content: [], responseStatus: "queued" }],
    raw: "queued",
    stopReason: "unknown",
    status: "incomplete",
    toolRuns: 0,
  },
  {
    label: "in_progress",
    script: [{ content: [], responseStatus: "in_progress" }],
    raw: "in_progress",
    stopReason: "unknown",
    status: "incomplete",
    toolRuns: 0,
  },
  {
    label: "failed",
    script: [{ content: [], responseStatus: "failed", responseError: { code: "server_error", message: "boom" } }],
    raw: "failed",
    stopReason: undefined,
    status: "model_error",
    toolRuns: 0,
  },
];

describe.each([false, true])("every Responses API ending maps to a policy (stream %s)", (stream) => {
  it.each(CASES)("$label → $stopReason → $status", async ({ script, raw, stopReason, status, policy, toolRuns }) => {
    const execute = vi.fn((input: { key: string }) => ({ found: input.key }));
    const yard = new Switchyard({
      tools: [
        defineTool({
          name: "lookup.find",
          description: "Find a key.",
          inputSchema: { type: "object", properties: { key: { type: "string" } }, required: ["key"] },
          effect: "read",
          execute,
        }),
      ],
    });
    const server = await startServer({ script });
    const events: AgentEvent[] = [];
    const result = await runAgent({
      yard,
      model: adapterFor(server, "openai-responses", stream),
      task: "t",
      mode: "direct",
      onEvent: (event) => events.push(event),
      ...(policy === undefined ? {} : { stopPolicy: policy }),
    });
    expect(result.status).toBe(status);
    const first = events.find((event) => event.type === "model-response");
    if (stopReason === undefined) {
      expect(first).toBeUndefined();
      expect(result.stop?.message).toContain("server_error");
    } else {
      expect(first).toMatchObject({ stopReason, rawStopReason: raw });
    }
    // Only a completed response's calls run; a call in any other ending is dropped, never run.
    expect(execute).toHaveBeenCalledTimes(toolRuns);
    expect(unansweredToolCalls(result.messages)).toEqual({ unanswered: [], duplicated: [], orphaned: [] });
  });
});
