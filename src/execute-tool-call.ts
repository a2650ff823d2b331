// The host pipeline in one function: every tool call, from a program or a model turn, goes
// through these stations in this order and ends with exactly one outcome bound to its id.
// It resolves, never rejects, for anything a model or a program can cause. Start reading here.

import {
  statusForCode,
  type CallError,
  type CallErrorCode,
  type CallRecord,
  type ToolCall,
  type ToolDefinedCode,
  type ToolOutcome,
} from "./contract.js";
import { ToolError } from "./errors.js";
import type { PermissionGate } from "./permissions/permission-gate.js";
import type { ToolContext } from "./registry/define-tool.js";
import { closestToolNames, type CatalogSnapshot, type RegisteredTool } from "./registry/tool-registry.js";
import { applyResultBudget, serializeResult, type ResultBudgetOptions } from "./results/result-budget.js";
import { formatViolations, violationsToJson } from "./schema/schema-validator.js";
import { computeDeadline, type Budgets } from "./scheduler/deadline.js";
import type { ToolScheduler } from "./scheduler/tool-scheduler.js";
import type { TraceBus } from "./trace/trace-events.js";

/** Everything a call needs from its session and run. */
export interface PipelineContext {
  readonly catalog: CatalogSnapshot;
  readonly permissions: PermissionGate;
  readonly scheduler: ToolScheduler;
  readonly trace: TraceBus;
  /** Cancels the call (run or session cancelled); the outcome is then `CANCELLED`. */
  readonly signal?: AbortSignal | undefined;
  readonly budgets?: Budgets;
  /** Per-call timeout when neither the call nor the tool sets one. Default 30 s. */
  readonly defaultTimeoutMs?: number;
  readonly results?: ResultBudgetOptions;
  /** Tools whose `ask` was answered when the whole program was approved before it ran. */
  readonly preapprovedTools?: ReadonlySet<string>;
}

/** An outcome plus what the sandbox bridge and the run's records need. */
export interface PipelineResult {
  readonly outcome: ToolOutcome;
  /** The JSON text of an ok outcome's value, serialized once. */
  readonly json: string | undefined;
  readonly record: CallRecord;
}

export const DEFAULT_TOOL_TIMEOUT_MS = 30_000;
const MAX_ERROR_MESSAGE_CHARS = 2_000;

/**
 * Runs one tool call through the pipeline and resolves with its single outcome:
 *
 * 1. Registry: look the tool up; unknown → `TOOL_NOT_FOUND`, naming the closest tools.
 * 2. Validation: check the input against the tool's schema → `INPUT_INVALID` with every path.
 * 3. Permission: allow / ask / deny (validated input only) → `PERMISSION_DENIED` with the reason.
 * 4. Scheduling: wait for the locks the tool's effect and resources require.
 * 5. Execution: run under the earliest of the tool, run and session deadlines →
 *    `TOOL_TIMEOUT`; cancellation → `CANCELLED`; a throw → `TOOL_ERROR` or the ToolError's code.
 * 6. Output validation against `outputSchema` → `OUTPUT_INVALID`.
 * 7. Result: serialize once and apply the caller's size budget (spill or `RESULT_TOO_LARGE`).
 */
export async function executeToolCall(call: ToolCall, context: PipelineContext): Promise<ToolOutcome> {
  return (await runToolCall(call, context)).outcome;
}

/** `executeToolCall` with the serialized value and the call record; used by the sandbox bridge. */
export async function runToolCall(
  call: ToolCall,
  context: PipelineContext,
  meta: { readonly inputBytes?: number } = {},
): Promise<PipelineResult> {
  const queuedAt = Date.now();
  const timing = { queuedAt, startedAt: undefined as number | undefined };
  const bytesIn = meta.inputBytes ?? 0;
  const trace = context.trace;
  if (trace.active) {
    trace.emit({ type: "tool-call-start", callId: call.id, tool: call.tool, caller: call.caller, programId: call.programId, queuedAt });
  }
  const finish = (outcome: ToolOutcome, json?: string): PipelineResult => {
    const endedAt = Date.now();
    const bytesOut = json === undefined ? 0 : Buffer.byteLength(json);
    const record: CallRecord = {
      id: call.id,
      tool: call.tool,
      status: outcome.status,
      ...(outcome.status === "ok" ? {} : { code: outcome.error.code }),
      durationMs: endedAt - queuedAt,
      bytesIn,
      bytesOut,
    };
    if (trace.active) {
      trace.emit({
        type: "tool-call-end",
        callId: call.id,
        tool: call.tool,
        caller: call.caller,
        programId: call.programId,
        queuedAt,
        startedAt: timing.startedAt,
        endedAt,
        status: outcome.status,
        code: outcome.status === "ok" ? undefined : outcome.error.code,
        bytesIn,
        bytesOut,
      });
    }
    return { outcome, json, record };
  };
  const fail = (code: CallErrorCode | ToolDefinedCode, message: string, details?: CallError["details"]): PipelineResult =>
    finish(failure(call, code, message, details));

  // 1. Registry.
  const registered = context.catalog.get(call.tool);
  if (registered === undefined) {
    const closest = closestToolNames(context.catalog, call.tool);
    const hint = closest.length > 0 ? ` Did you mean ${closest.map((name) => `"${name}"`).join(", ")}?` : "";
    return fail("TOOL_NOT_FOUND", `No tool named "${truncate(call.tool, 200)}".${hint}`, { closest });
  }
  const tool = registered.definition;
  if (!tool.callers.includes(call.caller)) {
    return fail("TOOL_NOT_FOUND", `Tool "${tool.name}" cannot be called from a ${call.caller === "program" ? "program" : "direct tool call"}.`);
  }

  // 2. Validation, before anything else sees the input.
  const violations = registered.validateInput(call.input);
  if (violations.length > 0) {
    return fail("INPUT_INVALID", formatViolations(`Invalid input for ${tool.name}`, violations), violationsToJson(violations));
  }

  // The call's own controller: fired by cancellation, by a budget running out, or by its timeout.
  const controller = new AbortController();
  const abortFromOuter = (): void => controller.abort(new CancelReason());
  context.signal?.addEventListener("abort", abortFromOuter, { once: true });
  if (context.signal?.aborted) abortFromOuter();
  const budgets = context.budgets ?? {};
  // A timeout that is not a positive number (NaN from a caller's arithmetic) would make the
  // deadline NaN and silently lift the run's and session's budgets too: fall through instead.
  const ownTimeoutMs =
    [call.timeoutMs, tool.timeoutMs, context.defaultTimeoutMs].find(isPositiveNumber) ?? DEFAULT_TOOL_TIMEOUT_MS;
  let timer = armTimer(controller, computeDeadline(Date.now(), Number.POSITIVE_INFINITY, budgets));
  const aborted = abortedOutcome(controller.signal);

  try {
    // 3. Permission.
    const verdict = await Promise.race([
      context.permissions.check({
        tool: tool.name,
        input: call.input,
        caller: call.caller,
        programId: call.programId,
        callId: call.id,
        effect: tool.effect,
      }, context.preapprovedTools),
      aborted.promise,
    ]);
    if (verdict instanceof Interrupt) return fail(verdict.code, verdict.message(tool.name));
    if (!verdict.allowed) return fail("PERMISSION_DENIED", `Permission denied for ${tool.name}: ${verdict.reason}`);

    // 4. Scheduling.
    let release: () => void;
    try {
      release = await context.scheduler.admit(tool, call, resourceKeysOf(registered, call.input), controller.signal);
    } catch {
      const interrupt = interruptOf(controller.signal);
      return fail(interrupt.code, interrupt.message(tool.name));
    }

    // 5. Execution, under the earliest of the three deadlines.
    try {
      clearTimeout(timer);
      const deadline = computeDeadline(Date.now(), ownTimeoutMs, budgets);
      // The grant and the tool's start are separate turns: a cancellation may land between
      // them, or the deadline may already be behind us. Either way the tool must not start.
      if (!controller.signal.aborted && deadline.at <= Date.now()) controller.abort(new DeadlineReason(deadline.source));
      if (controller.signal.aborted) {
        const interrupt = interruptOf(controller.signal);
        return fail(interrupt.code, interrupt.message(tool.name));
      }
      timer = armTimer(controller, deadline);
      timing.startedAt = Date.now();
      const toolContext: ToolContext = { signal: controller.signal, callId: call.id, caller: call.caller, programId: call.programId };
      const execution = settle(() => tool.execute(call.input, toolContext));
      const settled = await Promise.race([execution, aborted.promise]);
      if (settled instanceof Interrupt) {
        void execution.then((late) => {
          if (trace.active) {
            trace.emit({ type: "tool-call-late-result", callId: call.id, tool: tool.name, at: Date.now(), settled: late.ok ? "fulfilled" : "rejected" });
          }
        });
        return fail(settled.code, settled.message(tool.name));
      }
      if (!settled.ok) return finish(errorOutcome(call, settled.error));

      // 6. Output validation.
      if (registered.validateOutput !== undefined) {
        const outputViolations = registered.validateOutput(settled.value);
        if (outputViolations.length > 0) {
          return fail(
            "OUTPUT_INVALID",
            formatViolations(`${tool.name} returned a result that does not match its outputSchema`, outputViolations),
            violationsToJson(outputViolations),
          );
        }
      }

      // 7. Result shaping.
      const serialized = serializeResult(settled.value);
      if (!serialized.ok) return finish(failure(call, serialized.error.code, serialized.error.message));
      const budget = tool.maxDirectResultBytes === undefined ? (context.results ?? {}) : { ...context.results, maxDirectResultBytes: tool.maxDirectResultBytes };
      const shaped = await applyResultBudget(settled.value, serialized.json, call.caller, budget);
      if (!shaped.ok) return finish(failure(call, shaped.error.code, shaped.error.message, shaped.error.details));
      return finish({ callId: call.id, tool: call.tool, status: "ok", value: shaped.value }, shaped.json);
    } finally {
      release();
    }
  } finally {
    clearTimeout(timer);
    context.signal?.removeEventListener("abort", abortFromOuter);
    aborted.dispose();
  }
}

/** Why a call was interrupted before its tool answered. */
class Interrupt {
  constructor(
    readonly code: "TOOL_TIMEOUT" | "CANCELLED",
    readonly budget: "tool" | "run" | "session" | undefined,
  ) {}

  message(tool: string): string {
    if (this.code === "CANCELLED") return `The call to ${tool} was cancelled.`;
    if (this.budget === "tool") return `The call to ${tool} timed out (its own timeout); retry, or ask for less work per call.`;
    return `The call to ${tool} ran out of the ${this.budget}'s time budget.`;
  }
}

class CancelReason {}
class DeadlineReason {
  constructor(readonly source: "tool" | "run" | "session") {}
}

function armTimer(controller: AbortController, deadline: { at: number; source: "tool" | "run" | "session" }): ReturnType<typeof setTimeout> | undefined {
  if (!Number.isFinite(deadline.at)) return undefined;
  // setTimeout caps delays at 2^31-1 ms; longer budgets are effectively infinite.
  const delay = Math.min(Math.max(0, deadline.at - Date.now()), 2_147_483_647);
  return setTimeout(() => controller.abort(new DeadlineReason(deadline.source)), delay);
}

function isPositiveNumber(value: number | undefined): value is number {
  return typeof value === "number" && value > 0;
}

function interruptOf(signal: AbortSignal): Interrupt {
  const reason: unknown = signal.reason;
  if (reason instanceof DeadlineReason) return new Interrupt("TOOL_TIMEOUT", reason.source);
  return new Interrupt("CANCELLED", undefined);
}

/** A promise that resolves with the Interrupt when the signal aborts; never rejects. */
function abortedOutcome(signal: AbortSignal): { promise: Promise<Interrupt>; dispose: () => void } {
  let onAbort: () => void = () => {};
  const promise = new Promise<Interrupt>((resolve) => {
    onAbort = () => resolve(interruptOf(signal));
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });
  });
  return { promise, dispose: () => signal.removeEventListener("abort", onAbort) };
}

type Settled = { ok: true; value: unknown } | { ok: false; error: unknown };

/** Runs `fn` and captures its value or throw (sync or async) without ever rejecting. */
function settle(fn: () => unknown): Promise<Settled> {
  return new Promise<unknown>((resolve) => resolve(fn())).then(
    (value): Settled => ({ ok: true, value }),
    (error: unknown): Settled => ({ ok: false, error }),
  );
}

function resourceKeysOf(registered: RegisteredTool, input: unknown): readonly string[] {
  const { resources } = registered.definition;
  if (resources === undefined) return [];
  try {
    return resources(input).filter((key) => typeof key === "string");
  } catch {
    // A resources function that throws leaves the call to the namespace-wide lock.
    return [];
  }
}

function errorOutcome(call: ToolCall, error: unknown): ToolOutcome {
  if (error instanceof ToolError) return failure(call, error.code, error.message, error.details);
  const message = error instanceof Error ? error.message : typeof error === "string" ? error : "The tool failed without a message.";
  return failure(call, "TOOL_ERROR", message);
}

function failure(call: ToolCall, code: CallErrorCode | ToolDefinedCode, message: string, details?: CallError["details"]): ToolOutcome {
  const error: CallError = { code, message: truncate(message, MAX_ERROR_MESSAGE_CHARS), ...(details === undefined ? {} : { details }) };
  return { callId: call.id, tool: call.tool, status: statusForCode(code), error };
}

function truncate(text: string, maxChars: number): string {
  return text.length <= maxChars ? text : `${text.slice(0, maxChars - 3)}...`;
}
