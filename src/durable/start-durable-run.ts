// Where a run becomes durable: the few lines the session's run pipeline calls. Opens the run's
// journal (a RunError, never a throw, for a damaged journal or a run another process holds), and
// names the default store.

import { join } from "node:path";
import type { RunError } from "../contract.js";
import { checkDecisions, type DurableOptions, type DurableRun, openDurableRun } from "./durable-run.js";
import { FileRunJournal } from "./file-run-journal.js";
import { JournalError } from "./journal-error.js";
import { checkRunId } from "./run-id.js";
import type { RunJournal } from "./run-journal.js";

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
 * Opens a durable run for the pipeline; a store's refusal (`JOURNAL_INVALID`, `RUN_BUSY`) comes
 * back as the RunError the run ends with. Throws `OPTION_INVALID` for a run id that is not one
 * and for decisions of the wrong shape.
 */
export async function startDurableRun(
  store: RunJournal,
  options: DurableOptions,
  program: { readonly source: string; readonly inputJson: string | undefined },
): Promise<DurableRun | RunError> {
  checkRunId(options.id);
  checkDecisions(options.decisions);
  try {
    return await openDurableRun(store, options, program);
  } catch (error) {
    if (JournalError.isInstance(error)) return { code: error.code, message: error.message };
    return {
      code: "JOURNAL_INVALID",
      message: `The journal of run ${options.id} could not be opened: ${String(error)}`,
    };
  }
}
