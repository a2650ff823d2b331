// Where a run becomes durable: the few lines the session's run pipeline calls. Opens the run's
// journal (a RunError, never a throw, for a damaged journal or a run another process holds), and
// names the default store.

import { join } from "node:path";
import type { RunError } from "../contract.js";
import {
  checkAskTimeout,
  checkDecisions,
  type DurableOptions,
  type DurableRun,
  type NewRunProgram,
  openDurableRun,
} from "./durable-run.js";
import { FileRunJournal } from "./file-run-journal.js";
import { asJournalError } from "./journal-error.js";
import { checkRunId, isRunId } from "./run-id.js";
import type { JournaledCheck, RunJournal } from "./run-journal.js";

/**
 * The folder of the default store: `$SWITCHYARD_RUNS_DIR`, else `.switchyard/runs` in the
 * current directory, so the command line and the library find the same runs.
 */
export function defaultRunsFolder(): string {
  return process.env["SWITCHYARD_RUNS_DIR"] ?? join(process.cwd(), ".switchyard", "runs");
}

/** The default store: a FileRunJournal in `defaultRunsFolder()`. */
export function defaultRunJournal(): FileRunJournal {
  return new FileRunJournal({ folder: defaultRunsFolder() });
}

/**
 * The type check durable run `options.id` journaled when it was first checked: from the journal a
 * resume opened, else from its header, read without the lock (a check's findings are addressed by
 * their fingerprint, so whichever journal they come from, they stand only for the very program and
 * declarations they were found for). Undefined for a new run, a journal without one, an id that is
 * not one, or a store that cannot be read now (opening the run reports that).
 */
export async function readJournaledCheck(
  store: RunJournal,
  options: DurableOptions,
): Promise<JournaledCheck | undefined> {
  if (options.opened !== undefined) return options.opened.journal.header.check;
  if (!isRunId(options.id)) return undefined;
  try {
    return (await store.readHeader(options.id))?.check;
  } catch {
    return undefined;
  }
}

/**
 * Opens a durable run for the pipeline; a store's refusal (`JOURNAL_INVALID`, `RUN_BUSY`,
 * `JOURNAL_WRITE_FAILED` for a disk that cannot take the journal) comes back as the RunError the
 * run ends with. Throws `OPTION_INVALID` for a run id that is not one
 * and for decisions of the wrong shape.
 */
export async function startDurableRun(
  store: RunJournal,
  options: DurableOptions,
  program: NewRunProgram,
): Promise<DurableRun | RunError> {
  checkRunId(options.id);
  checkDecisions(options.decisions);
  checkAskTimeout(options.askTimeoutMs);
  try {
    return await openDurableRun(store, options, program);
  } catch (error) {
    const journalError = asJournalError(error, options.id);
    if (journalError !== undefined) return { code: journalError.code, message: journalError.message };
    return {
      code: "JOURNAL_INVALID",
      message: `The journal of run ${options.id} could not be opened: ${String(error)}`,
    };
  }
}
