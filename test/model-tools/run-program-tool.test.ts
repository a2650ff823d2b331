import { afterAll, describe, expect, it } from "vitest";
import { ToolError } from "../../src/errors.js";
import { defineTool } from "../../src/registry/define-tool.js";
import { Switchyard } from "../../src/switchyard.js";

let attempts = 0;
const flaky = defineTool({
  name: "weather.forecast",
  description: "The forecast for a city; fails now and then with UNAVAILABLE.",
  inputSchema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
  outputSchema: {
    type: "object",
    properties: { city: { type: "string" }, highC: { type: "number" } },
    required: ["city", "highC"],
  },
  effect: "read",
  execute: (input: { city: string }) => {
    if (++attempts % 3 !== 0) throw new ToolError("try again later", { code: "UNAVAILABLE" });
    return { city: input.city, highC: 21 };
  },
});
const yard = new Switchyard({ tools: [flaky], scheduler: { maxConcurrentReads: 12 } });
afterAll(() => yard.close());

/** The code block of the run_program instructions. */
function instructionsExample(description: string): string {
  const match = /```ts\n([\s\S]*?)```/.exec(description);
  if (match?.[1] === undefined) throw new Error("the instructions carry no example");
  return match[1];
}

describe("the run_program instructions", () => {
  it("state the session's own concurrency bound rather than asking for batches", () => {
    const { description } = yard.programTool();
    expect(description).toContain("the host runs up to 12 reads per namespace at once and queues the rest");
    expect(description).not.toMatch(/8-16|at a time\)|no timers/);
    expect(new Switchyard().programTool().description).toContain("up to 64 reads per namespace");
  });

  it("carry a backoff retry that type-checks against the declarations and retries a transient failure", async () => {
    const example = instructionsExample(yard.programTool().description);
    expect(example).toContain("isToolCallError(e)");
    expect(example).toContain("await sleep(");
    attempts = 0;
    const result = await yard.run(`${example}
      const started = Date.now();
      const forecast = await withRetry(() => tools.weather.forecast({ city: "Lyon" }), ["UNAVAILABLE"]);
      return { forecast, waitedMs: Date.now() - started };`);
    expect(result.ok, result.error?.message).toBe(true);
    expect(result.warnings).toEqual([]);
    expect(result.output).toMatchObject({ forecast: { city: "Lyon", highC: 21 } });
    // Two failures, backing off 400 then 800 ms, each jittered by -50% to +50%.
    expect((result.output as { waitedMs: number }).waitedMs).toBeGreaterThanOrEqual(590);
    expect(result.calls.map((call) => call.code ?? call.status)).toEqual(["UNAVAILABLE", "UNAVAILABLE", "ok"]);
  });

  it("name $budget, sleep and isToolCallError, which the declarations declare", () => {
    const { description } = yard.programTool();
    for (const name of ["tools.$budget()", "sleep(ms)", "isToolCallError(e)"]) expect(description).toContain(name);
    for (const declared of [
      "declare function sleep(ms: number): Promise<void>;",
      "declare function isToolCallError(value: unknown): value is ToolCallError;",
      "$budget(): Promise<RunBudget>;",
    ]) {
      expect(description).toContain(declared);
    }
  });
});
