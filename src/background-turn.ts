// The turns of the background work sessions do (their search index's build, their warm-up's
// steps), scheduled so that they neither keep the process alive, nor wait for something else to
// wake the event loop, nor pile up in one turn of it.
// - An unreferenced setImmediate did the first only: it does not stop libuv's poll phase from
//   blocking, so while the process had nothing else to do (a server between requests, a host
//   waiting for a model) the next turn waited for the next I/O or timer. Measured 2026-12-02: 2
//   turns of such a chain in 2 s of an idle loop, and a 5,000-tool session whose search index was
//   still unbuilt 3 s after construction, then built in turns during its first check (the check
//   11-31 ms against 5-8 ms at 10 tools). An unreferenced 0 ms timer bounds the poll at 1 ms.
// - Every timer due runs in the same timers phase (every immediate in the same check phase): the
//   warm-up's step and the index's turn, each bounded alone, held the loop together (36-54 ms in a
//   process whose first session had 5,000 tools). So the turns wait in one queue for the whole
//   process, and one runs per turn of the event loop.

/** A scheduled turn; `cancel` drops it if it has not run yet. */
export interface BackgroundTurn {
  cancel(): void;
}

/** When the turn runs: see `nextBackgroundTurn`. */
export interface TurnTiming {
  /** Someone waits for the work: the turn keeps the process alive and runs at the next check phase. */
  readonly awaited?: boolean | undefined;
  /** Not queued before this many ms (a turn held back, looking again later); never with `awaited`. */
  readonly afterMs?: number | undefined;
}

interface QueuedTurn {
  readonly turn: () => void;
  cancelled: boolean;
}

/** Turns waiting for the event loop, oldest first; one runs per wake-up (`wakeSoon`). */
const queue: QueuedTurn[] = [];
/** Whether a wake-up is set. */
let waking = false;

function wakeSoon(): void {
  if (waking) return;
  waking = true;
  setTimeout(runOne, 0).unref();
}

function runOne(): void {
  waking = false;
  let next = queue.shift();
  while (next?.cancelled === true) next = queue.shift();
  try {
    next?.turn();
  } finally {
    if (queue.length > 0) wakeSoon();
  }
}

function enqueue(entry: QueuedTurn): void {
  queue.push(entry);
  wakeSoon();
}

/**
 * Runs `turn` once, soon: after the turns queued before it, one per turn of the event loop and
 * within about a millisecond each, without keeping the process alive; `afterMs` later at the
 * earliest. When `awaited`, at the loop's next check phase, keeping it alive.
 */
export function nextBackgroundTurn(turn: () => void, timing: TurnTiming = {}): BackgroundTurn {
  if (timing.awaited === true) {
    const immediate = setImmediate(turn);
    return { cancel: () => clearImmediate(immediate) };
  }
  const entry: QueuedTurn = { turn, cancelled: false };
  if (timing.afterMs === undefined) {
    enqueue(entry);
    return { cancel: () => void (entry.cancelled = true) };
  }
  const delay = setTimeout(() => enqueue(entry), timing.afterMs).unref();
  return {
    cancel: () => {
      entry.cancelled = true;
      clearTimeout(delay);
    },
  };
}
