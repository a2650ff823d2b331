// Attack (careless, not hostile): a model logs a namespace to see what is in it, or puts a tool in
// a template string. Before, converting the `tools` proxy to text looked up `toString` and
// `valueOf` as tools, called both (two TOOL_NOT_FOUND records against maxToolCalls) and threw
// "Cannot convert object to primitive value": a type-correct program crashed.

import { afterAll, describe, expect, it } from "vitest";
import { defineTool } from "../../src/registry/define-tool.js";
import { Switchyard } from "../../src/switchyard.js";

const yard = new Switchyard({
  tools: [
    defineTool({
      name: "orders.list",
      description: "Lists orders.",
      inputSchema: { type: "object" },
      execute: () => [{ id: "o-1" }],
    }),
  ],
});
afterAll(() => yard.close());

describe("tools as text", () => {
  it("prints a namespace, a tool and `tools` as their paths, calling nothing, and the program goes on", async () => {
    const run = await yard.run(`console.log("orders namespace:", tools.orders);
const label = \`\${tools.orders.list} / \${String(tools)}\`;
const orders = await tools.orders.list({});
return { label, sum: tools.orders + "", count: orders.length };`);
    expect(run.error).toBeUndefined();
    expect(run.output).toEqual({ label: "[tools.orders.list] / [tools]", sum: "[tools.orders]", count: 1 });
    expect(run.logs).toEqual(["orders namespace: [tools.orders]"]);
    expect(run.calls.map((call) => call.tool)).toEqual(["orders.list"]);
  });

  it("converts a hostile path, and answers the converter called directly, inside the sandbox, calling nothing", async () => {
    const run = await yard.run(`const long = String((tools as any)["k".repeat(10000)]);
const direct = (tools as any)[Symbol.toPrimitive]("number");
const odd = \`\${(tools as any)["\\u0000]\\n"]}\`;
return [long.length, direct, odd];`);
    expect(run.error).toBeUndefined();
    expect(run.output).toEqual([10_008, "[tools]", "[tools.\u0000]\n]"]);
    expect(run.calls).toEqual([]);
  });
});
