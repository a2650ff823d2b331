import { spawn, spawnSync } from "node:child_process";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it, onTestFinished } from "vitest";
import { SwitchyardError } from "../../../src/errors.js";
import { defineTool } from "../../../src/registry/define-tool.js";
import {
  connectMcpSource,
  type McpSource,
  type McpSourceEvent,
  type McpSourceOptions,
} from "../../../src/sources/mcp/mcp-source.js";
import { ToolRegistry } from "../../../src/registry/tool-registry.js";
import { Switchyard } from "../../../src/switchyard.js";
import { isAlive, stdioServer, tempFolder, waitFor } from "../../helpers/mcp-servers.js";

const FIXTURE = fileURLToPath(new URL("./fixtures/mcp-test-server.mjs", import.meta.url));
const FAILED_START = fileURLToPath(new URL("./fixtures/failed-start-child.ts", import.meta.url));
const fixture = (...args: string[]): McpSourceOptions["transport"] => ({
  kind: "stdio",
  command: process.execPath,
  args: [FIXTURE, ...args],
});

const opened: McpSource[] = [];
const temp = tempFolder("mcp-faults");
afterAll(async () => {
  await Promise.all(opened.map((source) => source.close()));
  temp.remove();
});

async function connect(registry: ToolRegistry, options: McpSourceOptions): Promise<McpSource> {
  const source = await connectMcpSource(registry, options);
  opened.push(source);
  return source;
}

async function startError(promise: Promise<unknown>): Promise<SwitchyardError> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(SwitchyardError);
  return error as SwitchyardError;
}

describe("MCP source faults", () => {
  it("reports a server that exits at start as SOURCE_START_FAILED, naming the command and quoting its stderr", async () => {
    const registry = new ToolRegistry();
    const started = Date.now();
    const error = await startError(
      connectMcpSource(registry, {
        namespace: "broken",
        transport: { kind: "stdio", command: process.execPath, args: ["-e", "console.error('boom'); process.exit(3)"] },
      }),
    );
    expect(error.code).toBe("SOURCE_START_FAILED");
    expect(error.message).toContain('"broken"');
    expect(error.message).toContain(process.execPath);
    expect(error.message).toContain("boom");
    expect(registry.snapshot().tools).toEqual([]);
    console.info(`failed start reported in ${Date.now() - started} ms:\n${error.message}`);
    // The namespace was released: a working server may take it now.
    const source = await connect(registry, { namespace: "broken", transport: fixture() });
    expect(source.tools.map((tool) => tool.localName)).toEqual(["echo", "slow", "freeze", "note", "fail"]);
    await source.close();
  });

  it("reports a server whose stdout banner swallows the handshake within 2 s, naming the server and quoting the bytes", async () => {
    const registry = new ToolRegistry();
    const events: McpSourceEvent[] = [];
    const started = Date.now();
    const error = await startError(
      connectMcpSource(registry, {
        namespace: "chatty",
        transport: fixture("--stdout-banner"),
        onEvent: (event) => events.push(event),
      }),
    );
    const elapsedMs = Date.now() - started;
    expect(error.code).toBe("SOURCE_START_FAILED");
    expect(error.message).toContain('"chatty"');
    expect(error.message).toContain("something other than MCP messages to stdout");
    expect(error.message).toContain("fault fixtur");
    expect(error.message).toContain("log to stderr");
    expect(error.message).not.toContain("wrote nothing to stderr");
    // 2 s of grace after the bad bytes, plus a process start: far from the 15 s start timeout.
    expect(elapsedMs).toBeLessThan(5_000);
    expect(events.filter((event) => event.type === "mcp-stdout-invalid")).toHaveLength(1);
    expect(registry.snapshot().tools).toEqual([]);
  });

  it("keeps a server that printed a stray line on stdout but speaks MCP, and reports the line once", async () => {
    const events: McpSourceEvent[] = [];
    const source = await connect(new ToolRegistry(), {
      namespace: "banner",
      transport: fixture("--stdout-banner-line"),
      onEvent: (event) => events.push(event),
    });
    expect(source.state).toBe("connected");
    expect(source.tools.map((tool) => tool.localName)).toContain("echo");
    const invalid = events.filter((event) => event.type === "mcp-stdout-invalid");
    expect(invalid).toHaveLength(1);
    expect(invalid[0]).toMatchObject({ namespace: "banner" });
    await source.close();
  });

  // Found from outside (2026-12-03): a server behind `sh -c` whose start failed left its child
  // running with the stdio pipes open, so `switchyard run` printed its one line and never exited.
  it("stops a failed server's own children too, so the process that started it exits", async () => {
    const marker = `${Math.floor(Math.random() * 1e6) + 900_000}`;
    const child = spawn(
      process.execPath,
      [
        "--no-node-snapshot",
        "--import",
        import.meta.resolve("tsx"),
        FAILED_START,
        "sh",
        "-c",
        `echo hi; sleep ${marker}`,
      ],
      { stdio: ["ignore", "pipe", "inherit"] },
    );
    // Whatever happens (a red run hangs until the timeout), nothing of it outlives the test.
    onTestFinished(() => {
      child.kill("SIGKILL");
      spawnSync("pkill", ["-f", `sleep ${marker}`]);
    });
    let stdout = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    const started = Date.now();
    const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
    expect(stdout.trim()).toBe("SOURCE_START_FAILED");
    expect(code).toBe(0);
    // Node's start, tsx, the server's start and its failure: seconds, never the sleep's 250 hours.
    expect(Date.now() - started).toBeLessThan(20_000);
    const left = spawnSync("pgrep", ["-f", `sleep ${marker}`], { encoding: "utf8" }).stdout.trim();
    expect(left).toBe("");
  }, 30_000);

  it("reports a command that does not exist as SOURCE_START_FAILED", async () => {
    const error = await startError(
      connectMcpSource(new ToolRegistry(), {
        namespace: "ghost",
        transport: { kind: "stdio", command: "switchyard-no-such-command-xyz" },
      }),
    );
    expect(error.code).toBe("SOURCE_START_FAILED");
    expect(error.message).toContain("switchyard-no-such-command-xyz");
    expect(error.message).toMatch(/ENOENT/);
  });

  it("refuses a second source, or a code tool, on a namespace already taken (NAMESPACE_CONFLICT), before spawning anything", async () => {
    const registry = new ToolRegistry([
      defineTool({ name: "local.ping", description: "Ping.", inputSchema: { type: "object" }, execute: () => "pong" }),
    ]);
    const first = await connect(registry, { namespace: "fixture", transport: fixture() });
    const second = await startError(
      connectMcpSource(registry, { namespace: "fixture", transport: { kind: "stdio", command: "never-spawned" } }),
    );
    expect(second.code).toBe("NAMESPACE_CONFLICT");
    const clash = await startError(
      connectMcpSource(registry, { namespace: "local", transport: { kind: "stdio", command: "never-spawned" } }),
    );
    expect(clash.code).toBe("NAMESPACE_CONFLICT");
    expect(clash.message).toContain("local.ping");
    registry.addAll([
      defineTool({ name: "bare", description: "A bare tool.", inputSchema: { type: "object" }, execute: () => null }),
    ]);
    const bare = await startError(
      connectMcpSource(registry, { namespace: "bare", transport: { kind: "stdio", command: "never-spawned" } }),
    );
    expect(bare.code).toBe("NAMESPACE_CONFLICT");
    await first.close();
  });

  it("refuses a bad timeout option with OPTION_INVALID before spawning anything", async () => {
    const registry = new ToolRegistry();
    for (const option of ["startTimeoutMs", "pingTimeoutMs", "callTimeoutMs"] as const) {
      const error = await startError(
        connectMcpSource(registry, {
          namespace: "timeouts",
          transport: { kind: "stdio", command: "never-spawned" },
          [option]: 0,
        }),
      );
      expect(error.code).toBe("OPTION_INVALID");
      expect(error.message).toContain(option);
    }
    // Nothing was claimed either: the namespace is still free.
    const source = await connect(registry, { namespace: "timeouts", transport: fixture() });
    await source.close();
  });

  it("sets aside the tools the registry refuses (a schema that does not compile, an identifier clash) and keeps the rest", async () => {
    const registry = new ToolRegistry();
    const source = await connect(registry, { namespace: "mixed", transport: fixture("--with-bad-tools") });
    expect(source.skippedTools.map((tool) => tool.name)).toEqual(["broken", "get_item"]);
    expect(source.skippedTools[0]!.reason).toMatch(/does not compile/);
    expect(source.skippedTools[1]!.reason).toMatch(/tools\.mixed\.get_item/);
    expect(registry.snapshot().tools.map((tool) => tool.definition.localName)).toEqual([
      "get-item",
      "echo",
      "slow",
      "freeze",
      "note",
      "fail",
    ]);
  });

  it("maps an isError result to TOOL_ERROR with the server's text, and annotations to effects", async () => {
    const yard = new Switchyard();
    const source = await connect(yard.registry, { namespace: "fx", transport: fixture() });
    const effects = Object.fromEntries(source.tools.map((tool) => [tool.localName, tool.effect]));
    expect(effects).toEqual({ echo: "read", slow: "read", freeze: "read", note: "write", fail: "destructive" });
    const outcome = await yard.callTool("fx.fail", {});
    expect(outcome).toMatchObject({
      status: "error",
      error: { code: "TOOL_ERROR", message: "the fixture failed on purpose" },
    });
    await source.close();
    // Closing removes the source's tools; the session's own results.read stays.
    expect(yard.registry.snapshot().tools.map((tool) => tool.definition.name)).toEqual(["results.read"]);
  });

  it("fails every call in flight with SOURCE_UNAVAILABLE when the server hangs, kills it, and restarts it on next use", async () => {
    const yard = new Switchyard();
    const source = await connect(yard.registry, {
      namespace: "hangs",
      transport: fixture(),
      callTimeoutMs: 300,
      pingTimeoutMs: 200,
      restart: { initialDelayMs: 10 },
    });
    const pid = source.pid!;
    const started = Date.now();
    const result = await yard.run(`
      const settled = await Promise.allSettled([tools.hangs.freeze({}), tools.hangs.slow({ ms: 5000 })]);
      return settled.map((entry) => entry.status === "rejected" ? (entry.reason as ToolCallError).code : "ok");
    `);
    const detectedMs = Date.now() - started;
    expect(result.ok, result.error?.message).toBe(true);
    expect(result.output).toEqual(["SOURCE_UNAVAILABLE", "SOURCE_UNAVAILABLE"]);
    await waitFor(() => !isAlive(pid), 2_000, "the hung child to be killed");
    const next = await yard.callTool("hangs.echo", { text: "alive again" });
    expect(next).toMatchObject({ status: "ok", value: [{ type: "text", text: "alive again" }] });
    expect(source.stats.restarts).toBe(1);
    console.info(`hung server detected and stopped in ${detectedMs} ms (callTimeoutMs 300 + ping 200)`);
  });

  it("keeps a slow but responsive server and answers the slow call with TOOL_TIMEOUT", async () => {
    const yard = new Switchyard();
    const source = await connect(yard.registry, { namespace: "slowpoke", transport: fixture(), callTimeoutMs: 200 });
    const pid = source.pid!;
    const outcome = await yard.callTool("slowpoke.slow", { ms: 2000 });
    expect(outcome).toMatchObject({
      status: "timeout",
      error: { code: "TOOL_TIMEOUT", message: expect.stringMatching(/still responsive/) },
    });
    expect(source.state).toBe("connected");
    expect(source.pid).toBe(pid);
    expect(await yard.callTool("slowpoke.echo", { text: "still here" })).toMatchObject({ status: "ok" });
  });

  it("backs off between failed restarts and gives up after maxAttempts", async () => {
    const marker = join(temp.path, "fail-marker");
    const yard = new Switchyard();
    const source = await connect(yard.registry, {
      namespace: "flaky",
      transport: fixture("--fail-if-exists", marker),
      restart: { maxAttempts: 2, initialDelayMs: 50, maxDelayMs: 1000 },
    });
    writeFileSync(marker, "");
    process.kill(source.pid!, "SIGKILL");
    await waitFor(() => source.state === "unavailable", 5_000, "the source to notice the exit");
    const codes: string[] = [];
    const messages: string[] = [];
    const started = Date.now();
    for (let attempt = 0; attempt < 3; attempt++) {
      const outcome = await yard.callTool("flaky.echo", { text: "x" });
      if (outcome.status !== "ok") {
        codes.push(outcome.error.code);
        messages.push(outcome.error.message);
      }
    }
    const elapsedMs = Date.now() - started;
    expect(codes).toEqual(["SOURCE_UNAVAILABLE", "SOURCE_UNAVAILABLE", "SOURCE_UNAVAILABLE"]);
    expect(messages[0]).toMatch(/restarting it failed \(attempt 1\)/);
    expect(messages[1]).toMatch(/restarting it failed \(attempt 2\)/);
    expect(messages[2]).toMatch(/will not be restarted again/);
    expect(source.state).toBe("gave-up");
    // Delays: 50 ms before attempt 1, 100 ms before attempt 2.
    expect(elapsedMs).toBeGreaterThanOrEqual(140);
    expect(source.stderrTail().join("\n")).toContain("refusing to start");
    rmSync(marker);
  });

  it("close() resolves only once the child process has exited, and removes the tools", async () => {
    const registry = new ToolRegistry();
    const source = await connect(registry, {
      namespace: "memory",
      transport: stdioServer("memory", [], { MEMORY_FILE_PATH: join(temp.path, "memory.jsonl") }),
    });
    const pid = source.pid!;
    expect(isAlive(pid)).toBe(true);
    await source.close();
    expect(source.state).toBe("closed");
    expect(registry.snapshot().tools).toEqual([]);
    // No waiting here: a gateway that exits right after close() must leave no server behind.
    expect(isAlive(pid)).toBe(false);
    expect(await source.close()).toBeUndefined();
  });
});
