// A table of named locks acquired all at once: shared, exclusive, or a slot of a bounded
// pool. Waiters are granted strictly in arrival order per key (a later reader never
// overtakes an earlier writer), and a waiter takes all its keys atomically, so no
// ordering of calls can deadlock. Aborting a waiter removes it without a grant.

/** One lock a waiter needs. `slot` takes one of `capacity` places under `key`. */
export type LockRequest =
  | { readonly key: string; readonly mode: "shared" | "exclusive" }
  | { readonly key: string; readonly mode: "slot"; readonly capacity: number };

/** Releases every lock of one grant; calling it twice is harmless. */
export type ReleaseLocks = () => void;

interface Holders {
  shared: number;
  exclusive: boolean;
}

interface Waiter {
  readonly locks: readonly LockRequest[];
  readonly grant: (release: ReleaseLocks) => void;
}

/** Grants lock sets in arrival order; see the module comment. */
export class LockTable {
  readonly #holders = new Map<string, Holders>();
  #waiters: Waiter[] = [];

  /** Number of keys with a holder; for tests and diagnostics. */
  get heldKeys(): number {
    return this.#holders.size;
  }

  /**
   * Resolves with a release function once every lock is granted. Rejects with the signal's
   * reason if `signal` aborts first; nothing is held then.
   */
  acquire(locks: readonly LockRequest[], signal?: AbortSignal): Promise<ReleaseLocks> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise<ReleaseLocks>((resolve, reject) => {
      const onAbort = (): void => {
        this.#waiters = this.#waiters.filter((waiter) => waiter !== entry);
        reject(signal?.reason);
        // The leaver may have been blocking later waiters.
        this.#grantWaiting();
      };
      const entry: Waiter = {
        locks,
        grant: (release) => {
          signal?.removeEventListener("abort", onAbort);
          resolve(release);
        },
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.#waiters.push(entry);
      this.#grantWaiting();
    });
  }

  #grantWaiting(): void {
    // Keys wanted by earlier waiters that are still blocked, with the strongest mode wanted.
    const blockedBefore = new Map<string, LockRequest["mode"]>();
    const stillWaiting: Waiter[] = [];
    for (const waiter of this.#waiters) {
      const grantable = waiter.locks.every((lock) => this.#isFree(lock) && !isBlockedByEarlier(lock, blockedBefore));
      if (grantable) {
        for (const lock of waiter.locks) this.#take(lock);
        waiter.grant(this.#releaserFor(waiter.locks));
        continue;
      }
      stillWaiting.push(waiter);
      for (const lock of waiter.locks) {
        const previous = blockedBefore.get(lock.key);
        if (previous !== "exclusive") blockedBefore.set(lock.key, lock.mode);
      }
    }
    this.#waiters = stillWaiting;
  }

  #isFree(lock: LockRequest): boolean {
    const holders = this.#holders.get(lock.key);
    if (holders === undefined) return lock.mode !== "slot" || lock.capacity > 0;
    if (lock.mode === "exclusive") return !holders.exclusive && holders.shared === 0;
    if (lock.mode === "slot") return holders.shared < lock.capacity;
    return !holders.exclusive;
  }

  #take(lock: LockRequest): void {
    const holders = this.#holders.get(lock.key) ?? { shared: 0, exclusive: false };
    if (lock.mode === "exclusive") holders.exclusive = true;
    else holders.shared += 1;
    this.#holders.set(lock.key, holders);
  }

  #releaserFor(locks: readonly LockRequest[]): ReleaseLocks {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      for (const lock of locks) {
        const holders = this.#holders.get(lock.key);
        if (holders === undefined) continue;
        if (lock.mode === "exclusive") holders.exclusive = false;
        else holders.shared -= 1;
        if (!holders.exclusive && holders.shared === 0) this.#holders.delete(lock.key);
      }
      this.#grantWaiting();
    };
  }
}

function isBlockedByEarlier(lock: LockRequest, blockedBefore: ReadonlyMap<string, LockRequest["mode"]>): boolean {
  const earlier = blockedBefore.get(lock.key);
  if (earlier === undefined) return false;
  // An earlier blocked writer holds back everyone; an earlier blocked reader holds back writers;
  // an earlier blocked slot waiter holds back later slot waiters (FIFO through the pool).
  if (earlier === "exclusive") return true;
  if (lock.mode === "exclusive") return true;
  return earlier === "slot" && lock.mode === "slot";
}
