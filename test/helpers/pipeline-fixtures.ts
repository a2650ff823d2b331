// Shared fixtures for the host pipeline tests: hand-resolved deferreds, a pipeline context
// built from plain parts, and probes that count what runs at once. Nothing here sleeps:
// tests move time with fake timers or resolve deferreds themselves.

import type { ToolCall, ToolOutcome } from "../../src/contract.js";
import type { PipelineContext } from "../../src/execute-tool-call.js";
import { PermissionGate, type PermissionOptions } from "../../src/permissions/permission-gate.js";
import { defineTool, type ToolDefinition } from "../../src/registry/define-tool.js";
import { ToolRegistry } from "../../src/registry/tool-registry.js";
import type { ResultBudgetOptions } from "../../src/results/result-budget.js";
import type { Budgets } from "../../src/scheduler/deadline.js";
import { ToolScheduler, type SchedulerOptions } from "../../src/scheduler/tool-scheduler.js";
import { TraceBus, type TraceEvent } from "../../src/trace/trace-events.js";

/** A read tool named `name` that answers with its input, as it came. */
export function echoTool(name: string): ToolDefinition {
  return defineTool({
    name,
    description: "Returns its input.",
    effect: "read",
    inputSchema: { type: "object" },
    execute: (input: unknown) => input,
  });
}

/** A promise with its resolve and reject exposed, for settling by hand. */
export interface Deferred<T> {
  readonly promise: Promise<T>;
  resolve(value: T): void;
  reject(error: unknown): void;
}

export function createDeferred<T = void>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((onResolve, onReject) => {
    resolve = onResolve;
    reject = onReject;
  });
  return { promise, resolve, reject };
}

export interface TestContextOptions {
  readonly permissions?: PermissionOptions;
  readonly scheduler?: SchedulerOptions | ToolScheduler;
  readonly signal?: AbortSignal;
  readonly budgets?: Budgets;
  readonly defaultTimeoutMs?: number;
  readonly results?: ResultBudgetOptions;
}

/** A pipeline context over `tools`, plus every trace event it emits, in order. */
export function createTestContext(
  tools: readonly ToolDefinition[],
  options: TestContextOptions = {},
): { context: PipelineContext; events: TraceEvent[] } {
  const trace = new TraceBus();
  const events: TraceEvent[] = [];
  trace.subscribe((event) => events.push(event));
  const scheduler =
    options.scheduler instanceof ToolScheduler ? options.scheduler : new ToolScheduler(options.scheduler);
  const context: PipelineContext = {
    catalog: new ToolRegistry(tools).snapshot(),
    permissions: new PermissionGate(options.permissions),
    scheduler,
    trace,
    signal: options.signal,
    ...(options.budgets === undefined ? {} : { budgets: options.budgets }),
    ...(options.defaultTimeoutMs === undefined ? {} : { defaultTimeoutMs: options.defaultTimeoutMs }),
    ...(options.results === undefined ? {} : { results: options.results }),
  };
  return { context, events };
}

let callCounter = 0;

/** A direct call with a fresh id unless one is given. */
export function makeCall(tool: string, input: unknown, overrides: Partial<ToolCall> = {}): ToolCall {
  return { id: `call-${++callCounter}`, tool, input, caller: "direct", ...overrides };
}

/** Lets every pending microtask chain run to its next wait on a timer, I/O or deferred. */
export function drainMicrotasks(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** Tracks a promise's settlement without awaiting it, so a test can assert "still pending". */
export function track<T>(promise: Promise<T>): {
  readonly settled: boolean;
  readonly value: T | undefined;
  readonly promise: Promise<T>;
} {
  const state = { settled: false, value: undefined as T | undefined, promise };
  void promise.then((value) => {
    state.settled = true;
    state.value = value;
  });
  return state;
}

/** Counts calls in flight per key and remembers the highest count each key reached. */
export class InFlightProbe {
  readonly #current = new Map<string, number>();
  readonly #peak = new Map<string, number>();
  readonly started: string[] = [];

  enter(key: string, label?: string): void {
    const next = (this.#current.get(key) ?? 0) + 1;
    this.#current.set(key, next);
    this.#peak.set(key, Math.max(this.#peak.get(key) ?? 0, next));
    if (label !== undefined) this.started.push(label);
  }

  leave(key: string): void {
    this.#current.set(key, (this.#current.get(key) ?? 0) - 1);
  }

  current(key: string): number {
    return this.#current.get(key) ?? 0;
  }

  peak(key: string): number {
    return this.#peak.get(key) ?? 0;
  }
}

/** The error code of a failed outcome, or "ok". */
export function codeOf(outcome: ToolOutcome): string {
  return outcome.status === "ok" ? "ok" : String(outcome.error.code);
}
