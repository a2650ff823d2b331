import { afterAll, describe, expect, it } from "vitest";
import { defineTool } from "../../src/registry/define-tool.js";
import { Switchyard } from "../../src/switchyard.js";

const item = defineTool({
  name: "catalog.item",
  description: "Returns one item.",
  inputSchema: { type: "object", properties: { id: { type: "number" } }, required: ["id"] },
  effect: "read",
  execute: (input: { id: number }) => ({ id: input.id }),
});
const yard = new Switchyard({ tools: [item] });
afterAll(() => yard.close());

describe("tools.$budget()", () => {
  it("answers the time and calls left, and is not itself a tool call", async () => {
    const result = await yard.run(
      `const first = await tools.$budget();
       await tools.catalog.item({ id: 1 });
       await tools.catalog.item({ id: 2 });
       const second = await tools.$budget();
       return { first, second };`,
      { limits: { wallTimeMs: 20_000, maxToolCalls: 50 } },
    );
    expect(result.ok, result.error?.message).toBe(true);
    const { first, second } = result.output as Record<string, Record<string, number>>;
    expect(first).toEqual({ timeLeftMs: expect.any(Number), callsLeft: 50, callsMade: 0 });
    expect(first!.timeLeftMs).toBeLessThanOrEqual(20_000);
    expect(first!.timeLeftMs).toBeGreaterThan(10_000);
    expect(second).toMatchObject({ callsLeft: 48, callsMade: 2 });
    expect(second!.timeLeftMs).toBeLessThanOrEqual(first!.timeLeftMs!);
    expect(result.calls.map((call) => call.tool)).toEqual(["catalog.item", "catalog.item"]);
  });

  it("counts time spent sleeping", async () => {
    const result = await yard.run(
      "const a = await tools.$budget(); await sleep(150); const b = await tools.$budget(); return a.timeLeftMs - b.timeLeftMs;",
    );
    expect(result.output).toBeGreaterThanOrEqual(140);
  });

  it("answers the session's time left when it ends before the run's", async () => {
    const short = new Switchyard({ tools: [item], sessionTimeMs: 5_000 });
    try {
      const result = await short.run("return (await tools.$budget()).timeLeftMs;", { limits: { wallTimeMs: 60_000 } });
      expect(result.output).toBeLessThanOrEqual(5_000);
    } finally {
      await short.close();
    }
  });

  it("lets a sweep stop before TOOL_CALL_LIMIT and report complete: false", async () => {
    const result = await yard.run(
      `const ids = Array.from({ length: 100 }, (_, i) => i);
       const seen: number[] = [];
       for (let start = 0; start < ids.length; start += 10) {
         const { callsLeft, timeLeftMs } = await tools.$budget();
         if (callsLeft < 10 || timeLeftMs < 1_000) return { seen: seen.length, complete: false };
         const batch = await Promise.all(ids.slice(start, start + 10).map((id) => tools.catalog.item({ id })));
         seen.push(...batch.map((entry) => entry.id));
       }
       return { seen: seen.length, complete: true };`,
      { limits: { maxToolCalls: 35 } },
    );
    expect(result.ok, result.error?.message).toBe(true);
    expect(result.output).toEqual({ seen: 30, complete: false });
    expect(result.calls).toHaveLength(30);
  });

  it("is declared: a misspelled field is a type error", async () => {
    const result = await yard.run("const budget = await tools.$budget(); return budget.timeLeft;");
    expect(result.error?.code).toBe("TYPE_ERROR");
    expect(result.error?.message).toMatch(/Property 'timeLeft' does not exist on type 'RunBudget'/);
  });
});
