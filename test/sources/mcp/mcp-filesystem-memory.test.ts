import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectMcpSource, type McpSource } from "../../../src/sources/mcp/mcp-source.js";
import { Switchyard } from "../../../src/switchyard.js";
import { stdioServer, tempFolder } from "../../helpers/mcp-servers.js";

describe("two MCP servers in one program (server-filesystem and server-memory)", () => {
  const folder = tempFolder("mcp-fs");
  const memoryFolder = tempFolder("mcp-memory");
  const yard = new Switchyard();
  let filesystem: McpSource;
  let memory: McpSource;
  let startMs = 0;

  beforeAll(async () => {
    mkdirSync(join(folder.path, "notes"));
    writeFileSync(join(folder.path, "notes", "alpha.txt"), "alpha beta gamma");
    writeFileSync(join(folder.path, "notes", "beta.txt"), "one two");
    const started = Date.now();
    // Started in parallel, as a session would.
    [filesystem, memory] = await Promise.all([
      connectMcpSource(yard.registry, { namespace: "fs", transport: stdioServer("filesystem", [folder.path]) }),
      connectMcpSource(yard.registry, {
        namespace: "memory",
        transport: stdioServer("memory", [], { MEMORY_FILE_PATH: join(memoryFolder.path, "memory.jsonl") }),
      }),
    ]);
    startMs = Date.now() - started;
  });

  afterAll(async () => {
    await Promise.all([filesystem?.close(), memory?.close()]);
    folder.remove();
    memoryFolder.remove();
  });

  it("registers both catalogs with effects from their annotations", () => {
    expect(filesystem.tools.length).toBeGreaterThanOrEqual(12);
    expect(memory.tools.length).toBeGreaterThanOrEqual(8);
    const effect = (name: string) => yard.registry.snapshot().get(name)?.definition.effect;
    expect(effect("fs.read_text_file")).toBe("read");
    expect(effect("fs.write_file")).toBe("destructive");
    expect(effect("memory.create_entities")).toBe("write");
    expect(effect("memory.delete_entities")).toBe("destructive");
    console.info(
      `server-filesystem (${filesystem.tools.length} tools) and server-memory (${memory.tools.length} tools) started in parallel in ${startMs} ms`,
    );
  });

  it("runs one program that calls both servers in one Promise.all and returns combined data", async () => {
    await yard.callTool("memory.create_entities", {
      entities: [
        { name: "alpha.txt", entityType: "file", observations: ["the first note"] },
        { name: "beta.txt", entityType: "file", observations: ["the second note"] },
      ],
    });
    const root = JSON.stringify(join(folder.path, "notes"));
    const result = await yard.run(`
      const root = ${root};
      const [listing, graph] = await Promise.all([
        tools.fs.list_directory({ path: root }),
        tools.memory.read_graph({}),
      ]);
      const names = listing.content.split("\\n").filter((line) => line.startsWith("[FILE] ")).map((line) => line.slice(7));
      const texts = await Promise.all(names.map((name) => tools.fs.read_text_file({ path: root + "/" + name })));
      return names.map((name, index) => ({
        name,
        words: texts[index]!.content.split(/\\s+/).filter(Boolean).length,
        notes: graph.entities.find((entity) => entity.name === name)?.observations ?? [],
      }));
    `);
    expect(result.ok, result.error?.message).toBe(true);
    expect(result.output).toEqual([
      { name: "alpha.txt", words: 3, notes: ["the first note"] },
      { name: "beta.txt", words: 2, notes: ["the second note"] },
    ]);
    expect(result.calls.map((call) => call.tool).sort()).toEqual([
      "fs.list_directory",
      "fs.read_text_file",
      "fs.read_text_file",
      "memory.read_graph",
    ]);
  });

  it("gives the server's own error text to the program when a tool reports isError", async () => {
    const missing = JSON.stringify(join(folder.path, "missing.txt"));
    const result = await yard.run(`
      try { await tools.fs.read_text_file({ path: ${missing} }); return "read"; }
      catch (error) { return { code: (error as ToolCallError).code, message: (error as ToolCallError).message }; }
    `);
    expect(result.output).toMatchObject({ code: "TOOL_ERROR", message: expect.stringMatching(/ENOENT/) });
  });
});
