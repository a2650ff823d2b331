// What a run's isolate has used of the CPU, for `cpuTimeMs`. isolated-vm's `cpuTime` counts the
// time its thread has been running the isolate's work by the wall clock (measured here: eight
// isolates of ~200 ms of work each at once on 2 cores read ~8 s each, the same as `wallTime`),
// so under oversubscription (many runs on few cores, or a loaded machine) a run that waits for a
// core is billed for the wait, and a healthy run ends CPU_LIMIT. This meter bills each isolate,
// for every 10 ms tick in which its work ran (its reading moved), the smaller of what its reading
// moved and its fair share of the CPU this process's threads other than the main one really used
// in the tick (process CPU minus the main thread's): with N isolates working on C free cores each
// gets about C/N of the wall time, as the kernel's fair scheduler gives it. Alone on a core, an
// endless loop is billed its wall time, as before. It never bills more than isolated-vm's reading,
// so it can only spare runs, never end one sooner. Off Linux (no clock of the main thread alone)
// the main thread's CPU counts into the shares, which are then overestimates.

import { openSync, readSync } from "node:fs";
import type ivm from "isolated-vm";

/** How often the meter samples, in ms. */
const TICK_MS = 10;

/** A run's CPU watch: `stop` ends it and gives the CPU time measured, in ms. */
export interface CpuWatch {
  stop(): number;
}

interface Watched {
  readonly isolate: ivm.Isolate;
  readonly limitMs: number;
  readonly onExceeded: () => void;
  /** isolated-vm's reading at the last tick, in ms. */
  reading: number;
  /** The CPU time billed so far, in ms. */
  estimate: number;
}

const watched = new Set<Watched>();
let timer: NodeJS.Timeout | undefined;
let last: { processMs: number; mainMs: number } | undefined;
/** Isolates active at the last tick: how many shared the worker threads' CPU. */
let lastActive = 1;

/**
 * Watches `isolate`'s CPU time; calls `onExceeded` once it is over `limitMs` (checked every
 * 10 ms). The measure is isolated-vm's `cpuTime` for finished stretches of work and a fair share
 * of the process's worker-thread CPU for the one running (see the module comment).
 */
export function watchCpu(isolate: ivm.Isolate, limitMs: number, onExceeded: () => void): CpuWatch {
  // A prepared isolate has already run the guest runtime: its reading starts above zero, and
  // that work (done ahead, while no run waited) is not the run's.
  const entry: Watched = { isolate, limitMs, onExceeded, reading: readingOf(isolate) ?? 0, estimate: 0 };
  watched.add(entry);
  if (timer === undefined) {
    last = sample();
    timer = setInterval(tick, TICK_MS);
    // A watch must not keep the process alive by itself.
    timer.unref();
  }
  return {
    stop: () => {
      // Brought up to now, as a tick would: the isolate's work may have ended since the last one.
      const reading = readingOf(entry.isolate);
      if (reading !== undefined && watched.has(entry) && last !== undefined) {
        const now = sample();
        const workersMs = Math.max(0, now.processMs - last.processMs - (now.mainMs - last.mainMs));
        entry.estimate += bill(reading - entry.reading, workersMs / lastActive);
      }
      watched.delete(entry);
      if (watched.size === 0 && timer !== undefined) {
        clearInterval(timer);
        timer = undefined;
        last = undefined;
      }
      return entry.estimate;
    },
  };
}

function tick(): void {
  const now = sample();
  const previous = last ?? now;
  last = now;
  const workersMs = Math.max(0, now.processMs - previous.processMs - (now.mainMs - previous.mainMs));
  // Isolates whose reading moved worked during the tick.
  const active: { entry: Watched; grew: number }[] = [];
  for (const entry of watched) {
    const reading = readingOf(entry.isolate);
    if (reading === undefined) continue;
    const grew = reading - entry.reading;
    entry.reading = reading;
    if (grew > 0) active.push({ entry, grew });
  }
  const share = active.length === 0 ? 0 : workersMs / active.length;
  lastActive = Math.max(1, active.length);
  for (const { entry, grew } of active) entry.estimate += bill(grew, share);
  for (const entry of [...watched]) {
    if (entry.estimate > entry.limitMs) {
      watched.delete(entry);
      entry.onExceeded();
    }
  }
}

/** What a tick bills an isolate whose reading moved by `grew`: at most its fair `share`. */
function bill(grew: number, share: number): number {
  return Math.min(Math.max(0, grew), share);
}

function readingOf(isolate: ivm.Isolate): number | undefined {
  return isolate.isDisposed ? undefined : Number(isolate.cpuTime) / 1e6;
}

function sample(): { processMs: number; mainMs: number } {
  const { user, system } = process.cpuUsage();
  return { processMs: (user + system) / 1_000, mainMs: mainThreadCpuMs() };
}

/**
 * The main thread's schedstat, opened once and read again from its start on every sample: a read
 * of an open file is one system call, where opening it each time (open, stat, read, close) cost
 * more than the rest of a sample. `null`: not readable here (off Linux); undefined: not opened yet.
 * A module instance belongs to one thread, so the file opened here is its own thread's.
 */
let schedstat: number | null | undefined;
const schedstatText = Buffer.alloc(128);

/** The main thread's own CPU time in ms (Linux: /proc/thread-self/schedstat), or 0 where it cannot be read. */
function mainThreadCpuMs(): number {
  if (schedstat === null) return 0;
  try {
    schedstat ??= openSync("/proc/thread-self/schedstat", "r");
    const length = readSync(schedstat, schedstatText, 0, schedstatText.length, 0);
    const text = schedstatText.toString("latin1", 0, length);
    return Number(text.slice(0, text.indexOf(" "))) / 1e6;
  } catch {
    schedstat = null;
    return 0;
  }
}
