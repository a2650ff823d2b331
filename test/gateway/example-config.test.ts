// The gateway example config the docs point at must stay valid: it loads, its relative paths
// resolve against its own folder, and its permission rules are the ones the docs describe.

import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { loadConfig, type StdioServerConfig } from "../../src/config/load-config.js";

const EXAMPLE = fileURLToPath(new URL("../../examples/gateway/switchyard.config.json", import.meta.url));

describe("examples/gateway/switchyard.config.json", () => {
  it("validates, and runs its servers from the config's folder, where ./files exists", async () => {
    const config = await loadConfig(EXAMPLE);
    const folder = dirname(EXAMPLE);
    expect(Object.keys(config.mcpServers ?? {})).toEqual(["memory", "fs"]);
    const fs = config.mcpServers!["fs"] as StdioServerConfig;
    expect(fs.cwd).toBe(folder);
    expect(fs.args?.at(-1)).toBe("./files");
    expect(existsSync(join(folder, "files", "alpha.md"))).toBe(true);
    expect(config.permissions?.rules?.map((rule) => rule.decision)).toEqual(["ask", "deny"]);
    // ${configDir} makes server-memory's file absolute, beside the config.
    expect((config.mcpServers!["memory"] as StdioServerConfig).env?.["MEMORY_FILE_PATH"]).toBe(
      join(folder, "memory.jsonl"),
    );
  });
});
