// Watches the host's event loop from a timer: the longest gap between its ticks is how long the
// loop was held (a stall other runs and calls would have waited through), and the tick count how
// often it turned. The tests that promise a loop kept free read it; one way, not four.

/** A watch started by `watchEventLoop`. */
export interface EventLoopWatch {
  /** The longest gap between two ticks so far, in ms. */
  readonly longestGapMs: number;
  /** Ticks so far. */
  readonly ticks: number;
  /** Stops the timer; the figures stay readable. */
  stop(): void;
}

/** Starts a timer every `intervalMs` that records the gaps between its ticks. */
export function watchEventLoop(intervalMs = 5): EventLoopWatch {
  let last = performance.now();
  const watch = { longestGapMs: 0, ticks: 0, stop: () => clearInterval(timer) };
  const timer = setInterval(() => {
    const now = performance.now();
    watch.longestGapMs = Math.max(watch.longestGapMs, now - last);
    last = now;
    watch.ticks += 1;
  }, intervalMs);
  return watch;
}
