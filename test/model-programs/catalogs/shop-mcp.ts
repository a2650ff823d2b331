// The untyped shop MCP server (shop-mcp-server.mjs) attached to a fresh session as `shop`, with
// observed types off: every program meets the tools as `Promise<any>`, as a first program does.

import { fileURLToPath } from "node:url";
import { connectMcpSource } from "../../../src/sources/mcp/mcp-source.js";
import { Switchyard } from "../../../src/switchyard.js";

/** The server script, run with this Node. */
export const SHOP_SERVER = fileURLToPath(new URL("./shop-mcp-server.mjs", import.meta.url));

/** Opens a session with the shop server attached as `shop`; `close` ends both. */
export async function openShopSession(): Promise<{ yard: Switchyard; close: () => Promise<void> }> {
  const yard = new Switchyard({ observedTypes: false });
  try {
    const source = await connectMcpSource(yard.registry, {
      namespace: "shop",
      transport: { kind: "stdio", command: process.execPath, args: [SHOP_SERVER] },
    });
    return {
      yard,
      close: async () => {
        await source.close();
        await yard.close();
      },
    };
  } catch (error) {
    await yard.close();
    throw error;
  }
}
