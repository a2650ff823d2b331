// The task every framework test runs: a warehouse of 12 SKUs whose stock and prices come from
// tools written for the framework (converted into Switchyard tools), listed by a native
// Switchyard tool. The program makes 25 calls; the answer is the stock's total value.

import { defineTool } from "../../src/registry/define-tool.js";

export interface Sku {
  readonly sku: string;
  readonly units: number;
  readonly priceCents: number;
}

export const SKUS: readonly Sku[] = Array.from({ length: 12 }, (_, index) => ({
  sku: `SKU-${String(index + 1).padStart(3, "0")}`,
  units: 3 + ((index * 7) % 11),
  priceCents: 499 + index * 250,
}));

export function skuOf(sku: string): Sku {
  const found = SKUS.find((entry) => entry.sku === sku);
  if (found === undefined) throw new Error(`unknown SKU ${sku}`);
  return found;
}

/** The answer, computed without any tool. */
export function expectedAnswer(): string {
  const totalCents = SKUS.reduce((sum, entry) => sum + entry.units * entry.priceCents, 0);
  return answerText(SKUS.length, totalCents);
}

/** How the scripted model words its final answer from the program's output. */
export function answerText(skus: number, totalCents: number): string {
  return `Total stock value: $${(totalCents / 100).toFixed(2)} across ${skus} SKUs.`;
}

/** The native Switchyard tool that lists the SKUs. */
export const listSkusTool = defineTool({
  name: "inventory.list",
  description: "Lists every SKU in the warehouse.",
  inputSchema: { type: "object", properties: {}, additionalProperties: false },
  outputSchema: {
    type: "object",
    properties: { skus: { type: "array", items: { type: "string" } } },
    required: ["skus"],
  },
  effect: "read",
  execute: () => ({ skus: SKUS.map((entry) => entry.sku) }),
});

/** The program the scripted model writes: 1 list call, then stock and price for each SKU (25 calls). */
export const WAREHOUSE_PROGRAM = `
const { skus } = await tools.inventory.list({});
const values = await Promise.all(
  skus.map(async (sku) => {
    const [stock, price] = await Promise.all([tools.shop.stock({ sku }), tools.shop.price({ sku })]);
    return (stock as { units: number }).units * (price as { cents: number }).cents;
  }),
);
return { skus: skus.length, totalCents: values.reduce((sum, value) => sum + value, 0) };
`;

/** Reads the program's output back from the rendered run result a model receives. */
export function outputFromRenderedResult(text: string): { skus: number; totalCents: number } {
  const line = text.split("\n").find((entry) => entry.startsWith("output: "));
  if (line === undefined) throw new Error(`no output line in:\n${text}`);
  return JSON.parse(line.slice("output: ".length)) as { skus: number; totalCents: number };
}
