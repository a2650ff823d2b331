// The host side of a program's timers: the guest keeps its own queue (runtime/guest-timers.ts)
// and asks for one wake-up at a time, so a run holds at most one host timer, whatever number
// of timers the program sets. A wake-up never outlasts the run's time left, and closing the
// run clears it: a pending sleep cannot keep a finished or cancelled run alive. It answers the
// bridge's `$timer` requests (the bridge adds the request's index and refuses them once closed).

// The run's own wall timer must end the run first; a wake-up clamped to the time left lands after it.
const PAST_DEADLINE_MS = 5;

// The JSON text of a wake-up's value: the guest only needs to know that it came.
const WOKEN = "null";

/** One run's wake-up timer; see the module comment. */
export class RunTimer {
  readonly #deadlineAt: () => number;
  #pending: { readonly timer: NodeJS.Timeout; readonly answer: (text: string) => void } | undefined;
  #closed = false;

  /**
   * `deadlineAt` reads the run's wall-clock deadline (`Date.now()` time); it may move once, when
   * a worker process starts the isolate later than the run began.
   */
  constructor(deadlineAt: () => number) {
    this.#deadlineAt = deadlineAt;
  }

  /**
   * Answers the guest's wake-up request after the delay it carries (ms as text: NaN or negative
   * is 0, answered at once; anything past the run's deadline waits just past it). A request
   * replaces the pending one, which is answered at once. After `close`, answers at once.
   */
  wake = (delayText: string): Promise<string> | string => {
    this.#answerPending();
    if (this.#closed) return WOKEN;
    const requested = Number(delayText);
    const timeLeft = Math.max(0, this.#deadlineAt() - Date.now()) + PAST_DEADLINE_MS;
    const delay = Number.isNaN(requested) || requested <= 0 ? 0 : Math.min(requested, timeLeft);
    // Node's timers wait at least 1 ms: a wake-up already due is answered now.
    if (delay === 0) return WOKEN;
    return new Promise((answer) => {
      const timer = setTimeout(() => {
        this.#pending = undefined;
        answer(WOKEN);
      }, delay);
      this.#pending = { timer, answer };
    });
  };

  /** Clears the pending wake-up (answered at once) and holds no timer for later ones. */
  close(): void {
    this.#closed = true;
    this.#answerPending();
  }

  /** Whether a host timer is pending; for tests. */
  get pending(): boolean {
    return this.#pending !== undefined;
  }

  #answerPending(): void {
    const pending = this.#pending;
    if (pending === undefined) return;
    this.#pending = undefined;
    clearTimeout(pending.timer);
    pending.answer(WOKEN);
  }
}
