// The BullMQ side of a batch: one job per distinct input, whose id is derived from the batch id
// and the input's idempotency key, so adding the same input twice adds one job (BullMQ ignores a
// job id it already holds) and a resubmit finds the inputs it already did.

import { createHash } from "node:crypto";
import type { JsonValue } from "../contract.js";
import { SwitchyardError } from "../errors.js";

/** What a program job carries; the program itself is stored once per batch. */
export interface ProgramJobData {
  readonly batchId: string;
  readonly key: string;
  readonly input: JsonValue;
}

/** The BullMQ job name of program jobs. */
export const PROGRAM_JOB = "program";

/** A batch id a user gave, checked: letters, digits, `-`, `_` and `.`, at most 64. */
export function checkBatchId(batchId: string): string {
  if (!/^[A-Za-z0-9_.-]{1,64}$/.test(batchId)) {
    throw new SwitchyardError(
      "OPTION_INVALID",
      `The batch id ${JSON.stringify(batchId)} is not valid: use letters, digits, -, _ and . (at most 64).`,
    );
  }
  return batchId;
}

/** The job id of an input: BullMQ ids may not contain `:`, and keys may hold anything. */
export function jobIdOf(batchId: string, key: string): string {
  return `${batchId}.${sha256(key).slice(0, 32)}`;
}

/**
 * The default idempotency key of an input: a hash of its JSON with object keys sorted, so the
 * same record written with its fields in another order is the same input.
 */
export function contentKeyOf(input: JsonValue): string {
  return sha256(canonicalJson(input)).slice(0, 32);
}

/** The id of a batch nobody named: the same program over the same inputs is the same batch. */
export function derivedBatchId(program: string, keys: readonly string[]): string {
  const hash = createHash("sha256").update(program).update("\n");
  for (const key of keys) hash.update(key).update("\n");
  return `b-${hash.digest("hex").slice(0, 16)}`;
}

function canonicalJson(value: JsonValue): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalJson(value[key]!)}`);
    return `{${entries.join(",")}}`;
  }
  return JSON.stringify(value);
}

function sha256(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}
