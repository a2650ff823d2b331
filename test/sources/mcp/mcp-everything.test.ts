import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defineTool } from "../../../src/registry/define-tool.js";
import { connectMcpSource, type McpSource, type McpSourceEvent } from "../../../src/sources/mcp/mcp-source.js";
import { Switchyard } from "../../../src/switchyard.js";
import { stdioServer } from "../../helpers/mcp-servers.js";

// One server-everything for the whole file; the last test kills it and checks the restart.
describe("an MCP source over stdio (server-everything)", () => {
  const events: McpSourceEvent[] = [];
  let release: () => void = () => {};
  const gate = defineTool({
    name: "gate.wait",
    description: "Waits until the test opens the gate.",
    inputSchema: { type: "object" },
    effect: "read",
    execute: () => new Promise<string>((resolve) => (release = () => resolve("open"))),
  });
  const yard = new Switchyard({ tools: [gate] });
  let source: McpSource;
  let versionBeforeConnect = 0;
  let runBeforeConnect: ReturnType<Switchyard["run"]>;
  let startMs = 0;

  beforeAll(async () => {
    versionBeforeConnect = yard.registry.version;
    // A run that starts before the server exists, and is still running when its tools arrive.
    runBeforeConnect = yard.run(
      `await tools.gate.wait({});
       try { await (tools as any).everything.echo({ message: "x" }); return "found"; }
       catch (error) { return (error as ToolCallError).code; }`,
      { typeCheck: "off" },
    );
    const started = Date.now();
    source = await connectMcpSource(yard.registry, {
      namespace: "everything",
      transport: stdioServer("everything"),
      restart: { initialDelayMs: 50 },
      onEvent: (event) => events.push(event),
    });
    startMs = Date.now() - started;
  });

  afterAll(async () => {
    release();
    await source?.close();
  });

  it("registers every listed tool under its namespace with description, schemas and an effect from its annotations", () => {
    const tools = yard.registry.snapshot().tools.filter((tool) => tool.definition.source === "mcp:everything");
    expect(tools.length).toBeGreaterThanOrEqual(13);
    expect(tools.length).toBe(source.tools.length);
    expect(source.skippedTools).toEqual([]);
    const byName = new Map(tools.map((tool) => [tool.definition.name, tool.definition]));
    expect(byName.get("everything.echo")?.effect).toBe("read");
    expect(byName.get("everything.echo")?.description).toMatch(/echo/i);
    expect(byName.get("everything.toggle-simulated-logging")?.effect).toBe("write");
    expect(byName.get("everything.get-structured-content")?.outputSchema).toBeDefined();
    // Dashed names become identifiers; outputSchema gives a declared return type.
    const declarations = yard.declarations();
    expect(declarations).toMatch(/get_structured_content\(/);
    expect(declarations).toMatch(/temperature: number/);
    console.info(
      `server-everything: ${tools.length} tools, connected and listed in ${startMs} ms (last start ${source.stats.lastStartMs} ms)`,
    );
  });

  it("follows the tools/list_changed the server sends after initialization, and a run started before keeps its snapshot", async () => {
    expect(source.stats.listChangedNotifications).toBeGreaterThanOrEqual(1);
    expect(events.some((event) => event.type === "mcp-tools-listed" && event.reason === "list_changed")).toBe(true);
    expect(yard.registry.version).toBeGreaterThan(versionBeforeConnect);
    expect(yard.declarations()).toMatch(/^ {2}everything: \{$/m);
    release();
    const before = await runBeforeConnect;
    expect(before.ok, before.error?.message).toBe(true);
    expect(before.catalogVersion).toBe(versionBeforeConnect);
    expect(before.output).toBe("TOOL_NOT_FOUND");
  });

  it("calls tools from a program in parallel: structured content is the value, plain text and images become typed blocks, an image without its payload", async () => {
    const result = await yard.run(`
      const [echo, sum, weather, image] = await Promise.all([
        tools.everything.echo({ message: "hello" }),
        tools.everything.get_sum({ a: 2, b: 3 }),
        tools.everything.get_structured_content({ location: "Chicago" }),
        tools.everything.get_tiny_image({}),
      ]);
      return { echo, sum, weather, image, degrees: weather.temperature };
    `);
    expect(result.ok, result.error?.message).toBe(true);
    const output = result.output as Record<string, unknown>;
    expect(output["echo"]).toEqual([{ type: "text", text: "Echo: hello" }]);
    expect(output["sum"]).toEqual([{ type: "text", text: "The sum of 2 and 3 is 5." }]);
    expect(output["weather"]).toMatchObject({ temperature: expect.any(Number), conditions: expect.any(String) });
    const image = (output["image"] as { type: string; bytes?: number; data?: string }[]).find(
      (block) => block.type === "image",
    );
    expect(image).toMatchObject({ type: "image", mimeType: "image/png" });
    expect(image?.bytes).toBeGreaterThan(1024);
    expect(image?.data).toBeUndefined();
    expect(result.calls.every((call) => call.status === "ok")).toBe(true);
  });

  it("answers a call in flight with SOURCE_UNAVAILABLE when the server is killed, and restarts it on the next run", async () => {
    const oldPid = source.pid;
    expect(oldPid).toBeTypeOf("number");
    const callStarted = new Promise<void>((resolve) => {
      const off = yard.trace.subscribe((event) => {
        if (event.type === "tool-call-start" && event.tool.includes("long")) {
          off();
          resolve();
        }
      });
    });
    const running = yard.run(`
      try {
        await tools.everything.trigger_long_running_operation({ duration: 30, steps: 3 });
        return { finished: true };
      } catch (error) {
        const failure = error as ToolCallError;
        return { code: failure.code, message: failure.message };
      }
    `);
    await callStarted;
    // Give the request time to reach the child before killing it.
    await new Promise((resolve) => setTimeout(resolve, 100));
    process.kill(oldPid!, "SIGKILL");
    const result = await running;
    expect(result.ok, result.error?.message).toBe(true);
    const output = result.output as { code: string; message: string };
    expect(output.code).toBe("SOURCE_UNAVAILABLE");
    expect(output.message).toContain('"everything"');
    expect(output.message).toMatch(/restarted/);
    expect(source.state).toBe("unavailable");

    const started = Date.now();
    const next = await yard.run(`return await tools.everything.echo({ message: "back" });`);
    expect(next.ok, next.error?.message).toBe(true);
    expect(next.output).toEqual([{ type: "text", text: "Echo: back" }]);
    expect(source.stats.restarts).toBe(1);
    expect(source.state).toBe("connected");
    expect(source.pid).not.toBe(oldPid);
    console.info(`server-everything restarted and answered in ${Date.now() - started} ms`);
  });
});
