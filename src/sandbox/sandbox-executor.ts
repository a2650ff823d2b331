// The sandbox executor contract: where a run's isolate lives. The host side of a run (the tool
// bridge with its one record per call, the log, the result) stays in the session's process and
// reaches the isolate only through GuestBindings; an executor runs the compiled script in a fresh
// isolate, enforces the limits that need the isolate (wall time, CPU time, memory) and says how
// the script ended. A job and an ending are plain data, so both cross to a worker process as they are.

/**
 * What the guest runtime reaches on the host: one run's bridge, console sink and limits. Every
 * member takes and returns plain strings (or a promise of one), so the bindings can be
 * forwarded across a process boundary.
 */
export interface GuestBindings {
  /**
   * Starts the calls of an encoded batch (runtime/wire.ts `encodeCallBatch`) and answers with
   * an encoded answer (`encodeCallAnswers`) of every call ready now. The isolate is blocked
   * until it answers: it must not wait for a tool, except for a `mayWait` batch's one call, for a
   * short hold (tool-bridge.ts). A batch answered `later` does not block (its answer is not read). A promise is
   * allowed so the answer can come from another process. Batches are taken in the order sent. A
   * batch that opens a wait (`batchOpensWait`) is followed by a `wait` from the isolate's side.
   */
  submit(batchText: unknown): string | Promise<string>;
  /** Resolves with an encoded answer of calls that finished since the last answer, once one has. */
  wait(): Promise<string>;
  /** One console line; called for every line once the isolate has stopped (see `PreparedIsolate.dispose`). */
  log(level: unknown, text: unknown): void;
  /** The run's GuestConfig as JSON. */
  config(): string;
}

/** The limits an executor enforces itself, by disposing the isolate. */
export interface SandboxLimits {
  /** Wall-clock time from the isolate's start, in ms → `TIMEOUT`. */
  readonly wallTimeMs: number;
  /** CPU time of the isolate in ms, as cpu-meter.ts measures it → `CPU_LIMIT`. */
  readonly cpuTimeMs: number;
  /** V8 heap limit of the isolate, in MB → `MEMORY_LIMIT`; a guideline, as isolated-vm says. */
  readonly memoryLimitMb: number;
}

/**
 * One program for the sandbox. Whatever a run carries into the isolate travels here or in the
 * strings of its GuestBindings (the run's config, call answers): nothing else crosses.
 */
export interface SandboxJob {
  /** The compiled script (it evaluates to the guest runner's promise), run as `program.js`. */
  readonly script: string;
  readonly limits: SandboxLimits;
}

/** How the script ended, as the isolate's side saw it; the host turns it into a RunResult. */
export type SandboxEnding =
  /** The script ran to its end: `resultText` is the guest's encoded ProgramResult (`""` if it gave none). */
  | { readonly kind: "returned"; readonly resultText: string }
  /** A limit of `SandboxLimits` was hit and the isolate disposed. */
  | { readonly kind: "exceeded"; readonly limit: "TIMEOUT" | "CPU_LIMIT" | "MEMORY_LIMIT" }
  /** V8's parser gave up on the script (nesting deeper than its stack). */
  | { readonly kind: "unparsable" }
  /**
   * The program left a promise rejected before its first await; `stack` holds its frames (through
   * `program.js`) without the message; each text is cut at MAX_ERROR_TEXT_CHARS.
   */
  | { readonly kind: "rejected"; readonly name: string; readonly message: string; readonly stack: string }
  /** `stop()` ended it. */
  | { readonly kind: "stopped" }
  /** The executor was closed while the script ran. */
  | { readonly kind: "closed" }
  /** The sandbox itself failed: the isolate could not be made, or isolated-vm failed. */
  | { readonly kind: "failed"; readonly message: string }
  /** The process holding the isolate died (a signal, a native abort, out of memory). */
  | { readonly kind: "crashed"; readonly message: string };

export interface SandboxOutcome {
  readonly ending: SandboxEnding;
  /** CPU time the isolate used, in ms (0 when unknown, e.g. after a crash). */
  readonly cpuMs: number;
}

/** A job started by an executor. */
export interface SandboxExecution {
  /** Resolves once the isolate is gone (disposed, or its process dead); never rejects. */
  readonly outcome: Promise<SandboxOutcome>;
  /**
   * Ends the run now, for a reason the host knows (cancellation, the call limit): the isolate is
   * disposed and the outcome is `stopped`, unless the script had already ended. Idempotent.
   */
  stop(): void;
}

/** Runs jobs in fresh isolates; implemented in process and by a pool of worker processes. */
export interface SandboxExecutor {
  /**
   * Starts `job` in a fresh isolate whose guest runtime reaches the host through `bindings` only.
   * `onStarted` is called once the isolate is ready and the script about to run (a worker may
   * first have to start): the run's wall time counts from there, as the executor's does.
   */
  execute(job: SandboxJob, bindings: GuestBindings, onStarted?: () => void): SandboxExecution;
  /**
   * Prepares, in the background, what the first job would otherwise wait for (an isolate with
   * `memoryLimitMb` and the runtime's code cache, or worker processes); optional, never throws.
   */
  warmUp?(memoryLimitMb: number): void;
  /**
   * Says a job with `memoryLimitMb` is coming (its run is compiling and being checked): prepares
   * what it needs in the background, unless that is ready already. Optional, never throws; a job
   * that was not announced is still run, on resources made when it starts.
   */
  prepareNext?(memoryLimitMb: number): void;
  /**
   * Ends the runs still in progress (their outcome is `closed`), waits until their isolates are
   * gone and releases what the executor holds (spare isolates, processes). Jobs started later
   * still run, on resources made afresh.
   */
  close(): Promise<void>;
}
