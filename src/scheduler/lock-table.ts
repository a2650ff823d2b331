// A table of named locks acquired all at once: shared, exclusive, or a slot of a bounded
// pool. Waiters are granted in arrival order per key (a later reader never overtakes an
// earlier writer; slots are handed out first come, first served), and a waiter takes all its
// keys atomically, so no ordering of calls can deadlock. Aborting a waiter removes it
// without a grant. Each release looks only at the queues of the keys it freed.

/** One lock a waiter needs. `slot` takes one of `capacity` places under `key`. */
export type LockRequest =
  | { readonly key: string; readonly mode: "shared" | "exclusive" }
  | { readonly key: string; readonly mode: "slot"; readonly capacity: number };

/** Releases every lock of one grant; calling it twice is harmless. */
export type ReleaseLocks = () => void;

const IDLE_KEYS_KEPT = 1024;

interface Waiter {
  readonly seq: number;
  readonly locks: readonly LockRequest[];
  grant: (release: ReleaseLocks) => void;
  done: boolean;
  /** False while a reservation waits for its call to be ready (an approval): it holds its place only. */
  ready: boolean;
}

/**
 * A place in line taken before the call may run (see `LockTable.reserve`): `acquire` waits from
 * that place, `cancel` gives it up. Exactly one of the two should be called.
 */
export interface LockReservation {
  /** Resolves with the release once every lock is granted; rejects like `LockTable.acquire` on abort. */
  acquire(signal?: AbortSignal): Promise<ReleaseLocks>;
  /** Leaves the line without a grant; harmless after `acquire` was granted or the place was left. */
  cancel(): void;
}

/** A FIFO of waiters with lazy removal: entries marked done are skipped and dropped. */
class WaiterQueue {
  #items: Waiter[] = [];
  #head = 0;

  push(waiter: Waiter): void {
    this.#items.push(waiter);
  }

  /** The earliest waiter still waiting. */
  first(): Waiter | undefined {
    while (this.#head < this.#items.length && this.#items[this.#head]!.done) this.#head++;
    if (this.#head > 1024 && this.#head * 2 > this.#items.length) {
      this.#items = this.#items.slice(this.#head);
      this.#head = 0;
    }
    return this.#items[this.#head];
  }

  /** Waiting entries from the front; stops early when `visit` returns false. */
  scan(visit: (waiter: Waiter) => boolean): void {
    this.first();
    for (let index = this.#head; index < this.#items.length; index++) {
      const waiter = this.#items[index]!;
      if (!waiter.done && !visit(waiter)) return;
    }
  }

  get empty(): boolean {
    return this.first() === undefined;
  }
}

interface KeyState {
  shared: number;
  exclusive: boolean;
  // Queues exist only once someone waits: an uncontended key costs one small object.
  waiting: WaiterQueue | undefined;
  exclusiveWaiting: WaiterQueue | undefined;
  slotWaiting: WaiterQueue | undefined;
}

/** Grants lock sets in arrival order; see the module comment. */
export class LockTable {
  readonly #keys = new Map<string, KeyState>();
  #sequence = 0;

  /** Number of keys with a holder or a waiter; for tests and diagnostics. */
  get heldKeys(): number {
    let count = 0;
    for (const state of this.#keys.values()) if (state.exclusive || state.shared > 0) count++;
    return count;
  }

  /**
   * Resolves with a release function once every lock is granted. Rejects with the signal's
   * reason if `signal` aborts first; nothing is held then.
   */
  acquire(locks: readonly LockRequest[], signal?: AbortSignal): Promise<ReleaseLocks> {
    return this.#waitFrom(undefined, locks, signal);
  }

  /**
   * Takes a place in line for `locks` now, for a call that may run only later (it waits for an
   * approval): writers behind it on its exclusive keys wait for it, so writes start in the order
   * they were made, approvals included. Readers are not held back by a place not yet ready.
   */
  reserve(locks: readonly LockRequest[]): LockReservation {
    const waiter: Waiter = { seq: this.#sequence++, locks, done: false, ready: false, grant: () => {} };
    this.#enqueue(waiter);
    return {
      acquire: (signal) => this.#waitFrom(waiter, locks, signal),
      cancel: () => this.#leave(waiter),
    };
  }

  #waitFrom(reserved: Waiter | undefined, locks: readonly LockRequest[], signal?: AbortSignal): Promise<ReleaseLocks> {
    if (reserved?.done === true) return Promise.reject(new Error("The lock reservation was cancelled."));
    if (signal?.aborted) {
      if (reserved !== undefined) this.#leave(reserved);
      return Promise.reject(signal.reason);
    }
    return new Promise<ReleaseLocks>((resolve, reject) => {
      const onAbort = (): void => {
        if (waiter.done) return;
        reject(signal?.reason);
        this.#leave(waiter);
      };
      const grant = (release: ReleaseLocks): void => {
        signal?.removeEventListener("abort", onAbort);
        resolve(release);
      };
      const waiter: Waiter = reserved ?? { seq: this.#sequence++, locks, done: false, ready: true, grant };
      if (reserved === undefined) this.#enqueue(waiter);
      else {
        reserved.grant = grant;
        reserved.ready = true;
      }
      if (!this.#tryGrant(waiter)) signal?.addEventListener("abort", onAbort, { once: true });
    });
  }

  /** Takes `waiter` out of line without a grant; it may have been holding back later waiters on its keys. */
  #leave(waiter: Waiter): void {
    if (waiter.done) return;
    waiter.done = true;
    for (const lock of waiter.locks) this.#wake(lock.key);
    this.#forgetIdle(waiter.locks);
  }

  /**
   * Grants `locks` at once if that is possible without waiting and without overtaking anyone;
   * returns undefined otherwise (then call `acquire`). The fast path for an idle table.
   */
  tryAcquire(locks: readonly LockRequest[]): ReleaseLocks | undefined {
    for (const lock of locks) {
      const state = this.#keys.get(lock.key);
      if (state !== undefined && state.waiting?.empty === false) return undefined;
      if (state !== undefined && !isFree(state, lock)) return undefined;
    }
    for (const lock of locks) take(this.#state(lock.key), lock);
    return this.#releaserFor(locks);
  }

  #enqueue(waiter: Waiter): void {
    for (const lock of waiter.locks) {
      const state = this.#state(lock.key);
      (state.waiting ??= new WaiterQueue()).push(waiter);
      if (lock.mode === "exclusive") (state.exclusiveWaiting ??= new WaiterQueue()).push(waiter);
      if (lock.mode === "slot") (state.slotWaiting ??= new WaiterQueue()).push(waiter);
    }
  }

  #tryGrant(waiter: Waiter): boolean {
    if (waiter.done || !waiter.ready || !waiter.locks.every((lock) => this.#isEligible(waiter, lock))) return false;
    waiter.done = true;
    for (const lock of waiter.locks) take(this.#state(lock.key), lock);
    waiter.grant(this.#releaserFor(waiter.locks));
    // Leaving a slot queue may let the next slot waiter in while places remain.
    for (const lock of waiter.locks) if (lock.mode === "slot") this.#wake(lock.key);
    return true;
  }

  /** Whether `waiter` could take `lock` now without overtaking an earlier waiter it conflicts with. */
  #isEligible(waiter: Waiter, lock: LockRequest): boolean {
    const state = this.#state(lock.key);
    if (!isFree(state, lock)) return false;
    if (lock.mode === "exclusive") return state.waiting?.first() === waiter;
    // A writer's place held for an approval holds back writers, not readers.
    const firstExclusive = firstReady(state.exclusiveWaiting);
    if (firstExclusive !== undefined && firstExclusive.seq < waiter.seq) return false;
    const firstSlot = state.slotWaiting?.first();
    return firstSlot === undefined || firstSlot.seq >= waiter.seq;
  }

  /**
   * Grants what became possible on `key`, front to back. It stops at the first waiter whose
   * lock on this key is not eligible: every later waiter's lock on the key then waits behind it.
   */
  #wake(key: string): void {
    const state = this.#keys.get(key);
    if (state === undefined) return;
    state.waiting?.scan((waiter) => {
      // A place not yet ready is skipped here: readers behind it may go; writers stop at it.
      if (!waiter.ready) return true;
      const lock = waiter.locks.find((candidate) => candidate.key === key);
      if (lock === undefined || !this.#isEligible(waiter, lock)) return false;
      this.#tryGrant(waiter);
      return true;
    });
  }

  #releaserFor(locks: readonly LockRequest[]): ReleaseLocks {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      for (const lock of locks) {
        const state = this.#keys.get(lock.key);
        if (state === undefined) continue;
        if (lock.mode === "exclusive") state.exclusive = false;
        else state.shared -= 1;
      }
      for (const lock of locks) {
        const state = this.#keys.get(lock.key);
        if (state === undefined) continue;
        // A shared holder leaving matters only to a writer, and only once the key is free.
        if (lock.mode === "shared" && (state.shared > 0 || state.exclusiveWaiting?.empty !== false)) continue;
        this.#wake(lock.key);
      }
      this.#forgetIdle(locks);
    };
  }

  #state(key: string): KeyState {
    let state = this.#keys.get(key);
    if (state === undefined) {
      state = { shared: 0, exclusive: false, waiting: undefined, exclusiveWaiting: undefined, slotWaiting: undefined };
      this.#keys.set(key, state);
    }
    return state;
  }

  #forgetIdle(locks: readonly LockRequest[]): void {
    // Idle keys are kept while the table is small, so a hot key is not rebuilt on every call;
    // resource keys (file paths) are unbounded, so past the threshold idle keys are dropped.
    if (this.#keys.size < IDLE_KEYS_KEPT) return;
    for (const lock of locks) {
      const state = this.#keys.get(lock.key);
      if (state !== undefined && !state.exclusive && state.shared === 0 && state.waiting?.empty !== false)
        this.#keys.delete(lock.key);
    }
  }
}

function firstReady(queue: WaiterQueue | undefined): Waiter | undefined {
  let found: Waiter | undefined;
  queue?.scan((waiter) => {
    if (!waiter.ready) return true;
    found = waiter;
    return false;
  });
  return found;
}

function isFree(state: KeyState, lock: LockRequest): boolean {
  if (state.exclusive) return false;
  if (lock.mode === "exclusive") return state.shared === 0;
  if (lock.mode === "slot") return state.shared < lock.capacity;
  return true;
}

function take(state: KeyState, lock: LockRequest): void {
  if (lock.mode === "exclusive") state.exclusive = true;
  else state.shared += 1;
}
