// A stdio MCP server shaped like most MCP servers in the wild: no tool declares an outputSchema,
// results are JSON in text blocks (one block, or a JSON block beside a line of prose), errors are
// isError text. Its data is test/model-programs/shop/shop-data.json, which the tests read too.
import { readFileSync } from "node:fs";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const data = JSON.parse(readFileSync(new URL("../shop/shop-data.json", import.meta.url), "utf8"));
const PAGE = 20;
const object = (properties = {}, required = []) => ({ type: "object", properties, required });
const read = { readOnlyHint: true };
const text = (value) => ({ type: "text", text: typeof value === "string" ? value : JSON.stringify(value) });
const failure = (message) => ({ content: [text(message)], isError: true });

const tools = [
  {
    name: "list_orders",
    description: "Lists orders, 20 a page, oldest first. Pass next_cursor back as cursor for the next page.",
    inputSchema: object({
      status: { type: "string", enum: ["open", "shipped", "cancelled"] },
      cursor: { type: "string" },
    }),
    annotations: read,
  },
  {
    name: "get_customer",
    description: "Gets one customer by id.",
    inputSchema: object({ id: { type: "string" } }, ["id"]),
    annotations: read,
  },
  { name: "list_customers", description: "Lists every customer.", inputSchema: object(), annotations: read },
  {
    name: "list_products",
    description: "Lists products, optionally of one category.",
    inputSchema: object({ category: { type: "string" } }),
    annotations: read,
  },
  {
    name: "get_inventory",
    description: "Stock of one product per warehouse, with a note on freshness.",
    inputSchema: object({ sku: { type: "string" } }, ["sku"]),
    annotations: read,
  },
  {
    name: "search_orders",
    description: "Orders of one customer: a summary line, then the orders as JSON.",
    inputSchema: object({ customerId: { type: "string" } }, ["customerId"]),
    annotations: read,
  },
  {
    name: "cancel_order",
    description: "Cancels an open order.",
    inputSchema: object({ id: { type: "string" } }, ["id"]),
  },
];

const cancelled = new Set();
const statusOf = (order) => (cancelled.has(order.id) ? "cancelled" : order.status);
const withStatus = (order) => ({ ...order, status: statusOf(order) });

const handlers = {
  list_orders: ({ status, cursor }) => {
    const all = data.orders.map(withStatus).filter((order) => status === undefined || order.status === status);
    const start = Number(cursor ?? 0);
    const orders = all.slice(start, start + PAGE);
    return { content: [text({ orders, next_cursor: start + PAGE < all.length ? String(start + PAGE) : null })] };
  },
  get_customer: ({ id }) => {
    const customer = data.customers.find((candidate) => candidate.id === id);
    return customer === undefined ? failure(`Customer ${id} not found`) : { content: [text(customer)] };
  },
  list_customers: () => ({ content: [text(data.customers)] }),
  list_products: ({ category }) => ({
    content: [text(data.products.filter((product) => category === undefined || product.category === category))],
  }),
  get_inventory: ({ sku }) => {
    const stock = data.inventory.find((entry) => entry.sku === sku);
    if (stock === undefined) return failure(`No product ${sku}`);
    return { content: [text(stock), text("Quantities as of this morning's count.")] };
  },
  search_orders: ({ customerId }) => {
    const orders = data.orders.filter((order) => order.customerId === customerId).map(withStatus);
    return { content: [text(`Found ${orders.length} orders for ${customerId}.`), text(orders)] };
  },
  cancel_order: ({ id }) => {
    const order = data.orders.find((candidate) => candidate.id === id);
    if (order === undefined) return failure(`No order ${id}`);
    if (statusOf(order) !== "open")
      return failure(`Order ${id} is ${statusOf(order)}, only open orders can be cancelled`);
    cancelled.add(id);
    return { content: [text(`Order ${id} cancelled.`)] };
  },
};

const server = new Server({ name: "shop-fixture", version: "1.0.0" }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, () => ({ tools }));
server.setRequestHandler(CallToolRequestSchema, (request) => {
  const handler = handlers[request.params.name];
  if (handler === undefined) return failure(`Unknown tool ${request.params.name}`);
  return handler(request.params.arguments ?? {});
});
await server.connect(new StdioServerTransport());
