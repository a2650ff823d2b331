// The size and time options every journal store takes, read in one place: a default when absent,
// and `OPTION_INVALID` at construction for anything but a whole number in range. A NaN cap would
// compare false with every size and lift the cap; a lease of 0 ms would fail in Redis at the
// first run instead of at start-up.

import { SwitchyardError } from "../errors.js";

/** Default `maxInlineAnswerBytes` of every store: an answer larger than this is kept apart. */
export const DEFAULT_MAX_INLINE_ANSWER_BYTES = 64 * 1024;

/**
 * `value`, or `fallback` when it is undefined. Throws `OPTION_INVALID`, naming the option, unless it
 * is a safe integer of at least `min` (default 0).
 */
export function storeOption(name: string, value: number | undefined, fallback: number, min = 0): number {
  if (value === undefined) return fallback;
  if (Number.isSafeInteger(value) && value >= min) return value;
  throw new SwitchyardError(
    "OPTION_INVALID",
    `The journal store's ${name} must be a whole number of at least ${min}, not ${String(value)}.`,
  );
}
