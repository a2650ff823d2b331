// The embedded journal store: one append-only file of JSON lines per run in a private folder
// (0700, files 0600, never through a symbolic link), answers larger than `maxInlineAnswerBytes`
// in a file of their own beside it, a lock file per run naming its writer's pid.
// Loss window: each append is one write(2) before the answer reaches the program, so a killed
// process (SIGKILL, OOM) loses nothing appended; fdatasync runs at most `syncIntervalMs` after
// an append and at pause, end and close, so a machine crash loses at most that much.
// A write the disk refuses (full, quota, I/O error, a short write) is cut from the file, so the
// journal stays whole lines, and ends the run JOURNAL_WRITE_FAILED before the answer it was
// journaling reaches the program; an fdatasync that fails ends it the same way (the kernel may
// have dropped what it could not write). A resume once the disk can write again replays the rest.

import {
  closeSync,
  constants,
  existsSync,
  fdatasync,
  fstatSync,
  ftruncateSync,
  lstatSync,
  mkdirSync,
  openSync,
  linkSync,
  readFileSync,
  readSync,
  renameSync,
  rmSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import { randomBytes } from "node:crypto";
import { open, readdir, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import { SwitchyardError } from "../errors.js";
import { asJournalError, JournalError } from "./journal-error.js";
import { decodeJournalText, encodeJournalLines } from "./journal-lines.js";
import { DEFAULT_MAX_INLINE_ANSWER_BYTES, storeOption } from "./journal-store-options.js";
import { checkRunId, isRunId } from "./run-id.js";
import type {
  JournalEntry,
  JournalHeader,
  JournalWriter,
  OpenedJournal,
  RunJournal,
  RunSummary,
  StoredJournal,
} from "./run-journal.js";
import { summarizeRuns } from "./summarize-journal.js";

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
// `readHeader` reads the first line in chunks of this many bytes.
const HEADER_CHUNK_BYTES = 16 * 1024;
// O_NONBLOCK: a FIFO planted under a journal's name opens at once (and is refused as no regular
// file) instead of blocking a libuv thread until a writer comes, which a signal cannot end.
const OPEN_READ = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;
const OPEN_EXISTING = constants.O_RDWR | constants.O_APPEND | constants.O_NOFOLLOW | constants.O_NONBLOCK;
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
    if (typeof options?.folder !== "string" || options.folder === "")
      throw new SwitchyardError("OPTION_INVALID", "FileRunJournal needs { folder }: the folder its journals live in.");
    this.folder = options.folder;
    this.maxRunBytes = storeOption("maxRunBytes", options.maxRunBytes, 256 * 1024 * 1024);
    this.maxInlineAnswerBytes = storeOption(
      "maxInlineAnswerBytes",
      options.maxInlineAnswerBytes,
      DEFAULT_MAX_INLINE_ANSWER_BYTES,
    );
    this.syncIntervalMs = storeOption("syncIntervalMs", options.syncIntervalMs, 20);
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

  async open(id: string, header: JournalHeader | undefined): Promise<OpenedJournal> {
    checkRunId(id);
    try {
      this.#prepareFolder();
      this.#lock(id);
    } catch (error) {
      // A disk that cannot take the folder or the lock file (full, read-only) is the store's refusal.
      throw asJournalError(error, id) ?? error;
    }
    let fd: number | undefined;
    try {
      // The descriptor is opened first (never through a link) and the file is sized, read and
      // cut through it: a planted link or a huge file is refused before a byte of it is read.
      try {
        fd = openSync(this.#journalPath(id), header === undefined ? OPEN_EXISTING : OPEN_APPEND, 0o600);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "ENOENT") throw noJournal(id);
        throw error;
      }
      const stats = fstatSync(fd);
      checkRegularFile(id, stats.isFile());
      const { size } = stats;
      this.#checkSize(id, size);
      if (size === 0 && header === undefined) throw noJournal(id);
      // The one read of the journal: every complete line is checked, a torn last line is cut
      // before anything is appended.
      const text = size === 0 ? "" : readWhole(fd, size);
      if (size > 0 && !text.includes("\n"))
        throw new JournalError("JOURNAL_INVALID", `The journal of run ${id} has no complete line.`);
      const decoded = size === 0 ? undefined : decodeJournalText(id, text, size);
      // A torn last line is cut by the writer's first write, not here: an open that appends nothing
      // (a diverged replay, a refused decision) leaves the file as it found it.
      const kept = decoded === undefined ? 0 : size - Buffer.byteLength(text.slice(decoded.complete));
      const spilled = size === 0 ? 0 : await this.#spilledBytes(id);
      const writer = new FileJournalWriter(this, id, fd, kept, spilled, kept < size, () => this.#unlock(id));
      if (decoded !== undefined) return { writer, journal: { ...decoded.journal, bytes: kept + spilled } };
      const fresh = header as JournalHeader;
      try {
        writer.writeHeader(fresh);
      } catch (error) {
        // A new journal whose header the disk refused is not left behind, empty, as a damaged run.
        rmSync(this.#journalPath(id), { force: true });
        throw error;
      }
      return { writer, journal: { header: fresh, entries: [], bytes: Buffer.byteLength(encodeJournalLines([fresh])) } };
    } catch (error) {
      if (fd !== undefined) closeSync(fd);
      this.#unlock(id);
      throw asJournalError(error, id) ?? error;
    }
  }

  async readHeader(id: string): Promise<JournalHeader | undefined> {
    // The id is checked outside the try: a hostile one is OPTION_INVALID, not an unreadable file.
    const path = this.#journalPath(id);
    let file: Awaited<ReturnType<typeof open>>;
    try {
      file = await open(path, OPEN_READ);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw new JournalError("JOURNAL_INVALID", `The journal of run ${id} cannot be read: ${String(error)}`);
    }
    try {
      // Only the first line, in chunks: a header is the program and its input, not the calls.
      const stats = await file.stat();
      checkRegularFile(id, stats.isFile());
      const { size } = stats;
      this.#checkSize(id, size);
      const chunks: Buffer[] = [];
      for (let at = 0; at < size; ) {
        const chunk = Buffer.alloc(Math.min(HEADER_CHUNK_BYTES, size - at));
        const { bytesRead } = await file.read(chunk, 0, chunk.length, at);
        if (bytesRead === 0) break;
        const newline = chunk.subarray(0, bytesRead).indexOf(0x0a);
        chunks.push(chunk.subarray(0, newline < 0 ? bytesRead : newline + 1));
        if (newline >= 0) break;
        at += bytesRead;
      }
      return decodeJournalText(id, Buffer.concat(chunks).toString("utf8")).journal.header;
    } finally {
      await file.close();
    }
  }

  async appendOutside(id: string, entries: readonly JournalEntry[]): Promise<void> {
    const { writer } = await this.open(id, undefined);
    let appended: boolean;
    try {
      appended = writer.append(entries);
    } finally {
      await writer.close();
    }
    if (!appended) throw new JournalError("JOURNAL_LIMIT", `The journal of run ${id} is full.`);
  }

  async list(): Promise<RunSummary[]> {
    return summarizeRuns(await this.#ids(), (id) => this.read(id));
  }

  async prune(nowMs: number = Date.now()): Promise<string[]> {
    const pruned: string[] = [];
    for (const id of await this.#ids()) {
      // The header says when the journal expires: nothing after its first line is read.
      let header: JournalHeader | undefined;
      try {
        header = await this.readHeader(id);
      } catch {
        continue;
      }
      if (header === undefined || header.expiresAt > nowMs) continue;
      try {
        this.#lock(id);
      } catch {
        continue;
      }
      try {
        await rm(this.#journalPath(id), { force: true });
        await rm(this.#spillFolder(id), { recursive: true, force: true });
        pruned.push(id);
      } finally {
        this.#unlock(id);
      }
    }
    return pruned;
  }

  /** The ids of the journals in the folder. */
  async #ids(): Promise<string[]> {
    let names: string[];
    try {
      names = await readdir(this.folder);
    } catch (error) {
      // No folder yet: no runs. One that cannot be read is said, not listed as empty.
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
      throw new JournalError(
        "JOURNAL_INVALID",
        `The journal folder ${this.folder} cannot be read (${String((error as Error).message)}).`,
      );
    }
    const ids: string[] = [];
    for (const name of names) {
      const id = name.endsWith(JOURNAL_SUFFIX) ? name.slice(0, -JOURNAL_SUFFIX.length) : "";
      if (isRunId(id)) ids.push(id);
    }
    return ids;
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
      const stats = await file.stat();
      checkRegularFile(id, stats.isFile());
      this.#checkSize(id, stats.size);
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
    // Most runs spill nothing: a stat instead of a readdir that fails with an Error built for nothing.
    if (!existsSync(this.#spillFolder(id))) return 0;
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

  /**
   * Takes `id`'s lock file, or throws RUN_BUSY; a lock whose process is gone is taken over. The
   * lock appears whole or not at all: its pid is written to a file of this process's own, which is
   * then linked into place (a link fails where the lock exists), so no process reads a lock without
   * its pid (an empty one read as a dead writer's let two processes hold the run). A stale lock is
   * moved aside by rename, which only one process can do to one file, and checked to be the one
   * found stale before it is dropped.
   */
  #lock(id: string): void {
    const key = `${this.folder}\0${id}`;
    if (heldHere.has(key)) throw busy(id, process.pid);
    const path = join(this.folder, `${id}.lock`);
    const mine = `${path}.${process.pid}-${randomBytes(4).toString("hex")}`;
    try {
      const fd = openSync(mine, OPEN_NEW, 0o600);
      try {
        writeSync(fd, `${process.pid}`);
      } finally {
        closeSync(fd);
      }
      for (let attempt = 0; attempt < 3; attempt++) {
        try {
          linkSync(mine, path);
          heldHere.add(key);
          return;
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
        }
        const holder = readLockHolder(path);
        if (holder === undefined) continue;
        if (holder > 0 && holder !== process.pid && isAlive(holder)) throw busy(id, holder);
        // The writer died (a SIGKILLed worker): its lock is stale.
        setStaleLockAside(path, holder);
      }
      throw busy(id, Number.NaN);
    } finally {
      rmSync(mine, { force: true });
    }
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
  /** Bytes of the run's journal file: where a refused write is cut back to. */
  #fileBytes: number;
  /** Bytes the run takes in the store, its spilled answers included (what `maxRunBytes` caps). */
  #bytes: number;
  #syncTimer: NodeJS.Timeout | undefined;
  #syncing: Promise<void> = Promise.resolve();
  /** Written (or cut) since the last fdatasync: a replay that appends nothing syncs nothing at close. */
  #unsynced: boolean;
  /** The file ends in a torn line past `#fileBytes` (a crash mid-write), cut before the first write. */
  #torn: boolean;
  readonly #release: () => void;
  /** The write or sync the disk refused; once set, every append throws it. */
  #failure: JournalError | undefined;
  readonly #refusedListeners: ((error: JournalError) => void)[] = [];

  constructor(
    store: FileRunJournal,
    id: string,
    fd: number,
    fileBytes: number,
    spilledBytes: number,
    torn: boolean,
    release: () => void,
  ) {
    this.#store = store;
    this.#id = id;
    this.#fd = fd;
    this.#fileBytes = fileBytes;
    this.#bytes = fileBytes + spilledBytes;
    this.#torn = torn;
    this.#unsynced = false;
    this.#release = release;
  }

  onRefused(listener: (error: JournalError) => void): void {
    this.#refusedListeners.push(listener);
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
    // A UTF-16 unit is at most 3 bytes: an envelope that cannot pass the limit is not measured.
    if (envelope.length * 3 <= this.#store.maxInlineAnswerBytes) return undefined;
    const bytes = Buffer.byteLength(envelope);
    if (this.#fd === undefined || bytes <= this.#store.maxInlineAnswerBytes) return undefined;
    if (this.#bytes + bytes > this.#store.maxRunBytes) throw new JournalError("JOURNAL_LIMIT", "full");
    const folder = this.#store.spillFolderOf(this.#id);
    mkdirSync(folder, { recursive: true, mode: 0o700 });
    // O_NOFOLLOW guards only the file's own name: a planted link in place of the folder would
    // send answers (and O_TRUNC) wherever it points.
    if (lstatSync(folder).isSymbolicLink())
      throw new JournalError("JOURNAL_INVALID", `The answers folder of run ${this.#id} is a symbolic link.`);
    const path = join(folder, `${index}.json`);
    let fd: number | undefined;
    try {
      fd = openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW, 0o600);
      const written = writeSync(fd, envelope);
      if (written !== bytes) throw new Error(`a short write (${written} of ${bytes} bytes)`);
    } catch (error) {
      // Never referred to by the journal: a part of it would only take room.
      rmSync(path, { force: true });
      throw this.#writeFailed(error);
    } finally {
      if (fd !== undefined) closeSync(fd);
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
    if (fd === undefined || !this.#unsynced) return this.#syncing;
    this.#unsynced = false;
    this.#syncing = this.#syncing.then(
      () =>
        new Promise<void>((resolve) =>
          fdatasync(fd, (error) => {
            if (error !== null) this.#refuse(this.#writeFailed(error));
            resolve();
          }),
        ),
    );
    return this.#syncing;
  }

  async close(): Promise<void> {
    if (this.#fd === undefined) return;
    await this.flush();
    const fd = this.#fd;
    this.#fd = undefined;
    try {
      closeSync(fd);
    } catch {
      // What close could report (a deferred write error) the fdatasync before it reported.
    }
    this.#release();
  }

  /** One write(2) of whole lines; a write the disk refuses (or cuts short) is cut from the file and thrown. */
  #write(text: string): void {
    if (this.#failure !== undefined) throw this.#failure;
    const fd = this.#fd!;
    let written = 0;
    try {
      if (this.#torn) {
        ftruncateSync(fd, this.#fileBytes);
        this.#torn = false;
        this.#unsynced = true;
      }
      written = writeSync(fd, text);
      if (written !== Buffer.byteLength(text))
        throw new Error(`a short write (${written} of ${Buffer.byteLength(text)} bytes)`);
    } catch (error) {
      const failure = this.#writeFailed(error);
      try {
        // A part of a line would make every later line unreadable: back to the last whole one.
        if (written > 0) ftruncateSync(fd, this.#fileBytes);
      } catch {
        // The cut failed too: the next open cuts a torn last line itself.
      }
      this.#failure = failure;
      throw failure;
    }
    this.#unsynced = true;
    this.#fileBytes += written;
    this.#bytes += written;
  }

  #writeFailed(error: unknown): JournalError {
    const why = error instanceof Error ? error.message : String(error);
    return new JournalError("JOURNAL_WRITE_FAILED", `The journal of run ${this.#id} could not be written (${why})`);
  }

  /** A failure found after `append` returned (a failed fdatasync): the run must end. */
  #refuse(error: JournalError): void {
    if (this.#failure !== undefined) return;
    this.#failure = error;
    for (const listener of this.#refusedListeners.splice(0)) listener(error);
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

/** The whole file behind `fd`, `size` bytes, as text. */
function readWhole(fd: number, size: number): string {
  const buffer = Buffer.allocUnsafe(size);
  let read = 0;
  while (read < size) {
    const got = readSync(fd, buffer, read, size - read, read);
    if (got === 0) break;
    read += got;
  }
  return buffer.toString("utf8", 0, read);
}

function noJournal(id: string): JournalError {
  return new JournalError("JOURNAL_INVALID", `Run ${id} has no journal.`, { missing: true });
}

/** The pid a lock file names (0 for one that names none), or undefined when it is gone. */
function readLockHolder(path: string): number | undefined {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
  const holder = Number(text);
  return Number.isInteger(holder) && holder > 0 ? holder : 0;
}

/**
 * Removes the stale lock at `path` that named `holder`. Renamed aside first: of processes that all
 * found it stale only one moves it. What was moved is checked: a lock another process took over
 * meanwhile is linked back (a third process that locked in that instant keeps its lock instead).
 */
function setStaleLockAside(path: string, holder: number): void {
  const aside = `${path}.stale-${process.pid}-${randomBytes(4).toString("hex")}`;
  try {
    renameSync(path, aside);
  } catch {
    // Moved or removed by another process first: the next attempt sees what is there now.
    return;
  }
  try {
    if (readLockHolder(aside) !== holder) linkSync(aside, path);
  } catch {
    // A third process locked in that instant; theirs stands.
  } finally {
    rmSync(aside, { force: true });
  }
}

function checkRegularFile(id: string, isFile: boolean): void {
  if (!isFile)
    throw new JournalError("JOURNAL_INVALID", `The journal of run ${id} is not a regular file; remove what is there.`);
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
