// The interruption state of one call: cancelled, or out of time under one of its nested
// budgets. Cheap when nothing happens: the AbortSignal a tool sees, the promise a waiting
// step races against and the listener on the run's signal are created only when needed,
// because a tool call's whole pipeline budget is a few microseconds.

import { MAX_TIMER_MS } from "../timer-limit.js";
import type { CallDeadline } from "./deadline.js";

/** Why a call was interrupted before its tool answered. */
export class Interrupt {
  constructor(
    readonly code: "TOOL_TIMEOUT" | "CANCELLED",
    readonly budget: CallDeadline["source"] | undefined,
  ) {}

  /** What the model or program is told. */
  message(tool: string): string {
    if (this.code === "CANCELLED") return `The call to ${tool} was cancelled.`;
    if (this.budget === "tool")
      return `The call to ${tool} timed out (its own timeout); retry, or ask for less work per call.`;
    return `The call to ${tool} ran out of the ${this.budget}'s time budget.`;
  }
}

const CANCELLED = new Interrupt("CANCELLED", undefined);

/** One call's interruption state; `dispose()` when the call has its outcome. */
export class CallControl {
  #interrupt: Interrupt | undefined;
  #controller: AbortController | undefined;
  #resolvers: ((interrupt: Interrupt) => void)[] | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #unwatch: (() => void) | undefined;

  readonly #outer: AbortSignal | undefined;

  constructor(outer: AbortSignal | undefined) {
    this.#outer = outer;
    if (outer?.aborted === true) this.#interrupt = CANCELLED;
  }

  /**
   * Follows the outer signal from now on. Needed only before the call first waits: while
   * the pipeline runs synchronously, nothing else can cancel it.
   */
  watch(): void {
    if (this.#unwatch !== undefined || this.#outer === undefined) return;
    if (this.#outer.aborted) this.interrupt(CANCELLED);
    else this.#unwatch = watchSignal(this.#outer, this);
  }

  /** Set once the call is interrupted; never cleared. */
  get interrupted(): Interrupt | undefined {
    return this.#interrupt;
  }

  /** Fires when the call is interrupted; its reason is the Interrupt. Created on first use. */
  get signal(): AbortSignal {
    this.watch();
    if (this.#controller === undefined) {
      this.#controller = new AbortController();
      if (this.#interrupt !== undefined) this.#controller.abort(this.#interrupt);
    }
    return this.#controller.signal;
  }

  /** Interrupts the call (the first reason wins). */
  interrupt(interrupt: Interrupt): void {
    if (this.#interrupt !== undefined) return;
    this.#interrupt = interrupt;
    this.#controller?.abort(interrupt);
    for (const resolve of this.#resolvers ?? []) resolve(interrupt);
    this.#resolvers = undefined;
  }

  /** Resolves with the Interrupt when the call is interrupted; never rejects. */
  whenInterrupted(): Promise<Interrupt> {
    this.watch();
    if (this.#interrupt !== undefined) return Promise.resolve(this.#interrupt);
    return new Promise((resolve) => (this.#resolvers ??= []).push(resolve));
  }

  /** Interrupts the call at `deadline` (replacing an earlier deadline); past deadlines fire now. */
  armDeadline(deadline: CallDeadline): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    if (!Number.isFinite(deadline.at)) return;
    const delay = deadline.at - Date.now();
    if (delay <= 0) {
      this.interrupt(new Interrupt("TOOL_TIMEOUT", deadline.source));
      return;
    }
    // setTimeout caps delays at 2^31-1 ms; longer budgets are effectively infinite.
    this.#timer = setTimeout(
      () => this.interrupt(new Interrupt("TOOL_TIMEOUT", deadline.source)),
      Math.min(delay, MAX_TIMER_MS),
    );
  }

  /** Stops the timer and the watch on the outer signal. */
  dispose(): void {
    clearTimeout(this.#timer);
    this.#unwatch?.();
    this.#unwatch = undefined;
  }
}

// One listener per outer signal, fanned out to its calls: a run with a thousand calls in
// flight adds one listener to its signal, not a thousand.
const watchers = new WeakMap<AbortSignal, Set<CallControl>>();

function watchSignal(signal: AbortSignal, control: CallControl): () => void {
  let controls = watchers.get(signal);
  if (controls === undefined) {
    const created = new Set<CallControl>();
    controls = created;
    watchers.set(signal, created);
    signal.addEventListener(
      "abort",
      () => {
        for (const watched of [...created]) watched.interrupt(CANCELLED);
        created.clear();
      },
      { once: true },
    );
  }
  controls.add(control);
  const watched = controls;
  return () => watched.delete(control);
}
