// The next turn of a session's background work (its search index's build, its warm-up's steps),
// scheduled so that it neither keeps the process alive nor waits for something else to wake the
// event loop. An unreferenced setImmediate does the first but not the second: it does not stop
// libuv's poll phase from blocking, so while the process has nothing else to do (a server
// between requests, a host waiting for a model) the turn waited for the next I/O or timer.
// Measured 2026-12-02: 2 turns of an unreferenced setImmediate chain in 2 s of an idle loop, and
// a 5,000-tool session whose search index was still unbuilt 3 s after construction, then built
// in turns during its first check (the check 11-31 ms against 5-8 ms at 10 tools). An
// unreferenced timer of 0 ms bounds the poll's wait at 1 ms and still lets the process exit.

/** A scheduled turn; `cancel` drops it if it has not run yet. */
export interface BackgroundTurn {
  cancel(): void;
}

/** When the turn runs: see `nextBackgroundTurn`. */
export interface TurnTiming {
  /** Someone waits for the work: the turn keeps the process alive and runs at the next check phase. */
  readonly awaited?: boolean | undefined;
  /** Not before this many ms (a turn held back, looking again later); never with `awaited`. */
  readonly afterMs?: number | undefined;
}

/**
 * Runs `turn` once, soon: within about a millisecond (or `afterMs`) without keeping the process
 * alive, or at the loop's next check phase, keeping it alive, when `awaited`.
 */
export function nextBackgroundTurn(turn: () => void, timing: TurnTiming = {}): BackgroundTurn {
  if (timing.awaited === true) {
    const immediate = setImmediate(turn);
    return { cancel: () => clearImmediate(immediate) };
  }
  const timer = setTimeout(turn, timing.afterMs ?? 0).unref();
  return { cancel: () => clearTimeout(timer) };
}
