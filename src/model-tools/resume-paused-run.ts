// Answers `resume_run`: checks that the id is one this surface minted, reads the run's journal
// once, under its lock (held until the resumed run ends), gathers decisions on its pending calls
// (a person's already journaled, the call's own, a person asked now), then resumes it through the
// session's one pipeline (`yard.resume`). A model never names another surface's run, decides a
// call that is not pending, or approves unless allowed.

import type { CallError, JsonSchema, RunResult } from "../contract.js";
import type { RunDecision } from "../durable/durable-run.js";
import { summarizeJournal } from "../durable/summarize-journal.js";
import { JournalError } from "../durable/journal-error.js";
import { callIdAt, isRunId } from "../durable/run-id.js";
import { decisionsSincePause } from "../durable/decide-run.js";
import type { OpenedJournal, PendingRequest, RunJournal } from "../durable/run-journal.js";
import { defaultRunJournal } from "../durable/start-durable-run.js";
import type { ResumeOptions } from "../execute-program.js";
import type { Approver } from "../permissions/permission-gate.js";
import type { RunLimits } from "../sandbox/run-program.js";
import { isMintedRunId, type ModelDurableOptions } from "./model-durable-runs.js";
import { readResumeRunRequest, RESUME_RUN_TOOL } from "./resume-run-tool.js";

/** What resuming needs of a session (a Switchyard fits). */
export interface ResumeRunHost {
  resume(id: string, options?: ResumeOptions): Promise<RunResult>;
}

/** One resume_run call as a surface received it. */
export interface ResumeRunCall {
  /** The arguments as the model sent them: unchecked. */
  readonly input: unknown;
  readonly durable: ModelDurableOptions;
  readonly signal?: AbortSignal | undefined;
  readonly limits?: Partial<RunLimits> | undefined;
  readonly outputSchema?: JsonSchema | undefined;
  readonly onStart?: ((programId: string) => void) | undefined;
  /** Answers the `ask` decisions the resumed run meets beyond its pending calls. Default: the session's approver. */
  readonly approve?: Approver | undefined;
  /** Asks a person about one pending call; absent when nobody can be asked. */
  readonly askPerson?: PersonAsker | undefined;
}

/**
 * Asks a person about one pending call of run `runId` (MCP elicitation); resolves with their
 * decision, or undefined when they gave none (dismissed, timed out, an answer of another shape).
 */
export type PersonAsker = (runId: string, request: PendingRequest) => Promise<RunDecision | undefined>;

/** The resumed run, or why nothing was resumed. */
export type ResumeRunAnswer =
  | { readonly ok: true; readonly run: RunResult; readonly source: string }
  | { readonly ok: false; readonly error: CallError };

// Runs some resume_run of this process is resuming now: a second one is RUN_BUSY at once,
// before it asks anybody anything. Ids are 128 random bits, so one set serves every store.
const resumingHere = new Set<string>();

/** Answers one resume_run call; see the module comment. Never rejects for what the model sends. */
export async function resumePausedRun(host: ResumeRunHost, call: ResumeRunCall): Promise<ResumeRunAnswer> {
  const read = readResumeRunRequest(call.input);
  if (!read.ok) return read;
  const { runId } = read.value;
  // A hostile id (a path, a NUL byte) is refused by its form, before any store sees it.
  if (!isRunId(runId))
    return refuse(
      "INPUT_INVALID",
      `runId ${JSON.stringify(String(runId).slice(0, 60))} is not a run id; pass the id a PAUSED result gave.`,
    );
  if (!isMintedRunId(call.durable, runId)) return notFound(runId);
  if (resumingHere.has(runId)) return busy(runId);
  resumingHere.add(runId);
  try {
    return await resumeOwned(host, call, runId, read.value.decisions ?? []);
  } finally {
    resumingHere.delete(runId);
  }
}

async function resumeOwned(
  host: ResumeRunHost,
  call: ResumeRunCall,
  runId: string,
  given: readonly RunDecision[],
): Promise<ResumeRunAnswer> {
  const store = storeOf(call.durable);
  let opened: OpenedJournal;
  try {
    // The one read of the journal, under the run's lock, held through the person's answers and the
    // resumed run: no decision or other resume lands between what is checked here and what runs.
    opened = await store.open(runId, undefined);
  } catch (error) {
    if (!JournalError.isInstance(error)) throw error;
    if (error.missing) return notFound(runId);
    if (error.code === "RUN_BUSY") return busy(runId);
    return refuse(error.code, error.message);
  }
  try {
    return await resumeOpened(host, call, runId, given, store, opened);
  } finally {
    await opened.writer.close();
  }
}

async function resumeOpened(
  host: ResumeRunHost,
  call: ResumeRunCall,
  runId: string,
  given: readonly RunDecision[],
  store: RunJournal,
  opened: OpenedJournal,
): Promise<ResumeRunAnswer> {
  const { journal } = opened;
  const summary = summarizeJournal(journal);
  if (summary.state === "ended")
    return refuse(
      "RUN_FINISHED",
      `Run ${runId} has already ended (${summary.ok === true ? "ok" : `failed ${summary.code ?? ""}`.trim()}); there is nothing to resume.`,
    );
  const pending = new Map(summary.pending.map((request) => [request.position, request]));
  const decidedByPerson = decisionsSincePause(journal);
  const checked = checkGiven(runId, given, pending, decidedByPerson, call.durable.modelApprovals === true);
  if (!checked.ok) return checked;
  const decisions: RunDecision[] = [...given];
  const undecided = [...pending.values()].filter(
    (request) => !decidedByPerson.has(request.position) && !given.some((d) => d.position === request.position),
  );
  const unanswered = new Set<number>();
  const { askPerson } = call;
  for (const request of askPerson === undefined ? [] : undecided) {
    // One form at a time: a person answers them in order, not ten dialogs at once.
    const decision = await askPerson!(runId, request);
    if (decision === undefined) unanswered.add(request.position);
    else decisions.push(decision);
  }
  const run = await host.resume(runId, {
    store,
    journal: opened,
    ...(decisions.length === 0 ? {} : { decisions }),
    ...(call.durable.askTimeoutMs === undefined ? {} : { askTimeoutMs: call.durable.askTimeoutMs }),
    ...(call.signal === undefined ? {} : { signal: call.signal }),
    ...(call.limits === undefined ? {} : { limits: call.limits }),
    ...(call.outputSchema === undefined ? {} : { outputSchema: call.outputSchema }),
    ...(call.onStart === undefined ? {} : { onStart: call.onStart }),
    ...(call.approve === undefined ? {} : { approve: laterFor(runId, unanswered, call.approve) }),
  });
  if (run.error?.code === "RUN_BUSY") return busy(runId);
  return { ok: true, run, source: journal.header.source };
}

/** The call's own decisions: each for a pending call, once, not against a person's; approvals only when allowed. */
function checkGiven(
  runId: string,
  given: readonly RunDecision[],
  pending: ReadonlyMap<number, PendingRequest>,
  decidedByPerson: ReadonlySet<number>,
  modelApprovals: boolean,
): { readonly ok: true } | { readonly ok: false; readonly error: CallError } {
  const waiting = [...pending.keys()].join(", ") || "none";
  const seen = new Set<number>();
  for (const decision of given) {
    if (!pending.has(decision.position))
      return refuse(
        "INPUT_INVALID",
        `Run ${runId} does not wait for a decision on call ${decision.position}; it waits for call(s) ${waiting}. Nothing was resumed.`,
      );
    if (seen.has(decision.position))
      return refuse("INPUT_INVALID", `Call ${decision.position} is decided twice. Nothing was resumed.`);
    seen.add(decision.position);
    if (decision.approved && !modelApprovals)
      return refuse(
        "PERMISSION_DENIED",
        `${RESUME_RUN_TOOL} cannot approve call ${decision.position}: a person must (the client's approval form, or \`switchyard runs approve ${runId} ${decision.position}\`). Denials are taken; call ${RESUME_RUN_TOOL} without decisions once a person has decided. Nothing was resumed.`,
      );
    if (decidedByPerson.has(decision.position))
      return refuse(
        "INPUT_INVALID",
        `A person already decided call ${decision.position} of run ${runId}; leave it out. Nothing was resumed.`,
      );
  }
  return { ok: true };
}

/** `approve`, except that the pending calls nobody answered just now pause again instead of being asked twice. */
function laterFor(runId: string, unanswered: ReadonlySet<number>, approve: Approver): Approver {
  const later = new Set([...unanswered].map((position) => callIdAt(runId, position)));
  return (request) => (later.has(request.callId) ? "later" : approve(request));
}

/** The surface's store: its own, else the default folder's (the same the command line reads). */
export function storeOf(durable: ModelDurableOptions): RunJournal {
  return durable.store ?? defaultRunJournal();
}

function notFound(runId: string): ResumeRunAnswer {
  return refuse("RUN_NOT_FOUND", `No paused run ${runId} here: pass the runId a PAUSED result of this surface gave.`);
}

function busy(runId: string): ResumeRunAnswer {
  return refuse("RUN_BUSY", `Run ${runId} is being run or resumed right now; try again when that has finished.`);
}

function refuse(code: CallError["code"], message: string): { readonly ok: false; readonly error: CallError } {
  return { ok: false, error: { code, message } };
}
