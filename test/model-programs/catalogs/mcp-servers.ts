// The real MCP servers of the model-program corpus, from npm: server-everything (text-only
// tools among them: echo, get-sum, get-env) and server-memory (a knowledge graph in a fresh
// temp file), attached to one session as `everything` and `memory`.

import { join } from "node:path";
import { connectMcpSource, type McpSource } from "../../../src/sources/mcp/mcp-source.js";
import type { Switchyard } from "../../../src/switchyard.js";
import { stdioServer, tempFolder } from "../../helpers/mcp-servers.js";

/** The variable server-everything's get-env shows, so a program has something to look for. */
export const CORPUS_VARIABLE = { name: "SWITCHYARD_CORPUS", value: "model-programs" } as const;

export async function attachMcpServers(yard: Switchyard): Promise<() => Promise<void>> {
  const folder = tempFolder("corpus-memory");
  const sources: McpSource[] = [];
  try {
    sources.push(
      await connectMcpSource(yard.registry, {
        namespace: "everything",
        transport: stdioServer("everything", [], { [CORPUS_VARIABLE.name]: CORPUS_VARIABLE.value }),
      }),
      await connectMcpSource(yard.registry, {
        namespace: "memory",
        transport: stdioServer("memory", [], { MEMORY_FILE_PATH: join(folder.path, "memory.jsonl") }),
      }),
    );
  } catch (error) {
    await Promise.allSettled(sources.map((source) => source.close()));
    folder.remove();
    throw error;
  }
  return async () => {
    await Promise.allSettled(sources.map((source) => source.close()));
    folder.remove();
  };
}
