// OpenTelemetry spans for a session, through @opentelemetry/api only: one span per program run,
// a child span per tool call it makes (GenAI semantic conventions, `execute_tool {name}`), a
// span per direct call. Off unless a tracer provider is registered (or passed in options): then
// each run costs one non-recording span and the trace bus stays unsubscribed, so calls pay nothing.
// Program calls' spans come from trace-bus events, never from code threaded through the pipeline.

import { createRequire } from "node:module";
import type * as OpenTelemetry from "@opentelemetry/api";
import type { Attributes, Span, Tracer, TracerProvider } from "@opentelemetry/api";
import type { CallStatus, RunResult, ToolOutcome } from "../contract.js";
import type { TraceBus, TraceEvent } from "../trace/trace-events.js";
import * as attribute from "./semantic-attributes.js";

/** Where a session's spans go. */
export interface TelemetryOptions {
  /**
   * The provider to get the tracer from. Default: the global one (`trace.setGlobalTracerProvider`,
   * which the OpenTelemetry Node SDK sets): until one is registered, nothing is recorded.
   */
  readonly tracerProvider?: TracerProvider;
}

/** What a run span is started with. */
export interface RunSpanStart {
  readonly programId: string;
  readonly catalogVersion: number;
  readonly sourceBytes: number;
  /** The model's id for the run_program call, when the run answers one. */
  readonly toolCallId?: string | undefined;
}

export const TRACER_NAME = "switchyard";

// The API is CommonJS (44 files): required once a span may be made, so a process that registers no
// provider never loads it (about 10-30 ms of a start-up, a resumed run's in a new process among them).
const require = createRequire(import.meta.url);
let api: typeof OpenTelemetry | undefined;

function otel(): typeof OpenTelemetry {
  api ??= require("@opentelemetry/api") as typeof OpenTelemetry;
  return api;
}

/**
 * Where every copy of the API 1.x keeps what was registered through it (provider, context manager,
 * propagator, logger): absent, nothing was, and the global provider is the API's empty default.
 */
const GLOBAL_API_KEY = Symbol.for("opentelemetry.js.api.1");
/** The tool name a program run's span carries: a run is the execution of the `run_program` tool. */
const RUN_PROGRAM = "run_program";

/**
 * Open spans of tool calls by call id, for `traceContextMeta`. Module-wide so a tool source
 * needs only the call id; program call ids carry their session's random id, so they do not clash.
 */
const openToolSpans = new Map<string, Span>();

/** A session's OpenTelemetry spans; see the module comment. */
export class SwitchyardTelemetry {
  readonly #bus: TraceBus;
  /** False: spans are off for the session. */
  readonly #on: boolean;
  /** The tracer of the provider passed in options; undefined for the global provider, asked at each span. */
  readonly #ownTracer: Tracer | undefined;
  /** Recording run spans by program id: the parents of their calls' spans. */
  readonly #runs = new Map<string, Span>();
  /** Calls of those runs whose span is open, by call id. */
  readonly #calls = new Map<string, Span>();
  #unsubscribe: (() => void) | undefined;

  /** `false` turns spans off for the session whatever provider is registered. */
  constructor(bus: TraceBus, options: TelemetryOptions | false | undefined) {
    this.#bus = bus;
    this.#on = options !== false;
    this.#ownTracer = options === false ? undefined : options?.tracerProvider?.getTracer(TRACER_NAME);
  }

  /** The tracer spans are made with; undefined while telemetry is off (turned off, or no provider registered). */
  get tracer(): Tracer | undefined {
    if (!this.#on || !this.#providerRegistered()) return undefined;
    // The global provider's, asked each time, as the API's proxy tracer does: a provider registered
    // (or replaced) after the session was made is the one that records.
    return this.#ownTracer ?? otel().trace.getTracer(TRACER_NAME);
  }

  /**
   * Starts the span of a program run, as a child of the active context's span, and returns the
   * function that ends it with the run's result. Returns undefined when the span does not record
   * (no provider, or not sampled): then nothing else is done for the run.
   */
  startRun(run: RunSpanStart): ((result: RunResult) => void) | undefined {
    const tracer = this.tracer;
    if (tracer === undefined) return undefined;
    const span = tracer.startSpan(`execute_tool ${RUN_PROGRAM}`, {
      kind: otel().SpanKind.INTERNAL,
      attributes: {
        [attribute.GEN_AI_OPERATION_NAME]: "execute_tool",
        [attribute.GEN_AI_TOOL_NAME]: RUN_PROGRAM,
        [attribute.GEN_AI_TOOL_TYPE]: "function",
        ...(run.toolCallId === undefined ? {} : { [attribute.GEN_AI_TOOL_CALL_ID]: run.toolCallId }),
        [attribute.PROGRAM_ID]: run.programId,
        [attribute.CATALOG_VERSION]: run.catalogVersion,
        [attribute.RUN_SOURCE_BYTES]: run.sourceBytes,
      },
    });
    if (!span.isRecording()) return undefined;
    this.#runs.set(run.programId, span);
    this.#unsubscribe ??= this.#bus.subscribe(this.#onTraceEvent);
    return (result) => {
      this.#runs.delete(run.programId);
      endRunSpan(span, result);
      this.#releaseBus();
    };
  }

  /**
   * Runs a direct call inside its `execute_tool {name}` span (a child of the active context's
   * span) and ends the span with the outcome. Calls `execute` as is when tracing is off.
   */
  traceDirectCall(tool: string, callId: string, execute: () => Promise<ToolOutcome>): Promise<ToolOutcome> {
    const tracer = this.tracer;
    if (tracer === undefined) return execute();
    const span = tracer.startSpan(`execute_tool ${tool}`, {
      kind: otel().SpanKind.INTERNAL,
      attributes: toolSpanAttributes(tool, callId, "direct"),
    });
    if (!span.isRecording()) return execute();
    openToolSpans.set(callId, span);
    const { context, trace } = otel();
    return context.with(trace.setSpan(context.active(), span), execute).then(
      (outcome) => {
        if (openToolSpans.get(callId) === span) openToolSpans.delete(callId);
        endToolSpan(span, outcome.status, outcome.status === "ok" ? undefined : outcome.error.code);
        return outcome;
      },
      (error: unknown) => {
        // The pipeline never rejects for a call's own failure: this is a bug, recorded as such.
        if (openToolSpans.get(callId) === span) openToolSpans.delete(callId);
        span.recordException(error instanceof Error ? error : String(error));
        endToolSpan(span, "error", "INTERNAL_ERROR");
        throw error;
      },
    );
  }

  /**
   * False while the global provider is the API's default proxy with nothing registered behind
   * it: then not even a non-recording span is made, so a direct call pays one lookup.
   */
  #providerRegistered(): boolean {
    if (this.#ownTracer !== undefined) return true;
    // Nothing registered through any copy of the API: known without loading it.
    if ((globalThis as Record<symbol, unknown>)[GLOBAL_API_KEY] === undefined) return false;
    const { trace, ProxyTracerProvider } = otel();
    const global = trace.getTracerProvider();
    return !(global instanceof ProxyTracerProvider) || global.getDelegateTracer(TRACER_NAME) !== undefined;
  }

  readonly #onTraceEvent = (event: TraceEvent): void => {
    if (event.type === "tool-call-start") {
      const run = event.programId === undefined ? undefined : this.#runs.get(event.programId);
      const tracer = run === undefined ? undefined : (this.#ownTracer ?? otel().trace.getTracer(TRACER_NAME));
      if (run === undefined || tracer === undefined) return;
      // The run span is the parent by construction: a program's calls arrive from the isolate's
      // callbacks, whose async context is not the run's.
      const { ROOT_CONTEXT, SpanKind, trace } = otel();
      const span = tracer.startSpan(
        `execute_tool ${event.tool}`,
        { kind: SpanKind.INTERNAL, attributes: toolSpanAttributes(event.tool, event.callId, event.caller) },
        trace.setSpan(ROOT_CONTEXT, run),
      );
      this.#calls.set(event.callId, span);
      openToolSpans.set(event.callId, span);
    } else if (event.type === "tool-call-end") {
      const span = this.#calls.get(event.callId);
      if (span === undefined) return;
      this.#calls.delete(event.callId);
      if (openToolSpans.get(event.callId) === span) openToolSpans.delete(event.callId);
      span.setAttributes({
        [attribute.CALL_BYTES_IN]: event.bytesIn,
        [attribute.CALL_BYTES_OUT]: event.bytesOut,
        ...(event.startedAt === undefined ? {} : { [attribute.CALL_QUEUED_MS]: event.startedAt - event.queuedAt }),
      });
      endToolSpan(span, event.status, event.code);
      this.#releaseBus();
    }
  };

  /** Stops listening once no traced run and none of their calls is open. */
  #releaseBus(): void {
    if (this.#runs.size > 0 || this.#calls.size > 0 || this.#unsubscribe === undefined) return;
    this.#unsubscribe();
    this.#unsubscribe = undefined;
  }
}

/**
 * The trace context of a call's open span as MCP request `_meta` entries (`traceparent`, and
 * `tracestate` or others when the registered propagator writes them), so an MCP server can
 * continue the trace. Undefined when the call has no recording span.
 */
export function traceContextMeta(callId: string): Record<string, string> | undefined {
  const span = openToolSpans.get(callId);
  if (span === undefined) return undefined;
  const carrier: Record<string, string> = {};
  const { propagation, ROOT_CONTEXT, trace } = otel();
  propagation.inject(trace.setSpan(ROOT_CONTEXT, span), carrier);
  // No propagator registered (a provider passed in options, not installed globally): MCP's
  // convention is W3C trace context, so write the traceparent ourselves.
  if (carrier.traceparent === undefined) {
    const { traceId, spanId, traceFlags } = span.spanContext();
    carrier.traceparent = `00-${traceId}-${spanId}-${traceFlags.toString(16).padStart(2, "0")}`;
  }
  return carrier;
}

function toolSpanAttributes(tool: string, callId: string, caller: string): Attributes {
  return {
    [attribute.GEN_AI_OPERATION_NAME]: "execute_tool",
    [attribute.GEN_AI_TOOL_NAME]: tool,
    [attribute.GEN_AI_TOOL_CALL_ID]: callId,
    [attribute.GEN_AI_TOOL_TYPE]: "function",
    [attribute.CALL_CALLER]: caller,
  };
}

function endToolSpan(span: Span, status: CallStatus, code: string | undefined): void {
  span.setAttribute(attribute.CALL_STATUS, status);
  if (status !== "ok") {
    span.setAttribute(attribute.ERROR_TYPE, code ?? status);
    span.setStatus({ code: otel().SpanStatusCode.ERROR, message: code ?? status });
  }
  span.end();
}

function endRunSpan(span: Span, result: RunResult): void {
  const counts: Record<string, number> = {};
  for (const call of result.calls) counts[call.status] = (counts[call.status] ?? 0) + 1;
  span.setAttributes({
    [attribute.RUN_STATUS]: result.ok ? "ok" : "error",
    [attribute.RUN_TOOL_CALLS]: result.stats.toolCalls,
    [attribute.RUN_CPU_MS]: result.stats.cpuMs,
    ...Object.fromEntries(
      Object.entries(counts).map(([status, count]) => [attribute.RUN_CALLS_PREFIX + status, count]),
    ),
  });
  if (result.error !== undefined) {
    span.setAttribute(attribute.ERROR_TYPE, result.error.code);
    span.setStatus({ code: otel().SpanStatusCode.ERROR, message: result.error.code });
  }
  span.end();
}
