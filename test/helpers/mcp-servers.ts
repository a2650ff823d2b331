// Paths and launch options of the MCP reference servers installed as dev dependencies, and a
// temp-folder helper. Servers run with this Node binary over stdio; nothing touches the network.

import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { McpTransportOptions } from "../../src/sources/mcp/mcp-source.js";

const require = createRequire(import.meta.url);

/** The bin script of `@modelcontextprotocol/server-<name>`, from its package.json. */
export function mcpServerScript(name: "everything" | "filesystem" | "memory"): string {
  const manifestPath = require.resolve(`@modelcontextprotocol/server-${name}/package.json`);
  const manifest = JSON.parse(readFileSync(manifestPath, "utf8")) as { bin: Record<string, string> };
  const script = Object.values(manifest.bin)[0];
  if (script === undefined) throw new Error(`server-${name} has no bin`);
  return join(dirname(manifestPath), script);
}

/** A stdio transport that runs a reference server with this Node. */
export function stdioServer(
  name: "everything" | "filesystem" | "memory",
  args: readonly string[] = [],
  env?: Record<string, string>,
): McpTransportOptions {
  return {
    kind: "stdio",
    command: process.execPath,
    args: [mcpServerScript(name), ...args],
    ...(env === undefined ? {} : { env }),
  };
}

/** A fresh temp folder and its remover. */
export function tempFolder(prefix: string): { path: string; remove: () => void } {
  const path = mkdtempSync(join(tmpdir(), `switchyard-${prefix}-`));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

/** Resolves when `predicate` holds, polling every 10 ms; rejects after `timeoutMs`. */
export async function waitFor(predicate: () => boolean, timeoutMs = 5_000, what = "condition"): Promise<void> {
  const started = Date.now();
  while (!predicate()) {
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** True when a process with this id is alive. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
