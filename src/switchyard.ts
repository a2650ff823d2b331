// Switchyard: a session that holds a tool catalog and runs model-written programs against it.
// Configuration is checked in the constructor (bad tools, limits or rules throw there, before
// any model call); `run` and `callTool` resolve with results and never reject for anything a
// program or model does. One session shares one scheduler, so writes stay ordered across runs.

import { randomUUID } from "node:crypto";
import { setMaxListeners } from "node:events";
import { rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { RunResult, ToolOutcome } from "./contract.js";
import { SwitchyardError } from "./errors.js";
import type { CallToolOptions, SwitchyardOptions } from "./switchyard-options.js";
import { checkOptionShapes } from "./option-shapes.js";
import {
  type CheckOptions,
  type CheckResult,
  checkProgram,
  executeProgram,
  type ProgramContext,
  resumeRequest,
  type RunOptions,
  type RunSettings,
} from "./execute-program.js";
import { executeToolCall, type PipelineContext } from "./execute-tool-call.js";
import { PermissionGate } from "./permissions/permission-gate.js";
import type { ModelToolDefinition } from "./model-tools/model-tool-definition.js";
import { createProgramDiscovery } from "./model-tools/program-discovery.js";
import { describeProgramTool } from "./model-tools/run-program-tool.js";
import { readableKeyFilter, Redactor, toolNameRedaction } from "./redaction/redactor.js";
import { ToolRegistry, type CatalogSnapshot } from "./registry/tool-registry.js";
import { withResultReader } from "./model-tools/read-result-tool.js";
import type { ResultBudgetOptions } from "./results/result-budget.js";
import { SpillStore } from "./results/spill-store.js";
import { CheckedDeclarations } from "./program/checked-declarations.js";
import { compileRunContract } from "./program/run-contract.js";
import { InProcessExecutor } from "./sandbox/in-process-executor.js";
import type { SandboxExecutor } from "./sandbox/sandbox-executor.js";
import { WorkerPool } from "./sandbox/worker-pool.js";
import { DEFAULT_RUN_LIMITS, type RunLimits } from "./sandbox/run-program.js";
import { RunQueue } from "./sandbox/run-queue.js";
import type { TypeChecker } from "./program/type-checker.js";
import { sharedTypeChecker } from "./program/shared-type-checker.js";
import { resolveLimits } from "./sandbox/resolve-limits.js";
import { RUNTIME_DECLARATIONS } from "./schema/generate-declarations.js";
import { ObservedOutputTypes } from "./schema/observed-output-types.js";
import { ToolScheduler } from "./scheduler/tool-scheduler.js";
import {
  Discovery,
  declarationsOf,
  hasObservedType,
  type CatalogStats,
  type SearchToolsAnswer,
} from "./search/discovery.js";
import type { SearchResult, ToolSearchOptions } from "./search/tool-search.js";
import { SwitchyardTelemetry } from "./telemetry/switchyard-telemetry.js";
import { TraceBus } from "./trace/trace-events.js";
import { type SessionWarmUp, warmUpSession } from "./warm-up-session.js";

// The warning code and the run's option types stay importable from the session module, where
// they were first exported.
export { OUTPUT_DRIFT } from "./schema/output-drift.js";
export type { CheckOptions, CheckResult, RunOptions, TypeCheckMode } from "./execute-program.js";
export type { CallToolOptions, SwitchyardOptions } from "./switchyard-options.js";

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
  readonly #sessionDeadlineAt: number | undefined;
  readonly #sessionId = randomUUID().slice(0, 8);
  #runCount = 0;
  #callCount = 0;
  // Both depend only on the catalog version and the observed types' revision; agents and
  // gateways ask for them every turn.
  #declarations: { version: number; observed: number; text: string } | undefined;
  #programTool: { version: number; observed: number; tool: ModelToolDefinition } | undefined;
  /** What programs are checked against: per program, the declarations of the tools it uses. */
  readonly #checked = new CheckedDeclarations();
  readonly #executor: SandboxExecutor;
  /** False for a WorkerPool passed in options: its owner closes it. */
  readonly #ownsExecutor: boolean;
  readonly #runQueue: RunQueue;
  /** Aborted by `close()`: the session's runs end, waiting or running. */
  #closing = closingController();
  readonly #active = new Set<Promise<RunResult>>();
  /** Where direct results over the budget go; `results.read` pages them back. */
  readonly #spill: SpillStore | undefined;
  /** True for the default temp-folder store, which the session removes on close. */
  readonly #ownsSpill: boolean;
  /** Undefined when the session's redaction is off. */
  readonly #redactor: Redactor | undefined;
  /** What the session prepares in the background for its first run; stopped by `close()`. */
  readonly #warmUp: SessionWarmUp;

  constructor(options: SwitchyardOptions = {}) {
    this.#options = checkOptionShapes(options);
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
    this.#limits = resolveLimits(DEFAULT_RUN_LIMITS, options.limits, "limits", this.#runQueue.memoryBudgetMb);
    this.#redactor = options.redaction === false ? undefined : new Redactor(options.redaction ?? {});
    this.#permissions = new PermissionGate(options.permissions);
    this.#scheduler = new ToolScheduler(options.scheduler);
    this.registry = new ToolRegistry(withResultReader(options.tools ?? [], this.#spill));
    const showKey = readableKeyFilter(this.#redactor);
    this.trace.redactToolNames(toolNameRedaction(this.#redactor));
    this.observedTypes =
      options.observedTypes === false ? undefined : new ObservedOutputTypes(options.observedTypes, showKey);
    this.discovery = new Discovery(
      options.discovery,
      (name) => this.offers(name),
      (name) => this.observedTypes?.snapshot().get(name),
      () => this.#runQueue.stats().running > 0,
      (tools) => this.#checked.describe(this.registry.snapshot(), this.observedTypes?.snapshot(), tools),
    );
    this.discovery.update(this.registry.snapshot());
    this.registry.onChange((snapshot) => this.discovery.update(snapshot));
    this.#warmUp = warmUpSession(options, {
      checker: () => this.#checker(),
      catalog: () => this.registry.snapshot(),
      declarations: (catalog) => this.#checked.whole(catalog, this.observedTypes?.snapshot()),
      prepareDeclarations: () => this.#checked.warmUpStep(this.registry.snapshot(), this.observedTypes?.snapshot()),
      executor: this.#ownsExecutor ? this.#executor : undefined,
      memoryLimitMb: this.#limits.memoryLimitMb,
      redactor: this.#redactor,
      busy: () => this.#runQueue.stats().running > 0,
    });
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

  /**
   * Searches the catalog for the host: references only, nothing is loaded. A regex runs on a
   * worker thread while the caller waits at most its deadline (250 ms once the worker is up).
   */
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
    const forget = (): boolean => this.#active.delete(running);
    void running.then(forget, forget);
    return running;
  }

  async #run(source: string, options: RunOptions): Promise<RunResult> {
    const settings = this.#settingsOf(options, options.input !== undefined, "run limits");
    const snapshot = this.registry.snapshot();
    const programId = `${this.#sessionId}-p${++this.#runCount}`;
    return executeProgram(String(source), { programId, snapshot, settings, options }, this.#programContext());
  }

  /** Resumes durable run `id` with its journal's program and input (docs/durable-runs.md); resolves like `run`. */
  async resume(id: string, options: Parameters<typeof resumeRequest>[1] = {}): Promise<RunResult> {
    const resumed = await resumeRequest(id, options, this.#options.runJournal, this.registry);
    if (!("source" in resumed)) return resumed;
    return resumed.settle(this.run(resumed.source, resumed.options));
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
    return checkProgram(String(source), settings, options, this.#programContext());
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
    const limits = resolveLimits(this.#limits, options.limits, label, this.#runQueue.memoryBudgetMb);
    const contract = compileRunContract(
      { inputSchema: options.inputSchema, hasInput, outputSchema: options.outputSchema },
      () => this.#checked.contractTakenNames(this.registry.snapshot(), this.observedTypes?.snapshot()),
    );
    return { limits, contract, mode: options.typeCheck ?? this.#options.typeCheck ?? "error" };
  }

  /**
   * Releases what the session holds: runs still in the sandbox end `CANCELLED` (each pending
   * call with its record) and are waited for, then the spare isolates and the default spill
   * folder with the results in it go (a store passed in options is left alone). Runs and calls
   * still work afterwards, without spares. Call before exiting the process.
   */
  async close(): Promise<void> {
    this.#warmUp.stop();
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
   * carrying `callId`; never rejects (a name that is not a string, from plain JavaScript, names no tool).
   */
  callTool(name: string, input: unknown, options: CallToolOptions = {}): Promise<ToolOutcome> {
    const id = options.callId ?? `${this.#sessionId}-c${++this.#callCount}`;
    const context = { ...this.#pipeline(this.registry.snapshot()), signal: options.signal, approve: options.approve };
    const call = {
      id,
      tool: typeof name === "string" ? name : "",
      input,
      ...(options.hostedCaller === undefined
        ? { caller: "direct" as const }
        : { caller: "hosted-program" as const, hostedCaller: options.hostedCaller }),
      ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
    };
    const outcome = this.telemetry.traceDirectCall(call.tool, id, () => executeToolCall(call, context));
    if (this.observedTypes !== undefined) void outcome.catch(() => undefined).then(() => this.observedTypes?.save());
    return outcome;
  }

  #checker(): TypeChecker {
    return this.#options.typeChecker ?? sharedTypeChecker();
  }

  /** What a run or a check of this session needs: its resources, as execute-program.ts takes them. */
  #programContext(): ProgramContext {
    return {
      trace: this.trace,
      telemetry: this.telemetry,
      runQueue: this.#runQueue,
      permissions: this.#permissions,
      executor: this.#executor,
      redactor: this.#redactor,
      observedTypes: this.observedTypes,
      checker: this.#checker(),
      checkedDeclarations: (catalog) => this.#checked.scope(catalog, this.observedTypes?.snapshot()),
      catalog: () => this.registry.snapshot(),
      closing: () => this.#closing.signal,
      sessionKey: this.#sessionId,
      pipeline: (catalog) => this.#pipeline(catalog),
      discovery: () => createProgramDiscovery(this),
      runJournal: this.#options.runJournal,
    };
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

/** The controller `close()` aborts; every run of the session listens to it, so it has no listener cap. */
function closingController(): AbortController {
  const controller = new AbortController();
  setMaxListeners(0, controller.signal);
  return controller;
}

function executorOf(workers: SwitchyardOptions["workers"]): SandboxExecutor {
  if (workers instanceof WorkerPool) return workers;
  if (workers === undefined || workers === 0) return new InProcessExecutor();
  if (!Number.isInteger(workers) || workers < 0)
    throw new SwitchyardError(
      "OPTION_INVALID",
      `workers must be 0, a positive integer or a WorkerPool, got ${String(workers)}.`,
    );
  return new WorkerPool({ size: workers });
}

function resultBudgetOf(options: SwitchyardOptions["results"], spill: SpillStore | undefined): ResultBudgetOptions {
  const { spill: _configured, ...budgets } = options ?? {};
  return spill === undefined ? budgets : { ...budgets, spill };
}
