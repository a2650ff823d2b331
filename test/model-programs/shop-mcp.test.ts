// The untyped-MCP corpus: programs written as a model writes them for MCP tools that declare no
// output type (callbacks over results, destructuring, `.map`/`.filter` chains over content parsed
// as JSON), run through a real session against a real stdio MCP server. Observed types are off,
// so every program meets the tools untyped, as a model's first program does.

import { readFileSync } from "node:fs";
import { expect } from "vitest";
import { openShopSession } from "./catalogs/shop-mcp.js";
import { describeCorpus } from "./corpus.js";

interface Order {
  id: string;
  customerId: string;
  status: string;
  createdAt: string;
  items: { sku: string; qty: number; price: number }[];
  total: number;
}
interface ShopData {
  customers: { id: string; name: string; country: string; tier: string }[];
  products: { sku: string; name: string; price: number; category: string }[];
  inventory: { sku: string; warehouses: { name: string; qty: number }[] }[];
  orders: Order[];
}

const data = JSON.parse(readFileSync(new URL("./shop/shop-data.json", import.meta.url), "utf8")) as ShopData;
const round = (value: number): number => Math.round(value * 100) / 100;
const countBy = <T>(items: readonly T[], key: (item: T) => string): Record<string, number> => {
  const counts: Record<string, number> = {};
  for (const item of items) counts[key(item)] = (counts[key(item)] ?? 0) + 1;
  return counts;
};
const live = data.orders.filter((order) => order.status !== "cancelled");
const ordersOf = (id: string) => data.orders.filter((order) => order.customerId === id);
const cancelledByProgram19 = ordersOf("C-101")
  .filter((order) => order.status === "open")
  .slice(0, 2)
  .map((order) => order.id);

describeCorpus<Record<string, never>>("an untyped MCP server (JSON in text blocks, no outputSchema)", {
  folder: "shop",
  open: async () => {
    const { yard, close } = await openShopSession();
    return { yard, context: {}, close };
  },
  entries: {
    "01-orders-by-status.program.ts": { expected: () => countBy(data.orders, (order) => order.status) },
    "02-top-customers.program.ts": {
      expected: () => {
        const spent = new Map<string, number>();
        for (const order of live) spent.set(order.customerId, (spent.get(order.customerId) ?? 0) + order.total);
        return [...spent.entries()]
          .sort((a, b) => b[1] - a[1])
          .slice(0, 3)
          .map(([id, total]) => ({ id, name: data.customers.find((c) => c.id === id)?.name, total: round(total) }));
      },
    },
    "03-cheap-products.program.ts": {
      expected: () =>
        data.products
          .filter((p) => p.price < 20)
          .sort((a, b) => a.price - b.price)
          .map((p) => p.name),
    },
    "04-average-shipped.program.ts": {
      expected: () => {
        const shipped = data.orders.filter((order) => order.status === "shipped");
        return { count: shipped.length, average: round(shipped.reduce((sum, o) => sum + o.total, 0) / shipped.length) };
      },
    },
    "05-customers-per-country.program.ts": { expected: () => countBy(data.customers, (c) => c.country) },
    "06-most-stock.program.ts": {
      expected: () =>
        data.inventory
          .map((entry) => ({ sku: entry.sku, units: entry.warehouses.reduce((n, w) => n + w.qty, 0) }))
          .sort((a, b) => b.units - a.units || a.sku.localeCompare(b.sku))
          .slice(0, 3),
    },
    "07-empty-warehouses.program.ts": {
      warnings: ["serial-await-in-loop"],
      expected: () =>
        data.inventory
          .map((entry) => ({ sku: entry.sku, empty: entry.warehouses.filter((w) => w.qty === 0).map((w) => w.name) }))
          .filter((entry) => entry.empty.length > 0),
    },
    "08-customer-orders.program.ts": {
      expected: () => {
        const orders = ordersOf("C-100");
        return {
          count: orders.length,
          total: Number(orders.reduce((sum, o) => sum + o.total, 0).toFixed(2)),
          summary: `Found ${orders.length} orders for C-100.`,
        };
      },
    },
    "09-enterprise-open.program.ts": {
      expected: () =>
        data.customers
          .filter((c) => c.tier === "enterprise")
          .map((c) => ({ name: c.name, open: ordersOf(c.id).filter((o) => o.status === "open").length })),
    },
    "10-lookup-with-missing.program.ts": {
      warnings: ["serial-await-in-loop"],
      expected: () => ({
        found: { "C-100": data.customers[0]?.name, "C-105": data.customers[5]?.name },
        missing: [{ id: "C-999", code: "TOOL_ERROR" }],
      }),
    },
    "11-three-item-orders.program.ts": {
      expected: () => {
        const big = data.orders.filter((o) => o.items.length >= 3);
        const largest = big.reduce<Order | null>((best, o) => (best === null || o.total > best.total ? o : best), null);
        return { count: big.length, largest: largest?.id };
      },
    },
    "12-revenue-by-category.program.ts": {
      expected: () => {
        const categoryOf = Object.fromEntries(data.products.map((p) => [p.sku, p.category]));
        const revenue: Record<string, number> = {};
        for (const order of live) {
          for (const { sku, qty, price } of order.items) {
            const category = categoryOf[sku]!;
            revenue[category] = round((revenue[category] ?? 0) + qty * price);
          }
        }
        return revenue;
      },
    },
    "13-most-ordered-sku.program.ts": {
      expected: () => {
        const quantities = new Map<string, number>();
        for (const item of data.orders.flatMap((o) => o.items))
          quantities.set(item.sku, (quantities.get(item.sku) ?? 0) + item.qty);
        const [sku, qty] = [...quantities].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0]!;
        return { sku, name: data.products.find((p) => p.sku === sku)?.name, qty };
      },
    },
    "14-busiest-day.program.ts": {
      expected: () => {
        const [day, count] = Object.entries(countBy(data.orders, (o) => o.createdAt.slice(0, 10))).sort(
          ([a, x], [b, y]) => y - x || a.localeCompare(b),
        )[0]!;
        return { day, count };
      },
    },
    "15-customers-without-orders.program.ts": {
      expected: () => data.customers.filter((c) => ordersOf(c.id).length === 0).map((c) => c.name),
    },
    "16-first-open-orders.program.ts": {
      expected: () =>
        data.orders
          .filter((o) => o.status === "open")
          .slice(0, 5)
          .map(({ id, total }) => ({ id, total })),
    },
    "17-items-per-order.program.ts": {
      expected: () => {
        const units = data.orders.map((o) => o.items.reduce((s, i) => s + i.qty, 0));
        return {
          averageUnits: round(units.reduce((a, b) => a + b, 0) / data.orders.length),
          largestLine: Math.max(...data.orders.flatMap((o) => o.items.map((i) => i.qty))),
        };
      },
    },
    "18-names-by-country.program.ts": {
      expected: () => {
        const groups: Record<string, string[]> = {};
        for (const c of data.customers) (groups[c.country] ??= []).push(c.name);
        return Object.fromEntries(
          Object.entries(groups)
            .sort(([a], [b]) => a.localeCompare(b))
            .map(([country, names]) => [country, names.sort()]),
        );
      },
    },
    "19-cancel-open-orders.program.ts": {
      warnings: ["serial-await-in-loop"],
      expected: () => ({
        cancelled: cancelledByProgram19,
        messages: cancelledByProgram19.map((id) => `Order ${id} cancelled.`),
      }),
    },
    "20-open-after-cancel.program.ts": {
      expected: () => {
        const open = data.orders.filter((o) => o.status === "open" && !cancelledByProgram19.includes(o.id));
        return { open: open.length, c101Open: open.some((o) => o.customerId === "C-101") };
      },
    },
    "21-cancel-shipped.program.ts": {
      expected: () => undefined,
      check: (output) => {
        expect(output).toMatchObject({ cancelled: false, code: "TOOL_ERROR" });
        expect((output as { message: string }).message).toContain("Order O-1001 is shipped");
      },
    },
  },
});
