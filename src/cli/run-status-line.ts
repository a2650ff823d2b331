// The live status line of `switchyard run` on a terminal: calls done, in flight and failed,
// and the time so far, rewritten in place on stderr from the trace bus. Printing only: it
// never changes the run. It draws nothing for a run shorter than `delayMs`, nothing when
// stderr is not a terminal, nothing while paused (a question is being asked on the terminal),
// and clears itself before the result is printed.

import type { TraceBus } from "../trace/trace-events.js";

/** Where the line is drawn: stderr, or a stand-in in tests. */
export interface StatusOutput {
  write(text: string): unknown;
  readonly isTTY?: boolean;
  readonly columns?: number;
}

export interface RunStatusLineOptions {
  /** Nothing is drawn before this many ms, so short runs stay quiet. Default 300. */
  readonly delayMs?: number;
  /** Least time between two redraws, in ms; the elapsed time is redrawn at least this often. Default 100. */
  readonly intervalMs?: number;
  readonly now?: () => number;
}

/** A status line being drawn; `stop()` clears it (idempotent). */
export interface RunStatusLine {
  /** Clears the line and draws nothing until as many `resume()` calls; for a prompt on the same terminal. */
  pause(): void;
  resume(): void;
  stop(): void;
}

const NO_STATUS_LINE: RunStatusLine = { pause() {}, resume() {}, stop() {} };

/**
 * Follows the calls on `trace` and draws the line on `output` while the run lasts. Returns a
 * no-op line when `output` is not a terminal.
 */
export function startRunStatusLine(
  output: StatusOutput,
  trace: TraceBus,
  options: RunStatusLineOptions = {},
): RunStatusLine {
  if (output.isTTY !== true) return NO_STATUS_LINE;
  const now = options.now ?? Date.now;
  const started = now();
  let done = 0;
  let inFlight = 0;
  let failed = 0;
  let shown = false;
  let paused = 0;
  const clear = (): void => {
    if (shown) output.write("\r\x1b[2K");
    shown = false;
  };
  const draw = (): void => {
    if (paused > 0) return;
    const seconds = ((now() - started) / 1000).toFixed(1);
    const line = `${done} call${done === 1 ? "" : "s"} done · ${inFlight} in flight · ${failed} failed · ${seconds} s`;
    const width = Math.max(20, (output.columns ?? 100) - 1);
    output.write(`\r\x1b[2K${line.length > width ? `${line.slice(0, width - 1)}…` : line}`);
    shown = true;
  };
  const unsubscribe = trace.subscribe((event) => {
    if (event.type === "tool-call-start") inFlight += 1;
    else if (event.type === "tool-call-end") {
      inFlight -= 1;
      done += 1;
      if (event.status !== "ok") failed += 1;
    }
  });
  let timer: NodeJS.Timeout | undefined;
  const delay = setTimeout(() => {
    draw();
    timer = setInterval(draw, options.intervalMs ?? 100);
    timer.unref();
  }, options.delayMs ?? 300);
  delay.unref();
  let stopped = false;
  return {
    pause() {
      paused += 1;
      clear();
    },
    resume() {
      paused = Math.max(0, paused - 1);
    },
    stop() {
      if (stopped) return;
      stopped = true;
      clearTimeout(delay);
      clearInterval(timer);
      unsubscribe();
      clear();
    },
  };
}
