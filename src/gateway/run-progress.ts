// Progress of one program run, for an MCP client that sent a progress token: counts the run's
// calls from the trace and reports them at most every `intervalMs`, plus once at the end. The
// reported `progress` counts call events (each start and each end), so it rises with every
// notification as MCP requires; the message says how many calls are done and in flight.

import type { TraceEvent } from "../trace/trace-events.js";

/** One progress report; `total` is set only on the final one. */
export interface RunProgressReport {
  readonly progress: number;
  readonly total?: number;
  readonly message: string;
}

export interface RunProgressOptions {
  /** Sends one report; failures are the sender's to swallow (a closed client is not fatal). */
  readonly send: (report: RunProgressReport) => Promise<void>;
  /** Least time between two reports, in ms. Default 100. */
  readonly intervalMs?: number;
}

const DEFAULT_PROGRESS_INTERVAL_MS = 100;

/** Counts the calls of one program and reports them, throttled; see the module comment. */
export class RunProgress {
  readonly #send: RunProgressOptions["send"];
  readonly #intervalMs: number;
  #programId: string | undefined;
  #started = 0;
  #done = 0;
  #reportedEvents = 0;
  #lastSentAt = 0;
  #timer: NodeJS.Timeout | undefined;
  #sending: Promise<void> = Promise.resolve();
  #finished = false;

  constructor(options: RunProgressOptions) {
    this.#send = options.send;
    this.#intervalMs = options.intervalMs ?? DEFAULT_PROGRESS_INTERVAL_MS;
  }

  /** The run to follow; events of other programs are ignored. */
  follow(programId: string): void {
    this.#programId = programId;
  }

  /** Feeds one trace event. */
  observe(event: TraceEvent): void {
    if (this.#finished || this.#programId === undefined) return;
    if (event.type !== "tool-call-start" && event.type !== "tool-call-end") return;
    if (event.programId !== this.#programId) return;
    if (event.type === "tool-call-start") this.#started += 1;
    else this.#done += 1;
    this.#schedule();
  }

  /** Sends the final report (with `total`) and stops; resolves when it was sent. */
  async finish(summary: string): Promise<void> {
    if (this.#finished) return;
    this.#finished = true;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    const events = this.#started + this.#done + 1;
    this.#enqueue({ progress: events, total: events, message: summary });
    await this.#sending;
  }

  #schedule(): void {
    if (this.#timer !== undefined) return;
    const wait = Math.max(0, this.#lastSentAt + this.#intervalMs - Date.now());
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#report();
    }, wait);
  }

  #report(): void {
    const events = this.#started + this.#done;
    if (this.#finished || events === this.#reportedEvents) return;
    this.#reportedEvents = events;
    this.#lastSentAt = Date.now();
    const inFlight = this.#started - this.#done;
    this.#enqueue({
      progress: events,
      message: `${this.#done} call${this.#done === 1 ? "" : "s"} done, ${inFlight} in flight`,
    });
  }

  // Reports go out in order, one after the other, so `progress` never arrives out of order.
  #enqueue(report: RunProgressReport): void {
    this.#sending = this.#sending.then(() => this.#send(report)).catch(() => {});
  }
}
