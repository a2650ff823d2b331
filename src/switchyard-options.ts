// What a session is built from (SwitchyardOptions) and what a direct call takes (CallToolOptions):
// the documented option surface of `new Switchyard()` and `callTool`. Types only: the session
// checks every value in its constructor and throws OPTION_INVALID there, before any model call.

import type { RunJournal } from "./durable/run-journal.js";
import type { HostedCaller } from "./contract.js";
import type { TypeCheckMode } from "./execute-program.js";
import type { Approver, PermissionOptions } from "./permissions/permission-gate.js";
import type { TypeChecker } from "./program/type-checker.js";
import type { RedactionOptions } from "./redaction/redactor.js";
import type { ToolDefinition } from "./registry/define-tool.js";
import type { ResultBudgetOptions } from "./results/result-budget.js";
import type { SpillStore } from "./results/spill-store.js";
import type { RunLimits } from "./sandbox/run-program.js";
import type { RunQueue, RunQueueOptions } from "./sandbox/run-queue.js";
import type { WorkerPool } from "./sandbox/worker-pool.js";
import type { ObservedTypesOptions } from "./schema/observed-output-types.js";
import type { SchedulerOptions } from "./scheduler/tool-scheduler.js";
import type { DiscoveryOptions } from "./search/discovery.js";
import type { TelemetryOptions } from "./telemetry/switchyard-telemetry.js";

/** How a session is built; each option is checked by the constructor. */
export interface SwitchyardOptions {
  readonly tools?: readonly ToolDefinition[];
  /** Defaults for every run; `run(source, { limits })` overrides per run. */
  readonly limits?: Partial<RunLimits>;
  readonly permissions?: PermissionOptions;
  readonly scheduler?: SchedulerOptions;
  /**
   * Result budgets. `spill` defaults to a private folder under the OS temp dir (with a
   * `results.read` tool registered for direct callers); `spill: false` refuses oversized
   * direct results with RESULT_TOO_LARGE instead.
   */
  readonly results?: Omit<ResultBudgetOptions, "spill"> & { readonly spill?: SpillStore | false };
  /** Per-call timeout for tools that set none, in ms. Default 30 000. */
  readonly defaultToolTimeoutMs?: number;
  /** Total time budget of the session in ms; calls never outlive it. Default: none. */
  readonly sessionTimeMs?: number;
  /**
   * Type-check each program against the declarations before it runs: `error` refuses a
   * program with type errors (`TYPE_ERROR`, nothing runs), `warn` runs it and reports the
   * diagnostics as warnings, `off` skips the check. Default `error`.
   */
  readonly typeCheck?: TypeCheckMode;
  /**
   * The checker this session's programs go through. Default: one per process, shared by every
   * session, so its process, parsed lib and cache of finished checks serve them all. Give one to
   * set its limits (`new TypeChecker({ timeoutMs, memoryLimitMb, maxCachedChecks })`); the session
   * never closes it.
   */
  readonly typeChecker?: TypeChecker;
  /**
   * Start the type checker's process when the session is created, in the background, and warm it
   * (TypeScript loaded, lib parsed, a few programs checked: about 0.1 s to spawn and 0.5-1 s of one
   * core, then 100-150 MB of memory held), so the session's first program does not pay it. It
   * never blocks the session or keeps the process alive. Default true; `false` for a session that
   * may never run a program (a gateway listing tools): its first check then starts the checker.
   * Never started with `typeCheck: "off"`.
   */
  readonly warmUpTypeChecker?: boolean | undefined;
  /**
   * Prepare, in the background once the session is created, what its first run would otherwise
   * wait for: the type checker (see `warmUpTypeChecker`), esbuild's service, the runtime's code
   * cache and a spare isolate (or the session's own workers), ajv and the validators of the first 32
   * tools; about 0.3 s of host CPU in steps of a few ms, so the first run of a
   * process costs about what a later one does. It never blocks the session, delays a run or keeps
   * the process alive (what runs in the sandbox cannot use waits while they run), and `close()`
   * stops it. Default true; `false` prepares nothing (each first
   * use pays its own start-up), for a session that may never run a program.
   */
  readonly warmUp?: boolean | undefined;
  /** Deferred loading and search; see DiscoveryOptions. */
  readonly discovery?: DiscoveryOptions;
  /**
   * Secrets are replaced by `[REDACTED:<kind>]` in everything that goes to a model: direct
   * call results and errors, and a program's output, logs and error. On by default (common
   * credential formats); add `secrets` and `patterns`, or pass `false` to turn it off.
   * Programs still get whole values from their calls.
   */
  readonly redaction?: RedactionOptions | false;
  /**
   * OpenTelemetry spans of runs and calls. Default: the globally registered tracer provider, so
   * spans appear once one is registered and cost nothing before; `false` turns them off.
   */
  readonly telemetry?: TelemetryOptions | false;
  /**
   * The admission queue of this session's runs: a memory budget over the runs in the sandbox
   * (default 1 024 MB of isolate memory limits at once) and a bound on runs waiting (default 256;
   * beyond it a run ends `RUN_QUEUE_FULL`). Pass one RunQueue to several sessions to share both.
   */
  readonly runQueue?: RunQueueOptions | RunQueue;
  /**
   * Where programs run. `0` (the default): isolates in this process. `N`: in N worker processes
   * of the session's own, started as runs need them and ended by `close()`; a worker that dies
   * fails only its runs (`SANDBOX_CRASHED`) and is replaced. A WorkerPool: that pool, shared
   * with other sessions and closed by its owner. Tool calls always run in this process.
   */
  readonly workers?: number | WorkerPool;
  /**
   * Output types observed from the results of tools that declare no outputSchema, rendered in
   * their declarations (`<Namespace><Name>Observed`, commented as observed from N results and
   * not guaranteed) once a first result is in; a later result that does not fit adds an
   * `output-drift` warning to its run and widens the type. On by default, in memory;
   * `{ file }` keeps them across sessions; `false` leaves such tools resolving to `any`.
   */
  readonly observedTypes?: ObservedTypesOptions | false;
  /**
   * Where durable runs (`RunOptions.durable`) keep their journals. Default: a FileRunJournal in
   * `$SWITCHYARD_RUNS_DIR`, else `.switchyard/runs` in the current directory.
   */
  readonly runJournal?: RunJournal;
}

/** What `callTool` takes beside the tool name and input. */
export interface CallToolOptions {
  readonly signal?: AbortSignal;
  /** The model's own call id (e.g. `tool_use.id`); generated when absent. */
  readonly callId?: string;
  readonly timeoutMs?: number;
  /** Answers an `ask` decision for this call instead of the session's approver. */
  readonly approve?: Approver;
  /**
   * The provider's hosted program that made the call (Anthropic code execution, OpenAI
   * programmatic tool calling): the call is then made as `caller: "hosted-program"`, which
   * the tool's `callers` must admit, and its result gets the hosted budget. Default: a direct call.
   */
  readonly hostedCaller?: HostedCaller;
}
