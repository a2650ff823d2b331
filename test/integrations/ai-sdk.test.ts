import { generateText, jsonSchema, stepCountIs, type ToolSet, tool } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import type { RunResult } from "../../src/contract.js";
import { createCodeModeTool, toolsFromAiSdk } from "../../src/integrations/ai-sdk.js";
import { Switchyard } from "../../src/switchyard.js";
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

function session(...tools: ConstructorParameters<typeof Switchyard>[0][]): Switchyard {
  const yard = new Switchyard(Object.assign({}, ...tools));
  yards.push(yard);
  return yard;
}

/** The shop's tools as an AI SDK user already has them: zod schemas, their own execute. */
function shopTools(calls: string[] = []) {
  return {
    stock: tool({
      description: "Units in stock for a SKU.",
      inputSchema: z.object({ sku: z.string().describe("The SKU, e.g. SKU-001.") }),
      outputSchema: z.object({ units: z.number().int() }),
      execute: async ({ sku }) => {
        calls.push(`stock ${sku}`);
        return { units: skuOf(sku).units };
      },
    }),
    price: tool({
      description: "Unit price of a SKU in cents.",
      inputSchema: z.object({ sku: z.string(), currency: z.string().default("USD") }),
      execute: async ({ sku, currency }) => {
        calls.push(`price ${sku} ${currency}`);
        return { cents: skuOf(sku).priceCents, currency };
      },
    }),
  };
}

type CallOptions = Parameters<MockLanguageModelV3["doGenerate"]>[0];
type GenerateResult = Awaited<ReturnType<MockLanguageModelV3["doGenerate"]>>;

const usage = {
  inputTokens: { total: 100, noCache: 100, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 20, text: 20, reasoning: 0 },
};

/** A scripted model: first a run_program call with `code`, then an answer built from the tool result it got back. */
function scriptedModel(code: string) {
  return new MockLanguageModelV3({
    doGenerate: async (options: CallOptions): Promise<GenerateResult> => {
      const toolMessage = options.prompt.find((message) => message.role === "tool");
      if (toolMessage === undefined) {
        return {
          content: [
            { type: "tool-call", toolCallId: "call_1", toolName: "run_program", input: JSON.stringify({ code }) },
          ],
          finishReason: { unified: "tool-calls", raw: "tool_use" },
          usage,
          warnings: [],
        };
      }
      const part = toolMessage.content[0];
      if (part?.type !== "tool-result") throw new Error("expected a tool result");
      const { output } = part;
      const text =
        output.type === "text"
          ? (() => {
              const { skus, totalCents } = outputFromRenderedResult(output.value);
              return answerText(skus, totalCents);
            })()
          : `The program failed (${output.type}): ${JSON.stringify(output)}`;
      return {
        content: [{ type: "text", text }],
        finishReason: { unified: "stop", raw: "end_turn" },
        usage,
        warnings: [],
      };
    },
  });
}

describe("switchyard-runtime/ai-sdk: the code-mode tool in generateText's own loop", () => {
  it("runs a 25-call program over AI SDK tools converted into the catalog, and the final answer is right", async () => {
    const calls: string[] = [];
    const yard = session({
      tools: [listSkusTool, ...toolsFromAiSdk(shopTools(calls), { namespace: "shop", effect: "read" })],
    });
    const runs: { result: RunResult; toolCallId: string | undefined }[] = [];
    const model = scriptedModel(WAREHOUSE_PROGRAM);

    const response = await generateText({
      model,
      prompt: "What is the stock in the warehouse worth?",
      tools: { run_program: createCodeModeTool(yard, { onRun: (result, call) => runs.push({ result, ...call }) }) },
      stopWhen: stepCountIs(5),
    });

    expect(response.text).toBe(expectedAnswer());
    expect(response.steps).toHaveLength(2);
    // The caller has the whole RunResult, as the tool's output and through onRun.
    const output = response.steps[0]!.toolResults[0]!.output as RunResult;
    expect(output.ok).toBe(true);
    expect(output.calls).toHaveLength(25);
    expect(output.calls.every((call) => call.status === "ok")).toBe(true);
    expect(output.calls.filter((call) => call.tool.startsWith("shop."))).toHaveLength(24);
    expect(runs).toHaveLength(1);
    expect(runs[0]!.toolCallId).toBe("call_1");
    expect(runs[0]!.result.programId).toBe(output.programId);
    // The AI SDK tools really ran, with their zod defaults applied.
    expect(calls).toHaveLength(24);
    expect(calls).toContain("price SKU-007 USD");
    // The model was offered the run_program description and saw the compact text, not the RunResult.
    const [firstCall, secondCall] = model.doGenerateCalls;
    const offered = firstCall!.tools?.[0];
    expect(offered).toMatchObject({ type: "function", name: "run_program" });
    expect(offered?.type === "function" ? offered.description : "").toContain("stock(input: ShopStockInput)");
    const toolMessage = secondCall!.prompt.find((message) => message.role === "tool");
    const part = toolMessage?.content[0];
    expect(part?.type === "tool-result" ? part.output.type : undefined).toBe("text");
    expect(JSON.stringify(toolMessage)).not.toContain('"durationMs"');
  });

  it("hands a failed run to the model as an error result with the code and line", async () => {
    const yard = session({ tools: [listSkusTool] });
    const model = scriptedModel(
      `const { skus } = await tools.inventory.list({});\nthrow new Error("no " + skus.length);`,
    );
    const response = await generateText({
      model,
      prompt: "Try it.",
      tools: { run_program: createCodeModeTool(yard) },
      stopWhen: stepCountIs(3),
    });
    const toolMessage = model.doGenerateCalls[1]!.prompt.find((message) => message.role === "tool");
    const part = toolMessage?.content[0];
    expect(part?.type === "tool-result" ? part.output : undefined).toEqual({
      type: "error-text",
      value: expect.stringMatching(/^error RUNTIME_ERROR at line 2: Error: no 12/),
    });
    expect(response.text).toContain("The program failed (error-text)");
  });

  it("passes the AI SDK's abort signal to the run: an aborted generation cancels the program", async () => {
    const yard = session({ tools: [listSkusTool] });
    const controller = new AbortController();
    const codeMode = createCodeModeTool(yard);
    const pending = codeMode.execute!(
      { code: "while (true) { await tools.inventory.list({}); }" },
      // `context` is AI SDK 7's (required there); AI SDK 6 ignores it.
      { toolCallId: "c", messages: [], abortSignal: controller.signal, context: {} } as Parameters<
        NonNullable<typeof codeMode.execute>
      >[1],
    ) as Promise<RunResult>;
    controller.abort();
    const result = await pending;
    expect(result.error?.code).toBe("CANCELLED");
  });
});

describe("switchyard-runtime/ai-sdk: toolsFromAiSdk", () => {
  it("keeps each tool's JSON Schema (from zod) as the declarations programs are checked against", () => {
    const yard = session({ tools: toolsFromAiSdk(shopTools(), { namespace: "shop" }) });
    const declarations = yard.declarations();
    expect(declarations).toContain("stock(input: ShopStockInput): Promise<ShopStockOutput>;");
    expect(declarations).toMatch(/interface ShopStockInput \{\s+\/\*\* The SKU, e.g. SKU-001. \*\/\s+sku: string;/);
    expect(declarations).toMatch(/interface ShopStockOutput \{[^}]*units: number;/);
    expect(declarations).toMatch(/interface ShopPriceInput \{[^}]*\/\*\* @default "USD" \*\/\s+currency\?: string;/);
    expect(yard.registry.snapshot().get("shop.price")?.definition).toMatchObject({ effect: "write", source: "ai-sdk" });
  });

  it("rejects invalid input before the AI SDK tool runs, and refuses a call its needsApproval wants approved", async () => {
    let executed = 0;
    const guarded = {
      refund: tool({
        description: "Refunds an order.",
        inputSchema: jsonSchema<{ orderId: string; cents: number }>({
          type: "object",
          properties: { orderId: { type: "string" }, cents: { type: "integer", minimum: 1 } },
          required: ["orderId", "cents"],
        }),
        needsApproval: async ({ cents }) => cents > 10_000,
        execute: async () => {
          executed++;
          return { refunded: true };
        },
      }),
    };
    const yard = session({ tools: toolsFromAiSdk(guarded, { namespace: "billing" }) });
    const invalid = await yard.callTool("billing.refund", { orderId: "o1", cents: 0 });
    const unapproved = await yard.callTool("billing.refund", { orderId: "o1", cents: 50_000 });
    expect(invalid).toMatchObject({ status: "invalid", error: { code: "INPUT_INVALID" } });
    expect(unapproved).toMatchObject({ status: "denied", error: { code: "PERMISSION_DENIED" } });
    expect(executed).toBe(0);
    expect(await yard.callTool("billing.refund", { orderId: "o1", cents: 500 })).toMatchObject({
      status: "ok",
      value: { refunded: true },
    });
    expect(executed).toBe(1);
  });

  it("takes the last value of a tool that streams preliminary results, and reports a throw as TOOL_ERROR", async () => {
    const yard = session({
      tools: toolsFromAiSdk(
        {
          progress: tool({
            inputSchema: z.object({ job: z.string() }),
            async *execute(): AsyncGenerator<{ done: number }> {
              yield { done: 1 };
              yield { done: 2 };
            },
          }),
          broken: tool({
            inputSchema: z.object({ job: z.string() }),
            execute: async (): Promise<{ done: number }> => {
              throw new Error("the CRM is down");
            },
          }),
        },
        { namespace: "jobs", effect: { progress: "read" } },
      ),
    });
    expect(await yard.callTool("jobs.progress", { job: "j1" })).toMatchObject({ status: "ok", value: { done: 2 } });
    expect(await yard.callTool("jobs.broken", { job: "j1" })).toMatchObject({
      status: "error",
      error: { code: "TOOL_ERROR", message: "the CRM is down" },
    });
    expect(yard.registry.snapshot().get("jobs.progress")?.definition.effect).toBe("read");
    expect(yard.registry.snapshot().get("jobs.broken")?.definition.effect).toBe("write");
  });

  it("refuses a tool that cannot run from a program, naming it", () => {
    // A client-side tool (no execute); typed loosely, as the AI SDK's ToolSet is without exactOptionalPropertyTypes.
    const clientSide = {
      confirm: tool({ description: "Asks the user.", inputSchema: z.object({ question: z.string() }) }),
    } as unknown as ToolSet;
    expect(() => toolsFromAiSdk(clientSide, { namespace: "ui" })).toThrow(/"confirm".*no execute function/);
    expect(() => toolsFromAiSdk(shopTools(), { namespace: "" })).toThrow(/needs a namespace/);
  });
});
