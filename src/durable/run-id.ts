// A durable run's id names files and keys in every store, so it is checked once, before any
// store sees it: a short name of letters, digits, dots, dashes and underscores that starts with
// a letter or digit. `../../etc`, `a/b`, an empty name or 200 characters are refused.

import { SwitchyardError } from "../errors.js";

/** Longest run id, in characters. */
export const MAX_RUN_ID_CHARS = 128;

const RUN_ID = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/** Whether `id` is a usable run id (see the module comment). */
export function isRunId(id: unknown): id is string {
  return typeof id === "string" && id.length <= MAX_RUN_ID_CHARS && RUN_ID.test(id) && !id.includes("..");
}

/**
 * The id of the call at `position` (1-based) of run `id`: `<id>.<position>`, the same in every
 * process that runs it (a plain run passes its program id). Compare ids made here; never parse one.
 */
export function callIdAt(id: string, position: number): string {
  return `${id}.${position}`;
}

/** Returns `id` when it is a usable run id; throws `OPTION_INVALID` saying what one looks like. */
export function checkRunId(id: unknown): string {
  if (isRunId(id)) return id;
  const shown = typeof id === "string" ? JSON.stringify(id.slice(0, 40)) : typeof id;
  throw new SwitchyardError(
    "OPTION_INVALID",
    `durable.id ${shown} is not a run id: use 1 to ${MAX_RUN_ID_CHARS} letters, digits, '.', '-' or '_', starting with a letter or digit, without '..'.`,
  );
}
