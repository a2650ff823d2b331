// Timers inside the isolate: `sleep`, `setTimeout` and `clearTimeout`. The queue lives here, in
// the isolate's own heap (its memory counts against the run's limit), and the host is asked
// for one wake-up at a time, so however many timers a program sets, the host holds one. A
// timer never fires after the program has returned. Free of Node and DOM APIs.

import {
  append,
  applyFunction,
  dateNow as realNow,
  isNaNNumber,
  MapConstructor,
  mapClear,
  mapDelete,
  mapGet,
  mapSet,
  mapSize,
  mathMax as max,
  mathMin as min,
  newList,
  PromiseConstructor,
  RangeErrorConstructor,
  reactTo,
  TypeErrorConstructor,
  toNumber,
} from "./guest-intrinsics.js";
import { MAX_PENDING_TIMERS } from "./wire.js";

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

// Every built-in is the one captured before any program ran (guest-intrinsics.ts); the heap is
// a list without a prototype, swapped without destructuring (which would use the program's
// Array iterator).

/** Builds one run's timers on `host`; see the module comment. */
export function createGuestTimers(host: GuestTimerHost): GuestTimers {
  const now = host.now === undefined ? realNow : () => host.now!();
  const pending = new MapConstructor<number, TimerEntry>();
  const heap = newList<TimerEntry>();
  let nextId = 1;
  let closed = false;
  // The wake-up asked of the host: when it is due, and which request it was.
  let wake: { readonly at: number; readonly sequence: number } | undefined;
  let wakeSequence = 0;

  const schedule = (run: () => void, ms: unknown): number => {
    if (closed) return 0;
    if (mapSize(pending) >= MAX_PENDING_TIMERS) {
      throw new RangeErrorConstructor(`At most ${MAX_PENDING_TIMERS} timers may be pending at once.`);
    }
    const entry: TimerEntry = { id: nextId++, at: now() + delayOf(ms), run, cancelled: false };
    mapSet(pending, entry.id, entry);
    push(heap, entry);
    arm();
    return entry.id;
  };

  const arm = (): void => {
    const first = peek();
    if (first === undefined || (wake !== undefined && wake.at <= first.at)) return;
    const sequence = ++wakeSequence;
    wake = { at: first.at, sequence };
    reactTo(host.requestWake(max(0, first.at - now())), () => onWake(sequence), ignore);
  };

  const onWake = (sequence: number): void => {
    if (closed || sequence !== wakeSequence) return;
    wake = undefined;
    const time = now();
    for (let first = peek(); first !== undefined && first.at <= time; first = peek()) {
      pop(heap);
      mapDelete(pending, first.id);
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
      new PromiseConstructor<void>((resolve) => {
        schedule(() => resolve(), ms);
      }),
    setTimeout: (callback, ms, ...args) => {
      if (typeof callback !== "function") {
        throw new TypeErrorConstructor("setTimeout needs a function; strings are not evaluated.");
      }
      return schedule(() => {
        const returned: unknown = applyFunction(callback, undefined, args);
        if (isThenable(returned)) returned.then(undefined, (error: unknown) => host.reportCallbackError(error));
      }, ms);
    },
    clearTimeout: (id) => {
      const entry = typeof id === "number" ? mapGet(pending, id) : undefined;
      if (entry === undefined) return;
      entry.cancelled = true;
      mapDelete(pending, entry.id);
      // Cancelled entries wait in the heap until they surface; rebuild before they outnumber the live ones.
      if (heap.length > 64 && heap.length > 2 * mapSize(pending)) rebuild(heap);
    },
    close: () => {
      closed = true;
      mapClear(pending);
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

function swap(heap: TimerEntry[], a: number, b: number): void {
  const entry = heap[a]!;
  heap[a] = heap[b]!;
  heap[b] = entry;
}

function push(heap: TimerEntry[], entry: TimerEntry): void {
  append(heap, entry);
  let index = heap.length - 1;
  while (index > 0) {
    const parent = (index - 1) >> 1;
    if (!before(heap[index]!, heap[parent]!)) break;
    swap(heap, index, parent);
    index = parent;
  }
}

function pop(heap: TimerEntry[]): void {
  if (heap.length === 0) return;
  const last = heap[heap.length - 1]!;
  heap.length -= 1;
  if (heap.length === 0) return;
  heap[0] = last;
  let index = 0;
  for (;;) {
    const left = 2 * index + 1;
    const right = left + 1;
    let smallest = index;
    if (left < heap.length && before(heap[left]!, heap[smallest]!)) smallest = left;
    if (right < heap.length && before(heap[right]!, heap[smallest]!)) smallest = right;
    if (smallest === index) return;
    swap(heap, index, smallest);
    index = smallest;
  }
}

/** Drops the cancelled entries and restores the heap order with what is left (the live timers). */
function rebuild(heap: TimerEntry[]): void {
  const live = newList<TimerEntry>();
  for (let index = 0; index < heap.length; index++) if (!heap[index]!.cancelled) append(live, heap[index]!);
  heap.length = 0;
  for (let index = 0; index < live.length; index++) push(heap, live[index]!);
}
