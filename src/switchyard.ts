// Switchyard: a session that holds a tool catalog and runs model-written programs against it.
// Configuration is checked in the constructor (bad tools, limits or rules throw there, before
// any model call); `run` and `callTool` resolve with results and never reject for anything a
// program or model does. One session shares one scheduler, so writes stay ordered across runs.

import { type DurableOptions, DurableRun, type RunDecision } from "./durable/durable-run.js";
import type { RunJournal } from "./durable/run-journal.js";
import { defaultRunJournal, readRunHeader, startDurableRun } from "./durable/start-durable-run.js";
import { randomUUID } from "node:crypto";
import { setMaxListeners } from "node:events";
import { rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Diagnostic, HostedCaller, JsonSchema, RunError, RunResult, ToolOutcome } from "./contract.js";
import { SwitchyardError, messageOf } from "./errors.js";
import { executeToolCall, type PipelineContext } from "./execute-tool-call.js";
import { type Approver, PermissionGate, type PermissionOptions } from "./permissions/permission-gate.js";
import { findReferencedTools } from "./permissions/referenced-tools.js";
import type { ModelToolDefinition } from "./model-tools/model-tool-definition.js";
import { createProgramDiscovery } from "./model-tools/program-discovery.js";
import { describeProgramTool } from "./model-tools/run-program-tool.js";
import { redactRunError, redactRunResult } from "./redaction/redact-results.js";
import { Redactor, type RedactionOptions } from "./redaction/redactor.js";
import type { ToolDefinition } from "./registry/define-tool.js";
import { ToolRegistry, type CatalogSnapshot, type RegisteredTool } from "./registry/tool-registry.js";
import { createReadResultTool } from "./model-tools/read-result-tool.js";
import type { ResultBudgetOptions } from "./results/result-budget.js";
import { SpillStore } from "./results/spill-store.js";
import { type CompiledProgram, compileProgram } from "./program/compile-program.js";
import type { ContractDeclarations } from "./program/contract-declarations.js";
import { encodeProgramInput } from "./program/program-input.js";
import type { ProgramForm } from "./program/program-wrapper.js";
import { compileRunContract, type RunContract } from "./program/run-contract.js";
import { InProcessExecutor } from "./sandbox/in-process-executor.js";
import type { SandboxExecutor } from "./sandbox/sandbox-executor.js";
import { WorkerPool } from "./sandbox/worker-pool.js";
import { capRunError, DEFAULT_RUN_LIMITS, failedRunResult, runProgram, type RunLimits } from "./sandbox/run-program.js";
import { RunQueue, type RunQueueOptions, type RunTicket } from "./sandbox/run-queue.js";
import { TypeChecker } from "./program/type-checker.js";
import { generateDeclarations, RUNTIME_DECLARATIONS } from "./schema/generate-declarations.js";
import { ObservedOutputTypes, type ObservedType, type ObservedTypesOptions } from "./schema/observed-output-types.js";
import { OutputDrift } from "./schema/output-drift.js";
import { ToolScheduler, type SchedulerOptions } from "./scheduler/tool-scheduler.js";
import {
  Discovery,
  declarationToolOf,
  type CatalogStats,
  type DiscoveryOptions,
  type SearchToolsAnswer,
} from "./search/discovery.js";
import type { SearchResult, ToolSearchOptions } from "./search/tool-search.js";
import { SwitchyardTelemetry, type TelemetryOptions } from "./telemetry/switchyard-telemetry.js";
import { TraceBus } from "./trace/trace-events.js";

// The warning code stays importable from the session module, where it was first exported.
export { OUTPUT_DRIFT } from "./schema/output-drift.js";

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
   * session, so its worker, parsed lib and cache of finished checks serve them all. Give one to
   * set its limits (`new TypeChecker({ timeoutMs, memoryLimitMb, maxCachedChecks })`); the session
   * never closes it.
   */
  readonly typeChecker?: TypeChecker;
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

export type TypeCheckMode = "error" | "warn" | "off";

export interface RunOptions {
  /** Cancels the run: the program stops and every pending call resolves `CANCELLED`. */
  readonly signal?: AbortSignal;
  readonly limits?: Partial<RunLimits>;
  /** Overrides the session's `typeCheck` for this run. */
  readonly typeCheck?: TypeCheckMode;
  /** Called with the run's program id once it is assigned, before anything is compiled or run. */
  readonly onStart?: (programId: string) => void;
  /** Answers the `ask` decisions of this run's calls instead of the session's approver. */
  readonly approve?: Approver;
  /** The model's id for the `run_program` call this run answers; recorded on the run's span. */
  readonly toolCallId?: string;
  /**
   * The value the program reads as the constant `input`: JSON data (what `JSON.stringify` keeps;
   * `__proto__` keys dropped), copied into the sandbox, so the program has its own copy. Over
   * `limits.maxInputBytes` (1 MB) or `maxInputDepth` (64): `INPUT_TOO_LARGE`; a function, BigInt
   * or cycle: `INPUT_INVALID`; nothing runs. Without it, `input` is not defined.
   */
  readonly input?: unknown;
  /**
   * JSON Schema the input must match, checked before anything runs (`INPUT_INVALID` with every
   * failing path); the type checker declares `input` from it. Without it `input` is `any`.
   * A schema ajv cannot compile throws `SCHEMA_INVALID`.
   */
  readonly inputSchema?: JsonSchema;
  /**
   * JSON Schema the program's return value must match. The type checker declares it as the
   * program's return type (`ProgramOutput`), so a wrong shape is a `TYPE_ERROR` at its `return`
   * before anything runs; the value is validated when the program has returned (`OUTPUT_INVALID`
   * with every failing path; the output is then `null`). A schema ajv cannot compile throws
   * `SCHEMA_INVALID`.
   */
  readonly outputSchema?: JsonSchema;
  /**
   * Whose run this is, for the run queue's fair order: waiting runs are admitted round-robin
   * across keys (a client, a tenant, a batch). Default: the session's own key.
   */
  readonly callerKey?: string;
  /**
   * Makes the run durable under an id (see docs/durable-runs.md): every crossing is journaled;
   * a run whose id the journal holds is replayed from the start in a fresh isolate, its journaled
   * calls answered from the journal without calling the tools, then goes on live. A program that
   * no longer matches ends `REPLAY_DIVERGED`; an `ask` nobody answers in time ends `PAUSED`.
   */
  readonly durable?: DurableOptions;
}

/** What `resume` takes: a run's options, without the input and program the journal keeps. */
export interface ResumeOptions extends Omit<RunOptions, "input" | "durable"> {
  /** Decisions on the calls the run paused on. */
  readonly decisions?: readonly RunDecision[];
  /** The store, when not the session's. */
  readonly store?: RunJournal;
  /** See `DurableOptions.askTimeoutMs`. */
  readonly askTimeoutMs?: number;
}

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

/**
 * What `check` checks a program against: the same contract and settings a run takes, without
 * running anything.
 */
export interface CheckOptions extends Pick<RunOptions, "inputSchema" | "outputSchema" | "typeCheck" | "limits"> {
  /**
   * An input to check as a run checks it (JSON within limits, matching `inputSchema`); it also
   * declares `input`. Without one, only the program is checked.
   */
  readonly input?: unknown;
  /**
   * The program's runs will be given an input whose value is not known yet (a batch's): `input` is
   * declared (typed from `inputSchema`, else `any`) as in a run with one. Implied by `input` or
   * `inputSchema`. Default false: like a run without an input, a program that reads it is a TYPE_ERROR.
   */
  readonly hasInput?: boolean;
}

/** What `check` found: `error` is the one a run of the program would end with before running. */
export interface CheckResult {
  readonly ok: boolean;
  /** Set when `ok` is false: the RunError `run` would give (SYNTAX_ERROR, TYPE_ERROR with its line...). */
  readonly error?: RunError;
  /** Lint findings, and the type errors of `typeCheck: "warn"`, as a run would report them. */
  readonly warnings: readonly Diagnostic[];
}

/** A Switchyard session; see the module comment. */
export class Switchyard {
  readonly registry: ToolRegistry;
  readonly trace = new TraceBus();
  readonly discovery: Discovery;
  /** OpenTelemetry spans of this session's runs and calls; see SwitchyardOptions.telemetry. */
  readonly telemetry: SwitchyardTelemetry;
  /** The output types observed so far; undefined with `observedTypes: false`. */
  readonly observedTypes: ObservedOutputTypes | undefined;
  readonly #limits: RunLimits;
  readonly #permissions: PermissionGate;
  readonly #scheduler: ToolScheduler;
  readonly #options: SwitchyardOptions;
  #runJournal: RunJournal | undefined;
  readonly #sessionDeadlineAt: number | undefined;
  readonly #sessionId = randomUUID().slice(0, 8);
  #runCount = 0;
  #callCount = 0;
  // Both depend only on the catalog version and the observed types' revision; agents and
  // gateways ask for them every turn.
  #declarations: { version: number; observed: number; text: string } | undefined;
  #programTool: { version: number; observed: number; tool: ModelToolDefinition } | undefined;
  // One string while the declarations are unchanged, so contracts and checks find it by identity.
  #checked: { tools: string; text: string } | undefined;
  readonly #executor: SandboxExecutor;
  /** False for a WorkerPool passed in options: its owner closes it. */
  readonly #ownsExecutor: boolean;
  readonly #runQueue: RunQueue;
  /** Aborted by `close()`: the session's runs end, waiting or running. */
  #closing = closingController();
  #closed = false;
  readonly #active = new Set<Promise<RunResult>>();
  /** Where direct results over the budget go; `results.read` pages them back. */
  readonly #spill: SpillStore | undefined;
  /** True for the default temp-folder store, which the session removes on close. */
  readonly #ownsSpill: boolean;
  /** Undefined when the session's redaction is off. */
  readonly #redactor: Redactor | undefined;

  constructor(options: SwitchyardOptions = {}) {
    this.#options = options;
    this.telemetry = new SwitchyardTelemetry(this.trace, options.telemetry);
    const spill = options.results?.spill;
    // By default a session spills to a private temporary folder, created on first use, so a
    // large direct result becomes a preview and a handle rather than an error.
    this.#ownsSpill = spill === undefined;
    this.#spill =
      spill === false
        ? undefined
        : (spill ?? new SpillStore(join(tmpdir(), `switchyard-spill-${process.pid}-${this.#sessionId}`)));
    this.#runQueue = options.runQueue instanceof RunQueue ? options.runQueue : new RunQueue(options.runQueue);
    this.#ownsExecutor = !(options.workers instanceof WorkerPool);
    this.#executor = executorOf(options.workers);
    // The session's own workers start now, in the background, like the type checker's.
    if (this.#executor instanceof WorkerPool && this.#ownsExecutor) {
      const pool = this.#executor;
      setImmediate(() => {
        if (!this.#closed) pool.warmUp();
      });
    }
    this.#limits = this.#resolveLimits(DEFAULT_RUN_LIMITS, options.limits, "limits");
    this.#redactor = options.redaction === false ? undefined : new Redactor(options.redaction ?? {});
    this.#permissions = new PermissionGate(options.permissions);
    this.#scheduler = new ToolScheduler(options.scheduler);
    this.registry = new ToolRegistry(withResultReader(options.tools ?? [], this.#spill));
    this.observedTypes = options.observedTypes === false ? undefined : new ObservedOutputTypes(options.observedTypes);
    this.discovery = new Discovery(
      options.discovery,
      (name) => this.offers(name),
      (name) => this.observedTypes?.snapshot().get(name),
    );
    this.discovery.update(this.registry.snapshot());
    this.registry.onChange((snapshot) => this.discovery.update(snapshot));
    if ((options.typeCheck ?? "error") !== "off") warmUp(this.#checker());
    this.#sessionDeadlineAt = options.sessionTimeMs === undefined ? undefined : Date.now() + options.sessionTimeMs;
  }

  /**
   * TypeScript declarations of the `tools` object: every tool a program may call in the
   * current catalog, with the output types observed so far (cached per catalog version and
   * observed-types revision). Programs are type-checked against these.
   */
  declarations(): string {
    const snapshot = this.registry.snapshot();
    const observed = this.observedTypes?.revision ?? 0;
    if (this.#declarations?.version !== snapshot.version || this.#declarations.observed !== observed) {
      const text = declarationsOf(snapshot.tools, this.observedTypes?.snapshot());
      this.#declarations = { version: snapshot.version, observed, text };
    }
    return this.#declarations.text;
  }

  /**
   * The `run_program` tool for a model: instructions and the declarations of the tools loaded
   * up front (all of them for a small catalog). Byte-stable while the catalog is unchanged
   * and no observed output type changes (a tool's first result, a widening, or its count of
   * results passing 2, 10, 100 or 1,000).
   */
  programTool(): ModelToolDefinition {
    const version = this.registry.version;
    const observed = this.observedTypes?.revision ?? 0;
    if (this.#programTool?.version !== version || this.#programTool.observed !== observed) {
      const observedTypes = this.observedTypes?.snapshot();
      // A tool every call to which is denied is not advertised: the model would only waste turns on it.
      const offered = (name: string): boolean => this.offers(name);
      const upFront = this.discovery.upFrontTools().filter((tool) => offered(tool.definition.name));
      const deferring = this.discovery.deferring;
      const tool = describeProgramTool({
        declarations: `${RUNTIME_DECLARATIONS}\n${declarationsOf(upFront, observedTypes)}`,
        deferredNames:
          deferring && this.discovery.listsDeferredNames ? this.discovery.deferredNames().filter(offered) : [],
        deferring,
        limits: { maxConcurrentReads: this.#scheduler.maxConcurrentReads },
        observedTypes: upFront.some((tool) => hasObservedType(tool, observedTypes)),
      });
      this.#programTool = { version, observed, tool };
    }
    return this.#programTool.tool;
  }

  /** Whether a model may be offered `tool`: false when the permission rules deny every call to it. */
  offers(tool: string): boolean {
    return !this.#permissions.alwaysDenies(tool);
  }

  /** Searches the catalog for the host: references only, nothing is loaded. */
  searchTools(query: string, options: ToolSearchOptions = {}): SearchResult {
    return this.discovery.search(query, options);
  }

  /**
   * Answers a model's `search_tools` call: references plus the found tools' declarations.
   * Throws ToolError PATTERN_INVALID for a refused pattern.
   */
  searchAndLoad(query: string, options: ToolSearchOptions = {}): SearchToolsAnswer {
    return this.discovery.searchAndLoad(query, options);
  }

  /**
   * `searchAndLoad` for model-facing search tools: a regex runs off the event loop with a hard
   * deadline, and words are fused with the embedder's ranking when `discovery.embed` is set.
   * Rejects with ToolError PATTERN_INVALID for a refused or too slow pattern.
   */
  findAndLoad(query: string, options: ToolSearchOptions = {}): Promise<SearchToolsAnswer> {
    return this.discovery.findAndLoad(query, options);
  }

  /** Tools in the catalog, tokens of all their declarations and of those loaded now. */
  catalogStats(): CatalogStats {
    return this.discovery.stats();
  }

  /**
   * Compiles and runs a program against the current catalog snapshot. Resolves with a
   * RunResult whatever the program does or is given; throws only for invalid `limits`
   * (OPTION_INVALID) and a schema that does not compile (SCHEMA_INVALID).
   */
  run(source: string, options: RunOptions = {}): Promise<RunResult> {
    const running = this.#run(source, options);
    this.#active.add(running);
    void running.then(
      () => this.#active.delete(running),
      () => this.#active.delete(running),
    );
    return running;
  }

  async #run(source: string, options: RunOptions): Promise<RunResult> {
    const settings = this.#settingsOf(options, options.input !== undefined, "run limits");
    const snapshot = this.registry.snapshot();
    const programId = `${this.#sessionId}-p${++this.#runCount}`;
    const started = Date.now();
    const text = String(source);
    options.onStart?.(programId);
    const sourceBytes = Buffer.byteLength(text);
    const endSpan = this.telemetry.startRun({
      programId,
      catalogVersion: snapshot.version,
      sourceBytes,
      toolCallId: options.toolCallId,
    });
    this.trace.emit({
      type: "program-start",
      programId,
      at: started,
      sourceBytes,
      catalogVersion: snapshot.version,
    });
    const ran = await this.#compileCheckAndRun(text, { programId, snapshot, settings, started, options });
    // What leaves the run for a model: inside it, the program had every value whole.
    const result = this.#redactor === undefined ? ran : redactRunResult(this.#redactor, ran, this.trace);
    this.trace.emit({
      type: "program-end",
      programId,
      at: Date.now(),
      ok: result.ok,
      code: result.error?.code,
      wallMs: result.stats.wallMs,
      toolCalls: result.stats.toolCalls,
      ...(result.error === undefined
        ? {}
        : { line: result.error.line, message: result.error.message.slice(0, MAX_TRACED_ERROR_CHARS) }),
    });
    endSpan?.(result);
    return result;
  }

  /**
   * Resumes durable run `id` (paused, or cut short by a crash) from another process or another
   * day: runs the program its journal was started with, with its input, replaying the journal and
   * answering the calls it paused on with `decisions`. Resolves with the RunResult like `run`; a
   * run the store does not hold ends `JOURNAL_INVALID`.
   */
  async resume(id: string, options: ResumeOptions = {}): Promise<RunResult> {
    const { decisions, store, askTimeoutMs, ...runOptions } = options;
    const durable: DurableOptions = { id, decisions, store, askTimeoutMs };
    const header = await readRunHeader(this.#journalOf(durable), id);
    if ("code" in header) {
      return failedRunResult({
        programId: id,
        error: header,
        warnings: [],
        catalogVersion: this.registry.snapshot().version,
        wallMs: 0,
      });
    }
    const input = header.inputJson === undefined ? undefined : (JSON.parse(header.inputJson) as unknown);
    return this.run(header.source, { ...runOptions, ...(input === undefined ? {} : { input }), durable });
  }

  /** The store of a durable run: its own, else the session's. */
  #journalOf(durable: DurableOptions): RunJournal {
    return durable.store ?? (this.#runJournal ??= this.#options.runJournal ?? defaultRunJournal());
  }

  /**
   * Checks a program as `run` would before running it, and runs nothing: compile (SYNTAX_ERROR,
   * SOURCE_TOO_LARGE), the input when one is given (INPUT_TOO_LARGE, INPUT_INVALID), and the type
   * check with lint against the current declarations and the run's contract (TYPE_ERROR with
   * every diagnostic's line and column, TYPE_CHECK_FAILED). `error` is the one a run with the same
   * options would end with at those steps, message and positions alike. It takes no place in the
   * run queue, asks no permission, calls no tool and emits no trace event. Throws like `run`:
   * OPTION_INVALID for invalid `limits`, SCHEMA_INVALID for a schema that does not compile.
   */
  async check(source: string, options: CheckOptions = {}): Promise<CheckResult> {
    const hasInput = options.hasInput === true || options.input !== undefined;
    const settings = this.#settingsOf(options, hasInput, "check limits");
    const prepared = await this.#prepare(String(source), settings, {
      input: options.input,
      // A check without an input checks the program alone; a run without one is refused by its schema.
      missingInputFails: false,
    });
    if (prepared.ok) return { ok: true, warnings: prepared.warnings };
    // As the run's error leaves it: within the message limit, and redacted.
    const error = capRunError(prepared.error);
    return {
      ok: false,
      error: this.#redactor === undefined ? error : redactRunError(this.#redactor, error).error,
      warnings: prepared.warnings,
    };
  }

  /**
   * The stations before the sandbox, then the run:
   * 1. take a place in the run queue (RUN_QUEUE_FULL when it is full);
   * 2-4. prepare the program (`#prepare`, what `check` does too): the input, compile, type-check;
   * 5. show the whole program to `approveProgram`, if configured (PERMISSION_DENIED);
   * 6. wait for the run's turn and memory (CANCELLED if its signal fires first);
   * 7. run it in a fresh isolate (in this process or a worker's), every call through the pipeline;
   * 8. check its output against `outputSchema` (OUTPUT_INVALID).
   */
  async #compileCheckAndRun(
    source: string,
    run: {
      programId: string;
      snapshot: CatalogSnapshot;
      settings: RunSettings;
      started: number;
      options: RunOptions;
    },
  ): Promise<RunResult> {
    const { programId, snapshot, settings, started, options } = run;
    const { limits, contract } = settings;
    const failed = (error: RunError, warnings: readonly Diagnostic[] = []): RunResult =>
      failedRunResult({ programId, error, warnings, catalogVersion: snapshot.version, wallMs: Date.now() - started });

    const ticket = this.#runQueue.enter(options.callerKey ?? this.#sessionId);
    if (ticket === undefined) {
      return failed({
        code: "RUN_QUEUE_FULL",
        message: `${this.#runQueue.maxQueuedRuns} runs are already waiting to start; nothing ran. Run the program again once some have finished.`,
      });
    }
    try {
      const prepared = await this.#prepare(source, settings, { input: options.input, missingInputFails: true });
      if (!prepared.ok) return failed(prepared.error, prepared.warnings);
      const { program, inputJson, drift } = prepared;

      const toolNames = this.#permissions.approvesPrograms ? findReferencedTools(program.source, snapshot) : [];
      const approval = await this.#permissions.checkProgram(program.source, toolNames);
      if (!approval.allowed)
        return failed(
          { code: "PERMISSION_DENIED", message: `The program was not run: ${approval.reason}` },
          prepared.checkWarnings,
        );

      const closing = this.#closing.signal;
      const release = await admitUnlessAborted(ticket, limits.memoryLimitMb, [options.signal, closing]);
      if (release === undefined) {
        return failed(
          { code: "CANCELLED", message: "The run was cancelled before it started." },
          prepared.checkWarnings,
        );
      }
      let ran: RunResult;
      try {
        const durable =
          options.durable &&
          (await startDurableRun(this.#journalOf(options.durable), options.durable, {
            source: program.source,
            inputJson,
          }));
        if (durable !== undefined && !(durable instanceof DurableRun)) return failed(durable, prepared.checkWarnings);
        ran = await runProgram(program, {
          durable,
          programId,
          limits,
          pipeline: {
            ...this.#pipeline(snapshot),
            preapprovedTools: new Set(toolNames),
            approve: options.approve,
            ...(drift.observe === undefined ? {} : { observeOutput: drift.observe }),
          },
          signal: options.signal,
          closing,
          catalogVersion: snapshot.version,
          warnings: prepared.warnings,
          discovery: createProgramDiscovery(this),
          executor: this.#executor,
          inputJson,
        });
      } finally {
        release();
      }
      void this.observedTypes?.save();
      const drifted = drift.warnings(program.source, snapshot);
      const result = drifted.length === 0 ? ran : { ...ran, warnings: [...ran.warnings, ...drifted] };
      const outputError = result.ok ? contract.checkOutput(result.output) : undefined;
      return outputError === undefined ? result : { ...result, ok: false, output: null, error: outputError };
    } finally {
      ticket.leave();
    }
  }

  /**
   * What `run` and `check` share, everything before the sandbox that reads only the program:
   * 1. the input: JSON within limits, matching `inputSchema` (INPUT_TOO_LARGE, INPUT_INVALID;
   *    a missing input fails an `inputSchema` only with `missingInputFails`);
   * 2. compile (SYNTAX_ERROR, SOURCE_TOO_LARGE);
   * 3. type-check with lint against the declarations and the run's contract (TYPE_ERROR and
   *    TYPE_CHECK_FAILED in `error` mode; warnings otherwise).
   * Takes no run-queue place and asks no permission: the caller does what comes next.
   */
  async #prepare(
    source: string,
    settings: RunSettings,
    preparing: { input: unknown; missingInputFails: boolean },
  ): Promise<Prepared> {
    const { limits, contract, mode } = settings;
    const { input } = preparing;
    let inputJson: string | undefined;
    if (input !== undefined) {
      const encoded = encodeProgramInput(input, limits);
      if (!encoded.ok) return { ok: false, error: encoded.error, warnings: [] };
      inputJson = encoded.json;
    }
    const inputError =
      inputJson === undefined && !preparing.missingInputFails ? undefined : contract.checkInput(inputJson);
    if (inputError !== undefined) return { ok: false, error: inputError, warnings: [] };

    const compiled = await compileProgram(source, { maxSourceBytes: limits.maxSourceBytes });
    if (!compiled.ok) return { ok: false, error: compiled.error, warnings: [] };
    const program = compiled.program;

    // Taken with the declarations the check reads (no await between): results are compared
    // with the observed types this program was written and checked against.
    const drift = new OutputDrift(this.observedTypes);
    const check: TypeCheckOutcome =
      mode === "off"
        ? { errors: [], warnings: [] }
        : await this.#typeCheck(program.source, program.form, contract.types);
    if (mode === "error" && check.failure !== undefined)
      return { ok: false, error: { code: "TYPE_CHECK_FAILED", message: check.failure }, warnings: [] };
    if (mode === "error" && check.errors.length > 0) {
      // The compiler threw on this program: it was not checked, rather than found wrong.
      const crashed = check.errors.every((diagnostic) => diagnostic.code === CHECK_FAILED);
      return {
        ok: false,
        error: crashed
          ? { code: "TYPE_CHECK_FAILED", message: check.errors[0]!.message }
          : typeErrorOf(check.errors, program.source, contract),
        warnings: check.warnings,
      };
    }
    return {
      ok: true,
      program,
      inputJson,
      drift,
      warnings: [...check.errors, ...check.warnings],
      checkWarnings: check.warnings,
    };
  }

  /**
   * What a run (or a check) with `options` is held to: its limits over the session's, its contract
   * over the declarations, its type-check mode. Throws OPTION_INVALID, then SCHEMA_INVALID.
   */
  #settingsOf(
    options: Pick<RunOptions, "inputSchema" | "outputSchema" | "typeCheck" | "limits">,
    hasInput: boolean,
    label: string,
  ): RunSettings {
    const limits = this.#resolveLimits(this.#limits, options.limits, label);
    const contract = compileRunContract(
      { inputSchema: options.inputSchema, hasInput, outputSchema: options.outputSchema },
      this.#checkedDeclarations(),
    );
    return { limits, contract, mode: options.typeCheck ?? this.#options.typeCheck ?? "error" };
  }

  /** `resolveLimits`, and the memory limit must fit the run queue's budget, or the run could never start. */
  #resolveLimits(base: RunLimits, overrides: Partial<RunLimits> | undefined, label: string): RunLimits {
    const limits = resolveLimits(base, overrides, label);
    if (limits.memoryLimitMb > this.#runQueue.memoryBudgetMb) {
      throw new SwitchyardError(
        "OPTION_INVALID",
        `${label}.memoryLimitMb (${limits.memoryLimitMb}) is over the run queue's memoryBudgetMb (${this.#runQueue.memoryBudgetMb}); lower it or raise runQueue.memoryBudgetMb.`,
      );
    }
    return limits;
  }

  /**
   * Releases what the session holds: runs still in the sandbox end `CANCELLED` (each pending
   * call with its record) and are waited for, then the spare isolates and the default spill
   * folder with the results in it go (a store passed in options is left alone). Runs and calls
   * still work afterwards, without spares. Call before exiting the process.
   */
  async close(): Promise<void> {
    this.#closed = true;
    this.#closing.abort();
    await Promise.allSettled([...this.#active]);
    this.#closing = closingController();
    await this.observedTypes?.save();
    if (this.#ownsExecutor) await this.#executor.close();
    await this.discovery.close();
    if (this.#ownsSpill && this.#spill !== undefined) await rm(this.#spill.folder, { recursive: true, force: true });
  }

  /**
   * Runs one call from a model turn (a `tool_use`), or from a provider's hosted program with
   * `hostedCaller`, through the same pipeline programs use. Resolves with exactly one outcome
   * carrying `callId`; never rejects.
   */
  callTool(name: string, input: unknown, options: CallToolOptions = {}): Promise<ToolOutcome> {
    const id = options.callId ?? `${this.#sessionId}-c${++this.#callCount}`;
    const context = { ...this.#pipeline(this.registry.snapshot()), signal: options.signal, approve: options.approve };
    const call = {
      id,
      tool: name,
      input,
      ...(options.hostedCaller === undefined
        ? { caller: "direct" as const }
        : { caller: "hosted-program" as const, hostedCaller: options.hostedCaller }),
      ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
    };
    const outcome = this.telemetry.traceDirectCall(name, id, () => executeToolCall(call, context));
    if (this.observedTypes !== undefined) void outcome.then(() => this.observedTypes?.save());
    return outcome;
  }

  #checker(): TypeChecker {
    return this.#options.typeChecker ?? sharedTypeChecker();
  }

  /** What programs are checked against: the runtime declarations and the catalog's. */
  #checkedDeclarations(): string {
    const tools = this.declarations();
    if (this.#checked?.tools !== tools) this.#checked = { tools, text: `${RUNTIME_DECLARATIONS}\n${tools}` };
    return this.#checked.text;
  }

  async #typeCheck(source: string, form: ProgramForm, contract: ContractDeclarations): Promise<TypeCheckOutcome> {
    try {
      const diagnostics = await this.#checker().check(source, this.#checkedDeclarations(), {
        lint: true,
        form,
        contract,
      });
      return {
        errors: diagnostics.filter((diagnostic) => diagnostic.severity === "error"),
        warnings: diagnostics.filter((diagnostic) => diagnostic.severity === "warning"),
      };
    } catch (error) {
      // The check could not complete (it timed out, killed the worker twice, or the declarations
      // do not compile): in `error` mode the program does not run unchecked; in `warn` mode it
      // runs, and the run says it was not checked.
      const message = `The program was not type-checked: ${messageOf(error)}`;
      // A configuration error is the host's to fix; anything else came from this program's check.
      const advice = SwitchyardError.isInstance(error) ? "" : ` ${SIMPLIFY_ADVICE}`;
      return {
        errors: [],
        warnings: [{ line: 1, column: 1, code: TYPE_CHECK_UNAVAILABLE, message, severity: "warning" }],
        failure: `${message}\nIn typeCheck "error" mode a program that could not be checked does not run.${advice}`,
      };
    }
  }

  #pipeline(catalog: CatalogSnapshot): PipelineContext {
    return {
      catalog,
      permissions: this.#permissions,
      scheduler: this.#scheduler,
      trace: this.trace,
      budgets: { sessionDeadlineAt: this.#sessionDeadlineAt },
      ...(this.#options.defaultToolTimeoutMs === undefined
        ? {}
        : { defaultTimeoutMs: this.#options.defaultToolTimeoutMs }),
      results: resultBudgetOf(this.#options.results, this.#spill),
      redactor: this.#redactor,
      ...(this.observedTypes === undefined ? {} : { observeOutput: this.#observeOutput }),
    };
  }

  // Direct and hosted calls teach the observed types too; only a run's results can drift.
  readonly #observeOutput = (tool: string, value: unknown): void => {
    this.observedTypes?.observe(tool, value);
  };
}

/** The declaration text of the program-callable tools among `tools`, with their observed types. */
function declarationsOf(
  tools: readonly RegisteredTool[],
  observed: ReadonlyMap<string, ObservedType> | undefined,
): string {
  return generateDeclarations(
    tools
      .filter((tool) => tool.definition.callers.includes("program"))
      .map((tool) => declarationToolOf(tool, observed?.get(tool.definition.name))),
  );
}

/** Whether `tool` is declared with an observed output type (it has none of its own, and results came in). */
function hasObservedType(tool: RegisteredTool, observed: ReadonlyMap<string, ObservedType> | undefined): boolean {
  return tool.definition.outputSchema === undefined && observed?.get(tool.definition.name)?.schema.type !== undefined;
}

/** The controller `close()` aborts; every run of the session listens to it, so it has no listener cap. */
function closingController(): AbortController {
  const controller = new AbortController();
  setMaxListeners(0, controller.signal);
  return controller;
}

/** Waits for the run's admission until either signal fires (then `undefined`), with no listener left behind. */
async function admitUnlessAborted(
  ticket: RunTicket,
  memoryMb: number,
  signals: readonly (AbortSignal | undefined)[],
): Promise<(() => void) | undefined> {
  const waiting = new AbortController();
  const stop = (): void => waiting.abort();
  for (const signal of signals) {
    signal?.addEventListener("abort", stop, { once: true });
    if (signal?.aborted) stop();
  }
  try {
    return await ticket.admit(memoryMb, waiting.signal);
  } finally {
    for (const signal of signals) signal?.removeEventListener("abort", stop);
  }
}

function executorOf(workers: SwitchyardOptions["workers"]): SandboxExecutor {
  if (workers instanceof WorkerPool) return workers;
  if (workers === undefined || workers === 0) return new InProcessExecutor();
  if (!Number.isInteger(workers) || workers < 0) {
    throw new SwitchyardError(
      "OPTION_INVALID",
      `workers must be 0, a positive integer or a WorkerPool, got ${String(workers)}.`,
    );
  }
  return new WorkerPool({ size: workers });
}

function resolveLimits(base: RunLimits, overrides: Partial<RunLimits> | undefined, label: string): RunLimits {
  if (overrides === undefined) return base;
  const limits = { ...base };
  for (const [key, value] of Object.entries(overrides)) {
    if (!(key in base))
      throw new SwitchyardError(
        "OPTION_INVALID",
        `${label}.${key} is not a known limit; known: ${Object.keys(base).join(", ")}.`,
      );
    if (value === undefined) continue;
    if (typeof value !== "number" || !Number.isFinite(value) || value <= 0) {
      throw new SwitchyardError(
        "OPTION_INVALID",
        `${label}.${key} must be a positive number, got ${JSON.stringify(value)}.`,
      );
    }
    (limits as Record<string, number>)[key] = value;
  }
  return limits;
}

function resultBudgetOf(options: SwitchyardOptions["results"], spill: SpillStore | undefined): ResultBudgetOptions {
  const { spill: _configured, ...budgets } = options ?? {};
  return spill === undefined ? budgets : { ...budgets, spill };
}

/** Adds the `results.read` tool for direct callers, unless the tools already have one. */
function withResultReader(tools: readonly ToolDefinition[], spill: SpillStore | undefined): readonly ToolDefinition[] {
  if (spill === undefined || tools.some((tool) => tool.name === "results.read")) return tools;
  return [...tools, createReadResultTool(spill)];
}

let typeChecker: TypeChecker | undefined;

/** One checker per process: its worker keeps the parsed lib warm for every session. */
function sharedTypeChecker(): TypeChecker {
  return (typeChecker ??= new TypeChecker());
}

const warmedUp = new WeakSet<TypeChecker>();

/**
 * Starts a checker's worker and parses the ES2022 lib (about 0.5 s) once per checker, in the
 * background, so the first program of a session is not the one that pays for it.
 */
function warmUp(checker: TypeChecker): void {
  if (warmedUp.has(checker)) return;
  warmedUp.add(checker);
  setImmediate(() => void checker.check("return 0;", RUNTIME_DECLARATIONS).catch(() => undefined));
}

const MAX_REPORTED_DIAGNOSTICS = 10;
/** Characters of a failed run's message kept in its program-end trace event. */
const MAX_TRACED_ERROR_CHARS = 500;

/** The settings a run or a check resolved from its options; see `#settingsOf`. */
interface RunSettings {
  readonly limits: RunLimits;
  readonly contract: RunContract;
  readonly mode: TypeCheckMode;
}

/** A program ready for the sandbox, or the error a run of it ends with before it. */
type Prepared =
  | { readonly ok: false; readonly error: RunError; readonly warnings: readonly Diagnostic[] }
  | {
      readonly ok: true;
      readonly program: CompiledProgram;
      readonly inputJson: string | undefined;
      readonly drift: OutputDrift;
      /** What the run reports: the check's warnings, and its errors in `warn` mode. */
      readonly warnings: readonly Diagnostic[];
      /** The check's warnings alone, reported by a run refused before it starts. */
      readonly checkWarnings: readonly Diagnostic[];
    };

/** What a type check found, or why it could not complete. */
interface TypeCheckOutcome {
  readonly errors: readonly Diagnostic[];
  readonly warnings: readonly Diagnostic[];
  /** Set when the check could not complete: the message of TYPE_CHECK_FAILED. */
  readonly failure?: string;
}

/** The warning of a run whose check could not complete (in `warn` mode it ran anyway). */
const TYPE_CHECK_UNAVAILABLE = "type-check-unavailable";
/** The diagnostic the checker gives when the compiler threw on a program (see ProgramTypeChecker). */
const CHECK_FAILED = "CHECK_FAILED";

const SIMPLIFY_ADVICE = "Simplify its types (less recursion, smaller unions and literals) and try again.";

/** Most characters of the contract's types quoted under a type error that names them. */
const MAX_QUOTED_CONTRACT_CHARS = 2_000;

function typeErrorOf(errors: readonly Diagnostic[], source: string, contract: RunContract): RunError {
  const lines = source.split("\n");
  const shown = errors.slice(0, MAX_REPORTED_DIAGNOSTICS).map((diagnostic) => {
    const text = lines[diagnostic.line - 1]?.trim().slice(0, 160) ?? "";
    const code = typeof diagnostic.code === "number" ? `TS${diagnostic.code}` : diagnostic.code;
    return `line ${diagnostic.line}, column ${diagnostic.column}: ${diagnostic.message} (${code})\n    ${text}`;
  });
  const more =
    errors.length > MAX_REPORTED_DIAGNOSTICS ? `\n...and ${errors.length - MAX_REPORTED_DIAGNOSTICS} more` : "";
  const first = errors[0]!;
  // The model never saw ProgramInput or ProgramOutput declared: quote them when a message names them.
  const contractTypes = contract.types.declarations;
  const namesContract = contractTypes !== "" && shown.some((line) => /\bProgram(?:Input|Output)\d*\b/.test(line));
  const quoted = namesContract
    ? `\nThe run's input and output types:\n${contractTypes.length > MAX_QUOTED_CONTRACT_CHARS ? `${contractTypes.slice(0, MAX_QUOTED_CONTRACT_CHARS)}\n...` : contractTypes.trimEnd()}`
    : "";
  return {
    code: "TYPE_ERROR",
    message: `The program does not type-check against the tool declarations; nothing ran.\n${shown.join("\n")}${more}${quoted}`,
    line: first.line,
    column: first.column,
    diagnostics: errors,
  };
}
