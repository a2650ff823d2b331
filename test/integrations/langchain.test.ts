import { AIMessage, type BaseMessage, ToolMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { DynamicTool, type StructuredToolInterface, tool } from "@langchain/core/tools";
import { convertToOpenAITool } from "@langchain/core/utils/function_calling";
import { createAgent } from "langchain";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import type { RunResult } from "../../src/contract.js";
import { createCodeModeTool, toolsFromLangChain } from "../../src/integrations/langchain.js";
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

/** The shop's tools as a LangChain user already has them: zod schemas, their own functions. */
function shopTools(calls: string[] = []) {
  return [
    tool(
      async ({ sku }) => {
        calls.push(`stock ${sku}`);
        return { units: skuOf(sku).units };
      },
      {
        name: "stock",
        description: "Units in stock for a SKU.",
        schema: z.object({ sku: z.string().describe("The SKU, e.g. SKU-001.") }),
      },
    ),
    tool(
      async ({ sku }) => {
        calls.push(`price ${sku}`);
        return { cents: skuOf(sku).priceCents };
      },
      { name: "price", description: "Unit price of a SKU in cents.", schema: z.object({ sku: z.string() }) },
    ),
  ];
}

/** The final answer the scripted model gives after reading the run_program result. */
function answerFrom(messages: BaseMessage[]): AIMessage {
  const result = [...messages].reverse().find((message) => ToolMessage.isInstance(message));
  if (result === undefined) return new AIMessage("no tool result");
  if ((result as ToolMessage).status === "error") return new AIMessage(`The program failed: ${result.content}`);
  const { skus, totalCents } = outputFromRenderedResult(String(result.content));
  return new AIMessage(answerText(skus, totalCents));
}

describe("switchyard-runtime/langchain: the code-mode tool in createAgent's loop", () => {
  it("runs a 25-call program over LangChain tools converted into the catalog, and the final answer is right", async () => {
    const calls: string[] = [];
    const yard = session({
      tools: [listSkusTool, ...toolsFromLangChain(shopTools(calls), { namespace: "shop", effect: "read" })],
    });
    const runs: { result: RunResult; toolCallId: string | undefined }[] = [];
    const model = fakeModel()
      .respondWithTools([{ name: "run_program", args: { code: WAREHOUSE_PROGRAM }, id: "call_run_1" }])
      .respond(answerFrom);
    const agent = createAgent({
      model,
      tools: [createCodeModeTool(yard, { onRun: (result, call) => runs.push({ result, ...call }) })],
    });

    const state = await agent.invoke({ messages: [{ role: "user", content: "What is the stock worth?" }] });

    const last = state.messages.at(-1)!;
    expect(last.content).toBe(expectedAnswer());
    expect(model.callCount).toBe(2);
    const toolMessage = state.messages.find((message) => ToolMessage.isInstance(message)) as ToolMessage;
    expect(toolMessage.status).toBe("success");
    expect(toolMessage.tool_call_id).toBe("call_run_1");
    expect(String(toolMessage.content)).toMatch(/^output: \{"skus":12,"totalCents":\d+\}\ncalls: 25 \(25 ok\)/);
    // The whole RunResult rides along as the artifact and reaches onRun; the model sees only the text.
    const artifact = toolMessage.artifact as RunResult;
    expect(artifact.calls).toHaveLength(25);
    expect(artifact.calls.filter((call) => call.tool.startsWith("shop.") && call.status === "ok")).toHaveLength(24);
    expect(runs).toEqual([{ result: artifact, toolCallId: "call_run_1" }]);
    expect(calls).toHaveLength(24);
    // What a provider is sent for the tool, by LangChain's own converter: the declarations, the code schema.
    const offered = convertToOpenAITool(createCodeModeTool(yard));
    expect(offered.function.name).toBe("run_program");
    expect(offered.function.description).toContain("stock(input: ShopStockInput)");
    expect(offered.function.parameters).toMatchObject({ required: ["code"], properties: { code: { type: "string" } } });
  });

  it("marks the tool message of a failed run as an error, with the code and the line", async () => {
    const yard = session({ tools: [listSkusTool] });
    const model = fakeModel()
      .respondWithTools([
        {
          name: "run_program",
          args: { code: "const { skus } = await tools.inventory.list({});\nreturn skus.nope.length;" },
        },
      ])
      .respond(answerFrom);
    const agent = createAgent({ model, tools: [createCodeModeTool(yard)] });
    const state = await agent.invoke({ messages: [{ role: "user", content: "Go." }] });
    const toolMessage = state.messages.find((message) => ToolMessage.isInstance(message)) as ToolMessage;
    expect(toolMessage.status).toBe("error");
    expect(String(toolMessage.content)).toMatch(/^error TYPE_ERROR at line 2:/);
    expect(state.messages.at(-1)!.content).toMatch(/^The program failed: error TYPE_ERROR/);
    expect((toolMessage.artifact as RunResult).calls).toHaveLength(0);
  });

  it("answers plain invocations (no tool call) with the rendered text", async () => {
    const yard = session({ tools: [listSkusTool] });
    const text = await createCodeModeTool(yard).invoke({
      code: "return (await tools.inventory.list({})).skus.length;",
    });
    expect(text).toMatch(/^output: 12\ncalls: 1 \(1 ok\), \d+ ms$/);
  });
});

describe("switchyard-runtime/langchain: toolsFromLangChain", () => {
  it("keeps zod schemas as JSON Schema declarations, and LangChain's parsing failures are INPUT_INVALID", async () => {
    const calls: string[] = [];
    const coerced = tool(async ({ count }) => ({ doubled: count * 2 }), {
      name: "double",
      description: "Doubles a count.",
      schema: z.object({ count: z.number().int().max(100) }),
    });
    const yard = session({ tools: toolsFromLangChain([...shopTools(calls), coerced], { namespace: "shop" }) });
    expect(yard.declarations()).toMatch(
      /interface ShopStockInput \{\s+\/\*\* The SKU, e.g. SKU-001. \*\/\s+sku: string;/,
    );
    expect(await yard.callTool("shop.double", { count: 21 })).toMatchObject({ status: "ok", value: { doubled: 42 } });
    expect(await yard.callTool("shop.double", { count: 2.5 })).toMatchObject({ status: "invalid" });
    expect(await yard.callTool("shop.stock", {})).toMatchObject({ status: "invalid" });
    expect(calls).toEqual([]);
  });

  it("runs a string-input DynamicTool and reports its exception as TOOL_ERROR", async () => {
    const echo = new DynamicTool({ name: "echo", description: "Echoes.", func: async (text) => `echo: ${text}` });
    const broken = tool(
      async () => {
        throw new Error("the index is rebuilding");
      },
      { name: "broken", description: "Fails.", schema: z.object({ q: z.string() }) },
    );
    // DynamicTool's zod 3 typing does not satisfy exactOptionalPropertyTypes; the runtime object is a structured tool.
    const yard = session({
      tools: toolsFromLangChain([echo as unknown as StructuredToolInterface, broken], { namespace: "util" }),
    });
    expect(await yard.callTool("util.echo", { input: "hi" })).toMatchObject({ status: "ok", value: "echo: hi" });
    expect(await yard.callTool("util.broken", { q: "x" })).toMatchObject({
      status: "error",
      error: { code: "TOOL_ERROR", message: "the index is rebuilding" },
    });
  });
});
