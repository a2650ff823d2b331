// One durable run in this process: its journal read back and indexed for the replay, its writer
// for what happens live, the approver that pauses the run on an `ask` nobody answers in time,
// and the end that journals how the run ended. The tool bridge decides what to replay through
// the CrossingJournal face; nothing is appended before the replay is over, so a replay that
// diverges leaves the journal as it was.

import { MAX_TIMER_MS } from "../timer-limit.js";
import { randomInt } from "node:crypto";
import type { RunError, RunResult } from "../contract.js";
import type { ApprovalAnswer, Approver, PermissionRequest } from "../permissions/permission-gate.js";
import type { GuestDeterminism } from "../../runtime/wire.js";
import type { CrossingJournal } from "./crossing-journal.js";
import { JournalError } from "./journal-error.js";
import { isEnvelopeOf } from "./journal-lines.js";
import { SwitchyardError, shownValue } from "../errors.js";
import { checkRunId } from "./run-id.js";
import type {
  CrossingEntry,
  DecisionEntry,
  JournaledAnswer,
  JournaledCheck,
  JournalEntry,
  JournalHeader,
  JournalWriter,
  OpenedJournal,
  PendingRequest,
  ResumeEntry,
  RunJournal,
} from "./run-journal.js";

/** A person's decision on a paused call, named by the call's position. */
export interface RunDecision {
  /** The pending call's position (1-based), as `runs show` and the `PAUSED` error's details list it. */
  readonly position: number;
  readonly approved: boolean;
  /** Shown to the program with a denial. */
  readonly reason?: string | undefined;
}

/** What a run takes to be durable (`RunOptions.durable`). */
export interface DurableOptions {
  /**
   * The run's id (1-128 letters, digits, `.`, `-`, `_`). A new id starts a journal; an id the
   * store holds replays it: journaled calls are answered from it, the rest run live.
   */
  readonly id: string;
  /** Where the journal lives. Default: the session's store (a FileRunJournal; see `SwitchyardOptions.durable`). */
  readonly store?: RunJournal | undefined;
  /**
   * How long an `ask` may wait for the approver before the run pauses, in ms. Default 30 000;
   * an approver that answers `"later"`, or none configured, pauses at once. Never past the run's
   * own deadline: the run pauses 100 ms before it at the latest.
   */
  readonly askTimeoutMs?: number | undefined;
  /** Decisions on calls the run paused on (what `yard.resume` passes). */
  readonly decisions?: readonly RunDecision[] | undefined;
  /** How long the journal is kept after the run starts, in ms. Default 7 days; `prune` deletes it after. */
  readonly retentionMs?: number | undefined;
  /**
   * The run's journal, already opened in `store` (and so locked) by whoever resumes it
   * (`yard.resume`): the run replays it as it was read and reads nothing again. Its writer is the
   * run's to close.
   */
  readonly opened?: OpenedJournal | undefined;
}

/** Default time an `ask` waits before a durable run pauses, in ms. */
export const DEFAULT_ASK_TIMEOUT_MS = 30_000;
/** Default time a journal is kept, in ms (7 days). */
export const DEFAULT_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;
// Characters of a failed run's message its end entry keeps (`runs show` prints it).
const MAX_END_MESSAGE_CHARS = 1_024;
// Ends a program makes itself, the same on every replay: a journal ended so is complete.
const PROGRAM_ENDS: ReadonlySet<string> = new Set([
  "RUNTIME_ERROR",
  "OUTPUT_INVALID",
  "OUTPUT_TOO_LARGE",
  "OUTPUT_NOT_SERIALIZABLE",
  "TOOL_CALL_LIMIT",
]);
// After the first `ask` times out, asks made in the same moment join the pause.
const PAUSE_GATHER_MS = 5;
// A run waiting for a person pauses this long before its wall-time deadline at the latest: its ask
// stops waiting for the approver, and the pause for the calls beside it, so the run ends PAUSED,
// resumable, rather than TIMEOUT with the person's decision nowhere to go.
const PAUSE_BEFORE_DEADLINE_MS = 100;

/** See the module comment. Create with `openDurableRun`. */
export class DurableRun implements CrossingJournal {
  readonly runId: string;
  readonly header: JournalHeader;
  readonly #writer: JournalWriter;
  readonly #byCrossing = new Map<number, CrossingEntry>();
  readonly #byIndex = new Map<number, JournaledAnswer>();
  readonly #order: CrossingEntry[];
  #cursor = 0;
  readonly #decisions = new Map<number, RunDecision>();
  readonly #newDecisions: readonly RunDecision[];
  readonly #askTimeoutMs: number;
  #live = false;
  /** The journal already holds the run's end: a full replay appends nothing. */
  #ended = false;
  /** See `completed`. */
  #completed = false;
  /** A resume's entries, held while it has appended nothing past the journal's end (`goneLive`). */
  #afterEnd: readonly (DecisionEntry | ResumeEntry)[] = [];
  #ending: RunError | undefined;
  #endRun: ((error: RunError) => void) | undefined;
  /** The calls waiting for a decision now, by position; once paused, the calls the run paused on. */
  readonly #asking = new Map<number, PendingRequest>();
  /** The position of each live call by its id, as the bridge made it: an approval names its call by id. */
  readonly #positions = new Map<string, number>();
  /** The tool of each live call, by position: a pause names the calls it leaves in flight. */
  readonly #toolAt = new Map<number, string>();
  /** Positions whose answers the journal holds (replayed or journaled live): not made again on resume. */
  readonly #answered = new Set<number>();
  /** The run's wall-time deadline (`Date.now()` time), as the run reads it (see `attach`). */
  #deadlineAt: () => number = () => Number.POSITIVE_INFINITY;
  /** Crossings without answers, journaled with the next entry or before the next call (see `record`). */
  readonly #heldBack: CrossingEntry[] = [];
  #pauseTimer: NodeJS.Timeout | undefined;
  /** The bridge's count of calls whose answers have not reached the program (`watchUnanswered`). */
  #unanswered: () => number = () => 0;
  #paused: PendingRequest[] | undefined;
  #journalStopped = false;

  constructor(header: JournalHeader, entries: readonly JournalEntry[], writer: JournalWriter, options: DurableOptions) {
    this.runId = header.id;
    this.header = header;
    this.#writer = writer;
    const crossings: CrossingEntry[] = [];
    for (const entry of entries) {
      if (entry.t === "x") {
        crossings.push(entry);
        this.#byCrossing.set(entry.k, entry);
        for (const answer of entry.answers) {
          this.#byIndex.set(answer.i, answer);
          if (answer.n !== undefined) this.#answered.add(answer.n);
        }
      } else if (entry.t === "decision") {
        this.#decisions.set(entry.position, entry);
      } else if (entry.t === "end") {
        this.#ended = true;
        this.#completed = entry.ok || (entry.code !== undefined && PROGRAM_ENDS.has(entry.code));
      }
    }
    this.#order = crossings;
    // A journal with nothing to replay is live from the start.
    this.#live = crossings.length === 0;
    this.#newDecisions = options.decisions ?? [];
    for (const decision of this.#newDecisions) this.#decisions.set(decision.position, decision);
    this.#askTimeoutMs = options.askTimeoutMs ?? DEFAULT_ASK_TIMEOUT_MS;
    writer.onRefused?.((error) => this.#stopOnJournal(error));
  }

  /**
   * Whether the journal stopped taking entries (full, a write the store's medium refused, the lease
   * lost): the run is ending, and nothing it does from here may reach the world or the program
   * unjournaled (the bridge neither starts its calls nor hands it answers).
   */
  get journalStopped(): boolean {
    return this.#journalStopped;
  }

  /** The guest's first clock value and random seed, as journaled. */
  get determinism(): GuestDeterminism {
    return { nowMs: this.header.nowMs, seed: this.header.seed };
  }

  /** Whether the journal held crossings when the run started (it is a replay, a resume). */
  get resumed(): boolean {
    return this.#order.length > 0;
  }

  /**
   * Lets the durable run end its program run (pause, divergence, a full journal); `deadlineAt`
   * reads the run's wall-time deadline, which a pause must come before.
   */
  attach(endRun: (error: RunError) => void, deadlineAt?: () => number): void {
    this.#endRun = endRun;
    if (deadlineAt !== undefined) this.#deadlineAt = deadlineAt;
  }

  get completed(): boolean {
    return this.#completed;
  }

  crossing(k: number): CrossingEntry | undefined {
    return this.#byCrossing.get(k);
  }

  next(): CrossingEntry | undefined {
    return this.#order[this.#cursor];
  }

  peek(ahead: number): CrossingEntry | undefined {
    return this.#order[this.#cursor + ahead];
  }

  advance(): void {
    this.#cursor++;
  }

  answer(index: number): JournaledAnswer | undefined {
    return this.#byIndex.get(index);
  }

  goneLive(replayed: number): void {
    if (this.#ending !== undefined) return;
    this.#live = true;
    // Decisions brought to this resume are journaled once it is past the replay, so a crash from
    // here on resumes with them.
    const at = Date.now();
    const entries: (DecisionEntry | ResumeEntry)[] = this.resumed ? [{ t: "resume", at, replayed }] : [];
    for (const decision of this.#newDecisions)
      entries.push({
        t: "decision",
        at,
        position: decision.position,
        approved: decision.approved,
        ...(decision.reason === undefined ? {} : { reason: decision.reason }),
      });
    // A replay of a run that had ended appends nothing when the program ends where it did (its
    // journal is complete); one that goes on past the end (a cancelled run resumed) journals its
    // resume before the first entry it makes, and its own end.
    if (this.#ended) this.#afterEnd = entries;
    else if (entries.length > 0) this.#append(entries);
  }

  callMade(callId: string, position: number, tool: string): void {
    this.#positions.set(callId, position);
    this.#toolAt.set(position, tool);
    // The call may act on the world with what the guest read: what it read is journaled first.
    if (this.#heldBack.length > 0 && this.#live && this.#ending === undefined) this.#append([]);
  }

  record(entry: CrossingEntry): void {
    if (!this.#live || this.#ending !== undefined) return;
    // A crossing without answers gave the guest at most a clock reading: it is journaled with the
    // next entry, or before the next call starts (`callMade`), one write per call instead of two.
    // A crash before that loses a reading nothing outside the run has seen; a crossing with answers
    // is written before they reach the program, as ever.
    if (entry.answers.length === 0) {
      this.#heldBack.push(entry);
      return;
    }
    for (const answer of entry.answers) if (answer.n !== undefined) this.#answered.add(answer.n);
    this.#append([entry]);
  }

  spill(index: number, envelope: string): string | undefined {
    if (!this.#live || this.#ending !== undefined) return undefined;
    try {
      return this.#writer.spill(index, envelope);
    } catch (error) {
      this.#stopOnJournal(error);
      return undefined;
    }
  }

  diverge(error: RunError): void {
    this.#end(error);
  }

  /**
   * The approver of the run's `ask` decisions: a decision brought to the resume answers its call;
   * otherwise `approver` is asked, and when it answers `"later"`, is absent, or has not answered
   * within `askTimeoutMs`, the run pauses with the call pending.
   */
  approver(approver: Approver | undefined): Approver {
    return (request) => {
      const position = this.#positions.get(request.callId);
      const decision = position === undefined ? undefined : this.#decisions.get(position);
      if (decision !== undefined)
        return { approved: decision.approved, reason: decision.reason ?? "denied by a person" };
      if (position === undefined) return false;
      const pending: PendingRequest = {
        position,
        tool: request.tool,
        input: request.input,
        reason: request.reason,
        idempotencyKey: `${this.runId}:${position}`,
      };
      this.#asking.set(position, pending);
      return new Promise<ApprovalAnswer>((resolve) => {
        const timer = setTimeout(() => this.#pauseSoon(), Math.min(this.#askTimeoutMs, this.#timeBeforePause()));
        timer.unref();
        const settle = (answer: ApprovalAnswer): void => {
          clearTimeout(timer);
          if (answer === "later") {
            this.#pauseSoon();
            return;
          }
          if (this.#paused !== undefined) return;
          this.#asking.delete(position);
          resolve(answer);
        };
        if (approver === undefined) return settle("later");
        try {
          void Promise.resolve(approver(request as PermissionRequest)).then(settle, () => settle(false));
        } catch {
          settle(false);
        }
      });
    };
  }

  /**
   * Settles the run with its journal: a replay that ended before the journal did has diverged;
   * a paused run leaves out the records of its pending calls (they are made when it resumes); an
   * ended one journals its end. Closes the writer (releasing the run's lock).
   */
  async finish(result: RunResult, stillReplaying: boolean): Promise<RunResult> {
    let settled = result;
    if (stillReplaying && this.#ending === undefined && result.error?.code !== "REPLAY_DIVERGED") {
      const error: RunError = {
        code: "REPLAY_DIVERGED",
        message: `The program ended before the journal of run ${this.runId} did: it no longer matches the program the journal was made by. The journal is unchanged.`,
        details: {
          crossing: this.#cursor + 1,
          position: null,
          program: "the end of the program",
          journal: "more crossings",
        },
      };
      settled = { ...result, ok: false, output: null, error };
    } else if (this.#paused !== undefined) {
      // A call asked about, or left in flight, is made when the run resumes: its one record is that
      // run's. A live call's id maps to its position in `#positions`; a replayed one's answer is journaled.
      const madeOnResume = (id: string): boolean => {
        const position = this.#positions.get(id);
        return position !== undefined && !this.#answered.has(position);
      };
      settled = { ...result, calls: result.calls.filter((call) => !madeOnResume(call.id)) };
      settled = { ...settled, stats: { ...settled.stats, toolCalls: settled.calls.length } };
    } else if (this.#live && this.#ending === undefined && !this.#ended) {
      const { error } = result;
      this.#append([
        error === undefined
          ? { t: "end", at: Date.now(), ok: result.ok }
          : {
              t: "end",
              at: Date.now(),
              ok: false,
              code: error.code,
              message: error.message.slice(0, MAX_END_MESSAGE_CHARS),
            },
      ]);
    }
    await this.#writer.close();
    return settled;
  }

  watchUnanswered(count: () => number): void {
    this.#unanswered = count;
  }

  #pauseSoon(): void {
    if (this.#pauseTimer !== undefined || this.#paused !== undefined) return;
    this.#pauseTimer = setTimeout(() => this.#pause(), PAUSE_GATHER_MS);
  }

  #pause(): void {
    if (this.#ending !== undefined) return;
    // Every ask was answered while the pause waited: nothing to pause for.
    if (this.#asking.size === 0) {
      this.#pauseTimer = undefined;
      return;
    }
    // Calls that need no decision are still out (a charge beside the refund asked about): the
    // pause waits for their answers to reach the program, so they are journaled, not made again
    // on resume; until just before the run's deadline, then it leaves them in flight (made again
    // on resume with the same idempotency key, as after a crash).
    if (this.#unanswered() > this.#asking.size && this.#timeBeforePause() > 0) {
      this.#pauseTimer = setTimeout(() => this.#pause(), Math.min(PAUSE_GATHER_MS, this.#timeBeforePause()));
      return;
    }
    const pending = [...this.#asking.values()].sort((a, b) => a.position - b.position);
    const inFlight = [...this.#toolAt]
      .filter(([position]) => !this.#answered.has(position) && !this.#asking.has(position))
      .sort(([a], [b]) => a - b)
      .map(([position, tool]) => ({ position, tool, idempotencyKey: `${this.runId}:${position}` }));
    this.#paused = pending;
    if (this.#live) this.#append([{ t: "pause", at: Date.now(), pending }]);
    const positions = pending.map((request) => request.position).join(", ");
    const leftInFlight =
      inFlight.length === 0
        ? ""
        : `Call(s) ${inFlight.map((call) => call.position).join(", ")} had not answered by the run's deadline; ` +
          "the resume makes them again with the same idempotency key. ";
    this.#end({
      code: "PAUSED",
      message:
        `Run ${this.runId} paused: call(s) ${positions} wait for a person's decision. ${leftInFlight}` +
        `Resume it with yard.resume("${this.runId}", { decisions }) or \`switchyard runs approve|deny|resume ${this.runId}\`.`,
      details: {
        runId: this.runId,
        pending: pending.map(pendingAsJson),
        ...(inFlight.length === 0 ? {} : { inFlight }),
      },
    });
  }

  /** Ms until the run must pause to end before its deadline (see PAUSE_BEFORE_DEADLINE_MS); 0 when due. */
  #timeBeforePause(): number {
    return Math.max(0, this.#deadlineAt() - PAUSE_BEFORE_DEADLINE_MS - Date.now());
  }

  #append(entries: readonly JournalEntry[]): void {
    if (this.#heldBack.length > 0) entries = [...this.#heldBack.splice(0), ...entries];
    if (this.#ended) {
      this.#ended = false;
      entries = [...this.#afterEnd, ...entries];
    }
    let appended: boolean;
    try {
      appended = this.#writer.append(entries);
    } catch (error) {
      this.#stopOnJournal(error);
      return;
    }
    if (!appended) this.#stopOnJournal(new JournalError("JOURNAL_LIMIT", "the journal reached its size limit"));
  }

  /** Ends the run because its journal takes nothing more; see `journalStopped`. */
  #stopOnJournal(error: unknown): void {
    this.#journalStopped = true;
    this.#end(journalStopError(this.runId, error));
  }

  #end(error: RunError): void {
    if (this.#ending !== undefined) return;
    this.#ending = error;
    this.#endRun?.(error);
  }
}

/** What a new journal's header keeps of the program: its source, input and the check it passed. */
export interface NewRunProgram {
  readonly source: string;
  readonly inputJson: string | undefined;
  /** The type check the program passed before this run, when it was checked. */
  readonly check?: JournaledCheck | undefined;
}

/**
 * Opens the durable run `options.id` in `store`: reads its journal (a run the store does not hold
 * starts one, with a fresh clock and seed) and takes its lock. Rejects with a JournalError
 * (`JOURNAL_INVALID`, `RUN_BUSY`) and `OPTION_INVALID` for a bad id.
 */
export async function openDurableRun(
  store: RunJournal,
  options: DurableOptions,
  program: NewRunProgram,
): Promise<DurableRun> {
  const id = checkRunId(options.id);
  const now = Date.now();
  const fresh: JournalHeader = {
    t: "run",
    v: 1,
    id,
    createdAt: now,
    expiresAt: now + (options.retentionMs ?? DEFAULT_RETENTION_MS),
    source: program.source,
    ...(program.inputJson === undefined ? {} : { inputJson: program.inputJson }),
    nowMs: now,
    seed: [randomInt(2 ** 32), randomInt(2 ** 32), randomInt(2 ** 32), randomInt(2 ** 32)],
    ...(program.check === undefined ? {} : { check: program.check }),
  };
  // `open` takes the lock, then reads the journal once: nobody appends between what is read and
  // what is replayed. It writes `fresh` only into a journal that is new (or empty).
  const { writer, journal: stored } = options.opened ?? (await store.open(id, fresh));
  if (stored.header.id !== id) {
    await writer.close();
    throw new JournalError("JOURNAL_INVALID", `The journal opened for run ${id} is another run's.`);
  }
  try {
    const entries = await withSpilledAnswers(store, id, stored.entries);
    return new DurableRun(stored.header, entries, writer, options);
  } catch (error) {
    await writer.close();
    throw error;
  }
}

/** Entries with every answer stored apart read back inline, so the replay never waits on the disk. */
async function withSpilledAnswers(
  store: RunJournal,
  id: string,
  entries: readonly JournalEntry[],
): Promise<JournalEntry[]> {
  const loaded: JournalEntry[] = [];
  for (const entry of entries) {
    if (entry.t !== "x" || entry.answers.every((answer) => answer.ref === undefined)) {
      loaded.push(entry);
      continue;
    }
    const answers: JournaledAnswer[] = [];
    for (const answer of entry.answers) {
      if (answer.ref === undefined) {
        answers.push(answer);
        continue;
      }
      const envelope = await store.readSpilled(id, answer.ref);
      if (!isEnvelopeOf(answer.i, envelope))
        throw new JournalError("JOURNAL_INVALID", `The spilled answer ${answer.ref} of run ${id} is damaged.`);
      answers.push({ ...answer, e: envelope });
    }
    loaded.push({ ...entry, answers });
  }
  return loaded;
}

/**
 * Throws `OPTION_INVALID` unless every decision names a call by a positive integer position and
 * says `approved` as a boolean: a decision is journaled as it is given, and one of another shape
 * would leave a journal that no later resume can read.
 */
export function checkDecisions(decisions: unknown): void {
  if (decisions === undefined) return;
  const valid =
    Array.isArray(decisions) &&
    decisions.every(
      (decision: Partial<Record<keyof RunDecision, unknown>> | null) =>
        typeof decision === "object" &&
        decision !== null &&
        Number.isSafeInteger(decision.position) &&
        (decision.position as number) > 0 &&
        typeof decision.approved === "boolean" &&
        (decision.reason === undefined || typeof decision.reason === "string"),
    );
  if (!valid)
    throw new SwitchyardError(
      "OPTION_INVALID",
      "durable.decisions must be a list of { position, approved, reason? }: position a positive integer, approved a boolean, reason a string.",
    );
}

function pendingAsJson(pending: PendingRequest): { [key: string]: import("../contract.js").JsonValue } {
  return JSON.parse(JSON.stringify(pending)) as { [key: string]: import("../contract.js").JsonValue };
}

/** Refuses an `askTimeoutMs` that is not a number of ms from 0 to MAX_TIMER_MS (OPTION_INVALID). */
export function checkAskTimeout(askTimeoutMs: unknown): void {
  if (askTimeoutMs === undefined) return;
  if (typeof askTimeoutMs !== "number" || !(askTimeoutMs >= 0 && askTimeoutMs <= MAX_TIMER_MS)) {
    throw new SwitchyardError(
      "OPTION_INVALID",
      `durable.askTimeoutMs must be a number of ms from 0 to ${MAX_TIMER_MS}, got ${shownValue(askTimeoutMs)}.`,
    );
  }
}

/**
 * The error a run ends with when its journal stops taking entries; what the store threw is kept
 * as its code (a store that threw something else could not write: JOURNAL_WRITE_FAILED).
 */
function journalStopError(runId: string, error: unknown): RunError {
  const journalError = JournalError.isInstance(error)
    ? error
    : new JournalError("JOURNAL_WRITE_FAILED", `the journal could not be written: ${String(error)}`);
  const advice =
    journalError.code === "JOURNAL_LIMIT"
      ? "large results count toward the store's maxRunBytes"
      : journalError.code === "JOURNAL_WRITE_FAILED"
        ? `resume the run once the store can write again (yard.resume("${runId}") or \`switchyard runs resume ${runId}\`): the calls journaled are not made again`
        : "";
  // The store's sentence, continued: "Run x stopped: the journal of run x could not be written (…)".
  const why = journalError.message.replace(/^The /, "the ");
  return {
    code: journalError.code,
    message: `Run ${runId} stopped: ${why}. Calls journaled so far stay${advice === "" ? "" : `; ${advice}`}.`,
  };
}
