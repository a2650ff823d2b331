// Timers inside the isolate: `sleep`, `setTimeout` and `clearTimeout`. The queue lives here, in
// the isolate's own heap (its memory counts against the run's limit), and the host is asked
// for one wake-up at a time, so however many timers a program sets, the host holds one. A
// timer never fires after the program has returned. Free of Node and DOM APIs.

/** Most timers pending at once; one more throws a RangeError. */
export const MAX_PENDING_TIMERS = 10_000;

/** Largest delay kept, in ms (about 24.8 days, as in browsers); the host clamps to the run's time left anyway. */
const MAX_DELAY_MS = 2_147_483_647;

export interface GuestTimerHost {
  /**
   * Asks the host to answer after `delayMs`. A new request replaces the one pending (which
   * then answers at once), so the host holds one; answers to replaced requests are ignored.
   */
  requestWake(delayMs: number): Promise<unknown>;
  /** Reports a callback that threw (or whose promise rejected): the program keeps running. */
  reportCallbackError(error: unknown): void;
  /**
   * The clock timers are due by, in ms; default the real `Date.now`. A durable run passes its
   * journaled clock, so a replayed wake-up finds the same timers due.
   */
  now?(): number;
}

export interface GuestTimers {
  sleep(ms?: unknown): Promise<void>;
  setTimeout(callback: unknown, ms?: unknown, ...args: unknown[]): number;
  clearTimeout(id: unknown): void;
  /** Drops every pending timer; later calls schedule nothing (the program has returned). */
  close(): void;
}

interface TimerEntry {
  readonly id: number;
  readonly at: number;
  readonly run: () => void;
  cancelled: boolean;
}

// Captured while the runtime is evaluated, before any program can replace them.
const realNow = Date.now;
const toNumber = Number;
const isNaNNumber = Number.isNaN;
const RangeErrorCtor = RangeError;
const TypeErrorCtor = TypeError;
const PromiseCtor = Promise;
const MapCtor = Map;
const apply = Reflect.apply;
const then = Promise.prototype.then;
const max = Math.max;
const min = Math.min;

/** Builds one run's timers on `host`; see the module comment. */
export function createGuestTimers(host: GuestTimerHost): GuestTimers {
  const now = host.now === undefined ? realNow : () => host.now!();
  const pending = new MapCtor<number, TimerEntry>();
  const heap: TimerEntry[] = [];
  let nextId = 1;
  let closed = false;
  // The wake-up asked of the host: when it is due, and which request it was.
  let wake: { readonly at: number; readonly sequence: number } | undefined;
  let wakeSequence = 0;

  const schedule = (run: () => void, ms: unknown): number => {
    if (closed) return 0;
    if (pending.size >= MAX_PENDING_TIMERS) {
      throw new RangeErrorCtor(`At most ${MAX_PENDING_TIMERS} timers may be pending at once.`);
    }
    const entry: TimerEntry = { id: nextId++, at: now() + delayOf(ms), run, cancelled: false };
    pending.set(entry.id, entry);
    push(heap, entry);
    arm();
    return entry.id;
  };

  const arm = (): void => {
    const first = peek();
    if (first === undefined || (wake !== undefined && wake.at <= first.at)) return;
    const sequence = ++wakeSequence;
    wake = { at: first.at, sequence };
    apply(then, host.requestWake(max(0, first.at - now())), [() => onWake(sequence), ignore]);
  };

  const onWake = (sequence: number): void => {
    if (closed || sequence !== wakeSequence) return;
    wake = undefined;
    const time = now();
    for (let first = peek(); first !== undefined && first.at <= time; first = peek()) {
      pop(heap);
      pending.delete(first.id);
      try {
        first.run();
      } catch (error) {
        host.reportCallbackError(error);
      }
    }
    arm();
  };

  /** The earliest live timer; cancelled ones are dropped from the top as they surface. */
  const peek = (): TimerEntry | undefined => {
    while (heap.length > 0 && heap[0]!.cancelled) pop(heap);
    return heap[0];
  };

  return {
    sleep: (ms) =>
      new PromiseCtor<void>((resolve) => {
        schedule(() => resolve(), ms);
      }),
    setTimeout: (callback, ms, ...args) => {
      if (typeof callback !== "function") {
        throw new TypeErrorCtor("setTimeout needs a function; strings are not evaluated.");
      }
      return schedule(() => {
        const returned: unknown = apply(callback, undefined, args);
        if (isThenable(returned)) returned.then(undefined, (error: unknown) => host.reportCallbackError(error));
      }, ms);
    },
    clearTimeout: (id) => {
      const entry = typeof id === "number" ? pending.get(id) : undefined;
      if (entry === undefined) return;
      entry.cancelled = true;
      pending.delete(entry.id);
      // Cancelled entries wait in the heap until they surface; rebuild before they outnumber the live ones.
      if (heap.length > 64 && heap.length > 2 * pending.size) rebuild(heap, pending);
    },
    close: () => {
      closed = true;
      pending.clear();
      heap.length = 0;
    },
  };
}

function ignore(): undefined {
  return undefined;
}

/** A delay in ms as browsers read one: not a number, negative or NaN is 0; capped at MAX_DELAY_MS. */
function delayOf(ms: unknown): number {
  const value = ms === undefined ? 0 : toNumber(ms);
  if (isNaNNumber(value) || value <= 0) return 0;
  return min(value, MAX_DELAY_MS);
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    (typeof value === "object" || typeof value === "function") &&
    value !== null &&
    typeof (value as { then?: unknown }).then === "function"
  );
}

// ---- a binary min-heap by (at, id): equal deadlines fire in the order they were set ----

function before(a: TimerEntry, b: TimerEntry): boolean {
  return a.at < b.at || (a.at === b.at && a.id < b.id);
}

function push(heap: TimerEntry[], entry: TimerEntry): void {
  heap.push(entry);
  let index = heap.length - 1;
  while (index > 0) {
    const parent = (index - 1) >> 1;
    if (!before(heap[index]!, heap[parent]!)) break;
    [heap[index], heap[parent]] = [heap[parent]!, heap[index]!];
    index = parent;
  }
}

function pop(heap: TimerEntry[]): void {
  const last = heap.pop();
  if (last === undefined || heap.length === 0) return;
  heap[0] = last;
  let index = 0;
  for (;;) {
    const left = 2 * index + 1;
    const right = left + 1;
    let smallest = index;
    if (left < heap.length && before(heap[left]!, heap[smallest]!)) smallest = left;
    if (right < heap.length && before(heap[right]!, heap[smallest]!)) smallest = right;
    if (smallest === index) return;
    [heap[index], heap[smallest]] = [heap[smallest]!, heap[index]!];
    index = smallest;
  }
}

function rebuild(heap: TimerEntry[], pending: Map<number, TimerEntry>): void {
  heap.length = 0;
  for (const entry of pending.values()) push(heap, entry);
}
