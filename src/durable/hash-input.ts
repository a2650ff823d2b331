// The hash a durable run's journal keeps of each call's input, to tell on replay whether the
// program still makes the same call: the first 128 bits of SHA-256 over the arguments' JSON
// text as the guest serialized it, in hex. Not a secret; collisions are not a concern at 2^-64.

import { createHash } from "node:crypto";

/** `sha256:` and 32 hex digits of `text`'s SHA-256. */
export function hashInput(text: string): string {
  return `sha256:${createHash("sha256").update(text).digest("hex").slice(0, 32)}`;
}
