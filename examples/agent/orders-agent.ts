// The orders task with a real model: Claude gets `run_program` over the orders tools, writes
// the duplicate-charge sweep itself, and answers from what the program returns. Needs
// ANTHROPIC_API_KEY; without it, this prints how to run it and exits 0.
// Run: node --no-node-snapshot --import tsx examples/agent/orders-agent.ts

import { Switchyard } from "switchyard-runtime";
import { createAnthropicAdapter, runAgent } from "switchyard-runtime/agent";
import { OrdersService } from "../orders/orders-service.js";
import { createOrdersTools } from "../orders/orders-tools.js";

/** The task the model gets. */
export const ORDERS_AGENT_TASK =
  "Find every order that was charged twice for its full amount (two or more successful payments, captured or later refunded, " +
  "each equal to the order total) across customers cus_1001 to cus_1006, over all their orders. Report the order ids with the evidence, " +
  "the lookups that kept failing, and whether the sweep was complete.";

export const DEFAULT_MODEL = "claude-sonnet-5-5";

const HOW_TO_RUN = `This example runs the orders task with a real Claude model in programmatic mode.

  export ANTHROPIC_API_KEY=sk-ant-...
  # optional: ANTHROPIC_MODEL (default ${DEFAULT_MODEL}), ANTHROPIC_BASE_URL
  node --no-node-snapshot --import tsx examples/agent/orders-agent.ts

Or through the CLI, with any provider:

  switchyard agent --provider anthropic --model ${DEFAULT_MODEL} --mode programmatic \\
    --tools examples/agent/orders-tools-module.ts "Find every order charged twice."

ANTHROPIC_API_KEY is not set, so nothing was sent.
`;

const apiKey = process.env["ANTHROPIC_API_KEY"];
if (apiKey === undefined || apiKey === "") {
  process.stdout.write(HOW_TO_RUN);
} else {
  const service = new OrdersService();
  const yard = new Switchyard({ tools: createOrdersTools(service) });
  const baseURL = process.env["ANTHROPIC_BASE_URL"];
  const model = createAnthropicAdapter({
    apiKey,
    model: process.env["ANTHROPIC_MODEL"] || DEFAULT_MODEL,
    ...(baseURL === undefined || baseURL === "" ? {} : { baseURL }),
  });
  const result = await runAgent({
    yard,
    model,
    task: ORDERS_AGENT_TASK,
    mode: "programmatic",
    maxSteps: 8,
    maxTokens: 8192,
    onEvent: (event) => {
      if (event.type === "model-response")
        process.stderr.write(`step ${event.step}: ${event.rawStopReason}, ${event.toolCalls} tool calls\n`);
      if (event.type === "run-program-end")
        process.stderr.write(
          `  program ${event.result.ok ? "ok" : event.result.error?.code}: ${event.result.stats.toolCalls} calls\n`,
        );
    },
  });
  const truth = service.groundTruth();
  const { total } = result.usage;
  process.stdout.write(`${result.finalText ?? result.lastText}\n\n`);
  process.stdout.write(`status: ${result.status} after ${result.steps} model requests\n`);
  process.stdout.write(
    `usage: ${total.input} input tokens (${total.cacheRead} read from cache, ${total.cacheCreation} written), ${total.output} output tokens\n`,
  );
  for (const run of result.runs) {
    process.stdout.write(
      `run ${run.programId}: ${run.ok ? "ok" : `error ${run.error?.code}`}, ${run.stats.toolCalls} tool calls in ${Math.round(run.stats.wallMs)} ms; ` +
        `${run.stats.bytesIn} bytes of results stayed in the sandbox, ${run.stats.bytesOut} bytes came back\n`,
    );
  }
  process.stdout.write(
    `ground truth: ${truth.duplicates.length} duplicate charges, ${truth.permanentFailures.length} orders whose lookup always fails.\n`,
  );
  process.exitCode = result.status === "completed" ? 0 : 1;
}
