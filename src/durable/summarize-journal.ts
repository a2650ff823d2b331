// A run's summary from its journal, the same for every store: where it stands (running, paused,
// ended), its program's hash, its calls made live and answered from the journal, what it waits
// for and how it ended. Reads entries only; never touches a store.

import { hashInput } from "./hash-input.js";
import { JournalError } from "./journal-error.js";
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
 * A journal that cannot be read as one (`JOURNAL_INVALID`: damaged, unreadable) is listed as
 * `damaged` with its reason, last, so nobody takes a list without it for all there is; one gone
 * meanwhile is left out. Any other failure (the store itself unreachable) fails the list.
 */
export async function summarizeRuns(
  ids: readonly string[],
  read: (id: string) => Promise<StoredJournal | undefined>,
): Promise<RunSummary[]> {
  const summaries: RunSummary[] = [];
  const damaged: RunSummary[] = [];
  for (const id of ids) {
    let journal: StoredJournal | undefined;
    try {
      journal = await read(id);
    } catch (error) {
      if (!JournalError.isInstance(error) || error.code !== "JOURNAL_INVALID") throw error;
      damaged.push(damagedSummary(id, error.message));
      continue;
    }
    if (journal !== undefined) summaries.push(summarizeJournal(journal));
  }
  return [...summaries.sort((a, b) => b.createdAt - a.createdAt), ...damaged];
}

function damagedSummary(id: string, message: string): RunSummary {
  return {
    id,
    state: "damaged",
    createdAt: 0,
    expiresAt: 0,
    programHash: "",
    calls: 0,
    replayedCalls: 0,
    resumes: 0,
    bytes: 0,
    pending: [],
    ok: false,
    code: "JOURNAL_INVALID",
    message,
  };
}
