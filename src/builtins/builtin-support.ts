// Small pieces every built-in tool shares: the JSON Schema dialect their schemas declare,
// the option checks that throw SwitchyardError OPTION_INVALID at construction (before any
// model call), and the sniff that tells binary bytes from text. No state.

import { realpathSync, statSync } from "node:fs";
import { SwitchyardError } from "../errors.js";

/** The `$schema` every built-in tool schema declares. */
export const DRAFT_2020_12 = "https://json-schema.org/draft/2020-12/schema";

// Like git: a NUL byte in the first 8000 bytes means binary.
const BINARY_SNIFF_BYTES = 8000;

/**
 * Returns `value`, or `fallback` when it is undefined. Throws SwitchyardError `OPTION_INVALID`
 * naming `owner` and `name` (e.g. `createShellTool: timeoutMs …`) when `value` is not an
 * integer of at least 1.
 */
export function positiveIntegerOption(
  value: number | undefined,
  fallback: number,
  owner: string,
  name: string,
): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < 1) {
    throw new SwitchyardError("OPTION_INVALID", `${owner}: ${name} must be a positive integer, got ${String(value)}.`);
  }
  return value;
}

/**
 * Returns the real path of `path`, resolved now, synchronously. Throws SwitchyardError
 * `OPTION_INVALID` naming `owner` and `name` when `path` is not a non-empty string naming an
 * existing folder (an empty string is refused: it would silently mean the process's cwd).
 */
export function existingFolderOption(path: string, owner: string, name: string): string {
  if (typeof path === "string" && path !== "") {
    try {
      const realPath = realpathSync(path);
      if (statSync(realPath).isDirectory()) return realPath;
    } catch {
      // Reported below.
    }
  }
  throw new SwitchyardError("OPTION_INVALID", `${owner}: ${name} ${JSON.stringify(path)} is not an existing folder.`);
}

/** Whether `bytes` look binary: a NUL byte within the first 8000 bytes, as git decides. */
export function looksBinary(bytes: Uint8Array): boolean {
  return bytes.subarray(0, BINARY_SNIFF_BYTES).includes(0);
}
