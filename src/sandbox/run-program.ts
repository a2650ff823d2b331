// Runs one compiled program in a fresh isolate and always disposes it. A host watchdog
// enforces wall-clock and CPU time by disposing the isolate (isolated-vm's own `timeout`
// does not cover code after the first `await`). When the run ends, for any reason, pending
// calls are cancelled and each still gets its record. Nothing of the host reaches the guest
// but the References of GuestBindings (calls, console, limits) held in the guest runtime's closure.

import type { Diagnostic, JsonValue, RunError, RunErrorCode, RunResult } from "../contract.js";
import type { PipelineContext } from "../execute-tool-call.js";
import type ivm from "isolated-vm";
import {
  BUDGET_PATH,
  capErrorText,
  decodeProgramResult,
  encodeGuestConfig,
  MAX_ERROR_TEXT_CHARS,
  stackFrames,
  TIMER_PATH,
} from "../../runtime/wire.js";
import type { CompiledProgram } from "../program/compile-program.js";
import { PROGRAM_FILE, toModelPosition } from "../program/program-wrapper.js";
import type { IsolatePool, PreparedIsolate } from "./isolate-pool.js";
import { SUGGESTION_LOOKUPS_PER_RUN } from "../registry/closest-tool-names.js";
import { RunLog } from "./run-log.js";
import { RunTimer } from "./run-timer.js";
import { ToolBridge, type DiscoveryHandler } from "./tool-bridge.js";
import { messageOf } from "../errors.js";

/** Limits of one program run. Every field has a default; see `DEFAULT_RUN_LIMITS`. */
export interface RunLimits {
  /** Wall-clock time of the whole run, compile excluded, in ms. Default 30 000 → `TIMEOUT`. */
  readonly wallTimeMs: number;
  /** CPU time of the isolate, from its own counter, in ms. Default 10 000 → `CPU_LIMIT`. */
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
  maxInputBytes: 1024 * 1024,
  maxInputDepth: 64,
});

export interface RunProgramOptions {
  readonly programId: string;
  readonly limits: RunLimits;
  /** The pipeline every call goes through; its `signal` is replaced by the run's own. */
  readonly pipeline: PipelineContext;
  readonly signal?: AbortSignal | undefined;
  readonly discovery?: DiscoveryHandler | undefined;
  readonly catalogVersion: number;
  readonly warnings?: readonly Diagnostic[];
  /** The program's `input` as JSON text (see `encodeProgramInput`); absent: no `input` global. */
  readonly inputJson?: string | undefined;
  /** Where the fresh isolate comes from. */
  readonly isolates: IsolatePool;
}

const WATCHDOG_INTERVAL_MS = 10;

/** Runs a compiled program; resolves with its RunResult and never rejects for program faults. */
export function runProgram(program: CompiledProgram, options: RunProgramOptions): Promise<RunResult> {
  return new ProgramRun(program, options).execute();
}

/**
 * One run, read top to bottom in `execute`: take a prepared isolate, bind this run's bridge
 * and log to it, watch it (CPU, wall time, cancellation), run the script, release everything,
 * and build the result. The first reason to end wins and is kept in `#ending`.
 */
class ProgramRun {
  readonly #program: CompiledProgram;
  readonly #options: RunProgramOptions;
  readonly #limits: RunLimits;
  readonly #startedAt = performance.now();
  // Calls never outlive the run: their deadlines nest inside the run's.
  readonly #deadlineAt: number;
  /** Aborted when the run is over: calls still pending end CANCELLED, each with its record. */
  readonly #callsController = new AbortController();
  readonly #log: RunLog;
  readonly #bridge: ToolBridge;
  readonly #timer: RunTimer;
  #isolate: ivm.Isolate | undefined;
  #ending: RunError | undefined;

  constructor(program: CompiledProgram, options: RunProgramOptions) {
    this.#program = program;
    this.#options = options;
    this.#limits = options.limits;
    this.#deadlineAt = Date.now() + options.limits.wallTimeMs;
    this.#log = new RunLog(options.limits.maxLogLines, options.limits.maxLogBytes);
    this.#timer = new RunTimer(this.#deadlineAt);
    this.#bridge = new ToolBridge({
      programId: options.programId,
      pipeline: {
        ...options.pipeline,
        signal: this.#callsController.signal,
        budgets: { ...options.pipeline.budgets, runDeadlineAt: this.#deadlineAt },
        suggestionBudget: { remaining: SUGGESTION_LOOKUPS_PER_RUN },
      },
      maxToolCalls: this.#limits.maxToolCalls,
      maxArgumentBytes: this.#limits.maxArgumentBytes,
      maxArgumentDepth: this.#limits.maxArgumentDepth,
      maxPendingArgumentBytes: this.#limits.maxPendingArgumentBytes,
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

  /** What `tools.$budget()` answers: the time and calls left before a limit ends the run. */
  #budget(): { timeLeftMs: number; callsLeft: number; callsMade: number } {
    const sessionDeadlineAt = this.#options.pipeline.budgets?.sessionDeadlineAt ?? Number.POSITIVE_INFINITY;
    const deadlineAt = Math.min(this.#deadlineAt, sessionDeadlineAt);
    const callsMade = this.#bridge.callsMade;
    return {
      timeLeftMs: Math.max(0, Math.floor(deadlineAt - Date.now())),
      callsLeft: Math.max(0, this.#limits.maxToolCalls - callsMade),
      callsMade,
    };
  }

  async execute(): Promise<RunResult> {
    let prepared: PreparedIsolate;
    try {
      prepared = await this.#options.isolates.take(this.#limits.memoryLimitMb);
    } catch (error) {
      // No isolate could be made (the host is out of memory, or isolated-vm failed to load).
      return this.#failedBeforeRunning(`The sandbox could not be created: ${messageOf(error)}`);
    }
    this.#isolate = prepared.isolate;
    prepared.bind({
      submit: this.#bridge.submit,
      wait: this.#bridge.wait,
      log: this.#log.append,
      config: () =>
        encodeGuestConfig(
          {
            maxArgumentBytes: this.#limits.maxArgumentBytes,
            maxOutputBytes: this.#limits.maxOutputBytes,
            maxLogBytes: this.#limits.maxLogBytes,
            maxLogLines: this.#limits.maxLogLines,
          },
          this.#options.inputJson,
        ),
    });
    const stopWatching = this.#watch(prepared.isolate);
    let resultText: unknown;
    let cpuMs = 0;
    try {
      resultText = await this.#runScript(prepared);
    } catch (error) {
      this.#ending ??= this.#sandboxFailure(prepared.isolate, error);
    } finally {
      stopWatching();
      this.#timer.close();
      this.#bridge.close();
      if (!prepared.isolate.isDisposed) cpuMs = Number(prepared.isolate.cpuTime) / 1e6;
      prepared.dispose();
      // Cancelling after the isolate is gone: late results have nowhere to go, but each call still gets its record.
      this.#callsController.abort();
      await this.#bridge.settled();
    }
    return this.#result(resultText, cpuMs);
  }

  async #runScript(prepared: PreparedIsolate): Promise<unknown> {
    let script: ivm.Script;
    try {
      script = await prepared.isolate.compileScript(this.#program.script, { filename: PROGRAM_FILE });
    } catch (error) {
      // V8's parser gave up (nesting deeper than its stack): the program's fault, not the sandbox's.
      if (!prepared.isolate.isDisposed && /call stack/i.test(messageOf(error))) {
        this.#end({ code: "SYNTAX_ERROR", message: "The program is nested too deeply to parse; flatten it." });
      }
      throw error;
    }
    const resultText = await script.run(prepared.context, { promise: true, copy: true });
    // A program that only failed because a call hit the run's deadline ran out of time.
    if (Date.now() >= this.#deadlineAt) this.#end(this.#wallTimeout());
    return resultText;
  }

  /** Starts the watchdog (CPU time), the wall-time timer and the cancellation listener; returns the stop function. */
  #watch(isolate: ivm.Isolate): () => void {
    const { signal } = this.#options;
    const onAbort = (): void => this.#end({ code: "CANCELLED", message: "The run was cancelled." });
    signal?.addEventListener("abort", onAbort, { once: true });
    if (signal?.aborted) onAbort();
    const watchdog = setInterval(() => {
      if (isolate.isDisposed) return;
      if (Number(isolate.cpuTime) / 1e6 > this.#limits.cpuTimeMs) {
        this.#end({
          code: "CPU_LIMIT",
          message: `The program used more than ${this.#limits.cpuTimeMs} ms of CPU time; look for an endless loop or do less work per run.`,
        });
      }
    }, WATCHDOG_INTERVAL_MS);
    const wallTimer = setTimeout(() => this.#end(this.#wallTimeout()), this.#limits.wallTimeMs);
    return () => {
      clearInterval(watchdog);
      clearTimeout(wallTimer);
      signal?.removeEventListener("abort", onAbort);
    };
  }

  /** Ends the run for `error` unless it already ended: the isolate is disposed, so the script's promise settles. */
  #end(error: RunError): void {
    if (this.#ending !== undefined) return;
    this.#ending = error;
    if (this.#isolate !== undefined && !this.#isolate.isDisposed) this.#isolate.dispose();
  }

  #wallTimeout(): RunError {
    return {
      code: "TIMEOUT",
      message: `The program ran longer than ${this.#limits.wallTimeMs} ms; look for an endless loop or a call that never returns.`,
    };
  }

  /**
   * The run failed without us ending it: the isolate ran out of memory (V8 disposed it), the
   * program left a promise rejected before its first await (isolated-vm rejects the run with
   * that error: the program's own fault, located in its source), or the sandbox failed.
   */
  #sandboxFailure(isolate: ivm.Isolate, error: unknown): RunError {
    // isolated-vm copied this error out of the isolate itself (a rejection left unhandled
    // before the first await): cut it before anything else reads it.
    const message = capErrorText(String((error as Error | null)?.message ?? error));
    if (isolate.isDisposed || /memory limit|abandoned/i.test(message)) {
      return {
        code: "MEMORY_LIMIT",
        message: `The program exceeded the ${this.#limits.memoryLimitMb} MB memory limit; keep less data in memory at once.`,
      };
    }
    const fullStack = (error as Error | null)?.stack;
    const stack = typeof fullStack === "string" ? capErrorText(stackFrames(fullStack)) : undefined;
    if (stack?.includes(PROGRAM_FILE)) {
      const name = (error as Error).name || "Error";
      return locateRuntimeError("RUNTIME_ERROR", `Unhandled rejection: ${name}: ${message}`, stack, this.#program);
    }
    return { code: "INTERNAL_ERROR", message: `The sandbox failed: ${message}` };
  }

  #failedBeforeRunning(message: string): RunResult {
    return failedRunResult({
      programId: this.#options.programId,
      error: { code: "INTERNAL_ERROR", message },
      warnings: this.#options.warnings ?? [],
      catalogVersion: this.#options.catalogVersion,
      wallMs: performance.now() - this.#startedAt,
    });
  }

  #result(resultText: unknown, cpuMs: number): RunResult {
    const { output, outputBytes, error, returnedNothing } = this.#outcome(resultText);
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

  /** The program's output, or why there is none: our ending first, then what the guest reported. */
  #outcome(resultText: unknown): {
    output: JsonValue;
    outputBytes: number;
    error: RunError | undefined;
    returnedNothing?: boolean;
  } {
    if (this.#ending !== undefined) return { output: null, outputBytes: 0, error: this.#ending };
    const decoded = decodeProgramResult(resultText);
    if (!decoded.ok) {
      return {
        output: null,
        outputBytes: 0,
        error: locateRuntimeError(decoded.code, decoded.message, decoded.stack, this.#program),
      };
    }
    try {
      return {
        output: JSON.parse(decoded.outputJson) as JsonValue,
        outputBytes: Buffer.byteLength(decoded.outputJson),
        error: undefined,
        returnedNothing: decoded.returnedNothing === true,
      };
    } catch {
      return {
        output: null,
        outputBytes: 0,
        error: { code: "INTERNAL_ERROR", message: "The program's output could not be read." },
      };
    }
  }
}

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
function capRunError(error: RunError): RunError {
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
  const lineText = program.source.split("\n")[position.line - 1]?.trim().slice(0, 200) ?? "";
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
