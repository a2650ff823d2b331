// The one error a journal store rejects with: a damaged journal, a run another process is
// running, a run past its size cap, a write the store's medium refused (a full disk, Redis out of
// memory or gone). Its code is the RunErrorCode the run ends with, so the
// session turns it into a failed RunResult rather than a throw.

import type { RunErrorCode } from "../contract.js";

/** Codes a journal store rejects with. */
export type JournalErrorCode = Extract<
  RunErrorCode,
  "JOURNAL_INVALID" | "RUN_BUSY" | "JOURNAL_LIMIT" | "JOURNAL_WRITE_FAILED"
>;

const BRAND = Symbol.for("switchyard.JournalError");

/** A journal store's refusal; recognised by `JournalError.isInstance` across package copies. */
export class JournalError extends Error {
  readonly code: JournalErrorCode;
  /** True when the store holds no journal at all for the run (`open` without a header): not damage. */
  readonly missing: boolean;
  readonly [BRAND] = true;

  constructor(code: JournalErrorCode, message: string, options: { readonly missing?: boolean } = {}) {
    super(message);
    this.name = "JournalError";
    this.code = code;
    this.missing = options.missing === true;
  }

  /** Whether `value` is a JournalError, from this copy of the package or another. */
  static isInstance(value: unknown): value is JournalError {
    return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[BRAND] === true;
  }
}

/** Errors of a store's medium that refuses to write: a full disk, a quota, a read-only or failing one. */
const UNWRITABLE: ReadonlySet<string> = new Set(["ENOSPC", "EDQUOT", "EROFS", "EFBIG", "EIO"]);

/**
 * Errors of a store's place that cannot be opened as a journal's: no permission, a folder or a
 * file where the other belongs, a link where none may be.
 */
const UNOPENABLE: ReadonlySet<string> = new Set(["EACCES", "EPERM", "EISDIR", "ENOTDIR", "EEXIST", "ELOOP"]);

/**
 * `error` as the JournalError a run (or a command) reports: a JournalError as it is, a file-system
 * error of a medium that refuses to write as `JOURNAL_WRITE_FAILED`, one of a place that cannot be
 * opened as `JOURNAL_INVALID`; undefined for anything else.
 */
export function asJournalError(error: unknown, id: string): JournalError | undefined {
  if (JournalError.isInstance(error)) return error;
  const errno = (error as NodeJS.ErrnoException | null)?.code;
  if (typeof errno !== "string") return undefined;
  const message = String((error as Error).message);
  if (UNWRITABLE.has(errno))
    return new JournalError("JOURNAL_WRITE_FAILED", `The journal of run ${id} could not be written (${message})`);
  if (UNOPENABLE.has(errno))
    return new JournalError(
      "JOURNAL_INVALID",
      `The journal of run ${id} cannot be opened (${message}): check the journal folder's owner, permissions and contents.`,
    );
  return undefined;
}
