// The contract every journal store satisfies (a local file store is the embedded default), and the
// entries a durable run's journal holds: its header, each crossing of the bridge with the answers
// it carried, pauses, decisions and its end. Entries are plain JSON; stores only append, read,
// list and prune them, and never interpret a crossing.

import type { CallRecord, Diagnostic, RunErrorCode, RunResult } from "../contract.js";
import type { ToolReferences } from "../program/tool-references.js";
import type { JournalError } from "./journal-error.js";

/** The first entry of every journal: what the run is, so another process can replay or resume it. */
export interface JournalHeader {
  readonly t: "run";
  /** Format version; a store refuses a journal of a version it does not know. */
  readonly v: 1;
  readonly id: string;
  /** Epoch ms when the run was first started. */
  readonly createdAt: number;
  /** Epoch ms after which `prune` may delete the journal. */
  readonly expiresAt: number;
  /** The program as it was first run; `resume` runs it again from here. */
  readonly source: string;
  /** The run's `input` as JSON text, when it had one. */
  readonly inputJson?: string | undefined;
  /** The guest's clock at the start, and the seed of its `Math.random`. */
  readonly nowMs: number;
  readonly seed: readonly [number, number, number, number];
  /**
   * The type check the run passed before it first ran, so a resume whose check would see the same
   * things takes its findings from here instead of starting the checker. Absent when the run was
   * not checked (`typeCheck: "off"`), and in journals written before it existed: those check again.
   * A reader drops one of the wrong shape (the run then checks again) rather than refuse the journal.
   */
  readonly check?: JournaledCheck | undefined;
}

/**
 * A passed type check as a journal keeps it (see check-fingerprint.ts): the fingerprint of what it
 * saw, the tool references its declarations were chosen for, and what it found (type errors only
 * in `warn` mode; lint findings). Not a security boundary: whoever can write the journal can
 * already change the program and the tools' answers the replay feeds it.
 */
export interface JournaledCheck {
  /** `sha256:` and hex: the program, its form, the declarations and contract it was checked against, the checker's version, the mode. */
  readonly fingerprint: string;
  /** What the program reads of `tools`, which chose its declarations; absent when they were one fixed text. */
  readonly references?: ToolReferences | undefined;
  readonly errors: readonly Diagnostic[];
  readonly warnings: readonly Diagnostic[];
}

/**
 * One answer a crossing carried to the program: the wire index `i`, the call's position `n`
 * (1-based; absent for the run's own `$timer` and `$budget` requests), its tool and the hash of
 * its input, the envelope as the guest received it (`e`) or, when larger than the store's inline
 * limit, a reference to it (`ref`), and the call's record.
 */
export interface JournaledAnswer {
  readonly i: number;
  readonly n?: number | undefined;
  readonly tool: string;
  readonly h: string;
  readonly e?: string | undefined;
  readonly ref?: string | undefined;
  readonly r?: CallRecord | undefined;
}

/**
 * How a crossing reached the host: a batch answered now (`now`), one that may be held for its
 * call (`mayWait`), one sent ahead (`later`, a lone call of a slow tool too), or the guest's `wait`
 * for answers (opened by the crossing before it, or asked for by the guest).
 */
export type CrossingKind = "now" | "mayWait" | "later" | "wait";

/**
 * One crossing, written when it was answered (so entries are in the order answers reached the
 * program): its number `k` in arrival order, its kind, the wire indexes of the requests it
 * carried (`first`, `count`; submits only), the clock it gave the guest and the answers it carried.
 */
export interface CrossingEntry {
  readonly t: "x";
  readonly k: number;
  readonly kind: CrossingKind;
  readonly first?: number | undefined;
  readonly count?: number | undefined;
  readonly nowMs: number;
  readonly answers: readonly JournaledAnswer[];
}

/** A call waiting for a person's decision when the run paused. */
export interface PendingRequest {
  /** The call's position (1-based), what a decision names. */
  readonly position: number;
  readonly tool: string;
  readonly input: unknown;
  /** The asking rule's reason, if it gave one. */
  readonly reason?: string | undefined;
  readonly idempotencyKey: string;
}

/** The run paused: the calls that wait for a decision. */
export interface PauseEntry {
  readonly t: "pause";
  readonly at: number;
  readonly pending: readonly PendingRequest[];
}

/** A person's decision on a pending call. */
export interface DecisionEntry {
  readonly t: "decision";
  readonly at: number;
  readonly position: number;
  readonly approved: boolean;
  readonly reason?: string | undefined;
}

/** The run ended (not paused): how, and for a failure the start of its message (at most 1,024 characters). */
export interface EndEntry {
  readonly t: "end";
  readonly at: number;
  readonly ok: boolean;
  readonly code?: RunErrorCode | undefined;
  readonly message?: string | undefined;
}

/**
 * A run that was replayed went live: how many calls (and crossings) were answered from the journal
 * first. Written once per resume, before the resume's first live crossing; `runs show` counts them.
 */
export interface ResumeEntry {
  readonly t: "resume";
  readonly at: number;
  /** Calls answered from the journal before this resume's first live call. */
  readonly replayed: number;
}

/** Anything after the header. */
export type JournalEntry = CrossingEntry | PauseEntry | DecisionEntry | EndEntry | ResumeEntry;

/** A journal as read back: its header and its entries in order. */
export interface StoredJournal {
  readonly header: JournalHeader;
  readonly entries: readonly JournalEntry[];
  /** Bytes the journal takes in its store, spilled answers included. */
  readonly bytes: number;
}

/** Where a run stands, from its journal's last entries. */
/**
 * Where a run stands; `damaged`: its journal cannot be read as one (`list` only: its `code` is
 * JOURNAL_INVALID and `message` says why; nothing else of it is known).
 */
export type RunState = "running" | "paused" | "ended" | "damaged";

/** One line of `list`; `summarizeJournal` makes it from a StoredJournal, for every store. */
export interface RunSummary {
  readonly id: string;
  readonly state: RunState;
  readonly createdAt: number;
  readonly expiresAt: number;
  /** `hashInput` of the program's source: tells two runs of one program apart from runs of another. */
  readonly programHash: string;
  /** Calls journaled (each was made live once). */
  readonly calls: number;
  /** Calls answered from the journal, summed over every resume. */
  readonly replayedCalls: number;
  /** Times the run was resumed (replayed, then went live). */
  readonly resumes: number;
  readonly bytes: number;
  /** For a paused run, the calls waiting for a decision. */
  readonly pending: readonly PendingRequest[];
  /** For an ended run, whether it succeeded, and its code when not. */
  readonly ok?: boolean | undefined;
  readonly code?: RunErrorCode | undefined;
  /** For a run that ended failed, the start of its error's message. */
  readonly message?: string | undefined;
}

/**
 * Appends to one run's journal; one writer per run at a time (the store's lock). `append` never
 * blocks the caller on the disk's flush; `flush` resolves when everything appended is durable.
 */
export interface JournalWriter {
  /**
   * Appends entries in order. Returns false, appending nothing, when they would take the run's
   * journal past the store's `maxRunBytes`: the run must end `JOURNAL_LIMIT`. Throws a JournalError
   * (`JOURNAL_WRITE_FAILED`), having kept nothing of them, when the medium refuses the write (a
   * full disk); every later append throws it too.
   */
  append(entries: readonly JournalEntry[]): boolean;
  /** Stores a large answer apart and returns its reference for `JournaledAnswer.ref`. */
  spill(index: number, envelope: string): string | undefined;
  /** Resolves when every entry appended so far is on stable storage. */
  flush(): Promise<void>;
  /** Flushes and releases the run's lock; later appends are refused. */
  close(): Promise<void>;
  /**
   * Calls `listener` once when the store refuses appends after `append` accepted them (a remote
   * store whose write failed later, a lease another writer took over): the run must end with the
   * error's code. Stores that write synchronously never call it.
   */
  onRefused?(listener: (error: JournalError) => void): void;
}

/** A journal opened for a run: its writer (holding the run's lock) and the journal as it stood when the lock was taken. */
export interface OpenedJournal {
  readonly writer: JournalWriter;
  /** Read once, under the lock: nobody appends between this read and the replay. Spilled answers stay references. */
  readonly journal: StoredJournal;
}

/**
 * A store of durable runs' journals (see `FileRunJournal`, the embedded default). Run ids are
 * checked by `checkRunId` before any store sees them.
 */
export interface RunJournal {
  /** The run's journal, or undefined when the store has none. Rejects `JOURNAL_INVALID` for a damaged one. */
  read(id: string): Promise<StoredJournal | undefined>;
  /**
   * The run's header alone (what `resume` needs before it runs: the program and its input), without
   * reading the entries; undefined when the store has no such run. Rejects `JOURNAL_INVALID`.
   */
  readHeader(id: string): Promise<JournalHeader | undefined>;
  /** Reads a spilled answer back by its reference. */
  readSpilled(id: string, ref: string): Promise<string>;
  /**
   * Takes the run's lock, then reads the journal once (writing `header` first when it is new, or
   * empty) and opens it for appending. A replay runs from the journal this resolves with, so a
   * resume reads the journal once. Rejects `RUN_BUSY` when another live writer holds the lock,
   * `JOURNAL_INVALID` when `header` is undefined and there is no journal (its `missing` set), or
   * for a damaged one.
   */
  open(id: string, header: JournalHeader | undefined): Promise<OpenedJournal>;
  /** Appends entries outside a run (a decision from the command line), under the run's lock. */
  appendOutside(id: string, entries: readonly JournalEntry[]): Promise<void>;
  /** Every run in the store, newest first. */
  list(): Promise<RunSummary[]>;
  /**
   * Deletes the journals expired at `nowMs` (default now) that no live writer holds; resolves with
   * their ids. Reads no more of a journal than its expiry needs (its header, or the store's index).
   */
  prune(nowMs?: number): Promise<string[]>;
  /**
   * Records where its starter reads it how a run resumed by `yard.resume` ended (not paused), for a
   * store whose runs belong to something beside their journals: a fleet's store writes the job's
   * result over the `PAUSED` one its batch holds. Optional; resolves with what it recorded, or
   * undefined when the run is nobody's. Rejects when the store is unreachable: resuming again
   * replays the ended run without calling a tool and records it again.
   */
  recordResumed?(id: string, result: RunResult, startedAt: number): Promise<ResumedRunRecord | undefined>;
}

/** Where a store recorded a resumed run's end (see `RunJournal.recordResumed`): a fleet job's batch and input. */
export interface ResumedRunRecord {
  readonly batchId: string;
  readonly key: string;
  /**
   * `replaced`: the batch's `PAUSED` result now tells how the run ended; `kept`: a result written
   * since the pause (a resubmit's) stays; `absent`: the batch holds no result for the input.
   */
  readonly outcome: "replaced" | "kept" | "absent";
}
