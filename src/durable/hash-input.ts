// The hash a durable run's journal keeps of each call's input, to tell on replay whether the
// program still makes the same call: the first 128 bits of SHA-256 over the arguments' JSON
// text as the guest serialized it, in hex. Not a secret; collisions are not a concern at 2^-64.

import * as crypto from "node:crypto";

// `crypto.hash` (Node 20.12+) digests in one call, without a Hash object: a replay checks one
// input per call, so this is on its path. Older lines fall back to createHash; the digest is the same.
const oneShot = (crypto as { hash?: (algorithm: string, data: string) => string }).hash;

/** `sha256:` and 32 hex digits of `text`'s SHA-256. */
export function hashInput(text: string): string {
  const digest =
    oneShot === undefined ? crypto.createHash("sha256").update(text).digest("hex") : oneShot("sha256", text);
  return `sha256:${digest.slice(0, 32)}`;
}
