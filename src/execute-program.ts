// The run pipeline in one function, the twin of execute-tool-call.ts: every program a session
// runs goes through the stations numbered at `executeProgram`, in that order, and ends with
// exactly one RunResult. It resolves, never rejects, for anything a program or its input can
// cause. The run's steps are numbered here once; each call the program makes is execute-tool-call.ts.

import type { Diagnostic, JsonSchema, RunError, RunResult } from "./contract.js";
import { checkDecisionsPending } from "./durable/decide-run.js";
import {
  checkAskTimeout,
  checkDecisions,
  type DurableOptions,
  DurableRun,
  type RunDecision,
} from "./durable/durable-run.js";
import type { JournaledCheck, OpenedJournal, ResumedRunRecord, RunJournal } from "./durable/run-journal.js";
import { JournalError } from "./durable/journal-error.js";
import { checkRunId } from "./durable/run-id.js";
import { defaultRunJournal, readJournaledCheck, startDurableRun } from "./durable/start-durable-run.js";
import type { PipelineContext } from "./execute-tool-call.js";
import type { Approver, PermissionGate } from "./permissions/permission-gate.js";
import { findReferencedTools } from "./permissions/referenced-tools.js";
import { type CompiledProgram, compileProgram } from "./program/compile-program.js";
import type { ScopedDeclarations } from "./program/checked-declarations.js";
import { checkBeforeCompiling, checkTypes, refusalOf, UNCHECKED } from "./program/check-types.js";
import {
  type CheckSubject,
  journaledCheckOf,
  type RecordedDeclarations,
  recordDeclarations,
  reuseJournaledCheck,
} from "./durable/check-fingerprint.js";
import { encodeProgramInput } from "./program/program-input.js";
import type { RunContract } from "./program/run-contract.js";
import type { TypeChecker } from "./program/type-checker.js";
import { redactDiagnostics, redactRunError, redactRunResult } from "./redaction/redact-results.js";
import type { Redactor } from "./redaction/redactor.js";
import type { CatalogSnapshot } from "./registry/tool-registry.js";
import { capRunError, failedRunResult, runProgram, type RunLimits } from "./sandbox/run-program.js";
import type { RunQueue, RunTicket } from "./sandbox/run-queue.js";
import type { SandboxExecutor } from "./sandbox/sandbox-executor.js";
import type { DiscoveryHandler } from "./sandbox/tool-bridge.js";
import type { ObservedOutputTypes } from "./schema/observed-output-types.js";
import { OutputDrift } from "./schema/output-drift.js";
import type { SwitchyardTelemetry } from "./telemetry/switchyard-telemetry.js";
import type { TraceBus } from "./trace/trace-events.js";

/** How a program is type-checked before it runs; see SwitchyardOptions.typeCheck. */
export type TypeCheckMode = "error" | "warn" | "off";

/** What a run takes beside its source; see `Switchyard.run`. */
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
  /**
   * The run's journal as the caller opened it in `store` (`store.open(id, undefined)`), for a
   * caller that checks the journal before it resumes (`resume_run` does): the resume runs from
   * what that one read found, under the lock it took, and closes its writer. Default: `resume`
   * opens the journal itself.
   */
  readonly journal?: OpenedJournal;
  /** See `DurableOptions.askTimeoutMs`. */
  readonly askTimeoutMs?: number;
  /**
   * Called when the store recorded how the resumed run ended where its starter reads it: a fleet
   * job's batch result (see `RunJournal.recordResumed`). Not called for a run that paused again.
   */
  readonly onRecorded?: (record: ResumedRunRecord) => void;
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

/** The settings a run or a check resolved from its options (the session's `#settingsOf`). */
export interface RunSettings {
  readonly limits: RunLimits;
  readonly contract: RunContract;
  readonly mode: TypeCheckMode;
}

/** What `checkProgram` needs from its session: the checker, the declarations, redaction. */
export interface CheckContext {
  readonly checker: TypeChecker;
  /**
   * The runtime declarations and those of `catalog` (or those chosen per program), read when the
   * check starts: a run's are its own snapshot's, the one it runs against, whatever changed since.
   */
  readonly checkedDeclarations: (catalog: CatalogSnapshot) => string | ScopedDeclarations;
  /** The catalog as it is now: what `check` checks against. */
  readonly catalog: () => CatalogSnapshot;
  /** Observed output types, for the output-drift warnings of a run's results. */
  readonly observedTypes: ObservedOutputTypes | undefined;
  /** Undefined when the session's redaction is off. */
  readonly redactor: Redactor | undefined;
}

/** Everything a run needs from its session: its resources, never the session itself. */
export interface ProgramContext extends CheckContext {
  readonly trace: TraceBus;
  readonly telemetry: SwitchyardTelemetry;
  readonly runQueue: RunQueue;
  readonly permissions: PermissionGate;
  readonly executor: SandboxExecutor;
  /** The signal the session's `close()` aborts, read when the run is about to wait for its turn. */
  readonly closing: () => AbortSignal;
  /** The run queue's key for a run that names no `callerKey`. */
  readonly sessionKey: string;
  /** The pipeline context of the run's calls, over its catalog snapshot. */
  readonly pipeline: (catalog: CatalogSnapshot) => PipelineContext;
  /** `tools.$search` and `tools.$describe` for one run (one per run: it carries the run's budget). */
  readonly discovery: () => DiscoveryHandler;
  /** Where durable runs keep their journals when a run names no store of its own; default `defaultRunJournal()`. */
  readonly runJournal?: RunJournal | undefined;
}

/** One run as its session assigned it: id, the catalog snapshot it runs against, settings, options. */
export interface ProgramRequest {
  readonly programId: string;
  readonly snapshot: CatalogSnapshot;
  readonly settings: RunSettings;
  readonly options: RunOptions;
}

/** Characters of a failed run's message kept in its program-end trace event. */
const MAX_TRACED_ERROR_CHARS = 500;

/**
 * Runs one program through the run pipeline and resolves with its single RunResult. Its record
 * opens first (`program-start`, the run's span), then:
 *
 * 1. Admit: take a place in the run queue (`RUN_QUEUE_FULL` when it is full).
 * 2. Compile: the input, JSON within limits and matching `inputSchema` (`INPUT_TOO_LARGE`,
 *    `INPUT_INVALID`), then the source (`SYNTAX_ERROR`, `SOURCE_TOO_LARGE`).
 * 3. Check: type-check with lint against the declarations and the run's contract (`TYPE_ERROR`,
 *    `TYPE_CHECK_FAILED` in `error` mode; warnings otherwise); a durable run whose journal holds a
 *    check of exactly this program, declarations, contract, checker and mode takes its findings
 *    from there. Steps 2 and 3 are `check` too.
 * 4. Approve: show the whole program to `approveProgram`, if configured (`PERMISSION_DENIED`).
 * 5. Run: wait for the run's turn and memory (`CANCELLED` if a signal fires first), then run it
 *    in a fresh isolate (in this process or a worker's), every call through `executeToolCall`.
 * 6. Validate output: against `outputSchema` (`OUTPUT_INVALID`), with output-drift warnings.
 * 7. Redact: secrets in the output, logs and error become `[REDACTED:<kind>]`; inside the run,
 *    the program had every value whole.
 * 8. Record: the `program-end` trace event and the end of the run's span.
 */
export async function executeProgram(
  source: string,
  request: ProgramRequest,
  context: ProgramContext,
): Promise<RunResult> {
  const { programId, snapshot, options } = request;
  const started = Date.now();
  options.onStart?.(programId);
  const sourceBytes = Buffer.byteLength(source);
  const endSpan = context.telemetry.startRun({
    programId,
    catalogVersion: snapshot.version,
    sourceBytes,
    toolCallId: options.toolCallId,
  });
  context.trace.emit({
    type: "program-start",
    programId,
    at: started,
    sourceBytes,
    catalogVersion: snapshot.version,
  });
  const ran = await admitAndRun(source, request, started, context);
  // 7. Redact.
  const result = context.redactor === undefined ? ran : redactRunResult(context.redactor, ran, context.trace);
  // 8. Record.
  context.trace.emit({
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
 * Steps 2 and 3 of a run, and nothing else: what `check` reports. `error` is the one a run with
 * the same options would end with at those steps, within the message limit and redacted.
 */
export async function checkProgram(
  source: string,
  settings: RunSettings,
  options: CheckOptions,
  context: CheckContext,
): Promise<CheckResult> {
  const prepared = await prepareProgram(source, settings, context, {
    input: options.input,
    // A check without an input checks the program alone; a run without one is refused by its schema.
    missingInputFails: false,
    journaled: undefined,
    journalsCheck: false,
    snapshot: context.catalog(),
  });
  // As the run's error and warnings leave it: within the message limit, and redacted.
  const { redactor } = context;
  const warnings =
    redactor === undefined
      ? prepared.warnings
      : redactDiagnostics(redactor, prepared.warnings, "warnings", "program-warnings").diagnostics;
  if (prepared.ok) return { ok: true, warnings };
  const error = capRunError(prepared.error);
  return { ok: false, error: redactor === undefined ? error : redactRunError(redactor, error).error, warnings };
}

/** Steps 1 to 6 of a run. */
async function admitAndRun(
  source: string,
  request: ProgramRequest,
  started: number,
  context: ProgramContext,
): Promise<RunResult> {
  const { programId, snapshot, settings, options } = request;
  const { limits, contract } = settings;
  const failed = (error: RunError, warnings: readonly Diagnostic[] = []): RunResult =>
    failedRunResult({ programId, error, warnings, catalogVersion: snapshot.version, wallMs: Date.now() - started });

  // 1. Admit.
  const ticket = context.runQueue.enter(options.callerKey ?? context.sessionKey);
  if (ticket === undefined) {
    return failed({
      code: "RUN_QUEUE_FULL",
      message: `${context.runQueue.maxQueuedRuns} runs are already waiting to start; nothing ran. Run the program again once some have finished.`,
    });
  }
  try {
    // Its isolate is made while it compiles and is checked (this thread waits), not while a run makes calls.
    context.executor.prepareNext?.(limits.memoryLimitMb);
    const { durable: asked } = options;
    const store = asked === undefined ? undefined : (asked.store ?? context.runJournal ?? defaultRunJournal());
    // 2. Compile and 3. Check.
    const prepared = await prepareProgram(source, settings, context, {
      input: options.input,
      missingInputFails: true,
      journaled:
        asked === undefined || store === undefined || settings.mode === "off"
          ? undefined
          : await readJournaledCheck(store, asked),
      journalsCheck: asked !== undefined,
      snapshot,
    });
    if (!prepared.ok) return failed(prepared.error, prepared.warnings);
    const { program, inputJson, drift, typeCheckedBy } = prepared;

    // 4. Approve.
    const toolNames = context.permissions.approvesPrograms ? findReferencedTools(program.source, snapshot) : [];
    const approval = await context.permissions.checkProgram(program.source, toolNames);
    if (!approval.allowed)
      return failed(
        { code: "PERMISSION_DENIED", message: `The program was not run: ${approval.reason}` },
        prepared.checkWarnings,
      );

    // 5. Run.
    const closing = context.closing();
    const release = await admitUnlessAborted(ticket, limits.memoryLimitMb, [options.signal, closing]);
    if (release === undefined) {
      return failed({ code: "CANCELLED", message: "The run was cancelled before it started." }, prepared.checkWarnings);
    }
    let ran: RunResult;
    try {
      const durable =
        asked &&
        store &&
        (await startDurableRun(store, asked, { ...program, inputJson, check: prepared.journaledCheck }));
      if (durable !== undefined && !(durable instanceof DurableRun)) return failed(durable, prepared.checkWarnings);
      ran = await runProgram(program, {
        durable,
        programId,
        limits,
        pipeline: {
          ...context.pipeline(snapshot),
          preapprovedTools: new Set(toolNames),
          approve: options.approve,
          ...(drift.observe === undefined ? {} : { observeOutput: drift.observe }),
        },
        signal: options.signal,
        closing,
        catalogVersion: snapshot.version,
        warnings: prepared.warnings,
        discovery: context.discovery(),
        executor: context.executor,
        inputJson,
      });
    } finally {
      release();
    }
    void context.observedTypes?.save();

    // 6. Validate output.
    const drifted = drift.warnings(program.source, snapshot);
    const checked = typeCheckedBy === undefined ? ran : { ...ran, stats: { ...ran.stats, typeCheckedBy } };
    const result = drifted.length === 0 ? checked : { ...checked, warnings: [...checked.warnings, ...drifted] };
    const outputError = result.ok ? contract.checkOutput(result.output) : undefined;
    return outputError === undefined ? result : { ...result, ok: false, output: null, error: outputError };
  } finally {
    ticket.leave();
  }
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
      /** What answered the check; undefined when there was none (`off`). */
      readonly typeCheckedBy: "checker" | "journal" | undefined;
      /** The check as a new durable run's journal keeps it, when asked for and it completed. */
      readonly journaledCheck: JournaledCheck | undefined;
    };

/** What `prepareProgram` takes beside the program: the input, and a durable run's journaled check. */
interface Preparing {
  readonly input: unknown;
  readonly missingInputFails: boolean;
  /** The check a durable run's journal holds, reused when it fingerprints this check exactly. */
  readonly journaled: JournaledCheck | undefined;
  /** Whether to return the check as a journal keeps it (a durable run's). */
  readonly journalsCheck: boolean;
  /** The catalog the program is checked against: a run's own snapshot. */
  readonly snapshot: CatalogSnapshot;
}

/**
 * Steps 2 and 3, what `executeProgram` and `checkProgram` share: everything before the sandbox
 * that reads only the program and its input (a missing input fails an `inputSchema` only with
 * `missingInputFails`). Takes no run-queue place and asks no permission.
 */
async function prepareProgram(
  source: string,
  settings: RunSettings,
  context: CheckContext,
  preparing: Preparing,
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

  const { journaled } = preparing;
  // Taken with the declarations the check reads (no await between): results are compared
  // with the observed types this program was written and checked against.
  let drift = new OutputDrift(context.observedTypes);
  // The check runs in its own process: when the compiler cannot change what it checks, it starts
  // now, beside the compile. Either way the program runs only once its answer is in. A journaled
  // check is compared once the program has compiled (its form is the compiler's): no early check.
  const recorded: RecordedDeclarations | undefined =
    mode === "off" || journaled !== undefined
      ? undefined
      : recordDeclarations(context.checkedDeclarations(preparing.snapshot));
  const early =
    recorded === undefined
      ? undefined
      : checkBeforeCompiling(context.checker, recorded.declarations, source, limits.maxSourceBytes, contract.types);
  const compiled = await compileProgram(source, { maxSourceBytes: limits.maxSourceBytes });
  if (!compiled.ok) return { ok: false, error: compiled.error, warnings: [] };
  const program = compiled.program;

  let check = UNCHECKED;
  let typeCheckedBy: "checker" | "journal" | undefined;
  // What a durable run's journal keeps of this check: the journaled one reused, or this one's.
  let journaledCheck: JournaledCheck | undefined;
  if (mode !== "off") {
    const subject: CheckSubject = { source: program.source, form: program.form, contract: contract.types, mode };
    const reused =
      early === undefined && journaled !== undefined
        ? reuseJournaledCheck(journaled, context.checkedDeclarations(preparing.snapshot), subject)
        : undefined;
    if (reused !== undefined) {
      drift = new OutputDrift(context.observedTypes);
      check = reused;
      typeCheckedBy = "journal";
      journaledCheck = journaled;
    } else {
      let checkedWith = recorded;
      if (early !== undefined && early.source === program.source && early.form === program.form) {
        check = await early.outcome;
      } else {
        drift = new OutputDrift(context.observedTypes);
        checkedWith = recordDeclarations(context.checkedDeclarations(preparing.snapshot));
        check = await checkTypes(
          context.checker,
          checkedWith.declarations,
          program.source,
          program.form,
          contract.types,
        );
      }
      typeCheckedBy = "checker";
      if (preparing.journalsCheck && checkedWith !== undefined)
        journaledCheck = journaledCheckOf(check, checkedWith, subject);
    }
  }
  const refusal = mode === "error" ? refusalOf(check, program.source, contract) : undefined;
  if (refusal !== undefined) return { ok: false, ...refusal };
  return {
    ok: true,
    program,
    inputJson,
    drift,
    warnings: [...check.errors, ...check.warnings],
    checkWarnings: check.warnings,
    typeCheckedBy,
    journaledCheck: preparing.journalsCheck ? journaledCheck : undefined,
  };
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

/** A resume ready to run: the journaled program, the run's options, and `settle`, to hand the run to. */
export interface ResumeRequest {
  readonly source: string;
  readonly options: RunOptions;
  /**
   * Waits for the resumed run, closes the journal's writer (its lock) if the run ended before it
   * took it over (a compile error), then has the store record how the run ended where its starter
   * reads it, unless it paused again (`RunJournal.recordResumed`), and tells `onRecorded`.
   * Resolves with the run's result; rejects when the store cannot record it.
   */
  settle(running: Promise<RunResult>): Promise<RunResult>;
}

/**
 * What `yard.resume` runs: the program and input run `id`'s journal was started with, read from
 * `options.store`, else `sessionStore`, else `defaultRunJournal()`, with the resume's options and
 * decisions; or, when the store holds no such run or a damaged one, the failed RunResult it ends with.
 */
export async function resumeRequest(
  id: string,
  { decisions, store: given, askTimeoutMs, journal, onRecorded, ...rest }: ResumeOptions,
  sessionStore: RunJournal | undefined,
  registry: { snapshot(): { readonly version: number } },
): Promise<ResumeRequest | RunResult> {
  checkRunId(id);
  checkDecisions(decisions);
  checkAskTimeout(askTimeoutMs);
  const store: RunJournal = given ?? sessionStore ?? defaultRunJournal();
  let error: RunError;
  let opened: OpenedJournal | undefined = journal;
  try {
    // The one read of the journal, under the run's lock, held until the run ends: nobody appends
    // (a decision, another resume) between what is read here and what is replayed.
    opened ??= await store.open(id, undefined);
    checkDecisionsPending(opened.journal, decisions);
    const { source, inputJson } = opened.journal.header;
    const input = inputJson === undefined ? {} : { input: parseJournaledInput(id, inputJson) };
    const durable = { id, decisions, store, askTimeoutMs, opened };
    const { writer } = opened;
    const settle = async (running: Promise<RunResult>): Promise<RunResult> => {
      const startedAt = Date.now();
      const result = await running.finally(() => writer.close());
      if (result.error?.code === "PAUSED" || store.recordResumed === undefined) return result;
      const recorded = await store.recordResumed(id, result, startedAt);
      if (recorded !== undefined) onRecorded?.(recorded);
      return result;
    };
    return { source, options: { ...rest, ...input, durable }, settle };
  } catch (thrown) {
    await opened?.writer.close();
    if (!JournalError.isInstance(thrown)) throw thrown;
    error = thrown.missing
      ? { code: "JOURNAL_INVALID", message: `No durable run ${id} in the store; nothing to resume.` }
      : { code: thrown.code, message: thrown.message };
  }
  return failedRunResult({
    programId: id,
    error,
    warnings: [],
    catalogVersion: registry.snapshot().version,
    wallMs: 0,
  });
}

/** The journaled input of run `id`; an edited one that is not JSON is a damaged journal. */
function parseJournaledInput(id: string, inputJson: string): unknown {
  try {
    return JSON.parse(inputJson) as unknown;
  } catch {
    throw new JournalError("JOURNAL_INVALID", `The journal of run ${id} keeps an input that is not JSON.`);
  }
}
