// Runs one compiled program in a fresh isolate and always disposes it. A host watchdog
// enforces wall-clock and CPU time by disposing the isolate (isolated-vm's own `timeout`
// does not cover code after the first `await`). When the run ends, for any reason, pending
// calls are cancelled and each still gets its record. Nothing of the host reaches the guest
// but two References held in the guest runtime's closure.

import type { CallRecord, Diagnostic, JsonValue, RunError, RunErrorCode, RunResult } from "../contract.js";
import type { PipelineContext } from "../execute-tool-call.js";
import { decodeProgramResult } from "../../runtime/wire.js";
import type { GuestConfig } from "../../runtime/guest-runtime.js";
import type { CompiledProgram } from "../program/compile-program.js";
import { PROGRAM_FILE, toModelPosition } from "../program/program-wrapper.js";
import type { IsolatePool, PreparedIsolate } from "./isolate-pool.js";
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
  /** Where the fresh isolate comes from. */
  readonly isolates: IsolatePool;
}

const WATCHDOG_INTERVAL_MS = 10;

/** Runs a compiled program; resolves with its RunResult and never rejects for program faults. */
export async function runProgram(program: CompiledProgram, options: RunProgramOptions): Promise<RunResult> {
  const { limits } = options;
  const startedAt = performance.now();
  let prepared: PreparedIsolate;
  try {
    prepared = await options.isolates.take(limits.memoryLimitMb);
  } catch (error) {
    // No isolate could be made (the host is out of memory, or isolated-vm failed to load).
    const message = `The sandbox could not be created: ${messageOf(error)}`;
    return failedRunResult({
      programId: options.programId,
      error: { code: "INTERNAL_ERROR", message },
      warnings: options.warnings ?? [],
      catalogVersion: options.catalogVersion,
      wallMs: performance.now() - startedAt,
    });
  }
  const { isolate, context } = prepared;
  const runController = new AbortController();
  const logs: string[] = [];
  let logBytes = 0;
  let ending: RunError | undefined;

  const end = (error: RunError): void => {
    if (ending !== undefined) return;
    ending = error;
    if (!isolate.isDisposed) isolate.dispose();
  };

  // Calls never outlive the run: their deadlines nest inside the run's.
  const runDeadlineAt = Date.now() + limits.wallTimeMs;
  const wallTimeout = (): RunError => ({
    code: "TIMEOUT",
    message: `The program ran longer than ${limits.wallTimeMs} ms; look for an endless loop or a call that never returns.`,
  });
  const bridge = new ToolBridge({
    programId: options.programId,
    pipeline: {
      ...options.pipeline,
      signal: runController.signal,
      budgets: { ...options.pipeline.budgets, runDeadlineAt },
    },
    maxToolCalls: limits.maxToolCalls,
    maxArgumentBytes: limits.maxArgumentBytes,
    maxArgumentDepth: limits.maxArgumentDepth,
    maxPendingArgumentBytes: limits.maxPendingArgumentBytes,
    onCallLimit: () =>
      end({
        code: "TOOL_CALL_LIMIT",
        message: `The program made more than ${limits.maxToolCalls} tool calls; batch the work or narrow it.`,
      }),
    discovery: options.discovery,
  });
  // The guest bounds its logs and prefixes warn/error/debug lines with their level; this is the
  // host's own guard against a bypass: past either budget, one marker and nothing more.
  let logsCut = false;
  const onLog = (_level: unknown, text: unknown): void => {
    if (typeof text !== "string" || logsCut) return;
    const bytes = Buffer.byteLength(text) + 1;
    if (logs.length === limits.maxLogLines || logBytes + bytes > limits.maxLogBytes + 256) {
      logsCut = true;
      logs.push("[switchyard: log truncated]");
      return;
    }
    logBytes += bytes;
    logs.push(text);
  };
  const config: GuestConfig = {
    maxArgumentBytes: limits.maxArgumentBytes,
    maxOutputBytes: limits.maxOutputBytes,
    maxLogBytes: limits.maxLogBytes,
    maxLogLines: limits.maxLogLines,
  };
  const configJson = JSON.stringify(config);
  prepared.bind({ handle: bridge.handle, log: onLog, config: () => configJson });

  const onAbort = (): void => end({ code: "CANCELLED", message: "The run was cancelled." });
  options.signal?.addEventListener("abort", onAbort, { once: true });
  if (options.signal?.aborted) onAbort();

  const watchdog = setInterval(() => {
    if (isolate.isDisposed) return;
    if (Number(isolate.cpuTime) / 1e6 > limits.cpuTimeMs) {
      end({
        code: "CPU_LIMIT",
        message: `The program used more than ${limits.cpuTimeMs} ms of CPU time; look for an endless loop or do less work per run.`,
      });
    }
  }, WATCHDOG_INTERVAL_MS);
  const wallTimer = setTimeout(() => end(wallTimeout()), limits.wallTimeMs);

  let resultText: unknown;
  let cpuMs = 0;
  try {
    const script = await isolate.compileScript(program.script, { filename: PROGRAM_FILE });
    resultText = await script.run(context, { promise: true, copy: true });
    // A program that only failed because a call hit the run's deadline ran out of time.
    if (Date.now() >= runDeadlineAt) end(wallTimeout());
  } catch (error) {
    if (ending === undefined) {
      // Not ended by us: the isolate ran out of memory (V8 disposed it) or failed internally.
      const outOfMemory =
        isolate.isDisposed || /memory limit|abandoned/i.test(String((error as Error | null)?.message ?? ""));
      ending = outOfMemory
        ? {
            code: "MEMORY_LIMIT",
            message: `The program exceeded the ${limits.memoryLimitMb} MB memory limit; keep less data in memory at once.`,
          }
        : {
            code: "INTERNAL_ERROR",
            message: `The sandbox failed: ${String((error as Error | null)?.message ?? error)}`,
          };
    }
  } finally {
    clearInterval(watchdog);
    clearTimeout(wallTimer);
    options.signal?.removeEventListener("abort", onAbort);
    bridge.close();
    if (!isolate.isDisposed) cpuMs = Number(isolate.cpuTime) / 1e6;
    prepared.dispose();
    // Cancelling after the isolate is gone: late results have nowhere to go, but each call still gets its record.
    runController.abort();
    await bridge.settled();
  }

  const calls: CallRecord[] = bridge.records;
  const wallMs = performance.now() - startedAt;
  const outcome = ending === undefined ? decodeProgramResult(resultText) : undefined;
  let output: JsonValue = null;
  let error: RunError | undefined = ending;
  if (outcome !== undefined) {
    if (outcome.ok) {
      try {
        output = JSON.parse(outcome.outputJson) as JsonValue;
      } catch {
        error = { code: "INTERNAL_ERROR", message: "The program's output could not be read." };
      }
    } else {
      error = locateRuntimeError(outcome.code, outcome.message, outcome.stack, program);
    }
  }
  const outputBytes = error === undefined && outcome?.ok === true ? Buffer.byteLength(outcome.outputJson) : 0;
  return {
    ok: error === undefined,
    programId: options.programId,
    output,
    logs,
    ...(error === undefined ? {} : { error }),
    warnings: options.warnings ?? [],
    calls,
    stats: {
      wallMs: round(wallMs),
      cpuMs: round(cpuMs),
      toolCalls: calls.length,
      bytesIn: bridge.bytesIn,
      bytesOut: outputBytes + logBytes,
    },
    catalogVersion: options.catalogVersion,
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
    error: fields.error,
    warnings: fields.warnings,
    calls: [],
    stats: { wallMs: round(fields.wallMs), cpuMs: 0, toolCalls: 0, bytesIn: 0, bytesOut: 0 },
    catalogVersion: fields.catalogVersion,
  };
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
  return {
    code: runCode,
    message: `${message}\n  at line ${position.line}: ${lineText}`,
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
