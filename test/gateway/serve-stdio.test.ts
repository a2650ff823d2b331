// `switchyard serve` as a real MCP client sees it: the SDK's Client spawns the command over
// stdio, and the gateway fronts the real server-memory and server-filesystem (plus a slow
// code-defined tool). One gateway process per describe block.

import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import {
  ElicitRequestSchema,
  type CallToolResult,
  type ElicitRequest,
  type ElicitResult,
} from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isAlive, mcpServerScript, tempFolder, waitFor } from "../helpers/mcp-servers.js";

const BIN = fileURLToPath(new URL("../../bin/switchyard.js", import.meta.url));
const SLOW_TOOLS = fileURLToPath(new URL("./fixtures/slow-tools.ts", import.meta.url));

interface Gateway {
  readonly client: Client;
  readonly transport: StdioClientTransport;
  readonly folder: string;
  readonly logFile: string;
  readonly startMs: number;
  stderr(): string;
  /** Lines on the gateway's stdout that were not JSON-RPC messages (the client only reports them). */
  strayStdoutLines(): readonly Error[];
  close(): Promise<void>;
}

/** Writes a config (memory + filesystem + slow tools, an `ask` rule on fs.write_file) and connects a client to `serve`. */
async function startGateway(
  name: string,
  options: { elicitation?: (request: ElicitRequest) => ElicitResult; extraArgs?: string[] } = {},
): Promise<Gateway> {
  const temp = tempFolder(`gateway-${name}`);
  const folder = join(temp.path, "files");
  mkdirSync(join(folder, "notes"), { recursive: true });
  writeFileSync(join(folder, "notes", "alpha.txt"), "alpha beta gamma");
  writeFileSync(join(folder, "notes", "beta.txt"), "one two");
  const configPath = join(temp.path, "switchyard.config.json");
  writeFileSync(
    configPath,
    JSON.stringify({
      tools: [SLOW_TOOLS],
      mcpServers: {
        memory: {
          command: process.execPath,
          args: [mcpServerScript("memory")],
          env: { MEMORY_FILE_PATH: join(temp.path, "memory.jsonl") },
        },
        fs: { command: process.execPath, args: [mcpServerScript("filesystem"), folder] },
      },
      permissions: { rules: [{ tools: "fs.write_file", decision: "ask", reason: "writes a file" }] },
    }),
  );
  const logFile = join(temp.path, "serve.log");
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, "serve", "--config", configPath, "--log-file", logFile, ...(options.extraArgs ?? [])],
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  // The client drops a line it cannot parse and only reports it here, so nothing else would notice.
  const strayStdoutLines: Error[] = [];
  transport.onerror = (error) => {
    if (error instanceof SyntaxError || error.name === "ZodError") strayStdoutLines.push(error);
  };
  const client = new Client(
    { name: "gateway-test", version: "1.0.0" },
    { capabilities: options.elicitation === undefined ? {} : { elicitation: {} } },
  );
  if (options.elicitation !== undefined) {
    const answer = options.elicitation;
    client.setRequestHandler(ElicitRequestSchema, (request) => answer(request));
  }
  const started = Date.now();
  await client.connect(transport);
  const startMs = Date.now() - started;
  return {
    client,
    transport,
    folder,
    logFile,
    startMs,
    stderr: () => stderr,
    strayStdoutLines: () => strayStdoutLines,
    close: async () => {
      await client.close();
      temp.remove();
    },
  };
}

/** Ids of the live descendants of `pid`: the serve process and the downstream servers it started. */
function descendantsOf(pid: number): number[] {
  const rows = execFileSync("ps", ["-eo", "pid=,ppid="], { encoding: "utf8" })
    .split("\n")
    .map((line) => line.trim().split(/\s+/).map(Number))
    .filter((row) => row.length === 2);
  const found: number[] = [];
  let frontier = [pid];
  while (frontier.length > 0) {
    const children = rows.filter(([, parent]) => frontier.includes(parent!)).map(([child]) => child!);
    found.push(...children);
    frontier = children;
  }
  return found;
}

function textOf(result: CallToolResult): string {
  return result.content.map((part) => (part.type === "text" ? part.text : "")).join("\n");
}

async function runProgram(
  client: Client,
  code: string,
  options: Parameters<Client["callTool"]>[2] = {},
): Promise<CallToolResult> {
  return (await client.callTool({ name: "run_program", arguments: { code } }, undefined, options)) as CallToolResult;
}

describe("switchyard serve over stdio (memory + filesystem, a client that answers elicitation)", () => {
  let gateway: Gateway;
  const elicitations: ElicitRequest[] = [];
  let answer: ElicitResult = { action: "accept", content: { approve: true } };

  beforeAll(async () => {
    gateway = await startGateway("main", {
      elicitation: (request) => {
        elicitations.push(request);
        return answer;
      },
    });
    console.info(`switchyard serve with server-memory and server-filesystem: connected in ${gateway.startMs} ms`);
  }, 60_000);

  afterAll(async () => {
    const pid = gateway?.transport.pid;
    await gateway?.close();
    // stdin closed: the gateway shuts down by itself, downstream servers first.
    if (pid !== null && pid !== undefined) await waitFor(() => !isAlive(pid), 5_000, "the gateway to exit");
  });

  it("lists exactly run_program, search_tools and describe_tools", async () => {
    const { tools } = await gateway.client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(["run_program", "search_tools", "describe_tools"]);
    const runProgramTool = tools[0]!;
    expect(runProgramTool.description).toContain("Run a TypeScript program");
    expect(runProgramTool.inputSchema.required).toEqual(["code"]);
    // 23 tools whose declarations fit the 8K-token budget: nothing is deferred, so a model can
    // write its first program without a search turn (deferral goes by size, not count).
    expect(runProgramTool.description).toContain("read_graph(");
    expect(runProgramTool.description).toContain("read_text_file(");
    expect(runProgramTool.description).not.toContain("Not every tool is declared below");
    expect(gateway.client.getServerCapabilities()?.tools?.listChanged).toBe(true);
  });

  it("describes tools by name, reporting unknown names with the closest known ones", async () => {
    const result = (await gateway.client.callTool({
      name: "describe_tools",
      arguments: { names: ["memory.create_entities", "fs.read_text_file", "memory.create_entity"] },
    })) as CallToolResult;
    expect(result.isError).toBeFalsy();
    const text = textOf(result);
    expect(text).toContain("create_entities(");
    expect(text).toContain("read_text_file(");
    expect(text).toContain('Unknown tool "memory.create_entity". Did you mean memory.create_entities');
    const structured = result.structuredContent as {
      found: string[];
      unknown: { name: string }[];
      catalogVersion: number;
    };
    expect(structured.found).toEqual(["memory.create_entities", "fs.read_text_file"]);
    expect(structured.unknown.map((unknown) => unknown.name)).toEqual(["memory.create_entity"]);
    expect(structured.catalogVersion).toBeGreaterThan(0);
  });

  it("searches the catalog and returns the found tools' declarations", async () => {
    const result = (await gateway.client.callTool({
      name: "search_tools",
      arguments: { query: "create entities in the knowledge graph", limit: 3 },
    })) as CallToolResult;
    const structured = result.structuredContent as { references: { name: string }[]; declarations: string };
    expect(structured.references.map((reference) => reference.name)).toContain("memory.create_entities");
    expect(structured.declarations).toContain("create_entities(");
    const byPattern = (await gateway.client.callTool({
      name: "search_tools",
      arguments: { pattern: "^fs\\.read" },
    })) as CallToolResult;
    expect(
      (byPattern.structuredContent as { references: { name: string }[] }).references.every((reference) =>
        reference.name.startsWith("fs.read"),
      ),
    ).toBe(true);
  });

  it("runs a program that writes to memory and reads files through the filesystem server in one Promise.all", async () => {
    const root = JSON.stringify(join(gateway.folder, "notes"));
    const started = Date.now();
    const result = await runProgram(
      gateway.client,
      `
      const root = ${root};
      const [created, listing] = await Promise.all([
        tools.memory.create_entities({ entities: [
          { name: "alpha.txt", entityType: "file", observations: ["the first note"] },
          { name: "beta.txt", entityType: "file", observations: ["the second note"] },
        ] }),
        tools.fs.list_directory({ path: root }),
      ]);
      const names = listing.content.split("\\n").filter((line) => line.startsWith("[FILE] ")).map((line) => line.slice(7));
      const [texts, graph] = await Promise.all([
        Promise.all(names.map((name) => tools.fs.read_text_file({ path: root + "/" + name }))),
        tools.memory.read_graph({}),
      ]);
      return names.map((name, index) => ({
        name,
        words: texts[index]!.content.split(/\\s+/).filter(Boolean).length,
        notes: graph.entities.find((entity) => entity.name === name)?.observations ?? [],
      }));
    `,
    );
    const roundTripMs = Date.now() - started;
    expect(result.isError, textOf(result)).toBeFalsy();
    const structured = result.structuredContent as {
      ok: boolean;
      output: unknown;
      calls: { total: number; byStatus: Record<string, number> };
      catalogVersion: number;
    };
    expect(structured.ok).toBe(true);
    expect(structured.output).toEqual([
      { name: "alpha.txt", words: 3, notes: ["the first note"] },
      { name: "beta.txt", words: 2, notes: ["the second note"] },
    ]);
    expect(structured.calls).toMatchObject({ total: 5, byStatus: { ok: 5 } });
    expect(structured.catalogVersion).toBeGreaterThan(0);
    expect(textOf(result)).toMatch(/^output: \[\{"name":"alpha.txt"/);
    console.info(`run_program round trip (5 downstream calls over two servers): ${roundTripMs} ms`);
  });

  it("returns isError with the code and the failing source line when the program throws", async () => {
    const result = await runProgram(
      gateway.client,
      [
        "const graph = await tools.memory.read_graph({});",
        "const nobody = graph.entities.find((entity) => entity.name === 'nobody')!;",
        "return nobody.observations.length;",
      ].join("\n"),
    );
    expect(result.isError).toBe(true);
    const text = textOf(result);
    expect(text).toContain("error RUNTIME_ERROR at line 3");
    expect(text).toContain("line 3: return nobody.observations.length;");
    expect((result.structuredContent as { ok: boolean; error: { code: string; line: number } }).error).toMatchObject({
      code: "RUNTIME_ERROR",
      line: 3,
    });
  });

  it("reports a type error with its line, and nothing runs", async () => {
    const result = await runProgram(gateway.client, "const x: number = await tools.memory.read_graph({});\nreturn x;");
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain("error TYPE_ERROR at line 1");
    expect((result.structuredContent as { calls: { total: number } }).calls.total).toBe(0);
  });

  it("sends progress notifications while a program runs, and a final one with a total", async () => {
    const reports: { progress: number; total?: number | undefined; message?: string | undefined }[] = [];
    const result = await runProgram(
      gateway.client,
      `
      for (let round = 0; round < 6; round++) {
        await Promise.all([tools.slow.wait({ ms: 80 }), tools.slow.wait({ ms: 80 })]);
      }
      return "done";
    `,
      { onprogress: (progress) => void reports.push(progress) },
    );
    expect(result.isError, textOf(result)).toBeFalsy();
    // At least one report while calls run, and the final one; timing decides how many more.
    expect(reports.filter((report) => report.total === undefined).length).toBeGreaterThanOrEqual(1);
    // Throttled: far fewer reports than the 24 call events.
    expect(reports.length).toBeLessThan(24);
    expect(reports.some((report) => /\d+ calls? done, \d+ in flight/.test(report.message ?? ""))).toBe(true);
    const progresses = reports.map((report) => report.progress);
    expect(progresses).toEqual([...progresses].sort((a, b) => a - b));
    expect(new Set(progresses).size).toBe(progresses.length);
    // The server sends the final report (with `total`) before the response, but the SDK client
    // dispatches notifications a microtask later than responses and drops progress that lands
    // after its request settled; so the final report is checked when it arrives.
    const final = reports.find((report) => report.total !== undefined);
    if (final !== undefined) {
      expect(final).toBe(reports.at(-1));
      expect(final.total).toBe(final.progress);
      expect(final.message).toMatch(/^ok: 12 calls/);
    }
  });

  it("cancels the run when the client aborts, and keeps serving", async () => {
    const marker = join(gateway.folder, "slow-marker");
    const controller = new AbortController();
    const pending = runProgram(
      gateway.client,
      `await tools.slow.wait({ ms: 30000, marker: ${JSON.stringify(marker)} }); return "finished";`,
      {
        signal: controller.signal,
      },
    );
    const rejection = expect(pending).rejects.toThrow("the user pressed stop");
    await waitFor(() => existsSync(`${marker}.started`), 10_000, "the slow call to start");
    const aborted = Date.now();
    controller.abort("the user pressed stop");
    await rejection;
    // The cancellation reached the tool inside the gateway, and the run ended CANCELLED.
    await waitFor(() => existsSync(`${marker}.cancelled`), 5_000, "the slow call to be cancelled");
    await waitFor(
      () => readFileSync(gateway.logFile, "utf8").includes("(cancelled by the client): failed CANCELLED: 1 calls"),
      5_000,
      "the log line",
    );
    console.info(
      `cancellation reached the tool ${Number(readFileSync(`${marker}.cancelled`, "utf8")) - aborted} ms after the client aborted`,
    );
    const next = await runProgram(gateway.client, "return (await tools.slow.wait({ ms: 1 })).waitedMs >= 0;");
    expect(next.isError, textOf(next)).toBeFalsy();
    expect((next.structuredContent as { output: unknown }).output).toBe(true);
  });

  it("forwards an `ask` decision to the client by elicitation and runs the call when it is accepted", async () => {
    answer = { action: "accept", content: { approve: true } };
    elicitations.length = 0;
    const path = join(gateway.folder, "approved.txt");
    const result = await runProgram(
      gateway.client,
      `await tools.fs.write_file({ path: ${JSON.stringify(path)}, content: "hello from a program" }); return "written";`,
    );
    expect(result.isError, textOf(result)).toBeFalsy();
    expect(readFileSync(path, "utf8")).toBe("hello from a program");
    expect(elicitations).toHaveLength(1);
    const params = elicitations[0]!.params as {
      message: string;
      requestedSchema: { properties: Record<string, unknown> };
    };
    expect(params.message).toContain("fs.write_file");
    expect(params.message).toContain("hello from a program");
    expect(params.message).toContain("Rule: writes a file");
    expect(Object.keys(params.requestedSchema.properties)).toEqual(["approve"]);
  });

  it("denies the call, without running it, when the user declines", async () => {
    answer = { action: "decline" };
    const path = join(gateway.folder, "declined.txt");
    const result = await runProgram(
      gateway.client,
      `try { await tools.fs.write_file({ path: ${JSON.stringify(path)}, content: "no" }); return "written"; } catch (error) { return { code: (error as { code?: string }).code, message: (error as Error).message }; }`,
    );
    expect((result.structuredContent as { output: unknown }).output).toEqual({
      code: "PERMISSION_DENIED",
      message: expect.stringContaining("declined fs.write_file"),
    });
    expect(existsSync(path)).toBe(false);
  });

  it("shuts down in order on SIGTERM: the gateway and its downstream servers exit", async () => {
    const pid = gateway.transport.pid!;
    // bin/switchyard.js -> serve (node --no-node-snapshot) -> server-memory, server-filesystem
    const descendants = descendantsOf(pid);
    expect(descendants.length).toBeGreaterThanOrEqual(3);
    const signalled = Date.now();
    process.kill(pid, "SIGTERM");
    await waitFor(() => !isAlive(pid), 5_000, "the gateway to exit");
    await waitFor(() => descendants.every((child) => !isAlive(child)), 5_000, "the downstream servers to exit");
    console.info(`SIGTERM to exit of the gateway and its downstream servers: ${Date.now() - signalled} ms`);
    const log = readFileSync(gateway.logFile, "utf8");
    expect(log).toContain("shutting down: SIGTERM");
    expect(log).toContain("stopped");
  });

  it("writes its log to the log file and nothing but protocol to stdout", () => {
    const log = readFileSync(gateway.logFile, "utf8");
    expect(log).toMatch(/ready on stdio in \d+ ms: \d+ tools from 2 MCP servers/);
    // Every stdout line was a JSON-RPC message; the gateway itself wrote no stderr.
    expect(gateway.strayStdoutLines()).toEqual([]);
    expect(gateway.stderr()).not.toContain("switchyard serve:");
  });
});

describe("switchyard serve over stdio (a client without elicitation, call_tool enabled)", () => {
  let gateway: Gateway;

  beforeAll(async () => {
    gateway = await startGateway("plain", { extraArgs: ["--enable-call-tool"] });
  }, 60_000);

  afterAll(async () => {
    await gateway?.close();
  });

  it("denies an `ask` call because the client cannot be asked", async () => {
    const path = join(gateway.folder, "never.txt");
    const result = await runProgram(
      gateway.client,
      `try { await tools.fs.write_file({ path: ${JSON.stringify(path)}, content: "no" }); return "written"; } catch (error) { return (error as Error).message; }`,
    );
    expect((result.structuredContent as { output: unknown }).output).toContain(
      "approval needed and the client cannot be asked",
    );
    expect(existsSync(path)).toBe(false);
  });

  it("lists call_tool when enabled and runs one direct call through the pipeline", async () => {
    const { tools } = await gateway.client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(["run_program", "search_tools", "describe_tools", "call_tool"]);
    const result = (await gateway.client.callTool({
      name: "call_tool",
      arguments: { name: "fs.list_allowed_directories", input: {} },
    })) as CallToolResult;
    expect(result.isError, textOf(result)).toBeFalsy();
    expect((result.structuredContent as { status: string }).status).toBe("ok");
    const invalid = (await gateway.client.callTool({
      name: "call_tool",
      arguments: { name: "memory.create_entities", input: { entities: "nope" } },
    })) as CallToolResult;
    expect(invalid.isError).toBe(true);
    expect(textOf(invalid)).toContain("error INPUT_INVALID");
  });

  it("shuts down on stdin close: the gateway and its downstream servers exit", async () => {
    const pid = gateway.transport.pid!;
    const logFile = gateway.logFile;
    const descendants = descendantsOf(pid);
    expect(descendants.length).toBeGreaterThanOrEqual(3);
    await gateway.client.close();
    await waitFor(() => !isAlive(pid), 5_000, "the gateway to exit");
    await waitFor(() => descendants.every((child) => !isAlive(child)), 5_000, "the downstream servers to exit");
    const log = readFileSync(logFile, "utf8");
    expect(log).toContain("shutting down: stdin closed");
    expect(log).toContain("stopped");
  });
});
