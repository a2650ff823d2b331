// Keeps results that are too large for a model's context on disk, under one folder, and
// reads them back in slices. Handles are opaque ids that map to files this store wrote;
// a handle can never name a path of its own choosing. Results may hold anything a tool
// returned, so the folder is private (0700) and each file readable by its owner only (0600).

import { randomUUID } from "node:crypto";
import { chmod, type FileHandle, lstat, mkdir, open, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";

/** Where a spilled result went. */
export interface SpilledResult {
  readonly handle: string;
  readonly path: string;
  readonly bytes: number;
}

/** A slice read back from a spilled result. */
export interface SpillSlice {
  readonly handle: string;
  readonly offset: number;
  readonly text: string;
  readonly totalBytes: number;
  /** True when the slice reaches the end of the result. */
  readonly done: boolean;
}

const HANDLE_PATTERN = /^result-[0-9a-f-]{36}$/;

/**
 * Writes and reads spilled results in `folder`, created on first use with mode 0700 (a
 * folder that already exists is tightened to 0700 when this process's user owns it). Each
 * result is a new file with mode 0600. `spill` rejects when the folder is a symbolic link,
 * not a folder, or owned by another user: results are never written where others can read them.
 */
export class SpillStore {
  readonly folder: string;

  constructor(folder: string) {
    this.folder = folder;
  }

  /** Writes `text` (UTF-8) to a new file (mode 0600) and returns its handle. */
  async spill(text: string): Promise<SpilledResult> {
    await this.#preparePrivateFolder();
    const handle = `result-${randomUUID()}`;
    const path = join(this.folder, `${handle}.json`);
    try {
      await writeFile(path, text, { encoding: "utf8", flag: "wx", mode: 0o600 });
    } catch (error) {
      // A full disk leaves part of the file: nobody holds its handle, it would only take room.
      await rm(path, { force: true });
      throw error;
    }
    return { handle, path, bytes: Buffer.byteLength(text) };
  }

  async #preparePrivateFolder(): Promise<void> {
    await mkdir(this.folder, { recursive: true, mode: 0o700 });
    // In a shared temp folder another user may have made this path first: check what is there.
    const stats = await lstat(this.folder);
    if (!stats.isDirectory()) {
      throw new Error(
        `The spill folder ${this.folder} is not a folder (a symbolic link or a file); results are not written there.`,
      );
    }
    const uid = process.getuid?.();
    if (uid !== undefined && stats.uid !== uid) {
      throw new Error(`The spill folder ${this.folder} belongs to another user; results are not written there.`);
    }
    if ((stats.mode & 0o077) !== 0) await chmod(this.folder, 0o700);
  }

  /**
   * Reads the `length` bytes from `offset` of a spilled result. Returns undefined for a handle
   * this store never issued. A character belongs to the slice holding its first byte, so a
   * slice's text may run up to 3 bytes past `offset + length` (or start a little after
   * `offset`) rather than split a character; the next slice starts at `offset + length`, and
   * concatenated slices are exact.
   */
  async read(handle: string, offset: number, length: number): Promise<SpillSlice | undefined> {
    if (!HANDLE_PATTERN.test(handle)) return undefined;
    let file: FileHandle;
    try {
      file = await open(join(this.folder, `${handle}.json`), "r");
    } catch {
      return undefined;
    }
    try {
      const { size } = await file.stat();
      const start = Math.min(Math.max(0, offset), size);
      const count = Math.min(Math.max(0, length), size - start);
      // Read up to 3 bytes more, to finish a character that starts inside the slice.
      const buffer = Buffer.alloc(Math.min(count + 3, size - start));
      const { bytesRead } = await file.read(buffer, 0, buffer.length, start);
      const text = decodeWholeCharacters(buffer.subarray(0, bytesRead), count);
      return { handle, offset: start, text, totalBytes: size, done: start + count >= size };
    } finally {
      await file.close();
    }
  }
}

/**
 * Decodes the characters whose first byte lies in `bytes[0, count)`: continuation bytes at
 * the start belong to the previous slice, and a character that starts before `count` is
 * completed from the bytes after it. Decoding a split UTF-8 sequence would yield U+FFFD.
 */
function decodeWholeCharacters(bytes: Buffer, count: number): string {
  const isContinuation = (index: number): boolean => ((bytes[index] ?? 0) & 0b1100_0000) === 0b1000_0000;
  let start = 0;
  while (start < count && isContinuation(start)) start++;
  if (start >= count) return "";
  let end = Math.min(count, bytes.length);
  while (end < bytes.length && isContinuation(end)) end++;
  return bytes.subarray(start, end).toString("utf8");
}

/** The longest prefix of `text` that fits in `maxBytes` of UTF-8 without splitting a character. */
export function utf8Prefix(text: string, maxBytes: number): string {
  const bytes = Buffer.from(text);
  if (bytes.length <= maxBytes) return text;
  let end = Math.max(0, maxBytes);
  while (end > 0 && ((bytes[end] ?? 0) & 0b1100_0000) === 0b1000_0000) end--;
  return bytes.subarray(0, end).toString("utf8");
}
