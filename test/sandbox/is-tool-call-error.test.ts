import { afterAll, describe, expect, it } from "vitest";
import { ToolError } from "../../src/errors.js";
import { defineTool } from "../../src/registry/define-tool.js";
import { Switchyard } from "../../src/switchyard.js";

const refuse = defineTool({
  name: "billing.refund",
  description: "Refunds a charge.",
  inputSchema: { type: "object", properties: { chargeId: { type: "string" } }, required: ["chargeId"] },
  execute: () => {
    throw new ToolError("the charge is already refunded", { code: "ALREADY_REFUNDED" });
  },
});
const yard = new Switchyard({ tools: [refuse] });
afterAll(() => yard.close());

describe("isToolCallError", () => {
  it("narrows an unknown caught value to ToolCallError under the type checker, without any", async () => {
    const result = await yard.run(`
      try {
        await tools.billing.refund({ chargeId: "ch_1" });
        return "refunded";
      } catch (error: unknown) {
        if (isToolCallError(error)) return { code: error.code, tool: error.tool, callId: error.callId };
        throw error;
      }`);
    expect(result.ok, result.error?.message).toBe(true);
    expect(result.output).toEqual({ code: "ALREADY_REFUNDED", tool: "billing.refund", callId: result.calls[0]?.id });
  });

  it("recognises errors of refused calls, $search and bad input, and nothing a program builds itself", async () => {
    const result = await yard.run(`
      const caught = async (run: () => Promise<unknown>) => { try { await run(); return "no error"; } catch (e) { return isToolCallError(e); } };
      const forged = Object.assign(new Error("forged"), { name: "ToolCallError", code: "TOOL_ERROR", tool: "x", callId: null });
      return {
        refused: await caught(() => tools.billing.refund({ chargeId: "ch_1" })),
        invalid: await caught(() => tools.billing.refund({} as any)),
        unknownTool: await caught(() => (tools as any).billing.nothing({})),
        search: await caught(() => tools.$search("x", { mode: "regex", limit: 1 }).then(() => tools.$describe("no.such"))),
        thrownByProgram: await caught(async () => { throw new Error("mine"); }),
        forged: isToolCallError(forged),
        primitives: [isToolCallError(null), isToolCallError("TOOL_ERROR"), isToolCallError({ code: "X" })],
      };`);
    expect(result.ok, result.error?.message).toBe(true);
    expect(result.output).toEqual({
      refused: true,
      invalid: true,
      unknownTool: true,
      search: true,
      thrownByProgram: false,
      forged: false,
      primitives: [false, false, false],
    });
  });
});
