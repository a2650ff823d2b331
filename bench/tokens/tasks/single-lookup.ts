// Control: a single lookup. One call answers the question, so there is nothing for a program
// to keep out of the context; writing one only adds the run_program instructions and code.

import { ToolError } from "../../../src/errors.js";
import { defineTool } from "../../../src/registry/define-tool.js";
import { defineTask, mentionsNumber, singleStringInput, type DirectSession } from "../task.js";

const SKU = "SKU-4471";

const STOCK = {
  sku: SKU,
  name: "USB-C dock, 11 ports",
  warehouses: [
    { warehouseId: "wh_berlin", onHand: 412, reserved: 57 },
    { warehouseId: "wh_rotterdam", onHand: 138, reserved: 140 },
    { warehouseId: "wh_dallas", onHand: 95, reserved: 12 },
  ],
  updatedAt: "2026-10-14T07:55:00Z",
};

export interface SingleLookupAnswer {
  readonly sku: string;
  readonly available: number;
}

/** Available stock: on hand minus reserved, never below zero per warehouse. */
function availableOf(stock: typeof STOCK): number {
  return stock.warehouses.reduce((sum, warehouse) => sum + Math.max(0, warehouse.onHand - warehouse.reserved), 0);
}

export const singleLookup = defineTask<SingleLookupAnswer>({
  id: "single-lookup",
  title: "Single lookup (control)",
  question: `How many units of ${SKU} can we still sell right now across all warehouses (on hand minus reserved; a warehouse with more reserved than on hand counts as zero)?`,
  control: true,
  note: "one small call answers it",
  createWorld() {
    const tools = [
      defineTool({
        name: "inventory.getStock",
        description:
          "Get the stock of one SKU per warehouse: units on hand and units reserved for open orders, with the time of the last update.",
        inputSchema: singleStringInput("sku", 'The SKU, e.g. "SKU-4471".'),
        outputSchema: {
          type: "object",
          properties: {
            sku: { type: "string" },
            name: { type: "string" },
            warehouses: {
              type: "array",
              items: {
                type: "object",
                properties: {
                  warehouseId: { type: "string" },
                  onHand: { type: "integer" },
                  reserved: { type: "integer" },
                },
                required: ["warehouseId", "onHand", "reserved"],
              },
            },
            updatedAt: { type: "string" },
          },
          required: ["sku", "name", "warehouses", "updatedAt"],
        },
        effect: "read",
        execute: ({ sku }: { sku: string }) => {
          if (sku !== SKU) throw new ToolError(`No SKU "${sku}".`, { code: "SKU_NOT_FOUND" });
          return STOCK;
        },
      }),
      defineTool({
        name: "inventory.listWarehouses",
        description: "List the warehouses with their id, city and country.",
        inputSchema: { type: "object", properties: {}, additionalProperties: false },
        effect: "read",
        execute: () => ({
          warehouses: [
            { warehouseId: "wh_berlin", city: "Berlin", country: "DE" },
            { warehouseId: "wh_rotterdam", city: "Rotterdam", country: "NL" },
            { warehouseId: "wh_dallas", city: "Dallas", country: "US" },
          ],
        }),
      }),
      defineTool({
        name: "inventory.reserveStock",
        description:
          "Reserve units of a SKU in one warehouse for an order. Fails with INSUFFICIENT_STOCK when fewer units are available.",
        inputSchema: {
          type: "object",
          properties: {
            sku: { type: "string" },
            warehouseId: { type: "string" },
            quantity: { type: "integer", minimum: 1 },
            orderId: { type: "string" },
          },
          required: ["sku", "warehouseId", "quantity", "orderId"],
          additionalProperties: false,
        },
        effect: "write",
        execute: () => {
          throw new ToolError("Reservations are closed in this benchmark.", { code: "NOT_AVAILABLE" });
        },
      }),
    ];
    return {
      tools,
      truth: { sku: SKU, available: availableOf(STOCK) },
      async solveDirect(session: DirectSession) {
        const [stock] = await session.call([{ tool: "inventory.getStock", input: { sku: SKU } }]);
        return { sku: SKU, available: availableOf(stock!.value as typeof STOCK) };
      },
      checkAnswer(text) {
        const available = availableOf(STOCK);
        return mentionsNumber(text, available) ? [] : [`does not give the ${available} units available`];
      },
      program: `const stock = await tools.inventory.getStock({ sku: "${SKU}" });
const perWarehouse = stock.warehouses.map((w) => ({ warehouseId: w.warehouseId, available: Math.max(0, w.onHand - w.reserved) }));
return { sku: stock.sku, available: perWarehouse.reduce((sum, w) => sum + w.available, 0), perWarehouse, updatedAt: stock.updatedAt };`,
      programMistake: { find: "w.onHand - w.reserved", replace: "w.onHand - w.reservedUnits" },
      answerFromOutput(output) {
        const report = output as SingleLookupAnswer;
        return { sku: report.sku, available: report.available };
      },
      searchQueries: ["stock of a SKU per warehouse"],
      requiredTools: ["inventory.getStock"],
      render(answer) {
        return `${answer.available} units of ${answer.sku} are available to sell (on hand minus reserved, per warehouse, as of ${STOCK.updatedAt}).`;
      },
    };
  },
});
