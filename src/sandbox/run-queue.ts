// The one admission queue for program runs, in process and in worker processes alike. A run
// takes a place when it arrives (refused when `maxQueuedRuns` are already waiting: backpressure
// at the door, before any compile or check), and is admitted to the sandbox once its turn comes
// and its isolate's memory limit fits the memory budget. Turns go round-robin across caller keys,
// first come first served within one key; a run that does not fit yet is not overtaken.

import { SwitchyardError } from "../errors.js";

export interface RunQueueOptions {
  /**
   * MB of isolate `memoryLimitMb` admitted at once, summed over the runs in the sandbox.
   * Default 1 024: eight runs at the default 128 MB limit. A run whose limit is larger is a
   * configuration error (OPTION_INVALID); runs beyond the budget wait in the queue.
   */
  readonly memoryBudgetMb?: number;
  /**
   * Runs waiting at once: taken a place and not yet in the sandbox (compiling, being checked
   * or approved, waiting for memory). Default 256; the next run ends `RUN_QUEUE_FULL` at once.
   */
  readonly maxQueuedRuns?: number;
}

export const DEFAULT_MEMORY_BUDGET_MB = 1024;
export const DEFAULT_MAX_QUEUED_RUNS = 256;

/** A run's place in the queue, from its arrival until it is admitted or leaves. */
export interface RunTicket {
  /**
   * Waits for the run's turn and for `memoryMb` to fit the budget. Resolves with the function
   * that gives the memory back (call it once the run's isolate is gone; idempotent), or with
   * `undefined` when `signal` fired first, in which case the place is given up. Call once.
   */
  admit(memoryMb: number, signal?: AbortSignal): Promise<(() => void) | undefined>;
  /** Gives the place up without running (the program failed to compile); no effect once admitted. */
  leave(): void;
}

/** What the queue holds now. */
export interface RunQueueStats {
  /** Runs that took a place and are not admitted yet. */
  readonly waiting: number;
  /** Of those, the runs ready to start, waiting for their turn and memory (the rest are being compiled or checked). */
  readonly queued: number;
  /** Runs admitted and not yet released. */
  readonly running: number;
  /** Memory limits of the admitted runs, summed, in MB. */
  readonly memoryInUseMb: number;
}

interface Waiter {
  readonly memoryMb: number;
  readonly admit: () => void;
}

interface Lane {
  readonly key: string;
  readonly waiters: Waiter[];
}

/** Admits runs in fair order within a memory budget; see the module comment. */
export class RunQueue {
  readonly memoryBudgetMb: number;
  readonly maxQueuedRuns: number;
  /** Caller keys with runs ready to be admitted, in the order their turns come. */
  readonly #ring: Lane[] = [];
  /** Index in `#ring` of the lane whose turn it is; always within the ring (0 when it is empty). */
  #turn = 0;
  #waiting = 0;
  #running = 0;
  #memoryInUseMb = 0;

  constructor(options: RunQueueOptions = {}) {
    this.memoryBudgetMb = positive(options.memoryBudgetMb, DEFAULT_MEMORY_BUDGET_MB, "memoryBudgetMb");
    this.maxQueuedRuns = Math.floor(positive(options.maxQueuedRuns, DEFAULT_MAX_QUEUED_RUNS, "maxQueuedRuns"));
  }

  stats(): RunQueueStats {
    let queued = 0;
    for (const lane of this.#ring) queued += lane.waiters.length;
    return { waiting: this.#waiting, queued, running: this.#running, memoryInUseMb: this.#memoryInUseMb };
  }

  /** Takes a place for a run of `callerKey`, or returns `undefined` when `maxQueuedRuns` runs already wait. */
  enter(callerKey: string): RunTicket | undefined {
    if (this.#waiting >= this.maxQueuedRuns) return undefined;
    this.#waiting++;
    let state: "entered" | "ready" | "done" = "entered";
    const giveUp = (): void => {
      if (state === "done") return;
      state = "done";
      this.#waiting--;
    };
    return {
      admit: (memoryMb, signal) => {
        if (state !== "entered") throw new Error("RunTicket.admit may be called once, before leave().");
        if (!(memoryMb > 0 && memoryMb <= this.memoryBudgetMb)) {
          giveUp();
          throw new SwitchyardError(
            "OPTION_INVALID",
            `A run's memoryLimitMb (${memoryMb}) must be positive and within the run queue's memoryBudgetMb (${this.memoryBudgetMb}).`,
          );
        }
        if (signal?.aborted) {
          giveUp();
          return Promise.resolve(undefined);
        }
        state = "ready";
        return new Promise((resolve) => {
          const waiter: Waiter = {
            memoryMb,
            admit: () => {
              signal?.removeEventListener("abort", onAbort);
              giveUp();
              resolve(this.#take(memoryMb));
            },
          };
          const onAbort = (): void => {
            if (state !== "ready") return;
            this.#remove(callerKey, waiter);
            giveUp();
            resolve(undefined);
            // The run that left may have been the one that did not fit: the next may.
            this.#pump();
          };
          signal?.addEventListener("abort", onAbort, { once: true });
          this.#lane(callerKey).waiters.push(waiter);
          this.#pump();
        });
      },
      leave: () => {
        if (state === "entered") giveUp();
      },
    };
  }

  /** Counts `memoryMb` as in use; returns the release function. */
  #take(memoryMb: number): () => void {
    this.#running++;
    this.#memoryInUseMb += memoryMb;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#running--;
      this.#memoryInUseMb -= memoryMb;
      this.#pump();
    };
  }

  /** Admits runs while the run whose turn it is fits the budget. */
  #pump(): void {
    while (this.#ring.length > 0) {
      const index = this.#turn;
      const lane = this.#ring[index]!;
      const head = lane.waiters[0]!;
      if (this.#memoryInUseMb + head.memoryMb > this.memoryBudgetMb) return;
      lane.waiters.shift();
      if (lane.waiters.length === 0) {
        // The lane leaves the ring; the lane after it now sits at `index` and has the next turn.
        this.#ring.splice(index, 1);
        this.#turn = this.#ring.length === 0 ? 0 : index % this.#ring.length;
      } else {
        this.#turn = (index + 1) % this.#ring.length;
      }
      head.admit();
    }
  }

  #lane(key: string): Lane {
    let lane = this.#ring.find((candidate) => candidate.key === key);
    if (lane === undefined) {
      lane = { key, waiters: [] };
      // A caller new to the ring goes just before the one whose turn it is: last in the round under way.
      const index = this.#turn;
      this.#ring.splice(index, 0, lane);
      this.#turn = (index + 1) % this.#ring.length;
    }
    return lane;
  }

  #remove(key: string, waiter: Waiter): void {
    const index = this.#ring.findIndex((candidate) => candidate.key === key);
    const lane = this.#ring[index];
    const position = lane?.waiters.indexOf(waiter) ?? -1;
    if (lane === undefined || position < 0) return;
    lane.waiters.splice(position, 1);
    if (lane.waiters.length > 0) return;
    this.#ring.splice(index, 1);
    // Keep the turn on the same lane (or, if the removed lane had it, the one after).
    const turn = index < this.#turn ? this.#turn - 1 : this.#turn;
    this.#turn = this.#ring.length === 0 ? 0 : turn % this.#ring.length;
  }
}

function positive(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !Number.isFinite(value) || value <= 0) {
    throw new SwitchyardError("OPTION_INVALID", `runQueue.${name} must be a positive number, got ${String(value)}.`);
  }
  return value;
}
