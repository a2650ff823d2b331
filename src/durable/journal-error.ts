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
