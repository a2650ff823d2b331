// A run's summary from its journal, the same for every store: where it stands (running, paused,
// ended), its program's hash, its calls made live and answered from the journal, what it waits
// for and how it ended. Reads entries only; never touches a store.

import { hashInput } from "./hash-input.js";
import type { PauseEntry, RunSummary, StoredJournal } from "./run-journal.js";

/** The summary `list` and `runs show` print; see `RunSummary`. */
export function summarizeJournal(journal: StoredJournal): RunSummary {
  let calls = 0;
  let replayedCalls = 0;
  let resumes = 0;
  let state: RunSummary["state"] = "running";
  let pause: PauseEntry | undefined;
  let end: { ok: boolean; code?: RunSummary["code"]; message?: string | undefined } | undefined;
  // The last crossing, pause or end says where the run stands; decisions and resumes do not move it.
  for (const entry of journal.entries) {
    if (entry.t === "x") {
      for (const answer of entry.answers) if (answer.n !== undefined) calls++;
      state = "running";
    } else if (entry.t === "pause") {
      pause = entry;
      state = "paused";
    } else if (entry.t === "end") {
      end = entry;
      state = "ended";
    } else if (entry.t === "resume") {
      resumes++;
      replayedCalls += entry.replayed;
    }
  }
  const ended = state === "ended" && end !== undefined ? end : undefined;
  return {
    id: journal.header.id,
    state,
    createdAt: journal.header.createdAt,
    expiresAt: journal.header.expiresAt,
    programHash: hashInput(journal.header.source),
    calls,
    replayedCalls,
    resumes,
    bytes: journal.bytes,
    pending: state === "paused" && pause !== undefined ? pause.pending : [],
    ...(ended === undefined ? {} : { ok: ended.ok, code: ended.code, message: ended.message }),
  };
}

/**
 * The summaries of the runs `ids`, newest first, read one by one with `read`: a store's `list`.
 * A damaged journal is left out (its `read` reports it, with its reason); one gone meanwhile too.
 */
export async function summarizeRuns(
  ids: readonly string[],
  read: (id: string) => Promise<StoredJournal | undefined>,
): Promise<RunSummary[]> {
  const summaries: RunSummary[] = [];
  for (const id of ids) {
    try {
      const journal = await read(id);
      if (journal !== undefined) summaries.push(summarizeJournal(journal));
    } catch {
      // Reported by `read`, not by the list.
    }
  }
  return summaries.sort((a, b) => b.createdAt - a.createdAt);
}
