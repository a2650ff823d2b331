// LangChain.js with Switchyard: existing LangChain tools become callable from programs, and a
// `createAgent` agent gets one `run_program` tool instead of one turn per call.
// Offline: LangChain's `fakeModel()` stands in for the model (use e.g. `new ChatAnthropic(...)`
// from @langchain/anthropic, or "anthropic:claude-sonnet-4-5").
// Run: node --no-node-snapshot --import tsx examples/langchain/support-desk.ts

import { AIMessage, type BaseMessage, ToolMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { tool } from "@langchain/core/tools";
import { createAgent } from "langchain";
import { z } from "zod";
import type { RunResult } from "../../src/contract.js";
import { createCodeModeTool, toolsFromLangChain } from "../../src/integrations/langchain.js";
import { Switchyard } from "../../src/switchyard.js";
import { answerFromRunResultText, DESK_PROGRAM, listOpenTickets, TASK, tierOf } from "../support-desk/desk.js";

// The tools the app already has.
const deskTools = [
  tool(async ({ cursor }) => listOpenTickets(cursor), {
    name: "listOpenTickets",
    description: "One page of open tickets, oldest first.",
    schema: z.object({ cursor: z.number().int().describe("0 for the first page, then nextCursor.") }),
  }),
  tool(async ({ customerId }) => tierOf(customerId), {
    name: "customerTier",
    description: "A customer's support tier.",
    schema: z.object({ customerId: z.string() }),
  }),
];

// A session whose programs can call them, and the code-mode tool in their place.
const yard = new Switchyard({ tools: toolsFromLangChain(deskTools, { namespace: "desk", effect: "read" }) });
const runProgram = createCodeModeTool(yard);

const model = fakeModel()
  .respondWithTools([{ name: "run_program", args: { code: DESK_PROGRAM } }])
  .respond((messages: BaseMessage[]) => {
    const result = [...messages].reverse().find((message) => ToolMessage.isInstance(message));
    return new AIMessage(answerFromRunResultText(String(result?.content ?? "")));
  });

const agent = createAgent({ model, tools: [runProgram] });
const state = await agent.invoke({ messages: [{ role: "user", content: TASK }] });
console.log(`answer: ${state.messages.at(-1)?.content}`);
for (const message of state.messages) {
  if (!ToolMessage.isInstance(message)) continue;
  const run = message.artifact as RunResult; // the whole RunResult, which the model never sees
  console.log(`run ${run.programId}: ${run.calls.length} tool calls, ${run.stats.wallMs} ms`);
}
await yard.close();
