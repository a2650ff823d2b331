// Switchyard: a session that holds a tool catalog and runs model-written programs against it.
// Configuration is checked in the constructor (bad tools, limits or rules throw there, before
// any model call); `run` and `callTool` resolve with results and never reject for anything a
// program or model does. One session shares one scheduler, so writes stay ordered across runs.

import { randomUUID } from "node:crypto";
import type { RunResult, ToolOutcome } from "./contract.js";
import { SwitchyardError } from "./errors.js";
import { executeToolCall, type PipelineContext } from "./execute-tool-call.js";
import { PermissionGate, type PermissionOptions } from "./permissions/permission-gate.js";
import type { ToolDefinition } from "./registry/define-tool.js";
import { ToolRegistry, type CatalogSnapshot } from "./registry/tool-registry.js";
import type { ResultBudgetOptions } from "./results/result-budget.js";
import { compileProgram } from "./sandbox/compile-program.js";
import { DEFAULT_RUN_LIMITS, runProgram, type RunLimits } from "./sandbox/run-program.js";
import { generateDeclarations } from "./schema/generate-declarations.js";
import { ToolScheduler, type SchedulerOptions } from "./scheduler/tool-scheduler.js";
import { TraceBus } from "./trace/trace-events.js";

export interface SwitchyardOptions {
  readonly tools?: readonly ToolDefinition[];
  /** Defaults for every run; `run(source, { limits })` overrides per run. */
  readonly limits?: Partial<RunLimits>;
  readonly permissions?: PermissionOptions;
  readonly scheduler?: SchedulerOptions;
  readonly results?: ResultBudgetOptions;
  /** Per-call timeout for tools that set none, in ms. Default 30 000. */
  readonly defaultToolTimeoutMs?: number;
  /** Total time budget of the session in ms; calls never outlive it. Default: none. */
  readonly sessionTimeMs?: number;
}

export interface RunOptions {
  /** Cancels the run: the program stops and every pending call resolves `CANCELLED`. */
  readonly signal?: AbortSignal;
  readonly limits?: Partial<RunLimits>;
}

export interface CallToolOptions {
  readonly signal?: AbortSignal;
  /** The model's own call id (e.g. `tool_use.id`); generated when absent. */
  readonly callId?: string;
  readonly timeoutMs?: number;
}

/** A Switchyard session; see the module comment. */
export class Switchyard {
  readonly registry: ToolRegistry;
  readonly trace = new TraceBus();
  readonly #limits: RunLimits;
  readonly #permissions: PermissionGate;
  readonly #scheduler: ToolScheduler;
  readonly #options: SwitchyardOptions;
  readonly #sessionDeadlineAt: number | undefined;
  readonly #sessionId = randomUUID().slice(0, 8);
  #runCount = 0;
  #callCount = 0;
  #declarations: { version: number; text: string } | undefined;

  constructor(options: SwitchyardOptions = {}) {
    this.#options = options;
    this.#limits = resolveLimits(DEFAULT_RUN_LIMITS, options.limits, "limits");
    this.#permissions = new PermissionGate(options.permissions);
    this.#scheduler = new ToolScheduler(options.scheduler);
    this.registry = new ToolRegistry(options.tools ?? []);
    this.#sessionDeadlineAt = options.sessionTimeMs === undefined ? undefined : Date.now() + options.sessionTimeMs;
  }

  /** TypeScript declarations of the `tools` object for the current catalog (cached per version). */
  declarations(): string {
    const snapshot = this.registry.snapshot();
    if (this.#declarations?.version !== snapshot.version) {
      this.#declarations = { version: snapshot.version, text: declarationsOf(snapshot) };
    }
    return this.#declarations.text;
  }

  /**
   * Compiles and runs a program against the current catalog snapshot. Resolves with a
   * RunResult whatever the program does; throws only for invalid `limits` (OPTION_INVALID).
   */
  async run(source: string, options: RunOptions = {}): Promise<RunResult> {
    const limits = resolveLimits(this.#limits, options.limits, "run limits");
    const snapshot = this.registry.snapshot();
    const programId = `${this.#sessionId}-p${++this.#runCount}`;
    const started = Date.now();
    this.trace.emit({ type: "program-start", programId, at: started, sourceBytes: Buffer.byteLength(source), catalogVersion: snapshot.version });
    const compiled = await compileProgram(String(source), { maxSourceBytes: limits.maxSourceBytes });
    let result: RunResult;
    if (!compiled.ok) {
      result = failedBeforeRun(programId, compiled.error, snapshot.version, Date.now() - started);
    } else {
      result = await runProgram(compiled.program, {
        programId,
        limits,
        pipeline: this.#pipeline(snapshot),
        signal: options.signal,
        catalogVersion: snapshot.version,
      });
    }
    this.trace.emit({
      type: "program-end",
      programId,
      at: Date.now(),
      ok: result.ok,
      code: result.error?.code,
      wallMs: result.stats.wallMs,
      toolCalls: result.stats.toolCalls,
    });
    return result;
  }

  /**
   * Runs one direct call (a model's tool_use) through the same pipeline programs use.
   * Resolves with exactly one outcome carrying `callId`; never rejects.
   */
  callTool(name: string, input: unknown, options: CallToolOptions = {}): Promise<ToolOutcome> {
    const id = options.callId ?? `${this.#sessionId}-c${++this.#callCount}`;
    const context = { ...this.#pipeline(this.registry.snapshot()), signal: options.signal };
    return executeToolCall({ id, tool: name, input, caller: "direct", ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }) }, context);
  }

  #pipeline(catalog: CatalogSnapshot): PipelineContext {
    return {
      catalog,
      permissions: this.#permissions,
      scheduler: this.#scheduler,
      trace: this.trace,
      budgets: { sessionDeadlineAt: this.#sessionDeadlineAt },
      ...(this.#options.defaultToolTimeoutMs === undefined ? {} : { defaultTimeoutMs: this.#options.defaultToolTimeoutMs }),
      ...(this.#options.results === undefined ? {} : { results: this.#options.results }),
    };
  }
}

/** The declaration text of a catalog snapshot. */
export function declarationsOf(snapshot: CatalogSnapshot): string {
  return generateDeclarations(
    snapshot.tools.map((tool) => ({
      name: tool.definition.name,
      namespaceIdentifier: tool.parsedName.namespaceIdentifier,
      localIdentifier: tool.parsedName.localIdentifier,
      description: tool.definition.description,
      inputSchema: tool.definition.inputSchema,
      ...(tool.definition.outputSchema === undefined ? {} : { outputSchema: tool.definition.outputSchema }),
      ...(tool.definition.inputExamples === undefined ? {} : { inputExamples: tool.definition.inputExamples }),
    })),
  );
}

function resolveLimits(base: RunLimits, overrides: Partial<RunLimits> | undefined, label: string): RunLimits {
  if (overrides === undefined) return base;
  const limits = { ...base };
  for (const [key, value] of Object.entries(overrides)) {
    if (!(key in base)) throw new SwitchyardError("OPTION_INVALID", `${label}.${key} is not a known limit; known: ${Object.keys(base).join(", ")}.`);
    if (value === undefined) continue;
    if (typeof value !== "number" || !Number.isFinite(value) || value <= 0) {
      throw new SwitchyardError("OPTION_INVALID", `${label}.${key} must be a positive number, got ${JSON.stringify(value)}.`);
    }
    (limits as Record<string, number>)[key] = value;
  }
  return limits;
}

function failedBeforeRun(programId: string, error: NonNullable<RunResult["error"]>, catalogVersion: number, wallMs: number): RunResult {
  return {
    ok: false,
    programId,
    output: null,
    logs: [],
    error,
    warnings: [],
    calls: [],
    stats: { wallMs, cpuMs: 0, toolCalls: 0, bytesIn: 0, bytesOut: 0 },
    catalogVersion,
  };
}
