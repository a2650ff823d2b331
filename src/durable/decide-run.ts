// A person's decision on a call a paused run waits for, journaled from outside the run (the
// command line's `runs approve|deny`). Checked against the journal as read under the run's lock
// and appended under that same lock: a decision never lands on a run that moved on since it was
// read, and of two people deciding one call at once, one is told the other came first.

import { SwitchyardError } from "../errors.js";
import type { RunDecision } from "./durable-run.js";
import { JournalError } from "./journal-error.js";
import type { OpenedJournal, RunJournal, StoredJournal } from "./run-journal.js";
import { summarizeJournal } from "./summarize-journal.js";

/** Characters of a decision's reason the journal keeps, whoever gave it (the command line, a gateway form). */
export const MAX_REASON_CHARS = 1_000;

/** Why `decideRun` journaled nothing; `message` says it in a sentence for a person. */
export type DecideRunRefusal = {
  readonly message: string;
  readonly code:
    | "RUN_NOT_FOUND"
    /** The run is running or has ended: nothing waits for a decision. */
    | "RUN_NOT_PAUSED"
    /** The run waits, but not for this call. */
    | "CALL_NOT_PENDING"
    /** Somebody decided this call since the run paused. */
    | "CALL_DECIDED"
    | JournalError["code"];
};

/** The positions decided since the run last paused (by `decideRun`, the host, `resume_run`). */
export function decisionsSincePause(journal: StoredJournal): Set<number> {
  const decided = new Set<number>();
  for (const entry of journal.entries) {
    if (entry.t === "pause") decided.clear();
    else if (entry.t === "decision") decided.add(entry.position);
  }
  return decided;
}

/**
 * Journals `decision` on paused run `id`, if the run waits for that call and nobody decided it
 * since the run paused. Resolves undefined once it is journaled, else with the refusal; never
 * rejects for the run's state. Rejects `OPTION_INVALID` for an id that is not a run id.
 */
export async function decideRun(
  store: RunJournal,
  id: string,
  decision: RunDecision,
): Promise<DecideRunRefusal | undefined> {
  let opened: OpenedJournal;
  try {
    opened = await store.open(id, undefined);
  } catch (error) {
    if (!JournalError.isInstance(error)) throw error;
    if (error.missing) return { code: "RUN_NOT_FOUND", message: `there is no durable run ${id} in this store.` };
    return { code: error.code, message: `${error.message} (${error.code})` };
  }
  const { writer, journal } = opened;
  let refused: JournalError | undefined;
  writer.onRefused?.((error) => {
    refused = error;
  });
  try {
    const summary = summarizeJournal(journal);
    const { position } = decision;
    if (summary.state !== "paused")
      return {
        code: "RUN_NOT_PAUSED",
        message: `run ${id} is ${summary.state}, not paused; nothing waits for a decision.`,
      };
    if (!summary.pending.some((pending) => pending.position === position)) {
      const waiting = summary.pending.map((pending) => pending.position).join(", ");
      return {
        code: "CALL_NOT_PENDING",
        message: `run ${id} does not wait for call ${position}; it waits for call(s) ${waiting}.`,
      };
    }
    if (decisionsSincePause(journal).has(position))
      return {
        code: "CALL_DECIDED",
        message: `call ${position} of run ${id} has already been decided; resume the run.`,
      };
    let appended: boolean;
    try {
      appended = writer.append([
        {
          t: "decision",
          at: Date.now(),
          position,
          approved: decision.approved,
          ...(decision.reason === undefined ? {} : { reason: decision.reason.slice(0, MAX_REASON_CHARS) }),
        },
      ]);
    } catch (error) {
      // A disk that refused the write (JOURNAL_WRITE_FAILED): nothing was journaled.
      if (!JournalError.isInstance(error)) throw error;
      return { code: error.code, message: `${error.message} (${error.code})` };
    }
    await writer.flush();
    if (!appended) return { code: "JOURNAL_LIMIT", message: `the journal of run ${id} is full.` };
    if (refused !== undefined) return { code: refused.code, message: `${refused.message} (${refused.code})` };
    return undefined;
  } finally {
    await writer.close();
  }
}

/**
 * Throws `OPTION_INVALID` unless every decision names a call the run waits for, once, and one no
 * person has decided since the pause (`runs approve|deny`): a decision is journaled as given, and
 * one for a call not pending would answer that call's `ask` whenever the program reached it, long
 * after anyone looked at it; a second one, or one over a person's, would silently win.
 */
export function checkDecisionsPending(journal: StoredJournal, decisions: readonly RunDecision[] | undefined): void {
  if (decisions === undefined || decisions.length === 0) return;
  const summary = summarizeJournal(journal);
  const pending = new Set(summary.pending.map((request) => request.position));
  const refuse = (why: string): never => {
    throw new SwitchyardError("OPTION_INVALID", `${why} Nothing was resumed.`);
  };
  const stray = decisions.find((decision) => !pending.has(decision.position));
  if (stray !== undefined) {
    const waiting =
      summary.state === "paused" ? `it waits for call(s) ${[...pending].join(", ")}` : `it is ${summary.state}`;
    refuse(
      `A decision names call ${stray.position} of run ${journal.header.id}, which does not wait for it: ${waiting}.`,
    );
  }
  const seen = new Set<number>();
  const decidedByPerson = decisionsSincePause(journal);
  for (const { position } of decisions) {
    if (seen.has(position)) refuse(`Call ${position} of run ${journal.header.id} is decided twice.`);
    seen.add(position);
    if (decidedByPerson.has(position))
      refuse(`A person already decided call ${position} of run ${journal.header.id}; leave it out of the decisions.`);
  }
}
