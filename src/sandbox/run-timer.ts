// The host side of a program's timers: the guest keeps its own queue (runtime/guest-timers.ts)
// and asks for one wake-up at a time, so a run holds at most one host timer, whatever number
// of timers the program sets. A wake-up never outlasts the run's time left, and closing the
// run clears it: a pending sleep cannot keep a finished or cancelled run alive.

import { encodeCallFailure, encodeCallSuccess } from "../../runtime/wire.js";

// The run's own wall timer must end the run first; a wake-up clamped to the time left lands after it.
const PAST_DEADLINE_MS = 5;

const WOKEN = encodeCallSuccess("$timer", "null");
const FINISHED = encodeCallFailure(null, "RUN_FINISHED", "The program has already finished; timers do not fire.");

/** One run's wake-up timer; see the module comment. */
export class RunTimer {
  readonly #deadlineAt: number;
  #pending: { readonly timer: NodeJS.Timeout; readonly answer: (text: string) => void } | undefined;
  #closed = false;

  /** `deadlineAt` is the run's wall-clock deadline (`Date.now()` time). */
  constructor(deadlineAt: number) {
    this.#deadlineAt = deadlineAt;
  }

  /**
   * Answers the guest's wake-up request after the delay it carries (ms as text: NaN or negative
   * is 0, answered at once; anything past the run's deadline waits just past it). A request
   * replaces the pending one, which is answered at once. After `close`, answers RUN_FINISHED.
   */
  wake = (delayText: string): Promise<string> | string => {
    if (this.#closed) return FINISHED;
    this.#answerPending(WOKEN);
    const requested = Number(delayText);
    const timeLeft = Math.max(0, this.#deadlineAt - Date.now()) + PAST_DEADLINE_MS;
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

  /** Clears the pending wake-up (answered RUN_FINISHED) and refuses later ones. */
  close(): void {
    this.#closed = true;
    this.#answerPending(FINISHED);
  }

  /** Whether a host timer is pending; for tests. */
  get pending(): boolean {
    return this.#pending !== undefined;
  }

  #answerPending(text: string): void {
    const pending = this.#pending;
    if (pending === undefined) return;
    this.#pending = undefined;
    clearTimeout(pending.timer);
    pending.answer(text);
  }
}
