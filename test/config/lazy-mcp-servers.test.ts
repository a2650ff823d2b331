// A session made to check a program starts only the MCP servers the program names: checking a
// program that uses one server must not wait for the others (`batch submit --config` waited
// 16.5 s for servers a 3.1 s program never called).

import { describe, expect, it } from "vitest";
import { createSwitchyardFromConfig } from "../../src/config/create-switchyard-from-config.js";
import { findReferencedNamespaces } from "../../src/permissions/referenced-tools.js";
import { SHOP_SERVER } from "../model-programs/catalogs/shop-mcp.js";

describe("findReferencedNamespaces", () => {
  it("lists the namespaces of `tools.<ns>` chains, in order", () => {
    expect(
      findReferencedNamespaces(`const a = await tools.shop.list_orders({});
const b = await tools . crm . get({ id: "x" });
if (!isToolCallError(a)) await tools.$budget();
return [a, b, await tools.shop.get_customer({ id: "c" })];`),
    ).toEqual(["shop", "crm"]);
  });

  it("answers undefined for a program that may reach any namespace", () => {
    for (const source of [
      'return await tools["shop"].list_orders({});',
      "const t = tools; return await t.shop.list_orders({});",
      'const found = await tools.$search("orders"); return found;',
      'return await tools.$describe("shop.list_orders");',
      "return Object.keys(tools);",
    ]) {
      expect(findReferencedNamespaces(source), source).toBeUndefined();
    }
  });
});

describe("createSwitchyardFromConfig with startMcpServer", () => {
  it("starts only the servers it is asked for, so a server that would hang the start is never spawned", async () => {
    const started = Date.now();
    const program = "const { orders } = await tools.shop.list_orders({});\nreturn orders.length;";
    const namespaces = findReferencedNamespaces(program) ?? [];
    const configured = await createSwitchyardFromConfig(
      {
        mcpServers: {
          shop: { command: process.execPath, args: [SHOP_SERVER] },
          // Never completes a handshake: starting it would hold the check for its whole start timeout.
          hangs: { command: process.execPath, args: ["-e", "setInterval(() => {}, 1000)"], startTimeoutMs: 60_000 },
        },
      },
      { startMcpServer: (namespace) => namespaces.includes(namespace) },
    );
    try {
      expect([...configured.sources.keys()]).toEqual(["shop"]);
      const checked = await configured.yard.check(program);
      expect(checked.error).toBeUndefined();
      expect(checked.ok).toBe(true);
      expect(Date.now() - started).toBeLessThan(30_000);
    } finally {
      await configured.close();
    }
  });
});
