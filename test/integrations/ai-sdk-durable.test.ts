// Durable runs through the AI SDK's own loop (generateText with a mock model): the code-mode
// tool's run pauses on two unanswered asks, the model reads the run id and the route, and the
// resume tool resumes it once a person has approved one call; the model's denial of the other
// reaches the program's catch.

import { join } from "node:path";
import { generateText, stepCountIs } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { afterAll, describe, expect, it } from "vitest";
import type { RunResult } from "../../src/contract.js";
import { FileRunJournal } from "../../src/durable/file-run-journal.js";
import { createCodeModeTool, createResumeRunTool } from "../../src/integrations/ai-sdk.js";
import { Switchyard } from "../../src/switchyard.js";
import { REFUNDS, shopPermissions, shopTools } from "../durable/fixtures/shop-tools.js";
import { tempFolder } from "../helpers/mcp-servers.js";

const work = tempFolder("ai-sdk-durable");
const store = new FileRunJournal({ folder: join(work.path, "runs") });
const yard = new Switchyard({ tools: shopTools, permissions: shopPermissions, typeCheck: "off" });
afterAll(async () => {
  await yard.close();
  work.remove();
});

type CallOptions = Parameters<MockLanguageModelV3["doGenerate"]>[0];
type GenerateResult = Awaited<ReturnType<MockLanguageModelV3["doGenerate"]>>;
const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 5, text: 5, reasoning: 0 },
};

function toolCall(toolName: string, input: unknown): GenerateResult {
  return {
    content: [{ type: "tool-call", toolCallId: `call_${toolName}`, toolName, input: JSON.stringify(input) }],
    finishReason: { unified: "tool-calls", raw: "tool_use" },
    usage,
    warnings: [],
  };
}

/** The last tool result the model was sent, as text. */
function lastToolOutput(options: CallOptions): { type: string; value: string } | undefined {
  const message = options.prompt.filter((candidate) => candidate.role === "tool").at(-1);
  const part = message?.content[0];
  return part?.type === "tool-result" ? (part.output as { type: string; value: string }) : undefined;
}

describe("switchyard-runtime/ai-sdk: durable runs", () => {
  it("pauses the code-mode run, and the resume tool resumes it with a person's approval and the model's denial", async () => {
    const seen: { type: string; value: string }[] = [];
    const model = new MockLanguageModelV3({
      doGenerate: async (options: CallOptions): Promise<GenerateResult> => {
        const output = lastToolOutput(options);
        if (output !== undefined) seen.push(output);
        if (seen.length === 0) return toolCall("run_program", { code: REFUNDS });
        if (seen.length === 1) {
          const runId = /paused: run (run-[0-9a-f]{32})/.exec(output!.value)![1]!;
          // A person approves the first refund meanwhile (what `switchyard runs approve` appends).
          await store.appendOutside(runId, [{ t: "decision", at: Date.now(), position: 3, approved: true }]);
          return toolCall("resume_run", { runId, decisions: [{ position: 4, approved: false, reason: "duplicate" }] });
        }
        return {
          content: [{ type: "text", text: "done" }],
          finishReason: { unified: "stop", raw: "end_turn" },
          usage,
          warnings: [],
        };
      },
    });
    const options = { durable: { store, askTimeoutMs: 100 } };
    const response = await generateText({
      model,
      prompt: "Refund orders 1 and 2.",
      tools: { run_program: createCodeModeTool(yard, options), resume_run: createResumeRunTool(yard, options) },
      stopWhen: stepCountIs(4),
    });
    expect(response.text).toBe("done");
    const [paused, resumed] = response.steps.slice(0, 2).map((step) => step.toolResults[0]!.output as RunResult);
    expect(paused!.error?.code).toBe("PAUSED");
    expect(seen[0]).toEqual({
      type: "error-text",
      value: expect.stringMatching(/^paused: run run-[0-9a-f]{32} waits for a person's decision on 2 call\(s\)/),
    });
    expect(seen[0]!.value).toContain("resume: call resume_run with");
    expect(resumed!.ok, resumed!.error?.message).toBe(true);
    expect(resumed!.output).toMatchObject({
      a: { refunded: 1 },
      b: { caught: "PERMISSION_DENIED", message: expect.stringContaining("duplicate") },
    });
    expect(seen[1]?.type).toBe("text");
  });

  it("refuses to make a resume tool without durable runs", () => {
    expect(() => createResumeRunTool(yard, {})).toThrow(expect.objectContaining({ code: "OPTION_INVALID" }));
    expect(() => createCodeModeTool(yard, { durable: { idPrefix: "../x" } })).toThrow(
      expect.objectContaining({ code: "OPTION_INVALID" }),
    );
  });
});
