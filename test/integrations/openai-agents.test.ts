import {
  Agent,
  type Model,
  type ModelRequest,
  type ModelResponse,
  Runner,
  tool,
  Usage,
  webSearchTool,
} from "@openai/agents";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import type { RunResult } from "../../src/contract.js";
import { createCodeModeTool, toolsFromOpenAIAgents } from "../../src/integrations/openai-agents.js";
import { Switchyard, type SwitchyardOptions } from "../../src/switchyard.js";
import {
  answerText,
  expectedAnswer,
  listSkusTool,
  outputFromRenderedResult,
  skuOf,
  WAREHOUSE_PROGRAM,
} from "./warehouse-fixture.js";

const yards: Switchyard[] = [];
afterEach(async () => {
  await Promise.all(yards.splice(0).map((yard) => yard.close()));
});

function session(options: SwitchyardOptions): Switchyard {
  const yard = new Switchyard(options);
  yards.push(yard);
  return yard;
}

/** The shop's tools as an Agents SDK user already has them: zod parameters, their own execute. */
function shopTools(calls: string[] = []) {
  return [
    tool({
      name: "stock",
      description: "Units in stock for a SKU.",
      parameters: z.object({ sku: z.string().describe("The SKU, e.g. SKU-001.") }),
      execute: async ({ sku }, runContext) => {
        calls.push(`stock ${sku} for ${(runContext?.context as { user?: string } | undefined)?.user}`);
        return { units: skuOf(sku).units };
      },
    }),
    tool({
      name: "price",
      description: "Unit price of a SKU in cents.",
      parameters: z.object({ sku: z.string() }),
      execute: async ({ sku }) => {
        calls.push(`price ${sku}`);
        return { cents: skuOf(sku).priceCents };
      },
    }),
  ];
}

const usage = () => new Usage({ requests: 1, inputTokens: 100, outputTokens: 20, totalTokens: 120 });

/** A fake Agents SDK model: a run_program call with `code` first, then an answer from the tool output it got back. */
class ScriptedModel implements Model {
  readonly requests: ModelRequest[] = [];

  constructor(readonly code: string) {}

  async getResponse(request: ModelRequest): Promise<ModelResponse> {
    this.requests.push(request);
    const items = typeof request.input === "string" ? [] : request.input;
    const result = items.find((item) => item.type === "function_call_result");
    if (result === undefined) {
      return {
        usage: usage(),
        output: [
          {
            type: "function_call",
            callId: "call_run_1",
            name: "run_program",
            status: "completed",
            arguments: JSON.stringify({ code: this.code }),
          },
        ],
      };
    }
    const output = result.output;
    const text = typeof output === "string" ? output : "type" in output && output.type === "text" ? output.text : "";
    const { skus, totalCents } = outputFromRenderedResult(text);
    return {
      usage: usage(),
      output: [
        {
          type: "message",
          role: "assistant",
          status: "completed",
          content: [{ type: "output_text", text: answerText(skus, totalCents) }],
        },
      ],
    };
  }

  // biome-ignore lint/correctness/useYield: the tests never stream; the SDK requires the method.
  async *getStreamedResponse(): AsyncIterable<never> {
    throw new Error("not used");
  }
}

describe("switchyard-runtime/openai-agents: the code-mode tool in the Agents SDK Runner", () => {
  it("runs a 25-call program over Agents SDK tools converted into the catalog, and the final output is right", async () => {
    const calls: string[] = [];
    const yard = session({
      tools: [
        listSkusTool,
        ...toolsFromOpenAIAgents(shopTools(calls), { namespace: "shop", effect: "read", context: { user: "ana" } }),
      ],
    });
    const runs: { result: RunResult; toolCallId: string | undefined }[] = [];
    const model = new ScriptedModel(WAREHOUSE_PROGRAM);
    const agent = new Agent({
      name: "warehouse",
      instructions: "Answer with the tools.",
      model,
      tools: [createCodeModeTool(yard, { onRun: (result, call) => runs.push({ result, ...call }) })],
    });

    const result = await new Runner({ tracingDisabled: true }).run(agent, "What is the stock worth?");

    expect(result.finalOutput).toBe(expectedAnswer());
    expect(model.requests).toHaveLength(2);
    expect(runs).toHaveLength(1);
    expect(runs[0]!.toolCallId).toBe("call_run_1");
    const run = runs[0]!.result;
    expect(run.ok).toBe(true);
    expect(run.calls).toHaveLength(25);
    expect(run.calls.filter((call) => call.tool.startsWith("shop.") && call.status === "ok")).toHaveLength(24);
    expect(calls).toHaveLength(24);
    expect(calls).toContain("stock SKU-012 for ana");
    // The model was offered run_program, strict, with the declarations; it read the rendered text.
    const offered = model.requests[0]!.tools.find((entry) => entry.name === "run_program");
    expect(offered).toMatchObject({ type: "function", strict: true });
    expect(offered?.type === "function" ? offered.description : "").toContain("stock(input: ShopStockInput)");
    const output = result.newItems.find((item) => item.type === "tool_call_output_item");
    expect(String(output?.output)).toMatch(/^output: \{"skus":12,"totalCents":\d+\}\ncalls: 25 \(25 ok\)/);
  });

  it("keeps the description current when the catalog changes", () => {
    const yard = session({ tools: [listSkusTool] });
    const codeMode = createCodeModeTool(yard);
    expect(codeMode.description).not.toContain("ShopStockInput");
    yard.registry.addAll(toolsFromOpenAIAgents(shopTools(), { namespace: "shop" }));
    expect(codeMode.description).toContain("stock(input: ShopStockInput)");
  });
});

describe("switchyard-runtime/openai-agents: toolsFromOpenAIAgents", () => {
  it("keeps the SDK's JSON Schema and checks input before the tool runs", async () => {
    const calls: string[] = [];
    const yard = session({ tools: toolsFromOpenAIAgents(shopTools(calls), { namespace: "shop" }) });
    expect(yard.declarations()).toMatch(
      /interface ShopStockInput \{\s+\/\*\* The SKU, e.g. SKU-001. \*\/\s+sku: string;/,
    );
    expect(await yard.callTool("shop.price", { sku: 7 })).toMatchObject({ status: "invalid" });
    expect(await yard.callTool("shop.price", { sku: "SKU-002" })).toMatchObject({
      status: "ok",
      value: { cents: 749 },
    });
    expect(calls).toEqual(["price SKU-002"]);
  });

  it("refuses calls needsApproval holds back, and reports failures of tools made with errorFunction: null as TOOL_ERROR", async () => {
    let refunds = 0;
    const refund = tool({
      name: "refund",
      description: "Refunds an order.",
      parameters: z.object({ orderId: z.string(), cents: z.number().int() }),
      needsApproval: async (_context, { cents }) => cents > 10_000,
      execute: async () => {
        refunds++;
        return "refunded";
      },
    });
    const broken = tool({
      name: "broken",
      description: "Fails.",
      parameters: z.object({}),
      errorFunction: null,
      execute: async () => {
        throw new Error("the ledger is locked");
      },
    });
    const yard = session({ tools: toolsFromOpenAIAgents([refund, broken], { namespace: "billing" }) });
    expect(await yard.callTool("billing.refund", { orderId: "o1", cents: 50_000 })).toMatchObject({
      status: "denied",
      error: { code: "PERMISSION_DENIED" },
    });
    expect(refunds).toBe(0);
    expect(await yard.callTool("billing.refund", { orderId: "o1", cents: 500 })).toMatchObject({
      status: "ok",
      value: "refunded",
    });
    expect(await yard.callTool("billing.broken", {})).toMatchObject({
      status: "error",
      error: { code: "TOOL_ERROR", message: expect.stringContaining("the ledger is locked") },
    });
  });

  it("refuses a hosted tool, naming it", () => {
    expect(() => toolsFromOpenAIAgents([webSearchTool()], { namespace: "web" })).toThrow(/only function tools/);
  });
});
