import { describe, expect, it } from "vitest";
import { answerModelToolCall } from "../../src/model-tools/answer-model-tool-call.js";
import { DESCRIBE_SUGGESTION_LOOKUPS, MAX_DESCRIBED_TOOLS } from "../../src/model-tools/describe-tools-tool.js";
import { createProgramDiscovery } from "../../src/model-tools/program-discovery.js";
import {
  closestToolNames,
  SUGGESTION_LOOKUPS_PER_RUN,
  suggestToolNames,
  TOOLS_PER_TURN,
} from "../../src/registry/closest-tool-names.js";
import { defineTool } from "../../src/registry/define-tool.js";
import { ToolRegistry } from "../../src/registry/tool-registry.js";
import { Switchyard } from "../../src/switchyard.js";

const tool = (name: string) =>
  defineTool({
    name,
    description: `${name} for tests.`,
    inputSchema: { type: "object" },
    effect: "read",
    execute: () => name,
  });

/** Counts turns of the host's event loop, one `setImmediate` each, until stopped. */
function countTurns(): { readonly turns: number; stop(): void } {
  let counting = true;
  const counter = {
    turns: 0,
    stop: (): void => {
      counting = false;
    },
  };
  const count = (): void => {
    counter.turns += 1;
    if (counting) setImmediate(count);
  };
  setImmediate(count);
  return counter;
}

describe("closestToolNames", () => {
  const snapshot = new ToolRegistry([
    tool("orders.search"),
    tool("orders.get"),
    tool("billing.charge"),
    tool("telemetry.flushAllBuffers"),
  ]).snapshot();

  it("names the closest tools first", () => {
    expect(closestToolNames(snapshot, "orders.serch")[0]).toBe("orders.search");
    expect(closestToolNames(snapshot, "search")[0]).toBe("orders.search");
  });

  it("names nothing for a huge name instead of computing an edit distance on it", () => {
    expect(closestToolNames(snapshot, "x".repeat(10_000))).toEqual([]);
  });

  it("spends one lookup of a budget per name and suggests nothing once it is spent", () => {
    const budget = { remaining: 2 };
    expect(closestToolNames(snapshot, "orders.serch", { budget })).toEqual(["orders.search"]);
    expect(closestToolNames(snapshot, "orders.gt", { budget })).toEqual(["orders.get"]);
    expect(closestToolNames(snapshot, "orders.serch", { budget })).toEqual([]);
    expect(budget.remaining).toBe(0);
  });
});

describe("suggestToolNames", () => {
  it(`compares a name with at most ${TOOLS_PER_TURN} tools per turn of the event loop, and finds what closestToolNames finds`, async () => {
    const tools = Array.from({ length: TOOLS_PER_TURN * 3 + 50 }, (_, index) =>
      tool(`ns${index % 7}.tool_number_${index}`),
    );
    const snapshot = new ToolRegistry(tools).snapshot();
    const loop = countTurns();
    const suggested = await suggestToolNames(snapshot, "ns3.tool_numbr_10");
    loop.stop();
    expect(suggested).toEqual(closestToolNames(snapshot, "ns3.tool_numbr_10"));
    expect(suggested.length).toBeGreaterThan(0);
    expect(loop.turns).toBeGreaterThanOrEqual(4);
  });

  it("answers at once, with nothing, once the budget is spent", () => {
    const snapshot = new ToolRegistry([tool("orders.search")]).snapshot();
    expect(suggestToolNames(snapshot, "orders.serch", { budget: { remaining: 0 } })).toEqual([]);
    expect(suggestToolNames(snapshot, "x".repeat(300))).toEqual([]);
  });
});

describe("unknown tool names in a program", () => {
  it("cost a bounded amount of host work: 999 calls to 250-character names with 500 tools registered", async () => {
    const tools = Array.from({ length: 500 }, (_, index) => tool(`ns${index % 10}.tool_number_${index}`));
    const yard = new Switchyard({ tools, typeCheck: "off" });
    const result = await yard.run(`
      const unknown = "y".repeat(240);
      const codes = [];
      for (let i = 0; i < 999; i++) {
        try { await (tools as any)["ns1"][unknown + i]({}); } catch (error) { codes.push((error as any).message.includes("Did you mean")); }
      }
      return codes.length;`);
    expect(result.output).toBe(999);
    expect(result.calls.every((call) => call.code === "TOOL_NOT_FOUND")).toBe(true);
    // Before the fix this outlived the test's 30 s timeout: an unbounded edit distance per tool per call.
    await yard.close();
  });

  it("still get suggestions for the first typos of a run, then none", async () => {
    const yard = new Switchyard({ tools: [tool("orders.search")], typeCheck: "off" });
    const result = await yard.run(`
      const hints = [];
      for (let i = 0; i < ${SUGGESTION_LOOKUPS_PER_RUN + 2}; i++) {
        try { await (tools as any).orders.serch({}); } catch (error) { hints.push((error as any).message.includes("orders.search")); }
      }
      return [hints[0], hints[${SUGGESTION_LOOKUPS_PER_RUN - 1}], hints[${SUGGESTION_LOOKUPS_PER_RUN}]];`);
    expect(result.output).toEqual([true, true, false]);
    await yard.close();
  });
});

describe("unknown tool names asked of discovery", () => {
  it("tools.$describe spends the run's suggestion lookups: suggestions for the first typos, then none", async () => {
    const yard = new Switchyard({ tools: [tool("orders.search")], typeCheck: "off" });
    const program = `
      const hints = [];
      for (let i = 0; i < ${SUGGESTION_LOOKUPS_PER_RUN + 2}; i++) {
        try { await tools.$describe("orders.serch"); } catch (error) { hints.push((error as any).message.includes("orders.search")); }
      }
      return [hints.length, hints[0], hints[${SUGGESTION_LOOKUPS_PER_RUN - 1}], hints[${SUGGESTION_LOOKUPS_PER_RUN}]];`;
    expect((await yard.run(program)).output).toEqual([SUGGESTION_LOOKUPS_PER_RUN + 2, true, true, false]);
    // The budget is the run's: the next run gets suggestions again.
    expect((await yard.run(program)).output).toEqual([SUGGESTION_LOOKUPS_PER_RUN + 2, true, true, false]);
    await yard.close();
  });

  it(`describe_tools looks up suggestions for the first ${DESCRIBE_SUGGESTION_LOOKUPS} unknown names of a request only`, async () => {
    const yard = new Switchyard({ tools: [tool("orders.search")] });
    const names = Array.from(
      { length: MAX_DESCRIBED_TOOLS },
      (_, index) => `orders.serch${index % 2 === 0 ? "" : index}`,
    );
    const answer = await answerModelToolCall(yard, { name: "describe_tools", input: { names } });
    if (answer.tool !== "describe_tools") throw new Error(`unexpected ${answer.tool}`);
    const suggested = answer.describe.unknown.filter((unknown) => unknown.closest.length > 0);
    expect(answer.describe.unknown).toHaveLength(new Set(names).size);
    expect(suggested.map((unknown) => unknown.name)).toEqual([...new Set(names)].slice(0, DESCRIBE_SUGGESTION_LOOKUPS));
    await yard.close();
  });

  it.each([
    ["one after another", "for (let i = 0; i < 20; i++) { try { await (tools as any).orders.serch({}); } catch {} }"],
    ["all at once", "await Promise.allSettled(Array.from({ length: 20 }, () => (tools as any).orders.serch({})));"],
  ])(
    "gives the host's event loop a turn before each lookup of a program's unknown calls, made %s",
    async (_how, calls) => {
      const yard = new Switchyard({ tools: [tool("orders.search")], typeCheck: "off" });
      // A turn counter on the host, read at each call's end: lookups chained in one turn share a value.
      const loop = countTurns();
      const turnAtEnd: number[] = [];
      const unsubscribe = yard.trace.subscribe((event) => {
        if (event.type === "tool-call-end") turnAtEnd.push(loop.turns);
      });
      const result = await yard.run(`${calls}\nreturn 1;`);
      loop.stop();
      unsubscribe();
      expect(result.output).toBe(1);
      expect(turnAtEnd).toHaveLength(20);
      for (let index = 1; index < turnAtEnd.length; index++) {
        expect(turnAtEnd[index], `call ${index + 1}`).toBeGreaterThan(turnAtEnd[index - 1]!);
      }
      await yard.close();
    },
  );

  it("tools.$describe waits for a turn of the event loop before its lookup", async () => {
    const yard = new Switchyard({ tools: [tool("orders.search")] });
    const discovery = createProgramDiscovery(yard);
    const order: string[] = [];
    setImmediate(() => order.push("turn"));
    await Promise.resolve(discovery.describe({ name: "orders.serch" })).catch((error: Error) =>
      order.push(error.message),
    );
    expect(order).toEqual(["turn", 'No tool named "orders.serch". Did you mean orders.search?']);
    await yard.close();
  });
});
