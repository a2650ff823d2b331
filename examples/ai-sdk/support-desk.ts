// The Vercel AI SDK with Switchyard: an app's existing AI SDK tools become callable from
// programs, and the model gets one `run_program` tool instead of one turn per call.
// Offline: a scripted MockLanguageModelV3 stands in for the model (swap in a real provider,
// e.g. `anthropic("claude-sonnet-4-5")` from @ai-sdk/anthropic).
// Run: node --no-node-snapshot --import tsx examples/ai-sdk/support-desk.ts

import { generateText, stepCountIs, tool } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { z } from "zod";
import type { RunResult } from "../../src/contract.js";
import { createCodeModeTool, toolsFromAiSdk } from "../../src/integrations/ai-sdk.js";
import { Switchyard } from "../../src/switchyard.js";
import { answerFromRunResultText, DESK_PROGRAM, listOpenTickets, TASK, tierOf } from "../support-desk/desk.js";

// The tools the app already has.
const deskTools = {
  listOpenTickets: tool({
    description: "One page of open tickets, oldest first.",
    inputSchema: z.object({ cursor: z.number().int().describe("0 for the first page, then nextCursor.") }),
    execute: async ({ cursor }) => listOpenTickets(cursor),
  }),
  customerTier: tool({
    description: "A customer's support tier.",
    inputSchema: z.object({ customerId: z.string() }),
    execute: async ({ customerId }) => tierOf(customerId),
  }),
};

// A session whose programs can call them, and the code-mode tool in their place.
const yard = new Switchyard({ tools: toolsFromAiSdk(deskTools, { namespace: "desk", effect: "read" }) });
const runProgram = createCodeModeTool(yard);

const usage = {
  inputTokens: { total: 0, noCache: 0, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 0, text: 0, reasoning: 0 },
};
const model = new MockLanguageModelV3({
  doGenerate: async ({ prompt }) => {
    const result = prompt.find((message) => message.role === "tool")?.content[0];
    if (result?.type !== "tool-result") {
      const input = JSON.stringify({ code: DESK_PROGRAM });
      return {
        content: [{ type: "tool-call", toolCallId: "call_1", toolName: "run_program", input }],
        finishReason: { unified: "tool-calls", raw: undefined },
        usage,
        warnings: [],
      };
    }
    const text = "value" in result.output ? String(result.output.value) : "";
    return {
      content: [{ type: "text", text: answerFromRunResultText(text) }],
      finishReason: { unified: "stop", raw: undefined },
      usage,
      warnings: [],
    };
  },
});

const { text, steps } = await generateText({
  model,
  prompt: TASK,
  tools: { run_program: runProgram },
  stopWhen: stepCountIs(5),
});
// The tool's output is the whole RunResult (calls, stats); the model read it rendered as text.
const run = steps[0]?.toolResults[0]?.output as RunResult | undefined;
console.log(`answer: ${text}`);
if (run !== undefined) console.log(`run ${run.programId}: ${run.calls.length} tool calls, ${run.stats.wallMs} ms`);
await yard.close();
