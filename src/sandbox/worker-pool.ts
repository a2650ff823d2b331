// The sandbox executor that puts isolates in worker processes (`workers: N`), for crash isolation
// and cores: a native crash, an abort or running out of memory kills one worker, whose runs end
// `crashed`, and the next run starts a new one. Each run's GuestBindings are forwarded over IPC
// (worker-protocol.ts), so every tool call still goes through the host's one pipeline. Workers
// start on demand and never keep the host process alive while idle.

import { type ChildProcess, fork } from "node:child_process";
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import { SwitchyardError, messageOf } from "../errors.js";
import { loadGuestRuntimeSource } from "./guest-runtime-source.js";
import { loadIsolatedVm } from "./load-isolated-vm.js";
import type {
  GuestBindings,
  SandboxExecution,
  SandboxExecutor,
  SandboxJob,
  SandboxOutcome,
} from "./sandbox-executor.js";
import { BINDING_CROSSINGS, FrameBatcher, type HostFrame, type WorkerFrame } from "./worker-protocol.js";

export interface WorkerPoolOptions {
  /** Worker processes, 1 or more; they start as runs need them. */
  readonly size: number;
  /** Told whenever a worker process ends, whether by `close()` or not. */
  readonly onWorkerExit?: (exit: WorkerExit) => void;
}

/** How a worker process ended. */
export interface WorkerExit {
  readonly pid: number | undefined;
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  /**
   * Runs it held whose isolates had started: each ended `crashed` (`closed` when the pool was
   * closing). Runs it held that had not started were given to another worker.
   */
  readonly runs: number;
  /** True when the pool asked it to end. */
  readonly expected: boolean;
  /** The last 4 KB the process wrote to stderr (V8's out-of-memory report, a native abort's). */
  readonly stderr: string;
}

/**
 * Time a worker gets beyond a run's `wallTimeMs` (or after a stop or close) to report its end
 * before it is taken for wedged and killed: its own watchdog should have ended the run long before.
 */
const WORKER_GRACE_MS = 5_000;
/** Time a run may wait for its worker to start it (a cold worker starts in 0.2-2 s) before the worker is taken for broken. */
const START_DEADLINE_MS = 60_000;
const STDERR_TAIL_CHARS = 4_096;

/** Runs jobs in worker processes; see the module comment. */
export class WorkerPool implements SandboxExecutor {
  readonly size: number;
  readonly #slots: (WorkerProcess | undefined)[];
  readonly #onWorkerExit: ((exit: WorkerExit) => void) | undefined;
  #nextRun = 1;

  constructor(options: WorkerPoolOptions) {
    if (!Number.isInteger(options.size) || options.size < 1) {
      throw new SwitchyardError(
        "OPTION_INVALID",
        `WorkerPool size must be an integer of 1 or more, got ${options.size}.`,
      );
    }
    // The workers load isolated-vm from the same install: fail here, in one line, rather than in each worker.
    loadIsolatedVm();
    this.size = options.size;
    this.#slots = Array.from({ length: options.size }, () => undefined);
    this.#onWorkerExit = options.onWorkerExit;
  }

  /** Process ids of the workers alive now. */
  pids(): number[] {
    return this.#slots.flatMap((worker) => (worker?.pid === undefined ? [] : [worker.pid]));
  }

  /** Starts a worker in every free slot now, so the first runs do not wait for one (about 0.2-1 s). */
  warmUp(): void {
    this.#slots.forEach((worker, index) => {
      if (worker === undefined) this.#spawn(index);
    });
  }

  /**
   * Starts `job` on the least busy worker. A worker that dies before the run's isolate started
   * (it was starting up, or died with the job still in its mailbox) cost the run nothing the host
   * saw, so the run is given once to another worker rather than failed.
   */
  execute(job: SandboxJob, bindings: GuestBindings, onStarted?: () => void): SandboxExecution {
    let stopped = false;
    let current: WorkerRunHandle | undefined;
    const attempt = async (retries: number): Promise<SandboxOutcome> => {
      current = this.#pick().start(this.#nextRun++, job, bindings, onStarted);
      if (stopped) current.stop();
      const result = await current.outcome;
      if (result.unstarted && retries > 0 && !stopped) return attempt(retries - 1);
      return { ending: result.ending, cpuMs: result.cpuMs };
    };
    return {
      outcome: attempt(1),
      stop: () => {
        stopped = true;
        current?.stop();
      },
    };
  }

  /** Ends every worker cleanly (their runs end `closed`); runs started later start new workers. */
  async close(): Promise<void> {
    const workers = this.#slots.filter((worker): worker is WorkerProcess => worker !== undefined);
    this.#slots.fill(undefined);
    await Promise.all(workers.map((worker) => worker.close()));
  }

  /** The least busy worker; an idle one, or a new one while slots are free, before a busy one. */
  #pick(): WorkerProcess {
    let best: WorkerProcess | undefined;
    let free = -1;
    this.#slots.forEach((worker, index) => {
      if (worker === undefined) {
        if (free < 0) free = index;
      } else if (best === undefined || worker.load < best.load) {
        best = worker;
      }
    });
    if (best !== undefined && (best.load === 0 || free < 0)) return best;
    return this.#spawn(free);
  }

  #spawn(index: number): WorkerProcess {
    const worker = new WorkerProcess((exit, wasReady) => {
      if (this.#slots[index] === worker) {
        this.#slots[index] = undefined;
        // A worker that had started is replaced at once; one that died starting is replaced when
        // a run needs it, so a broken installation cannot make the pool spawn in a loop.
        if (!exit.expected && wasReady) this.#spawn(index);
      }
      this.#onWorkerExit?.(exit);
    });
    this.#slots[index] = worker;
    return worker;
  }
}

/** A run given to one worker; `unstarted` tells that its isolate never started there. */
interface WorkerRunHandle {
  readonly outcome: Promise<SandboxOutcome & { readonly unstarted: boolean }>;
  stop(): void;
}

interface HostRun {
  readonly bindings: GuestBindings;
  readonly onStarted: (() => void) | undefined;
  /** Whether the worker said the isolate started. */
  started: boolean;
  readonly wallTimeMs: number;
  readonly resolve: (outcome: SandboxOutcome & { readonly unstarted: boolean }) => void;
  backstop: NodeJS.Timeout;
}

/** One worker process and the runs it holds, seen from the host. */
class WorkerProcess {
  readonly #child: ChildProcess;
  readonly #outbox: FrameBatcher<HostFrame>;
  readonly #runs = new Map<number, HostRun>();
  readonly #exited: Promise<void>;
  #stderr = "";
  #closing = false;
  #dead = false;
  #ready = false;

  constructor(onExit: (exit: WorkerExit, wasReady: boolean) => void) {
    this.#child = forkWorker();
    this.#outbox = new FrameBatcher<HostFrame>(
      (frames) => {
        if (this.#child.connected) this.#child.send(frames);
      },
      { held: true },
    );
    // The first frame: every worker runs the host's one bundle of the guest runtime.
    const runtime = loadGuestRuntimeSource().then(
      (runtimeSource) => this.#outbox.push({ type: "init", runtimeSource }),
      () => this.#kill(),
    );
    this.#child.on("message", (frames: WorkerFrame[]) => {
      for (const frame of frames) this.#receive(frame, runtime);
    });
    this.#child.stderr?.setEncoding("utf8");
    this.#child.stderr?.on("data", (text: string) => {
      this.#stderr = (this.#stderr + text).slice(-STDERR_TAIL_CHARS);
    });
    this.#exited = new Promise((resolve) => {
      let reported = false;
      const exit = (code: number | null, signal: NodeJS.Signals | null): void => {
        if (reported) return;
        reported = true;
        this.#dead = true;
        const runs = [...this.#runs.values()].filter((run) => run.started).length;
        this.#failAll(code, signal);
        onExit(
          { pid: this.#child.pid, code, signal, runs, expected: this.#closing, stderr: this.#stderr },
          this.#ready,
        );
        resolve();
      };
      // `close` comes after the IPC channel and stderr are drained, so no end frame is lost to the race.
      this.#child.on("close", exit);
      this.#child.on("error", () => {
        if (this.#child.pid === undefined) exit(null, null);
      });
    });
    this.#unrefWhenIdle();
  }

  get pid(): number | undefined {
    return this.#dead ? undefined : this.#child.pid;
  }

  /** Runs in this worker now. */
  get load(): number {
    return this.#runs.size;
  }

  start(id: number, job: SandboxJob, bindings: GuestBindings, onStarted?: () => void): WorkerRunHandle {
    let resolve!: (outcome: SandboxOutcome & { readonly unstarted: boolean }) => void;
    const outcome = new Promise<SandboxOutcome & { readonly unstarted: boolean }>((settle) => (resolve = settle));
    if (this.#dead || this.#closing) {
      const message = "The sandbox process had already stopped.";
      resolve({ ending: { kind: "crashed", message }, cpuMs: 0, unstarted: true });
      return { outcome, stop: () => {} };
    }
    const snapshots: Record<string, string> = {};
    for (const [name, crossing] of Object.entries(BINDING_CROSSINGS)) {
      if (crossing === "snapshot") snapshots[name] = String((bindings[name as keyof GuestBindings] as () => unknown)());
    }
    const run: HostRun = {
      bindings,
      onStarted,
      started: false,
      wallTimeMs: job.limits.wallTimeMs,
      resolve,
      backstop: this.#backstop(START_DEADLINE_MS),
    };
    this.#runs.set(id, run);
    this.#ref();
    this.#outbox.push({ type: "start", run: id, job, snapshots });
    return {
      outcome,
      stop: () => {
        if (this.#runs.get(id) !== run) return;
        this.#outbox.push({ type: "stop", run: id });
        // Not started yet: the worker ends it as soon as it reads the start, within the start deadline.
        if (!run.started) return;
        clearTimeout(run.backstop);
        run.backstop = this.#backstop(WORKER_GRACE_MS);
      },
    };
  }

  /** Asks the worker to end its runs and exit, and waits until it has; kills it if it does not. */
  async close(): Promise<void> {
    if (this.#dead) return;
    this.#closing = true;
    this.#ref();
    this.#outbox.push({ type: "close" });
    const timer = setTimeout(() => this.#kill(), WORKER_GRACE_MS + 1_000);
    await this.#exited;
    clearTimeout(timer);
  }

  #receive(frame: WorkerFrame, runtime: Promise<void>): void {
    switch (frame.type) {
      case "ready":
        this.#ready = true;
        void runtime.then(() => this.#outbox.release());
        return;
      case "started":
        this.#started(frame.run);
        return;
      case "request": {
        const run = this.#runs.get(frame.run);
        if (run === undefined || BINDING_CROSSINGS[frame.method] !== "request") return;
        const answer = (value: string | undefined, error?: string): void => {
          if (this.#runs.get(frame.run) !== run) return;
          this.#outbox.push({ type: "answer", run: frame.run, call: frame.call, value: value ?? "", error });
        };
        try {
          const binding = run.bindings[frame.method] as (...args: unknown[]) => unknown;
          // A binding that throws or rejects fails the guest's call, as it would in process.
          Promise.resolve(binding(...frame.args)).then(
            (value) => answer(String(value)),
            (error: unknown) => answer(undefined, messageOf(error)),
          );
        } catch (error) {
          answer(undefined, messageOf(error));
        }
        return;
      }
      case "notify": {
        const run = this.#runs.get(frame.run);
        if (run === undefined || BINDING_CROSSINGS[frame.method] !== "notify") return;
        try {
          (run.bindings[frame.method] as (...args: unknown[]) => unknown)(...frame.args);
        } catch {
          // A console sink has nothing to answer; as in process, its failure stays on the host.
        }
        return;
      }
      case "end": {
        const run = this.#runs.get(frame.run);
        if (run === undefined) return;
        this.#settle(frame.run, run, frame.outcome);
        return;
      }
    }
  }

  #started(id: number): void {
    const run = this.#runs.get(id);
    if (run === undefined || run.started) return;
    run.started = true;
    clearTimeout(run.backstop);
    run.backstop = this.#backstop(run.wallTimeMs + WORKER_GRACE_MS);
    run.onStarted?.();
  }

  #settle(id: number, run: HostRun, outcome: SandboxOutcome): void {
    clearTimeout(run.backstop);
    this.#runs.delete(id);
    run.resolve({ ...outcome, unstarted: !run.started });
    this.#unrefWhenIdle();
  }

  #failAll(code: number | null, signal: NodeJS.Signals | null): void {
    const cause = signal !== null ? `killed by ${signal}` : `exit code ${code}`;
    const outOfMemory = /heap out of memory|allocation failed/i.test(this.#stderr) ? ", out of memory" : "";
    for (const [id, run] of [...this.#runs]) {
      this.#settle(
        id,
        run,
        this.#closing
          ? { ending: { kind: "closed" }, cpuMs: 0 }
          : {
              ending: {
                kind: "crashed",
                message: `The sandbox process running the program died (${cause}${outOfMemory}).`,
              },
              cpuMs: 0,
            },
      );
    }
  }

  /** A worker that misses this deadline is wedged: its runs end `crashed` and a new worker takes its place. */
  #backstop(afterMs: number): NodeJS.Timeout {
    const timer = setTimeout(() => this.#kill(), afterMs);
    timer.unref();
    return timer;
  }

  #kill(): void {
    if (!this.#dead) this.#child.kill("SIGKILL");
  }

  #ref(): void {
    this.#child.ref();
    this.#child.channel?.ref();
    (this.#child.stderr as { ref?: () => void } | null)?.ref?.();
  }

  /** An idle worker must not be what keeps the host process running. */
  #unrefWhenIdle(): void {
    if (this.#runs.size > 0 || this.#closing) return;
    this.#child.unref();
    this.#child.channel?.unref();
    (this.#child.stderr as { unref?: () => void } | null)?.unref?.();
  }
}

/**
 * Starts a worker for whichever form this module runs as: compiled JavaScript forks the sibling
 * .js entry; TypeScript sources (tests, `node --import tsx`) fork the .ts entry through tsx.
 */
function forkWorker(): ChildProcess {
  const fromSource = new URL(import.meta.url).pathname.endsWith(".ts");
  const entry = new URL(fromSource ? "./worker-process.ts" : "./worker-process.js", import.meta.url);
  const loader = fromSource ? ["--import", pathToFileURL(createRequire(import.meta.url).resolve("tsx/esm")).href] : [];
  return fork(entry, [], {
    execArgv: ["--no-node-snapshot", ...loader],
    env: { ...process.env, SWITCHYARD_WORKER: "1" },
    // stdout may be a protocol (switchyard serve over stdio): a worker never writes to it.
    stdio: ["ignore", "ignore", "pipe", "ipc"],
    serialization: "advanced",
  });
}
