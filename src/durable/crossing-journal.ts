// What the tool bridge needs of a durable run, and nothing more: the journaled crossings to
// replay (in the order their answers reached the program), the journaled answer of each wire
// index, and a place to append live crossings. The bridge decides what to replay; this face
// only remembers.

import type { RunError } from "../contract.js";
import type { CrossingEntry, JournaledAnswer } from "./run-journal.js";

/** A durable run as its tool bridge sees it. */
export interface CrossingJournal {
  /** The run's id: the first half of every call's idempotency key. */
  readonly runId: string;
  /** The journaled crossing that arrived `k`-th, if the journal holds it. */
  crossing(k: number): CrossingEntry | undefined;
  /**
   * The journal holds the run's end as its program made it (it returned or threw, or hit its call
   * limit): a replay reaches that end again, and a call the journal has no answer for was still in
   * flight then, cancelled with the run, never made again. Otherwise such a call was in flight at
   * a crash or a cancellation, and a resume makes it again.
   */
  readonly completed: boolean;
  /** The next journaled crossing to answer, or undefined when all are answered. */
  next(): CrossingEntry | undefined;
  /** The journaled crossing `ahead` places after `next()` (0: `next()` itself), for a chunk of the replay. */
  peek(ahead: number): CrossingEntry | undefined;
  /** Marks `next()` answered. */
  advance(): void;
  /** The journaled answer of wire index `index`, if it reached the program before. */
  answer(index: number): JournaledAnswer | undefined;
  /** The journal is replayed (`replayed` calls answered from it): what is appended from now on is live. */
  goneLive(replayed: number): void;
  /**
   * A live call of position `position` (1-based) to `tool` got id `callId`: its approval finds its
   * position by it, and a pause names it if it is still in flight.
   */
  callMade(callId: string, position: number, tool: string): void;
  /**
   * Appends a live crossing. A journal that cannot take it (full: `JOURNAL_LIMIT`; a disk that
   * refused the write: `JOURNAL_WRITE_FAILED`) ends the run and sets `journalStopped`.
   */
  record(entry: CrossingEntry): void;
  /** The journal takes nothing more: no call may start and no answer reach the program unjournaled. */
  readonly journalStopped: boolean;
  /** Stores a large answer apart; its reference, or undefined to keep it inline. */
  spill(index: number, envelope: string): string | undefined;
  /** The replay met a crossing that does not match the journal: the run ends with `error`. */
  diverge(error: RunError): void;
  /**
   * How many of the run's calls have not handed their answers to the program yet (in flight, or
   * finished and waiting to cross): a pause waits until only the calls it asks about are left, so
   * the others' answers are journaled and a resume does not make them again.
   */
  watchUnanswered(count: () => number): void;
}
