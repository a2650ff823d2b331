// The host/guest wire format, defined once and imported by both sides: the guest runtime
// (bundled into every isolate) and the host bridge. Everything that crosses is a string, so
// nothing but plain data can cross; these helpers are the only encoders and decoders.
// This file must stay free of imports and of any Node or DOM API.

/** Names the guest asks the host for that are not registry tools. */
export const SEARCH_PATH = "$search";
export const DESCRIBE_PATH = "$describe";
/**
 * Requests of the run itself rather than of a tool: no call record, no call budget. `$timer`
 * takes a delay in ms and answers when it has passed (the guest's one wake-up at a time);
 * `$budget` answers what is left of the run's limits.
 */
export const TIMER_PATH = "$timer";
export const BUDGET_PATH = "$budget";

/** A tool call's answer, guest-bound. */
export type CallEnvelope =
  | { readonly ok: true; readonly callId: string; readonly value: unknown }
  | {
      readonly ok: false;
      readonly callId: string | null;
      readonly code: string;
      readonly message: string;
      readonly details?: unknown;
    };

/**
 * A program's end, host-bound: its output JSON, or the error that ended it. A program that
 * returned `undefined` (no `return`) has output `null` and `returnedNothing` set.
 */
export type ProgramResult =
  | { readonly ok: true; readonly outputJson: string; readonly returnedNothing?: true }
  | { readonly ok: false; readonly code: string; readonly message: string; readonly stack: string | null };

/** The run's limits the host passes to the guest when the program starts. */
export interface GuestConfig {
  readonly maxArgumentBytes: number;
  readonly maxOutputBytes: number;
  readonly maxLogBytes: number;
  readonly maxLogLines: number;
}

/** Until a run starts, nothing may cross: code outside the program function gets no budget. */
export const CLOSED_GUEST_CONFIG: GuestConfig = Object.freeze({
  maxArgumentBytes: 0,
  maxOutputBytes: 0,
  maxLogBytes: 0,
  maxLogLines: 0,
});

/** Encodes the run's limits (host side). */
export function encodeGuestConfig(config: GuestConfig): string {
  return JSON.stringify(config);
}

/** Decodes the run's limits (guest side). */
export function decodeGuestConfig(text: string): GuestConfig {
  return JSON.parse(text) as GuestConfig;
}

/** Console levels the guest forwards. */
export type LogLevel = "log" | "info" | "warn" | "error" | "debug";

/**
 * Encodes a successful call. `valueJson` must already be JSON text; it is spliced in rather
 * than re-serialized, which keeps a large result to one serialization.
 */
export function encodeCallSuccess(callId: string, valueJson: string): string {
  return `{"ok":true,"callId":${JSON.stringify(callId)},"value":${valueJson}}`;
}

/** Encodes a failed call as plain data; the guest builds its own Error from it. */
export function encodeCallFailure(callId: string | null, code: string, message: string, details?: unknown): string {
  return JSON.stringify({ ok: false, callId, code, message, details });
}

/** Decodes a call envelope (guest side). */
export function decodeCallEnvelope(text: string): CallEnvelope {
  return JSON.parse(text) as CallEnvelope;
}

/** Encodes a program's end (guest side): a tag character, then the payload, never nested JSON-in-JSON. */
export function encodeProgramOutput(outputJson: string): string {
  return `o${outputJson}`;
}

/** Encodes the end of a program that returned `undefined` (guest side). */
export function encodeProgramNothing(): string {
  return "u";
}

export function encodeProgramError(code: string, message: string, stack: string | null): string {
  return `e${JSON.stringify({ code, message, stack })}`;
}

/** Decodes a program's end (host side). Anything malformed is reported, never thrown. */
export function decodeProgramResult(text: unknown): ProgramResult {
  if (typeof text !== "string" || text.length === 0) {
    return { ok: false, code: "INTERNAL_ERROR", message: "The program ended without a result.", stack: null };
  }
  if (text[0] === "o") return { ok: true, outputJson: text.slice(1) };
  if (text === "u") return { ok: true, outputJson: "null", returnedNothing: true };
  try {
    const parsed = JSON.parse(text.slice(1)) as { code?: unknown; message?: unknown; stack?: unknown };
    return {
      ok: false,
      code: typeof parsed.code === "string" ? parsed.code : "RUNTIME_ERROR",
      message: typeof parsed.message === "string" ? parsed.message : "The program failed.",
      stack: typeof parsed.stack === "string" ? parsed.stack : null,
    };
  } catch {
    return { ok: false, code: "INTERNAL_ERROR", message: "The program's result could not be read.", stack: null };
  }
}
