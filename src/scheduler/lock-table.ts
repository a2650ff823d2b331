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
  readonly grant: (release: ReleaseLocks) => void;
  done: boolean;
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
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise<ReleaseLocks>((resolve, reject) => {
      const onAbort = (): void => {
        if (waiter.done) return;
        waiter.done = true;
        reject(signal?.reason);
        // The leaver may have been holding back later waiters on its keys.
        for (const lock of locks) this.#wake(lock.key);
        this.#forgetIdle(locks);
      };
      const waiter: Waiter = {
        seq: this.#sequence++,
        locks,
        done: false,
        grant: (release) => {
          signal?.removeEventListener("abort", onAbort);
          resolve(release);
        },
      };
      this.#enqueue(waiter);
      if (!this.#tryGrant(waiter)) signal?.addEventListener("abort", onAbort, { once: true });
    });
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
    if (waiter.done || !waiter.locks.every((lock) => this.#isEligible(waiter, lock))) return false;
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
    const firstExclusive = state.exclusiveWaiting?.first();
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
