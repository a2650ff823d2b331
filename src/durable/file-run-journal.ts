// The embedded journal store: one append-only file of JSON lines per run in a private folder
// (0700, files 0600, never through a symbolic link), answers larger than `maxInlineAnswerBytes`
// in a file of their own beside it, a lock file per run naming its writer's pid.
// Loss window: each append is one write(2) before the answer reaches the program, so a killed
// process (SIGKILL, OOM) loses nothing appended; fdatasync runs at most `syncIntervalMs` after
// an append and at pause, end and close, so a machine crash loses at most that much.

import {
  closeSync,
  constants,
  fdatasync,
  fstatSync,
  ftruncateSync,
  lstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  readSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import { open, readdir, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import { JournalError } from "./journal-error.js";
import { decodeJournalText, encodeJournalLines } from "./journal-lines.js";
import { checkRunId } from "./run-id.js";
import type {
  JournalEntry,
  JournalHeader,
  JournalWriter,
  PauseEntry,
  RunJournal,
  RunSummary,
  StoredJournal,
} from "./run-journal.js";

/** Options of the file store; every size in bytes, every time in ms. */
export interface FileRunJournalOptions {
  /** The folder that holds the journals; created 0700 on first use. */
  readonly folder: string;
  /** Bytes one run's journal may take, spilled answers included. Default 256 MB; past it the run ends `JOURNAL_LIMIT`. */
  readonly maxRunBytes?: number | undefined;
  /** An answer larger than this is stored in a file of its own, by reference. Default 64 KB. */
  readonly maxInlineAnswerBytes?: number | undefined;
  /** Longest time between an append and its fdatasync. Default 20 ms; 0 syncs every append. */
  readonly syncIntervalMs?: number | undefined;
}

const JOURNAL_SUFFIX = ".jsonl";
const OPEN_READ = constants.O_RDONLY | constants.O_NOFOLLOW;
const OPEN_EXISTING = constants.O_RDWR | constants.O_APPEND | constants.O_NOFOLLOW;
const OPEN_APPEND = OPEN_EXISTING | constants.O_CREAT;
const OPEN_NEW = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;
// Runs this process writes: a second writer in the same process is refused like one in another.
const heldHere = new Set<string>();

/** Journals as files in one folder; see the module comment. */
export class FileRunJournal implements RunJournal {
  readonly folder: string;
  readonly maxRunBytes: number;
  readonly maxInlineAnswerBytes: number;
  readonly syncIntervalMs: number;

  constructor(options: FileRunJournalOptions) {
    this.folder = options.folder;
    this.maxRunBytes = options.maxRunBytes ?? 256 * 1024 * 1024;
    this.maxInlineAnswerBytes = options.maxInlineAnswerBytes ?? 64 * 1024;
    this.syncIntervalMs = options.syncIntervalMs ?? 20;
  }

  async read(id: string): Promise<StoredJournal | undefined> {
    const text = await this.#readCapped(id, this.#journalPath(id));
    if (text === undefined) return undefined;
    const { journal } = decodeJournalText(id, text);
    return { ...journal, bytes: journal.bytes + (await this.#spilledBytes(id)) };
  }

  async readSpilled(id: string, ref: string): Promise<string> {
    // A reference is an index this store wrote; anything else is a damaged journal, never a path.
    if (!/^\d{1,10}$/.test(ref))
      throw new JournalError("JOURNAL_INVALID", `Run ${id} names a spilled answer "${ref.slice(0, 20)}".`);
    const envelope = await this.#readCapped(id, join(this.#spillFolder(id), `${ref}.json`));
    if (envelope === undefined)
      throw new JournalError("JOURNAL_INVALID", `The spilled answer ${ref} of run ${id} is missing.`);
    return envelope;
  }

  async open(id: string, header: JournalHeader | undefined): Promise<JournalWriter> {
    checkRunId(id);
    this.#prepareFolder();
    this.#lock(id);
    let fd: number | undefined;
    try {
      // The descriptor is opened first (never through a link) and the file is sized, scanned and
      // cut through it: a planted link or a huge file is refused before a byte of it is read.
      try {
        fd = openSync(this.#journalPath(id), header === undefined ? OPEN_EXISTING : OPEN_APPEND, 0o600);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "ENOENT") throw noJournal(id);
        throw error;
      }
      const size = fstatSync(fd).size;
      this.#checkSize(id, size);
      let bytes = 0;
      if (size > 0) {
        // `read` checks every complete line; a torn last line is cut before anything is appended.
        const complete = completeLength(fd, size);
        if (complete === 0) throw new JournalError("JOURNAL_INVALID", `The journal of run ${id} has no complete line.`);
        if (complete < size) ftruncateSync(fd, complete);
        bytes = complete + (await this.#spilledBytes(id));
      } else if (header === undefined) throw noJournal(id);
      const writer = new FileJournalWriter(this, id, fd, bytes, () => this.#unlock(id));
      if (bytes === 0 && header !== undefined) writer.writeHeader(header);
      return writer;
    } catch (error) {
      if (fd !== undefined) closeSync(fd);
      this.#unlock(id);
      throw error;
    }
  }

  async appendOutside(id: string, entries: readonly JournalEntry[]): Promise<void> {
    const writer = await this.open(id, undefined);
    const appended = writer.append(entries);
    await writer.close();
    if (!appended) throw new JournalError("JOURNAL_LIMIT", `The journal of run ${id} is full.`);
  }

  async list(): Promise<RunSummary[]> {
    let names: string[];
    try {
      names = await readdir(this.folder);
    } catch {
      return [];
    }
    const summaries: RunSummary[] = [];
    for (const name of names) {
      if (!name.endsWith(JOURNAL_SUFFIX)) continue;
      const id = name.slice(0, -JOURNAL_SUFFIX.length);
      try {
        const journal = await this.read(id);
        if (journal !== undefined) summaries.push(summarizeJournal(journal));
      } catch {
        // A damaged journal is listed by `read` with its reason, not by `list`.
      }
    }
    return summaries.sort((a, b) => b.createdAt - a.createdAt);
  }

  async prune(nowMs: number = Date.now()): Promise<string[]> {
    const pruned: string[] = [];
    for (const summary of await this.list()) {
      if (summary.expiresAt > nowMs) continue;
      try {
        this.#lock(summary.id);
      } catch {
        continue;
      }
      try {
        await rm(this.#journalPath(summary.id), { force: true });
        await rm(this.#spillFolder(summary.id), { recursive: true, force: true });
        pruned.push(summary.id);
      } finally {
        this.#unlock(summary.id);
      }
    }
    return pruned;
  }

  /** The folder of `id`'s spilled answers (created by the writer on first spill). */
  spillFolderOf(id: string): string {
    return this.#spillFolder(id);
  }

  #journalPath(id: string): string {
    return join(this.folder, `${checkRunId(id)}${JOURNAL_SUFFIX}`);
  }

  #spillFolder(id: string): string {
    return join(this.folder, `${checkRunId(id)}.answers`);
  }

  /**
   * A file of run `id` as text, never through a link and never past `maxRunBytes`; undefined when
   * it does not exist. Throws `JOURNAL_INVALID`.
   */
  async #readCapped(id: string, path: string): Promise<string | undefined> {
    let file: Awaited<ReturnType<typeof open>>;
    try {
      file = await open(path, OPEN_READ);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw new JournalError("JOURNAL_INVALID", `A file of run ${id} cannot be read: ${String(error)}`);
    }
    try {
      this.#checkSize(id, (await file.stat()).size);
      return await file.readFile("utf8");
    } finally {
      await file.close();
    }
  }

  #checkSize(id: string, size: number): void {
    if (size > this.maxRunBytes)
      throw new JournalError("JOURNAL_INVALID", `The journal of run ${id} is ${size} bytes, over ${this.maxRunBytes}.`);
  }

  async #spilledBytes(id: string): Promise<number> {
    let total = 0;
    try {
      for (const name of await readdir(this.#spillFolder(id)))
        total += (await stat(join(this.#spillFolder(id), name))).size;
    } catch {
      // No spilled answers.
    }
    return total;
  }

  #prepareFolder(): void {
    mkdirSync(this.folder, { recursive: true, mode: 0o700 });
  }

  /** Takes `id`'s lock file, or throws RUN_BUSY; a lock whose process is gone is taken over. */
  #lock(id: string): void {
    if (heldHere.has(`${this.folder}\0${id}`)) throw busy(id, process.pid);
    const path = join(this.folder, `${id}.lock`);
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        const fd = openSync(path, OPEN_NEW, 0o600);
        writeSync(fd, `${process.pid}`);
        closeSync(fd);
        heldHere.add(`${this.folder}\0${id}`);
        return;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      }
      let holder = Number.NaN;
      try {
        holder = Number(readFileSync(path, "utf8"));
      } catch {
        // Removed meanwhile: try again.
      }
      if (Number.isInteger(holder) && holder > 0 && holder !== process.pid && isAlive(holder)) throw busy(id, holder);
      // The writer died (a SIGKILLed worker): its lock is stale.
      try {
        unlinkSync(path);
      } catch {
        // Someone else took it over first; the next attempt sees theirs.
      }
    }
    throw busy(id, Number.NaN);
  }

  #unlock(id: string): void {
    heldHere.delete(`${this.folder}\0${id}`);
    try {
      unlinkSync(join(this.folder, `${id}.lock`));
    } catch {
      // Already gone.
    }
  }
}

/** Appends to one run's file; see `JournalWriter`. */
class FileJournalWriter implements JournalWriter {
  readonly #store: FileRunJournal;
  readonly #id: string;
  #fd: number | undefined;
  #bytes: number;
  #syncTimer: NodeJS.Timeout | undefined;
  #syncing: Promise<void> = Promise.resolve();
  readonly #release: () => void;

  constructor(store: FileRunJournal, id: string, fd: number, bytes: number, release: () => void) {
    this.#store = store;
    this.#id = id;
    this.#fd = fd;
    this.#bytes = bytes;
    this.#release = release;
  }

  writeHeader(header: JournalHeader): void {
    this.#write(encodeJournalLines([header]));
  }

  append(entries: readonly JournalEntry[]): boolean {
    if (this.#fd === undefined || entries.length === 0) return this.#fd !== undefined;
    const text = encodeJournalLines(entries);
    // A UTF-16 unit is at most 3 bytes: only a text that could pass the cap is measured.
    if (this.#bytes + text.length * 3 > this.#store.maxRunBytes) {
      if (this.#bytes + Buffer.byteLength(text) > this.#store.maxRunBytes) return false;
    }
    this.#write(text);
    if (entries.some((entry) => entry.t !== "x")) void this.flush();
    else this.#scheduleSync();
    return true;
  }

  spill(index: number, envelope: string): string | undefined {
    const bytes = Buffer.byteLength(envelope);
    if (this.#fd === undefined || bytes <= this.#store.maxInlineAnswerBytes) return undefined;
    if (this.#bytes + bytes > this.#store.maxRunBytes) throw new JournalError("JOURNAL_LIMIT", "full");
    const folder = this.#store.spillFolderOf(this.#id);
    mkdirSync(folder, { recursive: true, mode: 0o700 });
    // O_NOFOLLOW guards only the file's own name: a planted link in place of the folder would
    // send answers (and O_TRUNC) wherever it points.
    if (lstatSync(folder).isSymbolicLink())
      throw new JournalError("JOURNAL_INVALID", `The answers folder of run ${this.#id} is a symbolic link.`);
    const fd = openSync(
      join(folder, `${index}.json`),
      constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW,
      0o600,
    );
    try {
      writeSync(fd, envelope);
    } finally {
      closeSync(fd);
    }
    this.#bytes += bytes;
    return `${index}`;
  }

  flush(): Promise<void> {
    if (this.#syncTimer !== undefined) {
      clearTimeout(this.#syncTimer);
      this.#syncTimer = undefined;
    }
    const fd = this.#fd;
    if (fd === undefined) return this.#syncing;
    this.#syncing = this.#syncing.then(() => new Promise<void>((resolve) => fdatasync(fd, () => resolve())));
    return this.#syncing;
  }

  async close(): Promise<void> {
    if (this.#fd === undefined) return;
    await this.flush();
    const fd = this.#fd;
    this.#fd = undefined;
    closeSync(fd);
    this.#release();
  }

  #write(text: string): void {
    this.#bytes += writeSync(this.#fd!, text);
  }

  #scheduleSync(): void {
    if (this.#syncTimer !== undefined) return;
    if (this.#store.syncIntervalMs <= 0) {
      void this.flush();
      return;
    }
    this.#syncTimer = setTimeout(() => {
      this.#syncTimer = undefined;
      void this.flush();
    }, this.#store.syncIntervalMs);
    this.#syncTimer.unref();
  }
}

/** A run's summary from its journal: state, calls, pending requests. */
export function summarizeJournal(journal: StoredJournal): RunSummary {
  let calls = 0;
  let state: RunSummary["state"] = "running";
  let pause: PauseEntry | undefined;
  let end: { ok: boolean; code?: RunSummary["code"] } | undefined;
  // The last crossing, pause or end says where the run stands; decisions do not move it.
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
    }
  }
  return {
    id: journal.header.id,
    state,
    createdAt: journal.header.createdAt,
    expiresAt: journal.header.expiresAt,
    calls,
    bytes: journal.bytes,
    pending: state === "paused" && pause !== undefined ? pause.pending : [],
    ...(state === "ended" && end !== undefined ? { ok: end.ok, code: end.code } : {}),
  };
}

/** The length of the file up to its last newline, read backwards from its end in chunks. */
function completeLength(fd: number, size: number): number {
  const chunk = Buffer.alloc(Math.min(size, 64 * 1024));
  for (let end = size; end > 0; ) {
    const start = Math.max(0, end - chunk.length);
    const read = readSync(fd, chunk, 0, end - start, start);
    const newline = chunk.subarray(0, read).lastIndexOf(0x0a);
    if (newline >= 0) return start + newline + 1;
    end = start;
  }
  return 0;
}

function noJournal(id: string): JournalError {
  return new JournalError("JOURNAL_INVALID", `Run ${id} has no journal.`);
}

function busy(id: string, pid: number): JournalError {
  const who = Number.isNaN(pid) ? "another writer" : pid === process.pid ? "this process" : `process ${pid}`;
  return new JournalError("RUN_BUSY", `Run ${id} is being run by ${who}; wait for it to end or pause.`);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
