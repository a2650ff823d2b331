// The host side of one program run: its tool bridge (one record per call), its log, its
// result. The isolate lives wherever the session's SandboxExecutor puts it (this process or a
// worker process) and reaches the host only through the run's GuestBindings. When the run ends,
// for any reason, pending calls are cancelled and each still gets its record.

import type { Diagnostic, JsonValue, RunError, RunErrorCode, RunResult } from "../contract.js";
import type { PipelineContext } from "../execute-tool-call.js";
import type { Budgets } from "../scheduler/deadline.js";
import {
  BUDGET_PATH,
  capErrorText,
  decodeProgramResult,
  encodeGuestConfig,
  MAX_ERROR_TEXT_CHARS,
  TIMER_PATH,
} from "../../runtime/wire.js";
import type { DurableRun } from "../durable/durable-run.js";
import type { CompiledProgram } from "../program/compile-program.js";
import { PROGRAM_FILE, toModelPosition } from "../program/program-wrapper.js";
import { SUGGESTION_LOOKUPS_PER_RUN } from "../registry/closest-tool-names.js";
import { RunLog } from "./run-log.js";
import { RunTimer } from "./run-timer.js";
import type { SandboxEnding, SandboxExecution, SandboxExecutor, SandboxOutcome } from "./sandbox-executor.js";
import { ToolBridge, type DiscoveryHandler } from "./tool-bridge.js";

/** Limits of one program run. Every field has a default; see `DEFAULT_RUN_LIMITS`. */
export interface RunLimits {
  /** Wall-clock time of the whole run, compile excluded, in ms. Default 30 000 → `TIMEOUT`. */
  readonly wallTimeMs: number;
  /**
   * CPU time of the isolate, in ms. Default 10 000 → `CPU_LIMIT`. Measured by the isolate's
   * thread clock for finished stretches of work and, for a stretch still running, as its fair
   * share of the CPU the process's worker threads used (src/sandbox/cpu-meter.ts): time a run
   * spends waiting for a core (many runs at once, a loaded machine) is not billed.
   */
  readonly cpuTimeMs: number;
  /**
   * V8 heap limit of the isolate, in MB. Default 128 → `MEMORY_LIMIT`. Like isolated-vm's
   * `memoryLimit`, a guideline: a hostile program may use 2-3 times it before it is stopped.
   */
  readonly memoryLimitMb: number;
  /** Tool calls per run. Default 1 000; the next call ends the run with `TOOL_CALL_LIMIT`. */
  readonly maxToolCalls: number;
  /** Bytes of the program's JSON output, measured inside the isolate. Default 64 KB → `OUTPUT_TOO_LARGE`. */
  readonly maxOutputBytes: number;
  /** Bytes of console output kept; later lines are dropped behind a marker. Default 16 KB. */
  readonly maxLogBytes: number;
  /** Console lines kept. Default 200. */
  readonly maxLogLines: number;
  /** Bytes of program source. Default 100 KB → `SOURCE_TOO_LARGE`. */
  readonly maxSourceBytes: number;
  /** Bytes of one call's JSON arguments. Default 1 MB → `ARGUMENT_TOO_LARGE`. */
  readonly maxArgumentBytes: number;
  /** Nesting depth of one call's arguments. Default 64 → `ARGUMENT_TOO_LARGE`. */
  readonly maxArgumentDepth: number;
  /**
   * Bytes of arguments held by the host for calls still in flight. Default 32 MB; a call
   * over it is refused with `ARGUMENT_TOO_LARGE` (a program cannot pin host memory by
   * parking many large calls on a slow tool).
   */
  readonly maxPendingArgumentBytes: number;
  /**
   * Bytes of results the host holds for the program once their crossing is over: calls that
   * finished while the program was busy, or faster than it takes them in. Default 64 MB (half
   * the default memory limit: a program could not take in more at once); a result that would
   * pass it is dropped and its call fails `RESULT_TOO_LARGE` (a program cannot pin host memory
   * by starting many large reads and then staying busy).
   */
  readonly maxPendingResultBytes: number;
  /** Bytes of the run's `input` as JSON. Default 1 MB → `INPUT_TOO_LARGE`, before anything runs. */
  readonly maxInputBytes: number;
  /** Nesting depth of the run's `input`. Default 64 → `INPUT_TOO_LARGE`. */
  readonly maxInputDepth: number;
}

export const DEFAULT_RUN_LIMITS: RunLimits = Object.freeze({
  wallTimeMs: 30_000,
  cpuTimeMs: 10_000,
  memoryLimitMb: 128,
  maxToolCalls: 1_000,
  maxOutputBytes: 64 * 1024,
  maxLogBytes: 16 * 1024,
  maxLogLines: 200,
  maxSourceBytes: 100 * 1024,
  maxArgumentBytes: 1024 * 1024,
  maxArgumentDepth: 64,
  maxPendingArgumentBytes: 32 * 1024 * 1024,
  maxPendingResultBytes: 64 * 1024 * 1024,
  maxInputBytes: 1024 * 1024,
  maxInputDepth: 64,
});

export interface RunProgramOptions {
  readonly programId: string;
  readonly limits: RunLimits;
  /** The pipeline every call goes through; its `signal` is replaced by the run's own. */
  readonly pipeline: PipelineContext;
  readonly signal?: AbortSignal | undefined;
  /** Fires when the session closes: the run ends `CANCELLED`, saying so. */
  readonly closing?: AbortSignal | undefined;
  readonly discovery?: DiscoveryHandler | undefined;
  readonly catalogVersion: number;
  readonly warnings?: readonly Diagnostic[];
  /** The program's `input` as JSON text (see `encodeProgramInput`); absent: no `input` global. */
  readonly inputJson?: string | undefined;
  /** Where the isolate runs: in this process, or in a worker process. */
  readonly executor: SandboxExecutor;
  /** Makes the run durable: replayed from this journal as far as it goes, journaled from there on. */
  readonly durable?: DurableRun | undefined;
}

/** Runs a compiled program; resolves with its RunResult and never rejects for program faults. */
export function runProgram(program: CompiledProgram, options: RunProgramOptions): Promise<RunResult> {
  return new ProgramRun(program, options).execute();
}

/**
 * The host side of one run, read top to bottom in `execute`: hand the script and this run's
 * bindings (bridge, log, limits) to the executor, end it early for the host's reasons
 * (cancellation, the call limit), settle every call's record, and build the result. The host's
 * own ending wins over whatever the isolate's side reports afterwards.
 */
class ProgramRun {
  readonly #program: CompiledProgram;
  readonly #options: RunProgramOptions;
  readonly #limits: RunLimits;
  readonly #startedAt = performance.now();
  // Calls never outlive the run: their deadlines nest inside the run's, read when each call
  // starts; the run's own counts from its isolate's start (a worker may have had to start first).
  readonly #budgets: { -readonly [Key in keyof Budgets]: Budgets[Key] };
  /** Aborted when the run is over: calls still pending end CANCELLED, each with its record. */
  readonly #callsController = new AbortController();
  readonly #log: RunLog;
  readonly #bridge: ToolBridge;
  readonly #timer: RunTimer;
  #execution: SandboxExecution | undefined;
  #ending: RunError | undefined;

  constructor(program: CompiledProgram, options: RunProgramOptions) {
    this.#program = program;
    this.#options = options;
    this.#limits = options.limits;
    this.#budgets = { ...options.pipeline.budgets, runDeadlineAt: Date.now() + options.limits.wallTimeMs };
    this.#log = new RunLog(options.limits.maxLogLines, options.limits.maxLogBytes);
    this.#timer = new RunTimer(() => this.#runDeadlineAt);
    const { durable, pipeline } = options;
    // A durable run waiting for a person pauses before whichever deadline ends it first.
    durable?.attach(
      (error) => this.#end(error),
      () => Math.min(this.#runDeadlineAt, this.#budgets.sessionDeadlineAt ?? Number.POSITIVE_INFINITY),
    );
    this.#bridge = new ToolBridge({
      programId: options.programId,
      durable,
      pipeline: {
        ...pipeline,
        approve:
          durable === undefined
            ? pipeline.approve
            : durable.approver(pipeline.approve ?? pipeline.permissions.approver),
        signal: this.#callsController.signal,
        budgets: this.#budgets,
        suggestionBudget: { remaining: SUGGESTION_LOOKUPS_PER_RUN },
      },
      maxToolCalls: this.#limits.maxToolCalls,
      maxArgumentBytes: this.#limits.maxArgumentBytes,
      maxArgumentDepth: this.#limits.maxArgumentDepth,
      maxPendingArgumentBytes: this.#limits.maxPendingArgumentBytes,
      maxPendingResultBytes: this.#limits.maxPendingResultBytes,
      onCallLimit: () =>
        this.#end({
          code: "TOOL_CALL_LIMIT",
          message: `The program made more than ${this.#limits.maxToolCalls} tool calls; batch the work or narrow it.`,
        }),
      discovery: options.discovery,
      runRequests: new Map([
        [TIMER_PATH, this.#timer.wake],
        [BUDGET_PATH, () => JSON.stringify(this.#budget())],
      ]),
    });
  }

  get #runDeadlineAt(): number {
    return this.#budgets.runDeadlineAt ?? Number.POSITIVE_INFINITY;
  }

  /** What `tools.$budget()` answers: the time and calls left before a limit ends the run. */
  #budget(): { timeLeftMs: number; callsLeft: number; callsMade: number } {
    const deadlineAt = Math.min(this.#runDeadlineAt, this.#budgets.sessionDeadlineAt ?? Number.POSITIVE_INFINITY);
    const callsMade = this.#bridge.callsMade;
    return {
      timeLeftMs: Math.max(0, Math.floor(deadlineAt - Date.now())),
      callsLeft: Math.max(0, this.#limits.maxToolCalls - callsMade),
      callsMade,
    };
  }

  async execute(): Promise<RunResult> {
    const { wallTimeMs, cpuTimeMs, memoryLimitMb } = this.#limits;
    const config = encodeGuestConfig(
      {
        maxArgumentBytes: this.#limits.maxArgumentBytes,
        maxOutputBytes: this.#limits.maxOutputBytes,
        maxLogBytes: this.#limits.maxLogBytes,
        maxLogLines: this.#limits.maxLogLines,
        durable: this.#options.durable?.determinism,
      },
      this.#options.inputJson,
      // A resumed durable run's guest answers its replay from the journal itself, chunk by chunk.
      this.#bridge.replayChunk(),
    );
    this.#execution = this.#options.executor.execute(
      { script: this.#program.script, limits: { wallTimeMs, cpuTimeMs, memoryLimitMb } },
      { submit: this.#bridge.submit, wait: this.#bridge.wait, log: this.#log.append, config: () => config },
      () => {
        this.#budgets.runDeadlineAt = Date.now() + wallTimeMs;
      },
    );
    const stopWatching = this.#watchSignal();
    let outcome: SandboxOutcome;
    try {
      outcome = await this.#execution.outcome;
    } finally {
      stopWatching();
      this.#timer.close();
      this.#bridge.close();
      // Cancelling after the isolate is gone: late results have nowhere to go, but each call still gets its record.
      this.#callsController.abort(RUN_OVER);
      await this.#bridge.settled();
    }
    const result = this.#result(outcome);
    return this.#options.durable === undefined ? result : this.#options.durable.finish(result, this.#bridge.replaying);
  }

  /** Ends the run when its signal fires or the session closes; returns the function that stops listening. */
  #watchSignal(): () => void {
    const { signal, closing } = this.#options;
    const onAbort = (): void => this.#end({ code: "CANCELLED", message: "The run was cancelled." });
    const onClose = (): void => this.#end(SESSION_CLOSED);
    signal?.addEventListener("abort", onAbort, { once: true });
    closing?.addEventListener("abort", onClose, { once: true });
    if (signal?.aborted) onAbort();
    if (closing?.aborted) onClose();
    return () => {
      signal?.removeEventListener("abort", onAbort);
      closing?.removeEventListener("abort", onClose);
    };
  }

  /** Ends the run for `error` unless it already ended: the executor disposes the isolate. */
  #end(error: RunError): void {
    if (this.#ending !== undefined) return;
    this.#ending = error;
    this.#execution?.stop();
  }

  #result({ ending, cpuMs }: SandboxOutcome): RunResult {
    const { output, outputBytes, error, returnedNothing } = this.#outcome(ending);
    const calls = this.#bridge.records;
    const warnings = this.#options.warnings ?? [];
    return {
      ok: error === undefined,
      programId: this.#options.programId,
      output,
      logs: this.#log.lines,
      ...(error === undefined ? {} : { error: capRunError(error) }),
      warnings: returnedNothing ? [...warnings, returnedNothingWarning(this.#program.source)] : warnings,
      calls,
      stats: {
        wallMs: round(performance.now() - this.#startedAt),
        cpuMs: round(cpuMs),
        toolCalls: calls.length,
        bytesIn: this.#bridge.bytesIn,
        bytesOut: outputBytes + this.#log.bytes,
      },
      catalogVersion: this.#options.catalogVersion,
    };
  }

  /** The program's output, or why there is none: our ending first, then the sandbox's, then the guest's. */
  #outcome(ending: SandboxEnding): {
    output: JsonValue;
    outputBytes: number;
    error: RunError | undefined;
    returnedNothing?: boolean;
  } {
    const failed = (error: RunError) => ({ output: null, outputBytes: 0, error });
    if (this.#ending !== undefined) return failed(this.#ending);
    if (ending.kind !== "returned") return failed(this.#sandboxError(ending));
    // A program that only failed because a call hit the run's deadline ran out of time.
    if (Date.now() >= this.#runDeadlineAt) return failed(this.#limitError("TIMEOUT"));
    const decoded = decodeProgramResult(ending.resultText);
    if (!decoded.ok) return failed(locateRuntimeError(decoded.code, decoded.message, decoded.stack, this.#program));
    try {
      return {
        output: JSON.parse(decoded.outputJson) as JsonValue,
        outputBytes: Buffer.byteLength(decoded.outputJson),
        error: undefined,
        returnedNothing: decoded.returnedNothing === true,
      };
    } catch {
      return failed({ code: "INTERNAL_ERROR", message: "The program's output could not be read." });
    }
  }

  #sandboxError(ending: Exclude<SandboxEnding, { kind: "returned" }>): RunError {
    switch (ending.kind) {
      case "exceeded":
        return this.#limitError(ending.limit);
      case "unparsable":
        return { code: "SYNTAX_ERROR", message: "The program is nested too deeply to parse; flatten it." };
      case "rejected":
        return locateRuntimeError(
          "RUNTIME_ERROR",
          `Unhandled rejection: ${ending.name}: ${ending.message}`,
          ending.stack,
          this.#program,
        );
      case "stopped":
        return { code: "CANCELLED", message: "The run was cancelled." };
      case "closed":
        return SESSION_CLOSED;
      case "crashed":
        return {
          code: "SANDBOX_CRASHED",
          message: `${ending.message} Calls still pending were cancelled; the program may be run again.`,
        };
      case "failed":
        return { code: "INTERNAL_ERROR", message: ending.message };
    }
  }

  #limitError(limit: "TIMEOUT" | "CPU_LIMIT" | "MEMORY_LIMIT"): RunError {
    switch (limit) {
      case "TIMEOUT":
        return {
          code: "TIMEOUT",
          message: `The program ran longer than ${this.#limits.wallTimeMs} ms; look for an endless loop or a call that never returns.`,
        };
      case "CPU_LIMIT":
        return {
          code: "CPU_LIMIT",
          message: `The program used more than ${this.#limits.cpuTimeMs} ms of CPU time; look for an endless loop or do less work per run.`,
        };
      case "MEMORY_LIMIT":
        return {
          code: "MEMORY_LIMIT",
          message: `The program exceeded the ${this.#limits.memoryLimitMb} MB memory limit; keep less data in memory at once.`,
        };
    }
  }
}

/**
 * Why a run's pending calls are cancelled once it is over: one value for every run, because
 * `abort()` without a reason builds a DOMException (and its stack) per run.
 */
const RUN_OVER = new DOMException("The run is over.", "AbortError");

const SESSION_CLOSED: RunError = Object.freeze({
  code: "CANCELLED",
  message: "The session was closed while the program ran; nothing more of it ran.",
});

/** The code of the warning a run gets when its program returned `undefined`. */
export const RETURNED_NOTHING = "returned-nothing";

/**
 * Said when a program ran to its end without returning a value: almost always a forgotten
 * `return`, and the caller would otherwise read a silent `null`. Placed on the last line.
 */
function returnedNothingWarning(source: string): Diagnostic {
  return {
    line: source.trimEnd().split("\n").length,
    column: 1,
    code: RETURNED_NOTHING,
    severity: "warning",
    message:
      "the program returned nothing (output is null): end it with `return <value>`, since the returned value is all the caller sees",
  };
}

/** A RunResult for a program that ended before (or without) running: no output, no calls. */
export function failedRunResult(fields: {
  readonly programId: string;
  readonly error: RunError;
  readonly warnings: readonly Diagnostic[];
  readonly catalogVersion: number;
  readonly wallMs: number;
}): RunResult {
  return {
    ok: false,
    programId: fields.programId,
    output: null,
    logs: [],
    error: capRunError(fields.error),
    warnings: fields.warnings,
    calls: [],
    stats: { wallMs: round(fields.wallMs), cpuMs: 0, toolCalls: 0, bytesIn: 0, bytesOut: 0 },
    catalogVersion: fields.catalogVersion,
  };
}

/** A run's error with its message within `MAX_ERROR_TEXT_CHARS`, however it was built. */
export function capRunError(error: RunError): RunError {
  return error.message.length <= MAX_ERROR_TEXT_CHARS ? error : { ...error, message: capErrorText(error.message) };
}

/** Locates a runtime error in the model's source from the guest stack, and adds that line. */
function locateRuntimeError(code: string, message: string, stack: string | null, program: CompiledProgram): RunError {
  const runCode = (isRunErrorCode(code) ? code : "RUNTIME_ERROR") as RunErrorCode;
  const match = stack === null ? null : new RegExp(`${PROGRAM_FILE.replace(".", "\\.")}:(\\d+):(\\d+)`).exec(stack);
  if (match === null) return { code: runCode, message };
  const mapped = program.originalPosition({ line: Number(match[1]), column: Number(match[2]) });
  if (mapped === undefined) return { code: runCode, message };
  const position = toModelPosition(mapped.line, mapped.column);
  const sourceLine = program.source.split("\n")[position.line - 1];
  // A stack the program wrote itself may name any line: only one of its own is shown.
  if (sourceLine === undefined || position.line < 1) return { code: runCode, message };
  const lineText = sourceLine.trim().slice(0, 200);
  const where = `\n  at line ${position.line}: ${lineText}`;
  return {
    code: runCode,
    // The line it points at is kept whole; the message gives way.
    message: `${capErrorText(message, MAX_ERROR_TEXT_CHARS - where.length)}${where}`,
    line: position.line,
    column: position.column,
  };
}

const RUN_ERROR_CODES: ReadonlySet<string> = new Set<RunErrorCode>([
  "RUNTIME_ERROR",
  "OUTPUT_TOO_LARGE",
  "OUTPUT_NOT_SERIALIZABLE",
  "INTERNAL_ERROR",
]);

function isRunErrorCode(code: string): code is RunErrorCode {
  return RUN_ERROR_CODES.has(code);
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}
