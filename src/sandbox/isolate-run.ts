// The isolate side of one run, shared by the in-process executor and the worker process: take a
// prepared isolate, bind the run's GuestBindings, watch it (CPU time through cpu-meter.ts, wall
// time), run the script, always dispose it, and say how it ended. A host watchdog is needed
// because isolated-vm's own `timeout` does not cover code after the first `await`. The first
// reason to end wins.

import type ivm from "isolated-vm";
import { capErrorText, readCallNote, stackFrames } from "../../runtime/wire.js";
import { PROGRAM_FILE } from "../program/program-wrapper.js";
import { watchCpu } from "./cpu-meter.js";
import type { IsolatePool } from "./isolate-pool.js";
import type { PreparedIsolate } from "./prepared-isolate.js";
import type { GuestBindings } from "./sandbox-executor.js";
import type { SandboxEnding, SandboxExecution, SandboxJob, SandboxOutcome } from "./sandbox-executor.js";

/** The name the guest runtime gives the errors of failed calls (runtime/guest-runtime.ts `makeError`). */
const TOOL_CALL_ERROR_NAME = "ToolCallError";
/** Characters of a rejected error's name kept (a program can set any name). */
const MAX_ERROR_NAME_CHARS = 200;

/** An execution that can also be ended by its executor's `close()`. */
export interface IsolateExecution extends SandboxExecution {
  /** Ends the run with the outcome `closed`, unless it already ended. */
  close(): void;
}

/** Runs `job` in an isolate from `isolates`; see the module comment. */
export function runInIsolate(
  job: SandboxJob,
  bindings: GuestBindings,
  isolates: IsolatePool,
  onStarted?: () => void,
): IsolateExecution {
  const run = new IsolateRun(job, bindings);
  const outcome = run.execute(isolates, onStarted);
  return { outcome, stop: () => run.end({ kind: "stopped" }), close: () => run.end({ kind: "closed" }) };
}

class IsolateRun {
  readonly #job: SandboxJob;
  readonly #bindings: GuestBindings;
  #prepared: PreparedIsolate | undefined;
  #ending: SandboxEnding | undefined;

  constructor(job: SandboxJob, bindings: GuestBindings) {
    this.#job = job;
    this.#bindings = bindings;
  }

  async execute(isolates: IsolatePool, onStarted: (() => void) | undefined): Promise<SandboxOutcome> {
    let prepared: PreparedIsolate;
    try {
      prepared = await isolates.take(this.#job.limits.memoryLimitMb);
    } catch (error) {
      // No isolate could be made (the host is out of memory, or isolated-vm failed to load).
      return { ending: { kind: "failed", message: `The sandbox could not be created: ${textOf(error)}` }, cpuMs: 0 };
    }
    if (this.#ending !== undefined) {
      // Stopped while the isolate was being taken: nothing ran.
      prepared.dispose();
      return { ending: this.#ending, cpuMs: 0 };
    }
    this.#prepared = prepared;
    prepared.bind(this.#bindings);
    onStarted?.();
    const stopWatching = this.#watch(prepared.isolate);
    let resultText: unknown;
    let cpuMs = 0;
    try {
      resultText = await this.#runScript(prepared);
    } catch (error) {
      this.#ending ??= failureOf(prepared.isolate, error);
    } finally {
      // The meter's measure, not isolated-vm's reading: the isolate's thread may still be in the
      // last stretch of work (its epilogue) when the script's promise settles here.
      cpuMs = stopWatching();
      prepared.dispose();
    }
    return {
      ending: this.#ending ?? { kind: "returned", resultText: typeof resultText === "string" ? resultText : "" },
      cpuMs,
    };
  }

  /**
   * Ends the run for `ending` unless it already ended: the isolate is disposed (after the crossing
   * the guest may be blocked in is settled, see PreparedIsolate.dispose), so the script's promise settles.
   */
  end(ending: SandboxEnding): void {
    if (this.#ending !== undefined) return;
    this.#ending = ending;
    this.#prepared?.dispose();
  }

  async #runScript(prepared: PreparedIsolate): Promise<unknown> {
    let script: ivm.Script;
    try {
      script = await prepared.isolate.compileScript(this.#job.script, { filename: PROGRAM_FILE });
    } catch (error) {
      // V8's parser gave up (nesting deeper than its stack): the program's fault, not the sandbox's.
      if (!prepared.isolate.isDisposed && /call stack/i.test(textOf(error))) this.end({ kind: "unparsable" });
      throw error;
    }
    return await script.run(prepared.context, { promise: true, copy: true });
  }

  /** Starts the CPU watch and the wall-time timer; returns the stop function, which gives the CPU estimate in ms. */
  #watch(isolate: ivm.Isolate): () => number {
    const { cpuTimeMs, wallTimeMs } = this.#job.limits;
    const cpu = watchCpu(isolate, cpuTimeMs, () => this.end({ kind: "exceeded", limit: "CPU_LIMIT" }));
    const wallTimer = setTimeout(() => this.end({ kind: "exceeded", limit: "TIMEOUT" }), wallTimeMs);
    return () => {
      clearTimeout(wallTimer);
      return cpu.stop();
    };
  }
}

/**
 * The run failed without anyone ending it: the isolate ran out of memory (V8 disposed it), the
 * program left a promise rejected before its first await (isolated-vm rejects the run with that
 * error: the program's own fault, located later in its source), or the sandbox failed. After
 * `dispose()` a pending run rejects with `null`, hence the care in reading `error`. isolated-vm
 * copied a rejection's error out of the isolate whole: its texts are cut here, before they go
 * anywhere (to the host's result, or over IPC from a worker).
 */
function failureOf(isolate: ivm.Isolate, error: unknown): SandboxEnding {
  const message = capErrorText(textOf(error));
  if (isolate.isDisposed || /memory limit|abandoned/i.test(message)) return { kind: "exceeded", limit: "MEMORY_LIMIT" };
  const fullStack = (error as Error | null)?.stack;
  // Frames apart from the message, so a long message cannot push the program's line out of the cut.
  const stack = typeof fullStack === "string" ? capErrorText(stackFrames(fullStack)) : undefined;
  const name = capErrorText(String((error as Error | null)?.name || "Error"), MAX_ERROR_NAME_CHARS);
  // A failed tool call the program never handled is the program's fault too, though the error
  // was made by the guest runtime when the answer came (its stack has no line of the program).
  if (stack?.includes(PROGRAM_FILE) || name === TOOL_CALL_ERROR_NAME) {
    // A failed tool call's note (code, tool, call id) crosses in a frame of its own.
    const note = stack === undefined ? undefined : readCallNote(stack);
    if (note !== undefined)
      return { kind: "rejected", name: "ToolCallError", message: `${message} (${note})`, stack: stack ?? "" };
    return { kind: "rejected", name, message, stack: stack ?? "" };
  }
  return { kind: "failed", message: `The sandbox failed: ${message}` };
}

function textOf(error: unknown): string {
  return String((error as Error | null)?.message ?? error);
}
