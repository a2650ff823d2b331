// The real tool lists of three reference MCP servers (everything, filesystem, memory), as the
// search benchmark's non-synthetic catalog. Normally read from mcp-tools.json so the benchmark
// runs offline; `fetchMcpTools()` starts each server over stdio and lists its tools again.

import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CatalogTool } from "./saas-tools.js";

const CATALOG_FILE = fileURLToPath(new URL("./mcp-tools.json", import.meta.url));
const PACKAGES_DIR = fileURLToPath(new URL("../../../node_modules/@modelcontextprotocol/", import.meta.url));

/** Reads the saved MCP tool lists (names already prefixed with the server's namespace). */
export async function loadMcpTools(): Promise<CatalogTool[]> {
  return JSON.parse(await readFile(CATALOG_FILE, "utf8")) as CatalogTool[];
}

/**
 * Starts the three servers over stdio, lists their tools (following cursors) and writes
 * mcp-tools.json. Names become `<server>.<tool>`, as the registry namespaces MCP sources.
 */
export async function fetchMcpTools(): Promise<CatalogTool[]> {
  const scratch = await mkdtemp(join(tmpdir(), "switchyard-bench-"));
  try {
    const servers: { namespace: string; bin: string; args: string[]; env: Record<string, string> }[] = [
      { namespace: "everything", bin: "server-everything/dist/index.js", args: ["stdio"], env: {} },
      { namespace: "filesystem", bin: "server-filesystem/dist/index.js", args: [scratch], env: {} },
      {
        namespace: "memory",
        bin: "server-memory/dist/index.js",
        args: [],
        env: { MEMORY_FILE_PATH: join(scratch, "memory.jsonl") },
      },
    ];
    const all: CatalogTool[] = [];
    for (const server of servers) {
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: [join(PACKAGES_DIR, server.bin), ...server.args],
        env: { PATH: process.env["PATH"] ?? "", ...server.env },
        stderr: "ignore",
      });
      const client = new Client({ name: "switchyard-search-bench", version: "0.1.0" });
      await client.connect(transport);
      try {
        let cursor: string | undefined;
        do {
          const page = await client.listTools(cursor === undefined ? {} : { cursor });
          for (const tool of page.tools) {
            all.push({
              name: `${server.namespace}.${tool.name}`,
              description: tool.description ?? "",
              inputSchema: tool.inputSchema as CatalogTool["inputSchema"],
            });
          }
          cursor = page.nextCursor;
        } while (cursor !== undefined);
      } finally {
        await client.close();
      }
    }
    await writeFile(CATALOG_FILE, `${JSON.stringify(all, null, 2)}\n`);
    return all;
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}
