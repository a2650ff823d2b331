// createGatewayServer in-process, over the SDK's InMemoryTransport: the list_changed policy,
// the shape of results, approval routing, cancellation and per-run progress, without spawning.

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import {
  ElicitRequestSchema,
  ToolListChangedNotificationSchema,
  type CallToolResult,
} from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";
import { CANNOT_ASK_REASON } from "../../src/gateway/gateway-approvals.js";
import {
  createGatewayServer,
  type GatewayServer,
  type GatewayServerOptions,
} from "../../src/gateway/gateway-server.js";
import { defineTool, type ToolDefinition } from "../../src/registry/define-tool.js";
import { Switchyard, type SwitchyardOptions } from "../../src/switchyard.js";
import type { TraceEvent } from "../../src/trace/trace-events.js";
import { waitFor } from "../helpers/mcp-servers.js";

const echo = defineTool({
  name: "notes.echo",
  description: "Returns its text.",
  effect: "read",
  inputSchema: {
    type: "object",
    properties: { text: { type: "string" } },
    required: ["text"],
    additionalProperties: false,
  },
  outputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
  execute: (input: { text: string }) => ({ text: input.text }),
});

const save = defineTool({
  name: "notes.save",
  description: "Saves a note.",
  effect: "write",
  inputSchema: {
    type: "object",
    properties: { text: { type: "string" } },
    required: ["text"],
    additionalProperties: false,
  },
  execute: (input: { text: string }) => ({ saved: input.text }),
});

/** A tool that waits until its signal fires; `started` counts the calls that began. */
function createHangTool(): { tool: ToolDefinition; started: () => number; cancelled: () => number } {
  let started = 0;
  let cancelled = 0;
  const tool = defineTool({
    name: "notes.hang",
    description: "Never finishes on its own.",
    effect: "read",
    inputSchema: { type: "object", properties: {}, additionalProperties: false },
    execute: (_input: unknown, context) =>
      new Promise((_resolve, reject) => {
        started += 1;
        context.signal.addEventListener("abort", () => {
          cancelled += 1;
          reject(new Error("cancelled"));
        });
      }),
  });
  return { tool, started: () => started, cancelled: () => cancelled };
}

function textOf(result: CallToolResult): string {
  return result.content.map((part) => (part.type === "text" ? part.text : "")).join("\n");
}

const open: { client: Client; gateway: GatewayServer; yard: Switchyard }[] = [];

async function connect(
  yardOptions: SwitchyardOptions,
  gatewayOptions: GatewayServerOptions = {},
  clientOptions: { elicitation?: boolean } = {},
): Promise<{ client: Client; gateway: GatewayServer; yard: Switchyard }> {
  const yard = new Switchyard(yardOptions);
  const gateway = createGatewayServer(yard, gatewayOptions);
  const client = new Client(
    { name: "test", version: "1.0.0" },
    { capabilities: clientOptions.elicitation === true ? { elicitation: {} } : {} },
  );
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  await gateway.server.connect(serverTransport);
  await client.connect(clientTransport);
  const session = { client, gateway, yard };
  open.push(session);
  return session;
}

afterEach(async () => {
  for (const { client, gateway, yard } of open.splice(0)) {
    await client.close();
    await gateway.close();
    await yard.close();
  }
});

describe("createGatewayServer: tools/list_changed", () => {
  it("notifies only when the listed tools' text changes, not on every catalog change", async () => {
    const { client, yard } = await connect({ tools: [echo] });
    let notifications = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => void (notifications += 1));
    const before = (await client.listTools()).tools;

    // Same tools again: the catalog version moves, the listing does not.
    const version = yard.registry.version;
    yard.registry.replaceSource("code", [echo]);
    expect(yard.registry.version).toBeGreaterThan(version);
    // A new tool in a small (loaded) catalog changes run_program's declarations.
    yard.registry.addAll([save]);
    await waitFor(() => notifications > 0, 2_000, "tools/list_changed");
    // Notifications arrive in order: had the first change sent one, there would be two.
    expect(notifications).toBe(1);
    const after = (await client.listTools()).tools;
    expect(after.map((tool) => tool.name)).toEqual(before.map((tool) => tool.name));
    expect(after[0]!.description).toContain("save(");
    expect(before[0]!.description).not.toContain("save(");
  });

  it("builds the listing once per run_program description, however many clients list it", async () => {
    const { client, gateway, yard } = await connect({ tools: [echo] });
    const first = (await client.listTools()).tools;
    const [listed] = gateway.listTools();
    expect((await client.listTools()).tools).toEqual(first);
    expect(gateway.listTools()[0]).toBe(listed);
    yard.registry.addAll([save]);
    const changed = (await client.listTools()).tools;
    expect(changed[0]!.description).toContain("save(");
    const [relisted] = gateway.listTools();
    expect(relisted).not.toBe(listed);
    expect((await client.listTools()).tools).toEqual(changed);
    expect(gateway.listTools()[0]).toBe(relisted);
  });

  it("notifies when a run gives a tool its first observed output type, and not for runs that change nothing", async () => {
    const { client } = await connect({ tools: [echo, save] });
    let notifications = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => void (notifications += 1));
    expect((await client.listTools()).tools[0]!.description).not.toContain("NotesSaveObserved");
    const code = "return await tools.notes.save({ text: 'a' });";
    await client.callTool({ name: "run_program", arguments: { code } });
    await waitFor(() => notifications > 0, 2_000, "tools/list_changed");
    expect((await client.listTools()).tools[0]!.description).toContain("interface NotesSaveObserved {");
    // The second result moves the count to "2+"; after that, results that fit change nothing.
    await client.callTool({ name: "run_program", arguments: { code } });
    await waitFor(() => notifications > 1, 2_000, "tools/list_changed");
    await client.callTool({ name: "run_program", arguments: { code } });
    await client.callTool({ name: "run_program", arguments: { code: "return 1;" } });
    expect(notifications).toBe(2);
  });

  it("stays quiet when a deferred tool is added, and notifies when an always-loaded one is", async () => {
    const { client, yard } = await connect({
      tools: [echo],
      discovery: { defer: true, alwaysLoaded: ["core.*"], listDeferredNames: false },
    });
    let notifications = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => void (notifications += 1));
    yard.registry.addAll([save]);
    const core = defineTool({
      name: "core.ping",
      description: "Answers pong.",
      effect: "read",
      inputSchema: { type: "object" },
      execute: () => "pong",
    });
    yard.registry.addAll([core]);
    await waitFor(() => notifications > 0, 2_000, "tools/list_changed");
    expect(notifications).toBe(1);
    expect((await client.listTools()).tools[0]!.description).toContain("ping(");
  });
});

describe("createGatewayServer: results", () => {
  it("wraps a primitive output in structuredContent and reports the catalog version", async () => {
    const { client, yard } = await connect({ tools: [echo] });
    const result = (await client.callTool({
      name: "run_program",
      arguments: { code: "return (await tools.notes.echo({ text: 'hi' })).text.length;" },
    })) as CallToolResult;
    expect(result.isError, textOf(result)).toBe(false);
    expect(result.structuredContent).toMatchObject({
      ok: true,
      output: 2,
      calls: { total: 1, byStatus: { ok: 1 }, failed: [] },
      catalogVersion: yard.registry.version,
    });
    expect(textOf(result)).toMatch(/^output: 2\ncalls: 1 \(1 ok\)/);
  });

  it("lists run_program with an optional `input` and hands it to the program as the constant `input`", async () => {
    const { client } = await connect({ tools: [echo] });
    const listed = (await client.listTools()).tools.find((tool) => tool.name === "run_program");
    expect(listed?.inputSchema).toMatchObject({
      properties: { code: { type: "string" }, input: {} },
      required: ["code"],
    });
    const result = (await client.callTool({
      name: "run_program",
      arguments: {
        code: "const echoed = await Promise.all(input.texts.map((text: string) => tools.notes.echo({ text })));\nreturn echoed.map((e) => e.text).join('+');",
        input: { texts: ["a", "b", "c"] },
      },
    })) as CallToolResult;
    expect(result.isError, textOf(result)).toBe(false);
    expect(result.structuredContent).toMatchObject({ ok: true, output: "a+b+c", calls: { total: 3 } });
  });

  it("answers an input over maxInputBytes as an INPUT_TOO_LARGE run, with nothing run", async () => {
    const { client } = await connect({ tools: [echo], limits: { maxInputBytes: 1_000 } });
    const result = (await client.callTool({
      name: "run_program",
      arguments: { code: "return input.length;", input: "x".repeat(2_000) },
    })) as CallToolResult;
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toMatchObject({
      ok: false,
      error: { code: "INPUT_TOO_LARGE" },
      calls: { total: 0 },
    });
  });

  it("holds every program to the gateway's outputSchema: shown in run_program, checked, then validated", async () => {
    const outputSchema = {
      type: "object",
      properties: { texts: { type: "array", items: { type: "string" } }, complete: { type: "boolean" } },
      required: ["texts", "complete"],
    };
    const { client } = await connect({ tools: [echo] }, { outputSchema });
    const listed = (await client.listTools()).tools.find((tool) => tool.name === "run_program");
    expect(listed?.description).toMatch(
      /Every program here must return a value of this type[\s\S]*interface ProgramOutput/,
    );
    const call = async (code: string) =>
      (await client.callTool({ name: "run_program", arguments: { code } })) as CallToolResult;
    const right = await call(
      "const e = await tools.notes.echo({ text: 'a' });\nreturn { texts: [e.text], complete: true };",
    );
    expect(right.isError, textOf(right)).toBe(false);
    expect(right.structuredContent).toMatchObject({ ok: true, output: { texts: ["a"], complete: true } });
    const wrong = await call(
      "const e = await tools.notes.echo({ text: 'a' });\nreturn { texts: e.text, complete: true };",
    );
    expect(wrong.isError).toBe(true);
    expect(wrong.structuredContent).toMatchObject({
      ok: false,
      error: { code: "TYPE_ERROR", line: 2 },
      calls: { total: 0 },
    });
  });

  it("refuses an outputSchema that does not compile when the gateway is created", () => {
    const yard = new Switchyard({ tools: [echo] });
    try {
      expect(() => createGatewayServer(yard, { outputSchema: { type: "nope" } })).toThrow(
        expect.objectContaining({ code: "SCHEMA_INVALID" }),
      );
    } finally {
      void yard.close();
    }
  });

  it("answers bad arguments and unknown tools with isError results, not protocol errors", async () => {
    const { client } = await connect({ tools: [echo] });
    const missing = (await client.callTool({ name: "run_program", arguments: {} })) as CallToolResult;
    expect(missing.isError).toBe(true);
    expect(textOf(missing)).toContain("error INPUT_INVALID: Invalid input for run_program (it takes { code: string }");
    const unknown = (await client.callTool({ name: "call_tool", arguments: { name: "notes.echo" } })) as CallToolResult;
    expect(unknown.isError).toBe(true);
    expect(textOf(unknown)).toContain("the tools are run_program, search_tools, describe_tools");
    const badPattern = (await client.callTool({ name: "search_tools", arguments: { pattern: "(" } })) as CallToolResult;
    expect(badPattern.isError).toBe(true);
    expect(textOf(badPattern)).toContain("PATTERN_INVALID");
    const none = (await client.callTool({
      name: "describe_tools",
      arguments: { names: ["nope.nothing"] },
    })) as CallToolResult;
    expect(none.isError).toBe(true);
    expect(textOf(none)).toContain('Unknown tool "nope.nothing"');
  });
});

describe("createGatewayServer: hostile sizes", () => {
  it("refuses a 4 MB program as SOURCE_TOO_LARGE without working on its text", async () => {
    const { client, yard } = await connect({ tools: [echo] });
    const events: string[] = [];
    yard.trace.subscribe((event) => events.push(event.type));
    const code = `\`\`\`\n${" \t".repeat(2_000_000)}`;
    const result = (await client.callTool({ name: "run_program", arguments: { code } })) as CallToolResult;
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toMatchObject({ ok: false, error: { code: "SOURCE_TOO_LARGE" } });
    expect(events).toEqual(["program-start", "program-end"]);
  });
});

describe("createGatewayServer: tools every call to which is denied", () => {
  const remove = defineTool({
    name: "notes.remove",
    description: "Removes a note for good.",
    effect: "write",
    inputSchema: { type: "object", properties: { id: { type: "string" } }, additionalProperties: false },
    execute: () => ({ removed: true }),
  });
  const denyRemove = { rules: [{ tools: "notes.remove", decision: "deny" as const, reason: "no removals" }] };

  it("are absent from run_program's listing, search_tools and describe_tools answers", async () => {
    const { client } = await connect({ tools: [echo, remove], permissions: denyRemove, discovery: { defer: true } });
    const listing = JSON.stringify((await client.listTools()).tools);
    expect(listing).not.toContain("remove");
    const search = (await client.callTool({
      name: "search_tools",
      arguments: { query: "remove a note", limit: 10 },
    })) as CallToolResult;
    expect(search.isError).not.toBe(true);
    expect(JSON.stringify(search)).not.toContain("notes.remove");
    const regex = (await client.callTool({ name: "search_tools", arguments: { pattern: "remove" } })) as CallToolResult;
    expect(JSON.stringify(regex)).not.toContain("notes.remove");
    const described = (await client.callTool({
      name: "describe_tools",
      arguments: { names: ["notes.remove", "notes.echo"] },
    })) as CallToolResult;
    expect(textOf(described)).toContain('Unknown tool "notes.remove"');
    expect(textOf(described)).not.toMatch(/remove\(input/);
    expect(textOf(described)).toContain("echo(");
  });
});

describe("createGatewayServer: approvals", () => {
  const askOnSave = { rules: [{ tools: "notes.save", decision: "ask" as const, reason: "saves" }] };

  it("denies an `ask` call when the client did not declare elicitation", async () => {
    const { client } = await connect({ tools: [save], permissions: askOnSave }, { askClient: true });
    const result = (await client.callTool({
      name: "run_program",
      arguments: {
        code: "try { await tools.notes.save({ text: 'x' }); return 'saved'; } catch (error) { return (error as Error).message; }",
      },
    })) as CallToolResult;
    expect((result.structuredContent as { output: string }).output).toContain(CANNOT_ASK_REASON);
  });

  it("asks the client by elicitation and runs the call when the answer is yes", async () => {
    const { client } = await connect(
      { tools: [save], permissions: askOnSave },
      { askClient: true, enableCallTool: true },
      { elicitation: true },
    );
    const messages: string[] = [];
    client.setRequestHandler(ElicitRequestSchema, (request) => {
      messages.push(request.params.message);
      return { action: "accept", content: { approve: true } };
    });
    const run = (await client.callTool({
      name: "run_program",
      arguments: { code: "return await tools.notes.save({ text: 'from a program' });" },
    })) as CallToolResult;
    expect(run.structuredContent).toMatchObject({ ok: true, output: { saved: "from a program" } });
    const direct = (await client.callTool({
      name: "call_tool",
      arguments: { name: "notes.save", input: { text: "direct" } },
    })) as CallToolResult;
    expect(direct.structuredContent).toMatchObject({ status: "ok", value: { saved: "direct" } });
    expect(messages).toHaveLength(2);
    expect(messages[0]).toMatch(/^Program \S+ wants to call notes.save/);
    expect(messages[1]).toMatch(/^A direct tool call wants to call notes.save/);
  });

  it("denies calls made outside any gateway request: no client is asked about them", async () => {
    const { yard } = await connect(
      { tools: [save], permissions: askOnSave },
      { askClient: true },
      { elicitation: true },
    );
    const outcome = await yard.callTool("notes.save", { text: "host" });
    expect(outcome).toMatchObject({
      status: "denied",
      error: { code: "PERMISSION_DENIED", message: expect.stringContaining("no approver is available") },
    });
  });
});

describe("createGatewayServer: cancellation and progress", () => {
  it("cancels the run when the client aborts: the pending call gets CANCELLED", async () => {
    const hang = createHangTool();
    const { client, yard } = await connect({ tools: [hang.tool] });
    const ends: TraceEvent[] = [];
    yard.trace.subscribe((event) => {
      if (event.type === "program-end" || event.type === "tool-call-end") ends.push(event);
    });
    const controller = new AbortController();
    const pending = client.callTool(
      { name: "run_program", arguments: { code: "await tools.notes.hang({}); return 1;" } },
      undefined,
      { signal: controller.signal },
    );
    const rejection = expect(pending).rejects.toThrow("stop");
    await waitFor(() => hang.started() === 1, 10_000, "the call to start");
    controller.abort("stop");
    await rejection;
    await waitFor(() => ends.some((event) => event.type === "program-end"), 5_000, "the run to end");
    expect(hang.cancelled()).toBe(1);
    expect(ends).toMatchObject([
      { type: "tool-call-end", status: "cancelled", code: "CANCELLED" },
      { type: "program-end", ok: false, code: "CANCELLED" },
    ]);
  });

  it("reports progress per run when two runs overlap", async () => {
    const { client } = await connect({ tools: [echo] }, { progressIntervalMs: 10 });
    const finals: (string | undefined)[][] = [[], []];
    const run = (calls: number, index: number) =>
      client.callTool(
        {
          name: "run_program",
          arguments: {
            code: `for (let i = 0; i < ${calls}; i++) await tools.notes.echo({ text: String(i) }); return ${calls};`,
          },
        },
        undefined,
        {
          onprogress: (progress) =>
            void finals[index]!.push(progress.total === undefined ? undefined : progress.message),
        },
      );
    await Promise.all([run(3, 0), run(7, 1)]);
    expect(finals[0]!.at(-1)).toMatch(/^ok: 3 calls/);
    expect(finals[1]!.at(-1)).toMatch(/^ok: 7 calls/);
  });
});
