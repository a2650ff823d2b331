// The trace: what happened to every call and program, as plain events a subscriber can log,
// count or write to disk. Emitting never throws into the pipeline: a failing subscriber is
// detached from that event, not allowed to break a call.

import type {
  CallErrorCode,
  CallStatus,
  CallerKind,
  HostedCaller,
  RunErrorCode,
  ToolDefinedCode,
} from "../contract.js";

export interface ToolCallStartEvent {
  readonly type: "tool-call-start";
  readonly callId: string;
  readonly tool: string;
  readonly caller: CallerKind;
  readonly programId: string | undefined;
  /** The provider program that made the call, for `caller: "hosted-program"`. */
  readonly hostedCaller?: HostedCaller;
  /** Epoch ms when the call entered the pipeline. */
  readonly queuedAt: number;
}

export interface ToolCallEndEvent {
  readonly type: "tool-call-end";
  readonly callId: string;
  readonly tool: string;
  readonly caller: CallerKind;
  readonly programId: string | undefined;
  /** The provider program that made the call, for `caller: "hosted-program"`. */
  readonly hostedCaller?: HostedCaller;
  readonly queuedAt: number;
  /** Epoch ms when execution began; undefined if the call never ran. */
  readonly startedAt: number | undefined;
  readonly endedAt: number;
  readonly status: CallStatus;
  readonly code: CallErrorCode | ToolDefinedCode | undefined;
  readonly bytesIn: number;
  readonly bytesOut: number;
  /** Set when a durable run's replay answered the call from its journal, without calling the tool. */
  readonly replayed?: true;
}

/** A call waits for its start slot under the rate limits that cover its tool (step 4). */
export interface ToolCallRateLimitedEvent {
  readonly type: "tool-call-rate-limited";
  readonly callId: string;
  readonly tool: string;
  /** Epoch ms when the wait began. */
  readonly at: number;
  /** How long the call waits for its slot, in ms (it may be cancelled sooner). */
  readonly waitMs: number;
  /** The limits that apply, as `"github.*" (10 per 1000 ms)`. */
  readonly limits: readonly string[];
}

/** A tool finished after its call had already resolved (timeout or cancel); its result was dropped. */
export interface ToolCallLateResultEvent {
  readonly type: "tool-call-late-result";
  readonly callId: string;
  readonly tool: string;
  readonly at: number;
  readonly settled: "fulfilled" | "rejected";
}

export interface ProgramStartEvent {
  readonly type: "program-start";
  readonly programId: string;
  readonly at: number;
  readonly sourceBytes: number;
  readonly catalogVersion: number;
}

export interface ProgramEndEvent {
  readonly type: "program-end";
  readonly programId: string;
  readonly at: number;
  readonly ok: boolean;
  readonly code: RunErrorCode | undefined;
  readonly wallMs: number;
  readonly toolCalls: number;
  /** The line of the model's source the run failed at, when known. */
  readonly line?: number | undefined;
  /** The first 500 characters of the run's error message, when it failed. */
  readonly message?: string | undefined;
}

/** Where a redacted secret was: a direct call's result or error, or a program's output, logs or error. */
export type RedactionLocation =
  | "call-result"
  | "call-error"
  | "program-output"
  | "program-logs"
  | "program-error"
  | "program-warnings"
  | "program-calls";

/** One secret replaced by `[REDACTED:<kind>]` before reaching a model; never carries the value. */
export interface RedactionEvent {
  readonly type: "redaction";
  readonly at: number;
  readonly kind: string;
  readonly location: RedactionLocation;
  /** Set for a direct call. */
  readonly callId: string | undefined;
  readonly tool: string | undefined;
  /** Set for a program run. */
  readonly programId: string | undefined;
  /** Where in it: a JSON path (`$.rows[2].token`, keys already redacted) or a log line (`logs[3]`). */
  readonly path: string;
}

export type TraceEvent =
  | ToolCallStartEvent
  | ToolCallEndEvent
  | ToolCallLateResultEvent
  | ToolCallRateLimitedEvent
  | ProgramStartEvent
  | ProgramEndEvent
  | RedactionEvent;

export type TraceListener = (event: TraceEvent) => void;

/** Fans trace events out to subscribers. */
export class TraceBus {
  readonly #listeners = new Set<TraceListener>();
  #redactToolName: ((name: string) => string) | undefined;

  /**
   * Passes the tool name of every event through `redact` before a listener sees it (undefined: names
   * pass as they are). A program may call a tool whose name it built from data a tool returned
   * (`tools.t[key]()`): trace files, spans and the timeline must not carry a secret there.
   */
  redactToolNames(redact: ((name: string) => string) | undefined): void {
    this.#redactToolName = redact;
  }

  /** Subscribes; returns the unsubscribe function. */
  subscribe(listener: TraceListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** True when someone listens: lets hot paths skip building events. */
  get active(): boolean {
    return this.#listeners.size > 0;
  }

  emit(original: TraceEvent): void {
    let event = original;
    if (this.#redactToolName !== undefined && "tool" in event && typeof event.tool === "string") {
      const tool = this.#redactToolName(event.tool);
      if (tool !== event.tool) event = { ...event, tool } as TraceEvent;
    }
    for (const listener of this.#listeners) {
      try {
        listener(event);
      } catch {
        // A broken subscriber must not turn a tool call into a failure.
      }
    }
  }
}
