import { execFile } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { createSwitchyardFromConfig } from "../../src/config/create-switchyard-from-config.js";
import { loadConfig } from "../../src/config/load-config.js";
import { SwitchyardError } from "../../src/errors.js";
import { isAlive, mcpServerScript, tempFolder, waitFor } from "../helpers/mcp-servers.js";

const run = promisify(execFile);
const BIN = fileURLToPath(new URL("../../bin/switchyard.js", import.meta.url));
const TOOL_MODULE = fileURLToPath(new URL("./fixtures/greeting-tools.ts", import.meta.url));
const temp = tempFolder("config-session");
afterAll(() => temp.remove());

/** A config with a tool module, server-memory, a workspace and a spill folder. */
function writeSessionConfig(name: string, extra: Record<string, unknown> = {}): string {
  const folder = join(temp.path, name);
  mkdirSync(join(folder, "work"), { recursive: true });
  const path = join(folder, "switchyard.config.json");
  writeFileSync(
    path,
    JSON.stringify({
      tools: [TOOL_MODULE],
      mcpServers: {
        memory: {
          command: process.execPath,
          args: [mcpServerScript("memory")],
          env: { MEMORY_FILE_PATH: join(folder, "memory.jsonl") },
        },
      },
      workspace: "work",
      spill: "spill",
      permissions: {
        default: "allow",
        rules: [{ tools: "memory.delete_*", decision: "deny", reason: "the graph is append-only here" }],
      },
      ...extra,
    }),
  );
  return path;
}

describe("createSwitchyardFromConfig", () => {
  it("runs programs in the config's worker processes, under its run queue's memory budget", async () => {
    const path = writeSessionConfig("workers", {
      workers: 1,
      runQueue: { memoryBudgetMb: 64, maxQueuedRuns: 4 },
      limits: { memoryLimitMb: 32 },
    });
    const session = await createSwitchyardFromConfig(await loadConfig(path));
    try {
      const result = await session.yard.run('return (await tools.greeting.hello({ name: "worker" })).text;');
      expect(result.output).toBe("Hello, worker!");
      const { stdout } = await run("ps", ["-o", "args=", "--ppid", String(process.pid)]);
      expect(stdout).toContain("worker-process");
      await expect(session.yard.run("return 1;", { limits: { memoryLimitMb: 128 } })).rejects.toMatchObject({
        code: "OPTION_INVALID",
      });
    } finally {
      await session.close();
    }
  });

  it("builds a session with the module's tools, the built-ins, results.read and the MCP server, wired to the permission rules", async () => {
    const session = await createSwitchyardFromConfig(await loadConfig(writeSessionConfig("full")));
    try {
      const names = session.yard.registry.snapshot().tools.map((tool) => tool.definition.name);
      expect(names[0]).toBe("greeting.hello");
      expect(names).toContain("results.read");
      expect(names.some((name) => name.startsWith("workspace."))).toBe(true);
      expect(names.filter((name) => name.startsWith("memory."))).toHaveLength(
        session.sources.get("memory")!.tools.length,
      );
      const result = await session.yard.run(`
        const [greeting, created] = await Promise.all([
          tools.greeting.hello({ name: "config" }),
          tools.memory.create_entities({ entities: [{ name: "config", entityType: "test", observations: ["loaded"] }] }),
        ]);
        let denied = "";
        try { await tools.memory.delete_entities({ entityNames: ["config"] }); } catch (error) { denied = (error as ToolCallError).code; }
        return { text: greeting.text, created: created.entities.length, denied };
      `);
      expect(result.ok, result.error?.message).toBe(true);
      expect(result.output).toEqual({ text: "Hello, config!", created: 1, denied: "PERMISSION_DENIED" });
    } finally {
      await session.close();
    }
  });

  it("creates the sandboxed shell with the config's network, limits and read-only paths", async () => {
    const folder = join(temp.path, "shell");
    mkdirSync(join(folder, "work"), { recursive: true });
    mkdirSync(join(folder, "toolchain"), { recursive: true });
    writeFileSync(join(folder, "toolchain", "version.txt"), "toolchain 1.0\n");
    const session = await createSwitchyardFromConfig(
      {
        workspace: "work",
        shell: { enabled: true, network: "none", readOnlyPaths: ["toolchain"], limits: { maxProcesses: 77 } },
        permissions: { default: "allow" },
      },
      // Reading /proc/self/limits is rated write by the classifier, so it asks.
      { baseDir: folder, approve: () => true },
    );
    try {
      const outcome = await session.yard.callTool("shell.run", {
        command: `cat ${join(folder, "toolchain", "version.txt")}; grep -o 'Max processes *[0-9]*' /proc/self/limits; echo $HOME`,
      });
      expect(outcome.status).toBe("ok");
      const value = (outcome as { value: { stdout: string } }).value;
      expect(value.stdout).toMatch(/^toolchain 1\.0\nMax processes +77\n\/tmp\n$/);
    } finally {
      await session.close();
    }
  });

  it("passes the workspace write quota to the workspace tools", async () => {
    const folder = join(temp.path, "quota");
    mkdirSync(join(folder, "work"), { recursive: true });
    const session = await createSwitchyardFromConfig(
      { workspace: "work", workspaceQuota: { maxFilesWrittenPerRun: 1 }, permissions: { default: "allow" } },
      { baseDir: folder },
    );
    try {
      const result = await session.yard.run(
        `const write = (path: string) => tools.workspace.writeFile({ path, content: "x" }).then(() => "ok", (error) => error.code);
         return [await write("a.txt"), await write("b.txt")];`,
      );
      expect(result.output).toEqual(["ok", "WRITE_QUOTA_EXCEEDED"]);
    } finally {
      await session.close();
    }
  });

  it("reads observed output types from the config's observedTypes.file, and keeps none with false", async () => {
    const folder = join(temp.path, "observed");
    mkdirSync(folder, { recursive: true });
    const schema = { type: "object", properties: { id: { type: "string" } }, required: ["id"] };
    writeFileSync(
      join(folder, "types.json"),
      JSON.stringify({ switchyardObservedTypes: 1, tools: { "crm.get": { results: 4, schema } } }),
    );
    const typed = await createSwitchyardFromConfig({ observedTypes: { file: "types.json" } }, { baseDir: folder });
    const off = await createSwitchyardFromConfig({ observedTypes: false }, { baseDir: folder });
    try {
      expect(typed.yard.observedTypes?.snapshot().get("crm.get")).toMatchObject({ results: 4, schema });
      expect(off.yard.observedTypes).toBeUndefined();
    } finally {
      await typed.close();
      await off.close();
    }
  });

  it("refuses a config whose shell asks for network without the sandbox", async () => {
    const error = await createSwitchyardFromConfig(
      { workspace: ".", shell: { enabled: true, unsandboxed: true, network: "host" } },
      { baseDir: temp.path },
    ).then(
      () => undefined,
      (reason: unknown) => reason,
    );
    expect((error as SwitchyardError).code).toBe("OPTION_INVALID");
  });

  it("orders the catalog by the config's server order, whichever server came up first", async () => {
    const memory = (name: string) => ({
      command: process.execPath,
      args: [mcpServerScript("memory")],
      env: { MEMORY_FILE_PATH: join(temp.path, `${name}.jsonl`) },
    });
    const session = await createSwitchyardFromConfig(
      { mcpServers: { zeta: memory("zeta"), alpha: memory("alpha"), mid: memory("mid") } },
      { baseDir: temp.path },
    );
    try {
      const sources = [...new Set(session.yard.registry.snapshot().tools.map((tool) => tool.definition.source))];
      expect(sources.filter((source) => source.startsWith("mcp:"))).toEqual(["mcp:zeta", "mcp:alpha", "mcp:mid"]);
      expect([...session.sources.keys()]).toEqual(["zeta", "alpha", "mid"]);
    } finally {
      await session.close();
    }
  });

  it("closes the servers that started when another fails, and names the failing one", async () => {
    const path = writeSessionConfig("one-broken", {
      mcpServers: {
        memory: {
          command: process.execPath,
          args: [mcpServerScript("memory")],
          env: { MEMORY_FILE_PATH: join(temp.path, "m.jsonl") },
        },
        broken: {
          command: process.execPath,
          args: ["-e", "setTimeout(() => { console.error('boom'); process.exit(3); }, 300)"],
        },
      },
    });
    const pids: number[] = [];
    const error = await createSwitchyardFromConfig(await loadConfig(path), {
      onMcpEvent: (event) => {
        if (event.type === "mcp-started" && event.pid !== undefined) pids.push(event.pid);
      },
    }).then(
      () => undefined,
      (reason: unknown) => reason,
    );
    expect(error).toBeInstanceOf(SwitchyardError);
    expect((error as SwitchyardError).code).toBe("SOURCE_START_FAILED");
    expect((error as SwitchyardError).message).toMatch(/"broken".*boom/s);
    expect(pids).toHaveLength(1);
    await waitFor(() => !isAlive(pids[0]!), 3_000, "the memory server to exit");
  });
});

describe("the switchyard CLI with --config", () => {
  it("`switchyard tools --config` prints the catalog in aligned columns, and --json as data", async () => {
    const path = writeSessionConfig("cli");
    const started = Date.now();
    const { stdout } = await run(process.execPath, [BIN, "tools", "--config", path], { timeout: 20_000 });
    const elapsedMs = Date.now() - started;
    const lines = stdout.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^NAMESPACE\s+NAME\s+EFFECT\s+SOURCE\s+DESCRIPTION$/);
    const greeting = lines.find((line) => line.startsWith("greeting"));
    expect(greeting).toMatch(/^greeting\s+hello\s+read\s+code\s+Greets someone by name\.$/);
    const readGraph = lines.find((line) => / read_graph /.test(line));
    expect(readGraph).toMatch(/^memory\s+read_graph\s+read\s+mcp:memory\s+\S/);
    // Columns line up: every row has its effect at the header's EFFECT column.
    const effectColumn = lines[0]!.indexOf("EFFECT");
    for (const line of lines.slice(1, -1)) expect(line.slice(effectColumn)).toMatch(/^(read|write|destructive) /);
    expect(lines.at(-1)).toMatch(/^\d+ tools$/);

    const json = await run(process.execPath, [BIN, "tools", "--config", path, "--json"], { timeout: 20_000 });
    const rows = JSON.parse(json.stdout) as { namespace: string; name: string; source: string }[];
    expect(rows).toContainEqual(
      expect.objectContaining({ namespace: "memory", name: "create_entities", effect: "write", source: "mcp:memory" }),
    );
    console.info(
      `switchyard tools --config (CLI start, session, server-memory start, listing, close): ${elapsedMs} ms`,
    );
  });

  it("`switchyard run --config` runs a program against the config's tools; without --config or --tools it explains", async () => {
    const path = writeSessionConfig("cli-run");
    const program = join(temp.path, "program.ts");
    writeFileSync(
      program,
      `const graph = await tools.memory.read_graph({});\nreturn { entities: graph.entities.length, hello: (await tools.greeting.hello({ name: "cli" })).text };\n`,
    );
    const { stdout } = await run(process.execPath, [BIN, "run", program, "--config", path, "--json"], {
      timeout: 20_000,
    });
    expect(JSON.parse(stdout)).toMatchObject({ ok: true, output: { entities: 0, hello: "Hello, cli!" } });

    const failed = await run(process.execPath, [BIN, "tools"], { timeout: 20_000 }).then(
      () => undefined,
      (error: { code: number; stderr: string }) => error,
    );
    expect(failed?.code).toBe(2);
    expect(failed?.stderr).toMatch(/--config <file> or --tools/);
  });
});
