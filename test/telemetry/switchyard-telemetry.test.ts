import { execFileSync } from "node:child_process";
import { createRequire } from "node:module";
import { fileURLToPath, pathToFileURL } from "node:url";
import { context, propagation, SpanStatusCode, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createAnthropicAdapter } from "../../src/agent/anthropic-adapter.js";
import { runAgent } from "../../src/agent/run-agent.js";
import { ToolError } from "../../src/errors.js";
import { defineTool } from "../../src/registry/define-tool.js";
import { connectMcpSource } from "../../src/sources/mcp/mcp-source.js";
import { Switchyard, type SwitchyardOptions } from "../../src/switchyard.js";
import { startScriptedModelServer } from "../../src/testing/index.js";

const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
const contextManager = new AsyncLocalStorageContextManager();

beforeAll(() => {
  context.setGlobalContextManager(contextManager.enable());
});
afterAll(() => {
  context.disable();
  propagation.disable();
});
afterEach(() => {
  exporter.reset();
  trace.disable();
});

/** Whether the session's trace bus had a listener while a tool ran, per call. */
const busActiveDuringCalls: boolean[] = [];

function crmTools(yardRef: { yard?: Switchyard }) {
  return [
    defineTool({
      name: "crm.lookup",
      description: "Looks a customer up.",
      inputSchema: { type: "object", properties: { id: { type: "string" } }, required: ["id"] },
      effect: "read",
      execute: (input: { id: string }) => {
        busActiveDuringCalls.push(yardRef.yard?.trace.active ?? false);
        return { id: input.id, name: `Customer ${input.id}` };
      },
    }),
    defineTool({
      name: "crm.flaky",
      description: "Always fails upstream.",
      inputSchema: { type: "object", properties: {} },
      effect: "read",
      execute: () => {
        throw new ToolError("the upstream CRM is down", { code: "UPSTREAM_DOWN" });
      },
    }),
    defineTool({
      name: "crm.remove",
      description: "Removes a customer.",
      inputSchema: { type: "object", properties: { id: { type: "string" } }, required: ["id"] },
      effect: "destructive",
      execute: () => ({ removed: true }),
    }),
    defineTool({
      name: "crm.slow",
      description: "Never answers; gives up when its signal fires.",
      inputSchema: { type: "object", properties: {} },
      effect: "read",
      timeoutMs: 50,
      execute: (_input: unknown, { signal }) =>
        new Promise((_resolve, reject) => signal.addEventListener("abort", () => reject(new Error("aborted")))),
    }),
  ];
}

function crmYard(options: Omit<SwitchyardOptions, "tools"> = {}): Switchyard {
  const ref: { yard?: Switchyard } = {};
  ref.yard = new Switchyard({
    tools: crmTools(ref),
    permissions: {
      rules: [
        { tools: "crm.remove", decision: "deny", reason: "removals are not allowed here" },
        { tools: "*", decision: "allow" },
      ],
    },
    typeCheck: "off",
    ...options,
  });
  return ref.yard;
}

const FOUR_OUTCOMES = `
const settle = async (call: Promise<unknown>) => {
  try { await call; return "ok"; } catch (error) { return (error as { code: string }).code; }
};
return [
  await settle(tools.crm.lookup({ id: "c1" })),
  await settle(tools.crm.flaky({})),
  await settle(tools.crm.remove({ id: "c1" })),
  await settle(tools.crm.slow({})),
];`;

function spansNamed(spans: readonly ReadableSpan[], name: string): ReadableSpan[] {
  return spans.filter((span) => span.name === name);
}

function only(spans: readonly ReadableSpan[], name: string): ReadableSpan {
  const found = spansNamed(spans, name);
  expect(found, `spans named ${name}: ${spans.map((span) => span.name).join(", ")}`).toHaveLength(1);
  return found[0]!;
}

describe("OpenTelemetry spans of a program run", () => {
  it("records a run span and one child span per call with GenAI attributes, for ok, failed, denied and timed-out calls", async () => {
    const yard = crmYard({ telemetry: { tracerProvider: provider } });
    const result = await yard.run(FOUR_OUTCOMES, { toolCallId: "toolu_42" });
    await yard.close();
    expect(result.output).toEqual(["ok", "UPSTREAM_DOWN", "PERMISSION_DENIED", "TOOL_TIMEOUT"]);

    const spans = exporter.getFinishedSpans();
    expect(spans).toHaveLength(5);
    const run = only(spans, "execute_tool run_program");
    expect(run.attributes).toMatchObject({
      "gen_ai.operation.name": "execute_tool",
      "gen_ai.tool.name": "run_program",
      "gen_ai.tool.call.id": "toolu_42",
      "switchyard.program.id": result.programId,
      "switchyard.catalog.version": result.catalogVersion,
      "switchyard.run.status": "ok",
      "switchyard.run.tool_calls": 4,
      "switchyard.run.calls.ok": 1,
      "switchyard.run.calls.error": 1,
      "switchyard.run.calls.denied": 1,
      "switchyard.run.calls.timeout": 1,
    });
    expect(run.attributes["error.type"]).toBeUndefined();
    expect(run.status.code).toBe(SpanStatusCode.UNSET);
    expect(run.parentSpanContext).toBeUndefined();

    const expected = [
      { tool: "crm.lookup", status: "ok", errorType: undefined },
      { tool: "crm.flaky", status: "error", errorType: "UPSTREAM_DOWN" },
      { tool: "crm.remove", status: "denied", errorType: "PERMISSION_DENIED" },
      { tool: "crm.slow", status: "timeout", errorType: "TOOL_TIMEOUT" },
    ];
    for (const [index, { tool, status, errorType }] of expected.entries()) {
      const span = only(spans, `execute_tool ${tool}`);
      expect(span.parentSpanContext?.spanId).toBe(run.spanContext().spanId);
      expect(span.spanContext().traceId).toBe(run.spanContext().traceId);
      expect(span.attributes).toMatchObject({
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": tool,
        "gen_ai.tool.call.id": result.calls[index]!.id,
        "switchyard.tool.call.status": status,
        "switchyard.tool.call.caller": "program",
      });
      expect(span.attributes["error.type"]).toBe(errorType);
      expect(span.status.code).toBe(errorType === undefined ? SpanStatusCode.UNSET : SpanStatusCode.ERROR);
      // Each call's span lies within the run's.
      expect(hrMs(span.startTime)).toBeGreaterThanOrEqual(hrMs(run.startTime));
      expect(hrMs(span.endTime)).toBeLessThanOrEqual(hrMs(run.endTime));
    }
    // The timed-out call's span lasts about its 50 ms timeout; the denied call never ran its tool.
    expect(durationMs(only(spans, "execute_tool crm.slow"))).toBeGreaterThanOrEqual(45);
    expect(only(spans, "execute_tool crm.remove").attributes["switchyard.tool.call.queued_ms"]).toBeUndefined();
  });

  it("marks a failed run with its error code and leaves the bus unsubscribed afterwards", async () => {
    const yard = crmYard({ telemetry: { tracerProvider: provider } });
    const result = await yard.run(`await tools.crm.lookup({ id: "c2" }); throw new Error("no");`);
    expect(result.error?.code).toBe("RUNTIME_ERROR");
    expect(yard.trace.active).toBe(false);
    await yard.close();
    const run = only(exporter.getFinishedSpans(), "execute_tool run_program");
    expect(run.attributes).toMatchObject({ "switchyard.run.status": "error", "error.type": "RUNTIME_ERROR" });
    expect(run.status).toMatchObject({ code: SpanStatusCode.ERROR, message: "RUNTIME_ERROR" });
    expect(run.attributes["gen_ai.tool.call.id"]).toBeUndefined();
  });

  it("records a direct call as a child of the caller's active span", async () => {
    const yard = crmYard({ telemetry: { tracerProvider: provider } });
    const tracer = provider.getTracer("test");
    await tracer.startActiveSpan("caller", async (parent) => {
      await yard.callTool("crm.remove", { id: "c3" }, { callId: "call_7" });
      await yard.callTool("crm.lookup", { id: "c3" }, { callId: "call_8" });
      parent.end();
    });
    await yard.close();
    const spans = exporter.getFinishedSpans();
    const caller = only(spans, "caller");
    const denied = only(spans, "execute_tool crm.remove");
    expect(denied.parentSpanContext?.spanId).toBe(caller.spanContext().spanId);
    expect(denied.attributes).toMatchObject({
      "gen_ai.tool.call.id": "call_7",
      "switchyard.tool.call.caller": "direct",
      "switchyard.tool.call.status": "denied",
      "error.type": "PERMISSION_DENIED",
    });
    expect(only(spans, "execute_tool crm.lookup").attributes["error.type"]).toBeUndefined();
  });
});

describe("OpenTelemetry when off", () => {
  it("records nothing and never subscribes to the trace bus when no provider is registered", async () => {
    busActiveDuringCalls.length = 0;
    const yard = crmYard();
    const result = await yard.run(`return [await tools.crm.lookup({ id: "a" }), await tools.crm.lookup({ id: "b" })];`);
    await yard.callTool("crm.lookup", { id: "c" });
    await yard.close();
    expect(result.ok).toBe(true);
    expect(busActiveDuringCalls).toEqual([false, false, false]);
    expect(exporter.getFinishedSpans()).toHaveLength(0);
  });

  it("never loads the OpenTelemetry API in a process where nothing registered a provider", () => {
    const tsx = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;
    const session = pathToFileURL(fileURLToPath(new URL("../../src/switchyard.ts", import.meta.url))).href;
    const tool = pathToFileURL(fileURLToPath(new URL("../../src/registry/define-tool.ts", import.meta.url))).href;
    const script = `import { createRequire } from "node:module";
const { Switchyard } = await import(${JSON.stringify(session)});
const { defineTool } = await import(${JSON.stringify(tool)});
const echo = defineTool({ name: "crm.echo", description: "Echo.", inputSchema: { type: "object" }, execute: (input) => input });
const yard = new Switchyard({ tools: [echo], typeCheck: "off", warmUp: false });
const run = await yard.run("return await tools.crm.echo({ a: 1 });");
const direct = await yard.callTool("crm.echo", { b: 2 });
await yard.close();
const loaded = Object.keys(createRequire(import.meta.url).cache).some((file) => file.includes("@opentelemetry/api"));
process.stdout.write(JSON.stringify({ ok: run.ok, direct: direct.status, loaded }));`;
    const output = execFileSync(
      process.execPath,
      ["--no-node-snapshot", "--import", tsx, "--input-type=module", "-e", script],
      { encoding: "utf8" },
    );
    expect(JSON.parse(output)).toEqual({ ok: true, direct: "ok", loaded: false });
  }, 60_000);

  it("records nothing with telemetry: false even when a provider is registered", async () => {
    trace.setGlobalTracerProvider(provider);
    const yard = crmYard({ telemetry: false });
    await yard.run(`return await tools.crm.lookup({ id: "a" });`);
    await yard.close();
    expect(exporter.getFinishedSpans()).toHaveLength(0);
  });

  it("starts recording when a global provider is registered, with no option set", async () => {
    busActiveDuringCalls.length = 0;
    const yard = crmYard();
    await yard.run(`return await tools.crm.lookup({ id: "a" });`);
    expect(exporter.getFinishedSpans()).toHaveLength(0);
    trace.setGlobalTracerProvider(provider);
    await yard.run(`return await tools.crm.lookup({ id: "b" });`);
    await yard.close();
    expect(busActiveDuringCalls).toEqual([false, true]);
    expect(exporter.getFinishedSpans().map((span) => span.name)).toEqual([
      "execute_tool crm.lookup",
      "execute_tool run_program",
    ]);
  });
});

describe("OpenTelemetry spans of an agent run", () => {
  it("nests chat spans with token usage and the run_program call under invoke_agent", async () => {
    const server = await startScriptedModelServer({
      script: [
        {
          content: [
            {
              type: "tool_use",
              id: "toolu_run",
              name: "run_program",
              input: { code: `return (await tools.crm.lookup({ id: "c9" })).name;` },
            },
          ],
          usage: { inputTokens: 1200, outputTokens: 80, cacheReadTokens: 300 },
        },
        { content: [{ type: "text", text: "It is Customer c9." }], usage: { inputTokens: 1500, outputTokens: 12 } },
      ],
    });
    const yard = crmYard({ telemetry: { tracerProvider: provider } });
    try {
      const result = await runAgent({
        yard,
        model: createAnthropicAdapter({ apiKey: "k", baseURL: server.url, model: "claude-test", maxRetries: 0 }),
        mode: "programmatic",
        task: "Who is c9?",
      });
      expect(result.finalText).toBe("It is Customer c9.");
    } finally {
      await server.close();
      await yard.close();
    }
    const spans = exporter.getFinishedSpans();
    const agent = only(spans, "invoke_agent");
    expect(agent.attributes).toMatchObject({
      "gen_ai.operation.name": "invoke_agent",
      "gen_ai.provider.name": "anthropic",
      "switchyard.agent.status": "completed",
      "switchyard.agent.steps": 2,
      "gen_ai.usage.input_tokens": 1500 + 1500,
      "gen_ai.usage.output_tokens": 92,
    });
    const chats = spans.filter((span) => span.attributes["gen_ai.operation.name"] === "chat");
    expect(chats.map((chat) => chat.name)).toEqual(["chat claude-test", "chat claude-test"]);
    for (const chat of chats) expect(chat.parentSpanContext?.spanId).toBe(agent.spanContext().spanId);
    expect(chats[0]!.attributes).toMatchObject({
      "gen_ai.usage.input_tokens": 1500,
      "gen_ai.usage.output_tokens": 80,
      "gen_ai.usage.cache_read.input_tokens": 300,
      "gen_ai.response.finish_reasons": ["tool_use"],
      "gen_ai.request.max_tokens": 4096,
    });
    expect(chats[1]!.attributes["gen_ai.response.finish_reasons"]).toEqual(["end_turn"]);
    const run = only(spans, "execute_tool run_program");
    expect(run.parentSpanContext?.spanId).toBe(agent.spanContext().spanId);
    expect(run.attributes["gen_ai.tool.call.id"]).toBe("toolu_run");
    const lookup = only(spans, "execute_tool crm.lookup");
    expect(lookup.parentSpanContext?.spanId).toBe(run.spanContext().spanId);
    // One trace from the agent down to the tool.
    expect(new Set(spans.map((span) => span.spanContext().traceId)).size).toBe(1);
  });
});

describe("trace context passed on to MCP servers", () => {
  const server = fileURLToPath(new URL("./fixtures/meta-echo-server.mjs", import.meta.url));

  it("sends the call span's traceparent in the request _meta, with the global propagator or without one", async () => {
    const yard = crmYard({ telemetry: { tracerProvider: provider } });
    const source = await connectMcpSource(yard.registry, {
      namespace: "echo",
      transport: { kind: "stdio", command: process.execPath, args: [server] },
    });
    try {
      const without = await yard.run(`return await tools.echo.meta({});`);
      propagation.setGlobalPropagator(new W3CTraceContextPropagator());
      const withPropagator = await yard.run(`return await tools.echo.meta({});`);
      const untraced = new Switchyard({ telemetry: false });
      const plainSource = await connectMcpSource(untraced.registry, {
        namespace: "echo",
        transport: { kind: "stdio", command: process.execPath, args: [server] },
      });
      const plain = await untraced.run(`return await tools.echo.meta({});`, { typeCheck: "off" });
      await plainSource.close();
      await untraced.close();

      const callSpans = spansNamed(exporter.getFinishedSpans(), "execute_tool echo.meta");
      expect(callSpans).toHaveLength(2);
      for (const [index, result] of [without, withPropagator].entries()) {
        const span = callSpans[index]!.spanContext();
        expect(result.output).toEqual({ traceparent: `00-${span.traceId}-${span.spanId}-01` });
      }
      expect(plain.output).toEqual({});
    } finally {
      await source.close();
      await yard.close();
    }
  });
});

function hrMs(time: readonly [number, number]): number {
  return time[0] * 1e3 + time[1] / 1e6;
}

function durationMs(span: ReadableSpan): number {
  return hrMs(span.endTime) - hrMs(span.startTime);
}
