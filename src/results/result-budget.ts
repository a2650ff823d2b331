// Step 7 of the pipeline (numbered in execute-tool-call.ts): shapes a tool's raw return
// value into what its caller receives. Values become JSON once, here. Inside sandboxed
// programs a result goes whole, up to a hard cap, since it never touches a model's context;
// for direct model turns (and a provider's hosted program, whose results travel in every
// later request) a result over the budget is spilled to disk and replaced by a preview and a
// handle that `results.read` can page through.

import type { CallError, CallerKind, JsonValue } from "../contract.js";
import { utf8Prefix, type SpillStore } from "./spill-store.js";
import { messageOf } from "../errors.js";

export interface ResultBudgetOptions {
  /** Largest result handed to a program, in bytes of JSON. Default 10 MB. */
  readonly maxProgramResultBytes?: number;
  /** Largest result put into a model's context by a direct call, in bytes. Default 16 KB. */
  readonly maxDirectResultBytes?: number;
  /**
   * Largest result handed to a provider's hosted program, in bytes of JSON, before it is
   * spilled like a direct one. It never enters the model's context, but it travels in every
   * later request of the run (stateless transcripts resend it). Default 64 KB.
   */
  readonly maxHostedResultBytes?: number;
  /** Bytes of the preview kept in context when a direct result is spilled. Default 2 KB. */
  readonly previewBytes?: number;
  /** Where oversized direct results go; without it they are refused with RESULT_TOO_LARGE. */
  readonly spill?: SpillStore;
}

export const DEFAULT_MAX_PROGRAM_RESULT_BYTES = 10 * 1024 * 1024;
export const DEFAULT_MAX_DIRECT_RESULT_BYTES = 16 * 1024;
export const DEFAULT_MAX_HOSTED_RESULT_BYTES = 64 * 1024;
const DEFAULT_PREVIEW_BYTES = 2 * 1024;

/** A shaped result: the value to hand over and its JSON text, or an error. */
export type ShapedResult =
  | { readonly ok: true; readonly value: unknown; readonly json: string; readonly spilled: boolean }
  | { readonly ok: false; readonly error: CallError };

/** Serializes a tool's return value (`undefined` → `null`). Fails on cycles, BigInt and the like. */
export function serializeResult(value: unknown): { ok: true; json: string } | { ok: false; error: CallError } {
  try {
    const json = JSON.stringify(value === undefined ? null : value);
    // JSON.stringify returns undefined for a bare function or symbol.
    if (typeof json !== "string") throw new TypeError(`a ${typeof value} is not JSON`);
    return { ok: true, json };
  } catch (error) {
    return {
      ok: false,
      error: {
        code: "TOOL_ERROR",
        message: `The tool returned a value that is not JSON-serializable (${messageOf(error)}).`,
      },
    };
  }
}

/**
 * Applies the caller's budget to a serialized result; see the module comment. Synchronous
 * unless the result has to be spilled to disk.
 */
export function applyResultBudget(
  value: unknown,
  json: string,
  caller: CallerKind,
  options: ResultBudgetOptions,
): ShapedResult | Promise<ShapedResult> {
  // UTF-16 length bounds UTF-8 bytes from below and 3x from above: skip the exact count when safe.
  const limit =
    caller === "program"
      ? (options.maxProgramResultBytes ?? DEFAULT_MAX_PROGRAM_RESULT_BYTES)
      : caller === "hosted-program"
        ? (options.maxHostedResultBytes ?? DEFAULT_MAX_HOSTED_RESULT_BYTES)
        : (options.maxDirectResultBytes ?? DEFAULT_MAX_DIRECT_RESULT_BYTES);
  const bytes = json.length * 3 <= limit ? json.length : Buffer.byteLength(json);
  if (bytes <= limit) return { ok: true, value, json, spilled: false };
  if (caller === "program" || options.spill === undefined) {
    return {
      ok: false,
      error: {
        code: "RESULT_TOO_LARGE",
        message: `The result is ${bytes} bytes, over the ${limit}-byte limit; ask for less (a smaller page, fewer fields).`,
        details: { bytes, limit },
      },
    };
  }
  return spillResult(json, options.spill, options.previewBytes ?? DEFAULT_PREVIEW_BYTES);
}

async function spillResult(json: string, store: SpillStore, previewBytes: number): Promise<ShapedResult> {
  let spilled: Awaited<ReturnType<SpillStore["spill"]>>;
  try {
    spilled = await store.spill(json);
  } catch {
    // A full disk or a refused folder: the pipeline resolves to an outcome, and the host's
    // paths stay out of it.
    return {
      ok: false,
      error: {
        code: "RESULT_TOO_LARGE",
        message: `The result is ${Buffer.byteLength(json)} bytes, too large for the context, and could not be spilled to disk; ask for less (a smaller page, fewer fields).`,
      },
    };
  }
  const preview: JsonValue = {
    spilled: true,
    bytes: spilled.bytes,
    handle: spilled.handle,
    preview: utf8Prefix(json, previewBytes),
    note: `The result was ${spilled.bytes} bytes, too large for the context. The preview shows its first ${previewBytes} bytes; read the rest with results.read({ handle: "${spilled.handle}", offset, length }).`,
  };
  return { ok: true, value: preview, json: JSON.stringify(preview), spilled: true };
}
