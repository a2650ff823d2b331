// The real tool lists of published MCP servers, as the search benchmark's non-synthetic catalog:
// every entry is what the server itself answered to tools/list (names prefixed with a namespace,
// as the registry namespaces MCP sources), captured over stdio and saved in mcp-tools.json so the
// benchmark runs offline. Nothing here is written by hand: to refresh, install the servers and
// run `node --import tsx bench/search/catalog/mcp-tools.ts <node_modules folder>...`.

import { existsSync, readFileSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CatalogTool } from "./saas-tools.js";

const CATALOG_FILE = fileURLToPath(new URL("./mcp-tools.json", import.meta.url));
const PROJECT_MODULES = fileURLToPath(new URL("../../../node_modules/", import.meta.url));

/** One server whose tools/list answer is captured. Credentials are placeholders: listing needs none. */
export interface CapturedServer {
  readonly namespace: string;
  /** The npm package and the version the saved list came from. */
  readonly package: string;
  readonly version: string;
  /** The server's entry file inside the package. */
  readonly bin: string;
  /** Arguments; `{scratch}` becomes a private temporary folder. */
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
}

/**
 * The servers of the catalog. The first three are devDependencies of this project; the others
 * are installed on demand into a scratch folder (`npm i --prefix <dir> <package>@<version> ...`).
 */
export const CAPTURED_SERVERS: readonly CapturedServer[] = [
  server("everything", "@modelcontextprotocol/server-everything", "2026.8.31", "dist/index.js", ["stdio"]),
  server("filesystem", "@modelcontextprotocol/server-filesystem", "2026.8.31", "dist/index.js", ["{scratch}"]),
  server("memory", "@modelcontextprotocol/server-memory", "2026.8.31", "dist/index.js", [], {
    MEMORY_FILE_PATH: "{scratch}/memory.jsonl",
  }),
  server("github", "@modelcontextprotocol/server-github", "2025.4.8", "dist/index.js", [], {
    GITHUB_PERSONAL_ACCESS_TOKEN: "placeholder",
  }),
  server("gitlab", "@modelcontextprotocol/server-gitlab", "2025.4.25", "dist/index.js", [], {
    GITLAB_PERSONAL_ACCESS_TOKEN: "placeholder",
  }),
  server("slack", "@modelcontextprotocol/server-slack", "2025.4.25", "dist/index.js", [], {
    SLACK_BOT_TOKEN: "placeholder",
    SLACK_TEAM_ID: "T0000000",
  }),
  server("maps", "@modelcontextprotocol/server-google-maps", "0.6.2", "dist/index.js", [], {
    GOOGLE_MAPS_API_KEY: "placeholder",
  }),
  server("brave", "@modelcontextprotocol/server-brave-search", "0.6.2", "dist/index.js", [], {
    BRAVE_API_KEY: "placeholder",
  }),
  server("postgres", "@modelcontextprotocol/server-postgres", "0.6.2", "dist/index.js", [
    "postgresql://127.0.0.1:1/none",
  ]),
  server("puppeteer", "@modelcontextprotocol/server-puppeteer", "2025.5.12", "dist/index.js", []),
  server("thinking", "@modelcontextprotocol/server-sequential-thinking", "2026.8.31", "dist/index.js", []),
  server("playwright", "@playwright/mcp", "0.0.83", "cli.js", ["--caps=vision,pdf,testing,tracing"]),
  server("notion", "@notionhq/notion-mcp-server", "2.5.2", "bin/cli.mjs", [], { NOTION_TOKEN: "placeholder" }),
  server("stripe", "@stripe/mcp", "0.2.5", "dist/index.js", ["--tools=all", "--api-key=sk_test_placeholder"]),
  server("airtable", "airtable-mcp-server", "1.14.0", "dist/main.js", [], { AIRTABLE_API_KEY: "placeholder" }),
  server("mongodb", "mongodb-mcp-server", "3.0.4", "dist/esm/index.js", [], {}),
  server("sentry", "@sentry/mcp-server", "0.39.0", "dist/index.js", ["--access-token=placeholder"]),
  server("kubernetes", "mcp-server-kubernetes", "4.1.7", "dist/index.js", []),
  server("line", "@line/line-bot-mcp-server", "0.5.0", "dist/index.js", [], {
    CHANNEL_ACCESS_TOKEN: "placeholder",
    DESTINATION_USER_ID: "placeholder",
  }),
  server("firecrawl", "firecrawl-mcp", "3.26.0", "dist/index.js", [], { FIRECRAWL_API_KEY: "fc-placeholder" }),
];

function server(
  namespace: string,
  packageName: string,
  version: string,
  bin: string,
  args: readonly string[],
  env: Readonly<Record<string, string>> = {},
): CapturedServer {
  return { namespace, package: packageName, version, bin, args, env };
}

/** Reads the saved MCP tool lists (names already prefixed with the server's namespace). */
export async function loadMcpTools(): Promise<CatalogTool[]> {
  return JSON.parse(await readFile(CATALOG_FILE, "utf8")) as CatalogTool[];
}

// The first node_modules folder holding the package at the pinned version.
function packageFolder(entry: CapturedServer, modulesDirs: readonly string[]): string | undefined {
  for (const modules of modulesDirs) {
    const manifest = join(modules, entry.package, "package.json");
    if (!existsSync(manifest)) continue;
    if ((JSON.parse(readFileSync(manifest, "utf8")) as { version?: string }).version === entry.version) {
      return join(modules, entry.package);
    }
  }
  return undefined;
}

/**
 * Starts each server over stdio from the first of `modulesDirs` (node_modules folders, this
 * project's last) that holds it at its pinned version, lists its tools (following cursors) and
 * writes mcp-tools.json; a server that is missing, does not start or does not list is reported
 * and left out. Names become `<namespace>.<tool>`.
 */
export async function fetchMcpTools(modulesDirs: readonly string[] = []): Promise<CatalogTool[]> {
  const scratch = await mkdtemp(join(tmpdir(), "switchyard-bench-"));
  try {
    const all: CatalogTool[] = [];
    for (const entry of CAPTURED_SERVERS) {
      const folder = packageFolder(entry, [...modulesDirs, PROJECT_MODULES]);
      if (folder === undefined) {
        console.log(`${entry.namespace}: not captured (${entry.package}@${entry.version} is not installed)`);
        continue;
      }
      const fill = (text: string): string => text.replaceAll("{scratch}", scratch);
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: [join(folder, entry.bin), ...entry.args.map(fill)],
        env: {
          PATH: process.env["PATH"] ?? "",
          HOME: scratch,
          ...Object.fromEntries(Object.entries(entry.env).map(([key, value]) => [key, fill(value)])),
        },
        stderr: "ignore",
      });
      const client = new Client({ name: "switchyard-search-bench", version: "0.1.0" });
      try {
        await client.connect(transport);
        const tools: CatalogTool[] = [];
        let cursor: string | undefined;
        do {
          const page = await client.listTools(cursor === undefined ? {} : { cursor });
          for (const tool of page.tools) {
            tools.push({
              name: `${entry.namespace}.${tool.name}`,
              description: tool.description ?? "",
              inputSchema: tool.inputSchema as CatalogTool["inputSchema"],
            });
          }
          cursor = page.nextCursor;
        } while (cursor !== undefined);
        console.log(`${entry.namespace}: ${tools.length} tools (${entry.package}@${entry.version})`);
        all.push(...tools);
      } catch (error) {
        console.log(`${entry.namespace}: not captured (${error instanceof Error ? error.message : String(error)})`);
      } finally {
        await client.close().catch(() => undefined);
      }
    }
    await writeFile(CATALOG_FILE, `${JSON.stringify(all, null, 2)}\n`);
    return all;
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const tools = await fetchMcpTools(process.argv.slice(2));
  console.log(`${tools.length} tools written to ${CATALOG_FILE}`);
}
