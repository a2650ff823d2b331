// Where in the program each tool call was made, so a failed call that the program does not
// catch names the program's line, as a plain error's stack does, whether it ends the program as
// a thrown error or as an unhandled rejection. A ToolCallError is built when its answer arrives,
// on a stack without program frames: the frames of the call site are captured when the call is
// made (V8 collects them then, and formats them only if the call fails) and become its stack.

import { stackFrames } from "./wire.js";

/** V8's stack capture, taken before the program runs (it may overwrite `Error` later). */
const captureStackTrace = (Error as { captureStackTrace?: (target: object, skip?: unknown) => void }).captureStackTrace;
const reflectApply = Reflect.apply;

/** A call's site, its frames formatted on first read of `stack`. */
export interface CallSite {
  readonly stack?: unknown;
}

/**
 * Captures the stack of the current call of `skipFrom` without its own frames: the frames of the
 * proxy and the program line that made the call. Undefined where V8 offers no capture.
 */
export function captureCallSite(skipFrom: unknown): CallSite | undefined {
  if (captureStackTrace === undefined) return undefined;
  const site: CallSite = {};
  reflectApply(captureStackTrace, undefined, [site, skipFrom]);
  return site;
}

/** Opens the frame that carries a failed call's note (see `placeAtCallSite`). */
const NOTE_FRAME = "    at ToolCallError [";
const MAX_NOTE_CHARS = 1_024;

/**
 * Gives `error` the stack `header`, the frames of `site`, and one last frame with `note` (the
 * call's code, tool and id): isolated-vm copies an error out as a plain Error with its message
 * and frames only, so the note of a rejection nobody handled reaches the host there
 * (`readCallNote`). Last, so the first program frame stays the call's line. Formatting may run
 * the program's own Error.prepareStackTrace: whatever it does (throw, return a non-string), the
 * call still fails as it should, without a line.
 */
export function placeAtCallSite(
  error: { stack?: unknown },
  header: string,
  note: string,
  site: CallSite | undefined,
): void {
  if (site === undefined) return;
  try {
    const stack = site.stack;
    const frames = typeof stack === "string" ? stackFrames(stack) : "";
    if (frames === "") return;
    const shortNote = note.length > MAX_NOTE_CHARS ? `${note.slice(0, MAX_NOTE_CHARS)}…` : note;
    error.stack = `${header}\n${frames}\n${NOTE_FRAME}${shortNote.replace(/\n/g, " ")}]`;
  } catch {
    // A hostile prepareStackTrace: the error simply has no program line.
  }
}

/** The note `placeAtCallSite` left in a stack (host side), or undefined when there is none. */
export function readCallNote(stack: string): string | undefined {
  const at = stack.lastIndexOf(`\n${NOTE_FRAME}`);
  if (at < 0) return undefined;
  const end = stack.indexOf("]\n", at);
  const note = stack.slice(at + 1 + NOTE_FRAME.length, end < 0 ? stack.lastIndexOf("]") : end);
  return note.length > 0 && note.length <= MAX_NOTE_CHARS + 1 ? note : undefined;
}
