// The IPC format between the WorkerPool (host) and a worker process, defined once for both sides.
// A run's GuestBindings cross as they are, method by method, with their plain-string arguments
// and answers untouched: the guest/host wire format stays runtime/wire.ts's alone. Frames sent in
// one event-loop turn travel as one message, so a fan-out of calls costs one IPC crossing.

import type { GuestBindings } from "./sandbox-executor.js";
import type { SandboxJob, SandboxOutcome } from "./sandbox-executor.js";

/**
 * How each binding crosses: `request` returns a string the host computes (sent, answered later);
 * `notify` returns nothing (sent, never answered); `snapshot` is read once on the host when the
 * run starts and served from the copy. A binding added to GuestBindings must be given one here.
 *
 * - `submit` blocks the isolate's thread (not the worker's event loop) for one IPC round trip; the
 *   host's bridge answers it at once (a lone call: once it is done, within a short hold), never
 *   after a slow tool: calls still working come back through `wait`, which the worker's
 *   IsolatePool opens right after the answer when the batch asks (`batchOpensWait`), so its
 *   request follows the submit's. A batch sent ahead does not block; its empty answer comes back
 *   all the same, and frames keep their order both ways.
 * - `log` is called by PreparedIsolate.dispose in the worker, line by line from the shared buffer
 *   the isolate wrote; those notifications go out ahead of the run's `end` frame, so the host has
 *   the whole log before the outcome. A worker that dies takes the lines not yet sent with it.
 */
export const BINDING_CROSSINGS = {
  submit: "request",
  wait: "request",
  log: "notify",
  config: "snapshot",
} as const satisfies Record<keyof GuestBindings, "request" | "notify" | "snapshot">;

export type BindingName = keyof typeof BINDING_CROSSINGS;

/** A binding argument as it crosses: the guest sends strings; anything else crosses as `null`. */
export type BindingArgument = string | null;

/** Host → worker. */
export type HostFrame =
  /** The guest runtime's script, sent once before any run so every worker uses the host's one bundle. */
  | { readonly type: "init"; readonly runtimeSource: string }
  /** Start `job`; `snapshots` holds the `snapshot` bindings' values. */
  | {
      readonly type: "start";
      readonly run: number;
      readonly job: SandboxJob;
      readonly snapshots: Readonly<Record<string, string>>;
    }
  /** The answer of a `request` binding call; with `error`, the binding threw and the guest's call fails with it. */
  | {
      readonly type: "answer";
      readonly run: number;
      readonly call: number;
      readonly value: string;
      readonly error?: string | undefined;
    }
  /** End the run now (SandboxExecution.stop). */
  | { readonly type: "stop"; readonly run: number }
  /** End every run (outcome `closed`), dispose the spares and exit once the event loop is empty. */
  | { readonly type: "close" };

/** Worker → host. */
export type WorkerFrame =
  /** The worker listens; nothing is sent to it before this. */
  | { readonly type: "ready" }
  /** The run's isolate is ready and its script about to run. */
  | { readonly type: "started"; readonly run: number }
  /** A `request` binding was called; answer with the same `call`. */
  | {
      readonly type: "request";
      readonly run: number;
      readonly call: number;
      readonly method: BindingName;
      readonly args: readonly BindingArgument[];
    }
  /** A `notify` binding was called. */
  | {
      readonly type: "notify";
      readonly run: number;
      readonly method: BindingName;
      readonly args: readonly BindingArgument[];
    }
  /** The run's isolate is gone; nothing more of the run follows. */
  | { readonly type: "end"; readonly run: number; readonly outcome: SandboxOutcome };

/** Arguments of a binding call as they cross. */
export function crossingArguments(args: readonly unknown[]): BindingArgument[] {
  return args.map((arg) => (typeof arg === "string" ? arg : null));
}

/**
 * Collects frames and sends those of one event-loop turn as one message, in order. `send`
 * returning false (a closed channel) drops the batch: the other side is gone or going.
 */
export class FrameBatcher<Frame> {
  readonly #send: (frames: Frame[]) => void;
  #frames: Frame[] = [];
  #scheduled = false;
  #held = false;

  /** With `held`, frames wait until `release()` (a worker that is not ready yet). */
  constructor(send: (frames: Frame[]) => void, options: { held?: boolean } = {}) {
    this.#send = send;
    this.#held = options.held === true;
  }

  push(frame: Frame): void {
    this.#frames.push(frame);
    if (this.#scheduled || this.#held) return;
    this.#scheduled = true;
    setImmediate(() => this.flush());
  }

  /** Starts sending held frames. */
  release(): void {
    this.#held = false;
    this.flush();
  }

  /** Sends what is collected now. */
  flush(): void {
    this.#scheduled = false;
    if (this.#held || this.#frames.length === 0) return;
    const frames = this.#frames;
    this.#frames = [];
    this.#send(frames);
  }
}
