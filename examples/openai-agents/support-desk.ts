// The OpenAI Agents SDK with Switchyard: an agent's existing function tools become callable
// from programs, and the agent gets one `run_program` tool instead of one turn per call.
// Offline: a scripted `Model` stands in for the model (drop `model` to use the SDK's default
// OpenAI model with OPENAI_API_KEY set).
// Run: node --no-node-snapshot --import tsx examples/openai-agents/support-desk.ts

import { Agent, type Model, type ModelRequest, type ModelResponse, Runner, tool, Usage } from "@openai/agents";
import { z } from "zod";
import type { RunResult } from "../../src/contract.js";
import { createCodeModeTool, toolsFromOpenAIAgents } from "../../src/integrations/openai-agents.js";
import { Switchyard } from "../../src/switchyard.js";
import { answerFromRunResultText, DESK_PROGRAM, listOpenTickets, TASK, tierOf } from "../support-desk/desk.js";

// The tools the agent already has.
const deskTools = [
  tool({
    name: "listOpenTickets",
    description: "One page of open tickets, oldest first.",
    parameters: z.object({ cursor: z.number().int().describe("0 for the first page, then nextCursor.") }),
    execute: async ({ cursor }) => listOpenTickets(cursor),
  }),
  tool({
    name: "customerTier",
    description: "A customer's support tier.",
    parameters: z.object({ customerId: z.string() }),
    execute: async ({ customerId }) => tierOf(customerId),
  }),
];

// A session whose programs can call them, and the code-mode tool in their place.
const yard = new Switchyard({ tools: toolsFromOpenAIAgents(deskTools, { namespace: "desk", effect: "read" }) });
const runs: RunResult[] = [];
const runProgram = createCodeModeTool(yard, { onRun: (result) => runs.push(result) });

/** A scripted stand-in for a model: it writes the program, then answers from its result. */
const model: Model = {
  async getResponse(request: ModelRequest): Promise<ModelResponse> {
    const usage = new Usage();
    const items = typeof request.input === "string" ? [] : request.input;
    const result = items.find((item) => item.type === "function_call_result");
    if (result === undefined) {
      const call = { code: DESK_PROGRAM };
      return {
        usage,
        output: [{ type: "function_call", callId: "call_1", name: "run_program", arguments: JSON.stringify(call) }],
      };
    }
    const text = typeof result.output === "string" ? result.output : "text" in result.output ? result.output.text : "";
    return {
      usage,
      output: [
        {
          type: "message",
          role: "assistant",
          status: "completed",
          content: [{ type: "output_text", text: answerFromRunResultText(text) }],
        },
      ],
    };
  },
  getStreamedResponse(): AsyncIterable<never> {
    throw new Error("this example does not stream");
  },
};

const agent = new Agent({ name: "support desk", instructions: "Answer with the tools.", model, tools: [runProgram] });
const result = await new Runner({ tracingDisabled: true }).run(agent, TASK);
console.log(`answer: ${result.finalOutput}`);
for (const run of runs) console.log(`run ${run.programId}: ${run.calls.length} tool calls, ${run.stats.wallMs} ms`);
await yard.close();
