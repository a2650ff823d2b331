// The host pipeline in one function: every tool call, from a program or a model turn, goes
// through the steps numbered below in this order and ends with exactly one outcome bound to
// its id. It resolves, never rejects, for anything a model or a program can cause. The step
// numbers are stated here once; other modules refer to them. Start reading here.

import {
  statusForCode,
  type CallerKind,
  type CallError,
  type CallErrorCode,
  type CallRecord,
  type ToolCall,
  type ToolDefinedCode,
  type ToolOutcome,
} from "./contract.js";
import { messageOf, SwitchyardError, ToolError } from "./errors.js";
import type { Approver, PermissionGate } from "./permissions/permission-gate.js";
import { capOutsideSecrets } from "./redaction/cap-outside-secrets.js";
import { emitRedactions, redactCallError, type LocatedRedaction } from "./redaction/redact-results.js";
import { countByKind, type Redactor } from "./redaction/redactor.js";
import type { ToolContext, ToolDefinition } from "./registry/define-tool.js";
import { suggestToolNames, type SuggestionBudget } from "./registry/closest-tool-names.js";
import type { CatalogSnapshot, RegisteredTool } from "./registry/tool-registry.js";
import {
  applyResultBudget,
  serializeResult,
  type ResultBudgetOptions,
  type ShapedResult,
} from "./results/result-budget.js";
import { formatViolations, violationsToJson } from "./schema/schema-validator.js";
import { CallControl, Interrupt } from "./scheduler/call-control.js";
import { computeDeadline, type Budgets, type CallDeadline } from "./scheduler/deadline.js";
import type { RateLimitBucket, RateLimitReservation } from "./scheduler/rate-limiter.js";
import type { LockReservation } from "./scheduler/lock-table.js";
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
  /** Answers `ask` decisions of this run or call instead of the session's approver. */
  readonly approve?: Approver | undefined;
  /** Did-you-mean lookups left to the run for unknown tool names (each costs host CPU). */
  readonly suggestionBudget?: SuggestionBudget;
  /** Redacts the results and errors of direct and hosted-program calls; sandboxed programs' calls are never redacted. */
  readonly redactor?: Redactor | undefined;
  /**
   * Given each ok result of a tool that declares no outputSchema (by the tool's full name),
   * whole and before redaction, so the session can learn its shape. Must not throw.
   */
  readonly observeOutput?: ((tool: string, value: unknown) => void) | undefined;
}

/** An outcome plus what the sandbox bridge and the run's records need. */
export interface PipelineResult {
  readonly outcome: ToolOutcome;
  /** The JSON text of an ok outcome's value, serialized once. */
  readonly json: string | undefined;
  readonly record: CallRecord;
}

export const DEFAULT_TOOL_TIMEOUT_MS = 30_000;
/** Characters of a failed call's message; past it the message ends in a marker saying how long it was. */
export const MAX_CALL_ERROR_MESSAGE_CHARS = 2_000;

/**
 * Runs one tool call through the pipeline and resolves with its single outcome:
 *
 * 1. Registry: look the tool up; unknown → `TOOL_NOT_FOUND`, naming the closest tools (looked
 *    up after a turn of the event loop, within the run's budget of lookups).
 * 2. Validation: check the input against the tool's schema → `INPUT_INVALID` with every path.
 * 3. Permission: allow / ask / deny (validated input only) → `PERMISSION_DENIED` with the reason.
 * 4. Scheduling: wait for the locks the tool's effect and resources require, then for a start
 *    slot under the rate limits that cover the tool (`TOOL_TIMEOUT` at once when the slot lies
 *    beyond the call's timeout or budgets; `RATE_LIMIT_UNAVAILABLE` when the limiter is unreachable).
 * 5. Execution: run under the earliest of the tool, run and session deadlines →
 *    `TOOL_TIMEOUT`; cancellation → `CANCELLED`; a throw → `TOOL_ERROR` or the ToolError's code.
 * 6. Output validation against `outputSchema` → `OUTPUT_INVALID`; without one, the result's
 *    shape is observed (`observeOutput`) for the tool's observed type.
 * 7. Result: serialize once; for a direct call, redact secrets (`[REDACTED:<kind>]`) in the
 *    value and in any error; then apply the caller's size budget (spill or `RESULT_TOO_LARGE`).
 */
export async function executeToolCall(call: ToolCall, context: PipelineContext): Promise<ToolOutcome> {
  return (await runToolCall(call, context)).outcome;
}

/**
 * `executeToolCall` for the sandbox bridge, with the serialized value and the call record. It
 * answers synchronously when no step had to wait (no approver, no queue, a tool that returned
 * at once) and with a promise otherwise: the bridge hands a synchronous answer back to the
 * isolate without a promise hop, which is most of a fast call's cost. Rejects (or throws) only
 * for a bug.
 */
export function runToolCall(
  call: ToolCall,
  context: PipelineContext,
  meta: { readonly inputBytes?: number } = {},
): PipelineResult | Promise<PipelineResult> {
  const finish = startCallRecord(call, context.trace, meta.inputBytes ?? 0);

  // 1. Registry.
  const registered = context.catalog.get(call.tool);
  if (registered === undefined) {
    const notFound = (closest: readonly string[]): PipelineResult => {
      const hint = closest.length > 0 ? ` Did you mean ${closest.map((name) => `"${name}"`).join(", ")}?` : "";
      const message =
        call.tool === ""
          ? "The call names no tool: give the tool's name."
          : `No tool named "${truncate(call.tool, 200)}".${hint}`;
      return finish(failedOutcome(call, "TOOL_NOT_FOUND", message, { closest: [...closest] }));
    };
    const closest = suggestToolNames(context.catalog, call.tool, {
      ...(context.suggestionBudget === undefined ? {} : { budget: context.suggestionBudget }),
    });
    return closest instanceof Promise ? closest.then(notFound) : notFound(closest);
  }
  const tool = registered.definition;
  if (!acceptsCaller(tool.callers, call.caller)) {
    return finish(
      failedOutcome(
        call,
        "TOOL_NOT_FOUND",
        `Tool "${tool.name}" cannot be called from ${CALLER_PHRASES[call.caller]}.`,
      ),
    );
  }

  // 2. Validation, before anything else sees the input.
  let violations: ReturnType<typeof registered.validateInput>;
  try {
    violations = registered.validateInput(call.input);
  } catch (error) {
    return finish(uncompiledSchemaOutcome(call, error, "The call was not made"));
  }
  if (violations.length > 0) {
    return finish(
      failedOutcome(
        call,
        "INPUT_INVALID",
        formatViolations(`Invalid input for ${tool.name}`, violations),
        violationsToJson(violations),
      ),
    );
  }

  // Steps 3 to 7 finish synchronously when nothing has to wait (no approver, no queue, a
  // tool that answers at once); each wait is a branch onto promises.
  const control = new CallControl(context.signal);
  let result: PipelineResult | Promise<PipelineResult>;
  try {
    result = new CallRun(registered, call, context, control, finish).permit();
  } catch (error) {
    control.dispose();
    throw error;
  }
  // `then` with both arms rather than `finally`: one promise and one turn per call instead of three.
  if (result instanceof Promise) {
    return result.then(
      (done) => {
        control.dispose();
        return done;
      },
      (error: unknown) => {
        control.dispose();
        throw error;
      },
    );
  }
  control.dispose();
  return result;
}

const CALLER_PHRASES: Readonly<Record<CallerKind, string>> = {
  direct: "a direct tool call",
  program: "a program",
  "hosted-program": "the provider's hosted program",
};

/**
 * Whether a tool's `callers` admit `caller`. `program` admits both kinds of program (Switchyard's
 * sandbox and the provider's hosted one); `hosted-program` alone admits only the hosted one.
 */
export function acceptsCaller(callers: readonly CallerKind[], caller: CallerKind): boolean {
  return callers.includes(caller) || (caller === "hosted-program" && callers.includes("program"));
}

/** Ends a call started by `startCallRecord`: its record, built once, and its `tool-call-end`. */
export type Finish = (outcome: ToolOutcome, json?: string, startedAt?: number) => PipelineResult;
type Step = PipelineResult | Promise<PipelineResult>;

/** Steps 3 to 7 of one call, each a method so the waits read as plain branches. */
class CallRun {
  readonly #tool: ToolDefinition;

  constructor(
    readonly registered: RegisteredTool,
    readonly call: ToolCall,
    readonly context: PipelineContext,
    readonly control: CallControl,
    readonly finish: Finish,
  ) {
    this.#tool = registered.definition;
  }

  // 3. Permission: decided synchronously unless an approver has to answer.
  permit(): Step {
    const { call, context } = this;
    const request = {
      tool: this.#tool.name,
      input: call.input,
      caller: call.caller,
      programId: call.programId,
      callId: call.id,
      effect: this.#tool.effect,
    };
    const verdict = context.permissions.checkNow(request, context.preapprovedTools, context.approve);
    if ("allowed" in verdict) return verdict.allowed ? this.schedule() : this.#denied(verdict.reason);
    // A write waiting for its approval keeps its place in line from now: writes made after it
    // (approved sooner or needing none) start after it, in the order the program made them.
    const reservation =
      this.#tool.effect === "read"
        ? undefined
        : context.scheduler.reserve(this.#tool, call, resourceKeysOf(this.registered, call.input));
    this.control.armDeadline(computeDeadline(Date.now(), Number.POSITIVE_INFINITY, context.budgets ?? {}));
    return Promise.race([
      context.permissions.askApprover(verdict, context.approve),
      this.control.whenInterrupted(),
    ]).then(
      (answer) => {
        if (answer instanceof Interrupt) {
          reservation?.cancel();
          return this.#interrupted(answer);
        }
        if (answer.allowed) return this.schedule(reservation);
        reservation?.cancel();
        return this.#denied(answer.reason);
      },
      (error: unknown) => {
        reservation?.cancel();
        throw error;
      },
    );
  }

  // 4. Scheduling: admitted at once when nothing is in the way, else queued under the run's
  //    and session's deadlines; a call that waited for approval waits from the place it reserved.
  schedule(reservation?: LockReservation): Step {
    const { call, context, control } = this;
    if (control.interrupted !== undefined) {
      reservation?.cancel();
      return this.#interrupted(control.interrupted);
    }
    const keys = resourceKeysOf(this.registered, call.input);
    if (reservation === undefined) {
      const release = context.scheduler.tryAdmit(this.#tool, call, keys);
      if (release !== undefined) return this.throttle(release);
    }
    control.armDeadline(computeDeadline(Date.now(), Number.POSITIVE_INFINITY, context.budgets ?? {}));
    const admitted =
      reservation?.acquire(control.signal) ?? context.scheduler.admit(this.#tool, call, keys, control.signal);
    return admitted.then(
      (granted) => this.throttle(granted),
      () => this.#interrupted(control.interrupted ?? new Interrupt("CANCELLED", undefined)),
    );
  }

  // 4, continued. Rate limits: the slot is reserved while the locks are held, so the call starts
  //    at its slot and not in a burst behind a lock; its wait is bounded by the call's own timeout
  //    and what remains of the run's and session's budgets.
  throttle(release: () => void): Step {
    const { context } = this;
    const buckets = context.scheduler.rateLimitsFor(this.#tool);
    if (buckets.length === 0) return this.execute(release);
    const now = Date.now();
    const deadline = computeDeadline(now, this.#ownTimeoutMs(), context.budgets ?? {});
    let reservation: RateLimitReservation | Promise<RateLimitReservation>;
    try {
      reservation = context.scheduler.reserveSlot(buckets, deadline.at - now);
    } catch (error) {
      release();
      return this.#limiterUnavailable(error);
    }
    if (!(reservation instanceof Promise)) return this.#awaitSlot(reservation, buckets, deadline, release);
    // A limiter that does not answer (Redis hung) cannot hold the call past its deadline.
    this.control.armDeadline(deadline);
    return Promise.race([reservation, this.control.whenInterrupted()]).then(
      (answer) => {
        if (!(answer instanceof Interrupt)) return this.#awaitSlot(answer, buckets, deadline, release);
        release();
        return this.#interrupted(answer);
      },
      (error: unknown) => {
        release();
        return this.#limiterUnavailable(error);
      },
    );
  }

  #awaitSlot(
    reservation: RateLimitReservation,
    buckets: readonly RateLimitBucket[],
    deadline: CallDeadline,
    release: () => void,
  ): Step {
    const { call, context, control } = this;
    if (control.interrupted !== undefined) {
      release();
      return this.#interrupted(control.interrupted);
    }
    if (!reservation.granted) {
      release();
      return this.#end(slotTooLate(call, this.#tool.name, reservation.waitMs, buckets, deadline, this.#ownTimeoutMs()));
    }
    if (reservation.waitMs <= 0) return this.execute(release);
    if (context.trace.active) {
      context.trace.emit({
        type: "tool-call-rate-limited",
        callId: call.id,
        tool: call.tool,
        at: Date.now(),
        waitMs: reservation.waitMs,
        limits: buckets.map((bucket) => bucket.label),
      });
    }
    control.armDeadline(computeDeadline(Date.now(), Number.POSITIVE_INFINITY, context.budgets ?? {}));
    let timer: ReturnType<typeof setTimeout> | undefined;
    const slot = new Promise<undefined>((resolve) => {
      timer = setTimeout(() => resolve(undefined), reservation.waitMs);
    });
    return Promise.race([slot, control.whenInterrupted()]).then((woken) => {
      clearTimeout(timer);
      if (woken instanceof Interrupt) {
        release();
        return this.#interrupted(woken);
      }
      return this.execute(release);
    });
  }

  #limiterUnavailable(error: unknown): PipelineResult {
    return this.#end(
      failedOutcome(
        this.call,
        "RATE_LIMIT_UNAVAILABLE",
        `The call to ${this.#tool.name} was not made: its rate limiter could not be reached ` +
          `(${truncate(messageOf(error), 300)}); retry later.`,
      ),
    );
  }

  // 5. Execution, under the earliest of the three deadlines; the locks are held until the
  //    outcome is known.
  execute(release: () => void): Step {
    const { call, context, control } = this;
    // The grant and the tool's start may be separate turns: a cancellation may land between
    // them, or the deadline may already be behind us. Either way the tool must not start.
    const now = Date.now();
    const deadline = computeDeadline(now, this.#ownTimeoutMs(), context.budgets ?? {});
    if (deadline.at <= now) control.interrupt(new Interrupt("TOOL_TIMEOUT", deadline.source));
    if (control.interrupted !== undefined) {
      release();
      return this.#interrupted(control.interrupted);
    }
    this.#startedAt = now;
    const toolContext: ToolContext = new CallToolContext(control, call);
    let returned: unknown;
    try {
      returned = this.#tool.execute(call.input, toolContext);
    } catch (error) {
      release();
      return this.#thrown(error);
    }
    if (!isThenable(returned)) {
      release();
      return this.shape(returned);
    }
    // Only a tool that is still working needs a timer.
    control.armDeadline(deadline);
    const execution = Promise.resolve(returned).then(
      (value): Settled => ({ ok: true, value }),
      (error: unknown): Settled => ({ ok: false, error }),
    );
    return Promise.race([execution, control.whenInterrupted()]).then((settled) => {
      release();
      if (settled instanceof Interrupt) {
        void execution.then((late) => {
          if (context.trace.active) {
            context.trace.emit({
              type: "tool-call-late-result",
              callId: call.id,
              tool: call.tool,
              at: Date.now(),
              settled: late.ok ? "fulfilled" : "rejected",
            });
          }
        });
        return this.#interrupted(settled);
      }
      return settled.ok ? this.shape(settled.value) : this.#thrown(settled.error);
    });
  }

  // 6 and 7. Output validation, then serialization and the caller's size budget.
  shape(value: unknown): Step {
    const { call, context } = this;
    const tool = this.#tool;
    if (this.registered.validateOutput !== undefined) {
      let violations: ReturnType<typeof this.registered.validateOutput>;
      try {
        violations = this.registered.validateOutput(value);
      } catch (error) {
        return this.#end(uncompiledSchemaOutcome(call, error, "The tool ran, but its result was not returned"));
      }
      if (violations.length > 0) {
        const message = formatViolations(
          `${tool.name} returned a result that does not match its outputSchema`,
          violations,
        );
        return this.#end(failedOutcome(call, "OUTPUT_INVALID", message, violationsToJson(violations)));
      }
    }
    const serialized = serializeResult(value);
    if (!serialized.ok) return this.#end(failedOutcome(call, serialized.error.code, serialized.error.message));
    if (tool.outputSchema === undefined) context.observeOutput?.(tool.name, value);
    let shapedValue = value;
    let json = serialized.json;
    // Redaction comes before the budget, so a spilled file, its preview and the pages
    // results.read serves from it hold no secret either, and no page boundary can cut one.
    const redacted = this.#redactor()?.redactJson(json);
    if (redacted !== undefined) {
      shapedValue = redacted.value;
      json = redacted.json;
      this.#redactions ??= [];
      for (const redaction of redacted.redactions) this.#redactions.push({ ...redaction, location: "call-result" });
    }
    const budget =
      tool.maxDirectResultBytes === undefined
        ? (context.results ?? {})
        : {
            ...context.results,
            maxDirectResultBytes: tool.maxDirectResultBytes,
            maxHostedResultBytes: tool.maxDirectResultBytes,
          };
    const shaped = applyResultBudget(shapedValue, json, call.caller, budget);
    return shaped instanceof Promise ? shaped.then((done) => this.#shaped(done)) : this.#shaped(shaped);
  }

  #startedAt: number | undefined;
  /** What was redacted in this call's result and error; allocated on the first one. */
  #redactions: LocatedRedaction[] | undefined;

  /**
   * The session's redactor, for a call whose result leaves for the model's provider (a model's
   * direct call, or a hosted program's, whose results go to the provider's container) to a
   * tool that did not opt out. A sandboxed program's calls are never redacted: its output is.
   */
  #redactor(): Redactor | undefined {
    return this.call.caller !== "program" && this.#tool.redaction !== false ? this.context.redactor : undefined;
  }

  /**
   * A tool's throw as an outcome; for a direct call redacted before its message is cut to length.
   * A program's call keeps the message whole, cut outside any secret: the run's error is
   * redacted later, and a secret cut in two would no longer be recognised there.
   */
  #thrown(error: unknown): PipelineResult {
    const parts = errorParts(error);
    const redactor = this.#redactor();
    if (redactor === undefined) {
      const { code, message, details } = parts;
      return this.#end(failedOutcome(this.call, code, message, details, this.context.redactor));
    }
    // Cutting first could leave the head of a token that no rule recognises any more.
    const redacted = redactCallError(redactor, parts);
    (this.#redactions ??= []).push(...redacted.redactions);
    const { code, message, details } = redacted.error;
    return this.#end(failedOutcome(this.call, code, message, details), undefined, true);
  }

  /** The outcome with its error redacted (unless `errorRedacted`: #thrown did it before the cut) and counted. */
  #end(outcome: ToolOutcome, json?: string, errorRedacted = false): PipelineResult {
    const redactor = this.#redactor();
    if (redactor === undefined) return this.finish(outcome, json, this.#startedAt);
    let ended = outcome;
    if (ended.status !== "ok" && !errorRedacted) {
      const redacted = redactCallError(redactor, ended.error);
      if (redacted.redactions.length > 0) {
        ended = { ...ended, error: redacted.error };
        (this.#redactions ??= []).push(...redacted.redactions);
      }
    }
    if (this.#redactions !== undefined && this.#redactions.length > 0) {
      ended = { ...ended, redactions: countByKind(this.#redactions) };
      emitRedactions(this.context.trace, this.#redactions, { callId: this.call.id, tool: this.call.tool });
    }
    return this.finish(ended, json, this.#startedAt);
  }

  #shaped(shaped: ShapedResult): PipelineResult {
    const { call } = this;
    if (!shaped.ok)
      return this.#end(failedOutcome(call, shaped.error.code, shaped.error.message, shaped.error.details));
    return this.#end({ callId: call.id, tool: call.tool, status: "ok", value: shaped.value }, shaped.json);
  }

  #ownTimeoutMs(): number {
    // A timeout that is not a positive number (NaN from a caller's arithmetic) would make the
    // deadline NaN and silently lift the run's and session's budgets too: fall through instead.
    if (isPositiveNumber(this.call.timeoutMs)) return this.call.timeoutMs;
    if (isPositiveNumber(this.#tool.timeoutMs)) return this.#tool.timeoutMs;
    if (isPositiveNumber(this.context.defaultTimeoutMs)) return this.context.defaultTimeoutMs;
    return DEFAULT_TOOL_TIMEOUT_MS;
  }

  #denied(reason: string): PipelineResult {
    return this.#end(
      failedOutcome(this.call, "PERMISSION_DENIED", `Permission denied for ${this.#tool.name}: ${reason}`),
    );
  }

  #interrupted(interrupt: Interrupt): PipelineResult {
    return this.#end(failedOutcome(this.call, interrupt.code, interrupt.message(this.#tool.name)));
  }
}

/** What a tool's `execute` receives; the AbortSignal is created only if the tool asks for it. */
class CallToolContext implements ToolContext {
  readonly callId: string;
  readonly caller: ToolCall["caller"];
  readonly programId: string | undefined;
  readonly idempotencyKey: string | undefined;
  readonly #control: CallControl;

  constructor(control: CallControl, call: ToolCall) {
    this.#control = control;
    this.callId = call.id;
    this.caller = call.caller;
    this.programId = call.programId;
    this.idempotencyKey = call.idempotencyKey;
  }

  get signal(): AbortSignal {
    return this.#control.signal;
  }
}

/**
 * Emits `tool-call-start` and returns the function that builds the record and emits
 * `tool-call-end`: the one way a call gets its record, also for calls the sandbox bridge
 * refuses before the pipeline and for a program's `$search` and `$describe`.
 */
export function startCallRecord(call: ToolCall, trace: TraceBus, bytesIn: number): Finish {
  const queuedAt = Date.now();
  if (trace.active) {
    trace.emit({
      type: "tool-call-start",
      callId: call.id,
      tool: call.tool,
      caller: call.caller,
      programId: call.programId,
      ...(call.hostedCaller === undefined ? {} : { hostedCaller: call.hostedCaller }),
      queuedAt,
    });
  }
  return (outcome, json, startedAt) => {
    const endedAt = Date.now();
    const bytesOut = json === undefined ? 0 : Buffer.byteLength(json);
    const record = buildRecord(call, outcome, endedAt - queuedAt, (startedAt ?? endedAt) - queuedAt, bytesIn, bytesOut);
    if (trace.active) {
      trace.emit({
        type: "tool-call-end",
        callId: call.id,
        tool: call.tool,
        caller: call.caller,
        programId: call.programId,
        ...(call.hostedCaller === undefined ? {} : { hostedCaller: call.hostedCaller }),
        queuedAt,
        startedAt,
        endedAt,
        status: outcome.status,
        code: outcome.status === "ok" ? undefined : outcome.error.code,
        bytesIn,
        bytesOut,
      });
    }
    return { outcome, json, record };
  };
}

/**
 * A call's record: `hostedCaller`, `code` and `queuedMs` (left out when the call did not wait)
 * only when they apply. Built field by field, in the record's order, without the temporary
 * objects that spreading optional fields makes: this runs once for every call.
 */
function buildRecord(
  call: ToolCall,
  outcome: ToolOutcome,
  durationMs: number,
  queuedMs: number,
  bytesIn: number,
  bytesOut: number,
): CallRecord {
  // The usual record, as one literal: its fields stay inside the object (records live as long as
  // their run, so a smaller record is less for every garbage collection to copy).
  if (call.hostedCaller === undefined && outcome.status === "ok" && queuedMs <= 0) {
    return { id: call.id, tool: call.tool, caller: call.caller, status: "ok", durationMs, bytesIn, bytesOut };
  }
  const record: { -readonly [K in keyof CallRecord]?: CallRecord[K] } = {
    id: call.id,
    tool: call.tool,
    caller: call.caller,
  };
  if (call.hostedCaller !== undefined) record.hostedCaller = call.hostedCaller;
  record.status = outcome.status;
  if (outcome.status !== "ok") record.code = outcome.error.code;
  record.durationMs = durationMs;
  if (queuedMs > 0) record.queuedMs = queuedMs;
  record.bytesIn = bytesIn;
  record.bytesOut = bytesOut;
  return record as CallRecord;
}

/** The outcome of a call whose rate-limit slot lies beyond its deadline: it never waits in vain. */
function slotTooLate(
  call: ToolCall,
  tool: string,
  waitMs: number,
  buckets: readonly RateLimitBucket[],
  deadline: CallDeadline,
  ownTimeoutMs: number,
): ToolOutcome {
  const limits = buckets.map((bucket) => bucket.label).join(" and ");
  const beyond =
    deadline.source === "tool"
      ? `longer than its own timeout of ${ownTimeoutMs} ms; ` +
        "make fewer calls to these tools at once, or raise the tool's timeout"
      : `past the end of the ${deadline.source}'s time budget`;
  return failedOutcome(
    call,
    "TOOL_TIMEOUT",
    `The call to ${tool} would have to wait ${Math.ceil(waitMs)} ms for its rate limit ${limits}, ${beyond}.`,
    { rateLimits: buckets.map((bucket) => bucket.label), waitMs: Math.ceil(waitMs), budget: deadline.source },
  );
}

type Settled = { ok: true; value: unknown } | { ok: false; error: unknown };

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    (typeof value === "object" || typeof value === "function") &&
    value !== null &&
    typeof (value as { then?: unknown }).then === "function"
  );
}

function isPositiveNumber(value: number | undefined): value is number {
  return typeof value === "number" && value > 0;
}

const NO_RESOURCES: readonly string[] = Object.freeze([]);

function resourceKeysOf(registered: RegisteredTool, input: unknown): readonly string[] {
  const { resources } = registered.definition;
  if (resources === undefined) return NO_RESOURCES;
  try {
    return resources(input).filter((key) => typeof key === "string");
  } catch {
    // A resources function that throws leaves the call to the namespace-wide lock.
    return NO_RESOURCES;
  }
}

/** The code, whole message and details of what a tool threw. */
function errorParts(error: unknown): CallError {
  // By brand, not class: a tool module may have thrown the ToolError of another copy of the package.
  if (ToolError.isInstance(error) && typeof error.code === "string") {
    return {
      code: error.code,
      message: String(error.message),
      ...(error.details === undefined ? {} : { details: error.details }),
    };
  }
  const message =
    error instanceof Error ? error.message : typeof error === "string" ? error : "The tool failed without a message.";
  return { code: "TOOL_ERROR", message };
}

/**
 * A call whose tool's schema ajv could not compile when it was first needed (see `prepareSchema`):
 * the tool's author must fix it, so the call fails TOOL_ERROR saying so; anything else is a bug
 * and is thrown on.
 */
function uncompiledSchemaOutcome(call: ToolCall, error: unknown, what: string): ToolOutcome {
  if (!SwitchyardError.isInstance(error) || error.code !== "SCHEMA_INVALID") throw error;
  const message = error.message.endsWith(".") ? error.message : `${error.message}.`;
  return failedOutcome(call, "TOOL_ERROR", `${what}: ${message} The tool's author has to fix the schema.`);
}

/**
 * A failed outcome for `call`, its message capped at `MAX_CALL_ERROR_MESSAGE_CHARS`; with a
 * redactor, the cut never falls inside a secret (see capOutsideSecrets).
 */
export function failedOutcome(
  call: ToolCall,
  code: CallErrorCode | ToolDefinedCode,
  message: string,
  details?: CallError["details"],
  redactor?: Redactor,
): ToolOutcome {
  const error: CallError = {
    code,
    message: capOutsideSecrets(message, MAX_CALL_ERROR_MESSAGE_CHARS, redactor),
    ...(details === undefined ? {} : { details }),
  };
  return { callId: call.id, tool: call.tool, status: statusForCode(code), error };
}

function truncate(text: string, maxChars: number): string {
  return text.length <= maxChars ? text : `${text.slice(0, maxChars - 3)}...`;
}
