// What `process.exit()` does to isolates still running. isolated-vm runs isolates on a thread pool of
// its own, and Node's exit disposes V8's platform, then joins that pool, with no regard for them
// (laverdet/isolated-vm#260, open): a guest thread still running JavaScript then crashes the process
// (SIGSEGV in 12 exits of 12, a host calling process.exit(3) with CPU-bound runs in flight). So every
// isolate alive at 'exit' is disposed here (its JavaScript terminated), and the exit waits, at most
// MAX_SETTLE_MS, until no thread but the main one is running, before Node goes on tearing down.
//
// What JavaScript cannot undo: a guest thread blocked in a crossing the main thread has not taken
// up yet. isolated-vm hands a crossing to the main thread's event loop, which never turns again
// after process.exit(), and the pool's join then waits forever (4 to 9 exits in 10 with runs
// making instant calls in a loop; 12 in 12 without the guard). So when runs were in the sandbox, a
// watchdog process is left behind: if this process still exists HANG_KILL_MS later, it says why
// on this process's stderr and kills it (SIGKILL), which a supervisor sees as a crash rather than
// a process that never ends. `await yard.close()` before exiting ends the runs first and avoids
// all of it (12 exits in 12 clean, with their own code).

import { spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";

/** The part of an isolated-vm Isolate the guard uses. */
export interface GuardedIsolate {
  readonly isDisposed: boolean;
  dispose(): void;
}

/** Longest the exit waits for terminated isolates' threads to stop running, in ms. */
const MAX_SETTLE_MS = 250;
/** Samples in a row with no other thread running before the exit goes on. */
const QUIET_SAMPLES = 3;
/** Where Linux lists this process's threads; elsewhere the exit waits FALLBACK_SETTLE_MS. */
const TASKS = "/proc/self/task";
const FALLBACK_SETTLE_MS = 50;
/** How long after a guarded exit began a process that still exists is taken for hung, in ms. */
const HANG_KILL_MS = 2_000;
/** How often the watchdog looks whether the process is gone, in ms. */
const WATCH_STEP_MS = 100;

/** A guarded isolate, and whether a run was given it (only a run's guest crosses into the host). */
interface Guarded {
  readonly isolate: GuardedIsolate;
  inRun: boolean;
}

/** What the isolate's owner tells the guard. */
export interface ExitGuard {
  /** A run has the isolate now: its guest may cross into the host. */
  running(): void;
  /** The isolate is disposed: nothing is left to do for it at exit. */
  release(): void;
}

const live = new Set<Guarded>();

let installed = false;

/**
 * Keeps `isolate` until `release()`: if the process exits meanwhile, it is disposed first (see the
 * module comment). Installs the one 'exit' listener with the first isolate; where it stands among
 * the host's own does not matter, as they all run within the watchdog's 2 s.
 */
export function guardAtExit(isolate: GuardedIsolate): ExitGuard {
  const guarded: Guarded = { isolate, inRun: false };
  live.add(guarded);
  if (!installed) {
    installed = true;
    process.on("exit", disposeLiveIsolates);
  }
  return {
    running: () => void (guarded.inRun = true),
    release: () => void live.delete(guarded),
  };
}

/** The isolates guarded now (for tests). */
export function guardedIsolateCount(): number {
  return live.size;
}

function disposeLiveIsolates(): void {
  let disposed = 0;
  let runs = 0;
  for (const { isolate, inRun } of live) {
    try {
      if (isolate.isDisposed) continue;
      isolate.dispose();
      disposed += 1;
      if (inRun) runs += 1;
    } catch {
      // Already going away on its own thread: nothing more to ask of it.
    }
  }
  live.clear();
  if (disposed > 0) waitUntilOtherThreadsRest(MAX_SETTLE_MS);
  if (runs > 0) leaveWatchdog(runs);
}

/**
 * Starts a detached shell that kills this process if it still exists HANG_KILL_MS from now, with
 * one line on its stderr. It looks every WATCH_STEP_MS and ends as soon as the process is gone,
 * so the stderr it shares is not held open long after a clean exit (a parent reading it to its
 * end waits that step at most). On Linux it compares the process's start time, so a process that
 * ended and left its id to another is never touched. Nothing on Windows (no such hang measured
 * there, and no shell to count on). Never throws: an exit must not fail here.
 */
function leaveWatchdog(runs: number): void {
  if (process.platform === "win32") return;
  try {
    const pid = process.pid;
    const started = startTimeOf(pid);
    const line = `switchyard: process.exit() was called with ${runs} run(s) in the sandbox and the process did not end within ${HANG_KILL_MS} ms (isolated-vm waits for a thread that waits for the event loop; laverdet/isolated-vm#260); killing it. Call \`await yard.close()\` before process.exit().`;
    const alive =
      started === undefined
        ? `kill -0 ${pid} 2>/dev/null`
        : `[ "$(sed 's/.*) //' /proc/${pid}/stat 2>/dev/null | cut -d' ' -f20)" = "${started}" ]`;
    const steps = Math.ceil(HANG_KILL_MS / WATCH_STEP_MS);
    const script = `i=0; while [ $i -lt ${steps} ]; do sleep ${WATCH_STEP_MS / 1000}; ${alive} || exit 0; i=$((i + 1)); done; ${alive} && echo "$0" >&2 && kill -9 ${pid}`;
    const watchdog = spawn("/bin/sh", ["-c", script, line], { detached: true, stdio: ["ignore", "ignore", "inherit"] });
    watchdog.on("error", () => undefined);
    watchdog.unref();
  } catch {
    // No shell, no process slots: the exit goes on unwatched, as it would without the guard.
  }
}

/** The start time of process `pid` in clock ticks since boot (field 22 of /proc/<pid>/stat), or undefined. */
function startTimeOf(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "latin1");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19];
  } catch {
    return undefined;
  }
}

/**
 * Blocks this thread until no other thread of the process has been running for QUIET_SAMPLES
 * samples 1 ms apart, or `maxMs` passed. A thread blocked on a lock or a condition (isolated-vm's
 * idle pool, Node's) is not running; one unwinding a terminated isolate is.
 */
function waitUntilOtherThreadsRest(maxMs: number): void {
  const pause = new Int32Array(new SharedArrayBuffer(4));
  const deadline = performance.now() + maxMs;
  let quiet = 0;
  while (quiet < QUIET_SAMPLES && performance.now() < deadline) {
    const running = otherThreadsRunning();
    if (running === undefined) {
      Atomics.wait(pause, 0, 0, Math.min(FALLBACK_SETTLE_MS, maxMs));
      return;
    }
    quiet = running === 0 ? quiet + 1 : 0;
    Atomics.wait(pause, 0, 0, 1);
  }
}

/** Threads other than this one in state R (running), or undefined where /proc cannot tell. */
function otherThreadsRunning(): number | undefined {
  try {
    let running = 0;
    for (const thread of readdirSync(TASKS)) {
      if (Number(thread) === process.pid) continue;
      let stat: string;
      try {
        stat = readFileSync(`${TASKS}/${thread}/stat`, "latin1");
      } catch {
        continue; // The thread ended between the listing and the read.
      }
      // "tid (comm) S ...": the name may hold spaces and parentheses; the state follows the last ")".
      if (stat.charAt(stat.lastIndexOf(")") + 2) === "R") running += 1;
    }
    return running;
  } catch {
    return undefined;
  }
}
