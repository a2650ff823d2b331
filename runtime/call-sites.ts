// Where in the program each tool call was made, so a failed call that the program does not
// catch names the program's line, as a plain error's stack does, whether it ends the program as
// a thrown error or as an unhandled rejection. A ToolCallError is built when its answer arrives,
// on a stack without program frames: the frames of the call site are captured when the call is
// made (V8 collects them then, and formats them only if the call fails) and become its stack.

import { applyFunction, captureStackTrace, defineValue } from "./guest-intrinsics.js";
import { callNoteFrame, stackFrames } from "./wire.js";

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
  applyFunction(captureStackTrace, undefined, [site, skipFrom]);
  return site;
}

/**
 * Gives `error` the stack `header`, the frames of `site`, and one last frame with `note` (the
 * call's code, tool and id; see `callNoteFrame`). Last, so the first program frame stays the
 * call's line. Formatting may run the program's own Error.prepareStackTrace: whatever it does
 * (throw, return a non-string), the call still fails as it should, without a line.
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
    // Defined, not assigned: a `stack` setter a program put on a prototype must not take it.
    defineValue(error, "stack", `${header}\n${frames}\n${callNoteFrame(note)}`, false);
  } catch {
    // A hostile prepareStackTrace: the error simply has no program line.
  }
}
