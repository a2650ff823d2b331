// A server that does not start in time says which command, how long it was given, how to give it
// longer (startTimeoutMs), and, for `npx`, that a first start may still be downloading the package.

import { chmodSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { SwitchyardError } from "../../../src/errors.js";
import { ToolRegistry } from "../../../src/registry/tool-registry.js";
import { connectMcpSource, npxPackageOf } from "../../../src/sources/mcp/mcp-source.js";
import { tempFolder } from "../../helpers/mcp-servers.js";

async function startFailure(command: string, args: string[]): Promise<SwitchyardError> {
  try {
    const source = await connectMcpSource(new ToolRegistry([]), {
      namespace: "slow",
      transport: { kind: "stdio", command, args },
      startTimeoutMs: 300,
    });
    await source.close();
  } catch (error) {
    if (SwitchyardError.isInstance(error)) return error;
    throw error;
  }
  throw new Error("the server started");
}

describe("an MCP server that does not start in time", () => {
  it("names the command, the time it waited and the startTimeoutMs option", async () => {
    const error = await startFailure(process.execPath, ["-e", "setInterval(() => {}, 1000)"]);
    expect(error.code).toBe("SOURCE_START_FAILED");
    expect(error.message).toContain(`command: ${process.execPath} -e`);
    expect(error.message).toContain("within 300 ms");
    expect(error.message).toContain('raise "startTimeoutMs" for this server');
    expect(error.message).toContain("mcpServers.slow.startTimeoutMs");
    expect(error.message).not.toContain("npx");
  });

  it("suggests pre-installing the package when the command is npx", async () => {
    const folder = tempFolder("fake-npx");
    try {
      // A stand-in npx that, like a first `npx -y` on a slow network, says nothing for a long time.
      const npx = join(folder.path, "npx");
      writeFileSync(npx, "#!/bin/sh\nexec sleep 30\n");
      chmodSync(npx, 0o755);
      const error = await startFailure(npx, ["-y", "@acme/slow-server", "--port", "0"]);
      expect(error.message).toContain("npx may still be downloading @acme/slow-server");
      expect(error.message).toContain("npm install -g @acme/slow-server");
      expect(error.message).toContain("within 300 ms");
    } finally {
      folder.remove();
    }
  });

  it("finds the package of an npx command, and nothing for other commands", () => {
    expect(npxPackageOf("npx", ["-y", "@modelcontextprotocol/server-memory"])).toBe(
      "@modelcontextprotocol/server-memory",
    );
    expect(npxPackageOf("/usr/bin/npx", ["--yes", "pkg", "arg"])).toBe("pkg");
    expect(npxPackageOf("npx.cmd", ["pkg"])).toBe("pkg");
    expect(npxPackageOf("node", ["server.js"])).toBeUndefined();
    expect(npxPackageOf("npx", ["-y"])).toBeUndefined();
  });
});
