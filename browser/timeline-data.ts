// The data a timeline page is drawn from, shared by the host that writes the page
// (src/timeline) and the script that draws it in the browser (timeline-page.ts). Plain JSON:
// times are epoch milliseconds as the trace recorded them.

/** The single outcome of one call, as the trace recorded it. */
export type TimelineCallStatus = "ok" | "error" | "invalid" | "denied" | "timeout" | "cancelled";

/** One tool call: queued from `queuedAt`, running from `startedAt` (null if it never ran) to `endedAt`. */
export interface TimelineCall {
  readonly id: string;
  readonly tool: string;
  readonly status: TimelineCallStatus;
  readonly code: string | null;
  readonly queuedAt: number;
  readonly startedAt: number | null;
  readonly endedAt: number;
  readonly bytesIn: number;
  readonly bytesOut: number;
  /** Set when a durable run's replay answered the call from its journal: its tool was not called. */
  readonly replayed?: true;
}

/** A line of the program's source worth a reader's eye. */
export interface SourceMark {
  /** 1-based line in the source the model wrote. */
  readonly line: number;
  /** `error`: the run failed here; `failed-calls`: the line calls a tool some of whose calls failed. */
  readonly kind: "error" | "failed-calls";
  readonly note: string;
}

/** One value replaced by `[REDACTED:<kind>]` before it reached a model; the value is never recorded. */
export interface TimelineRedaction {
  readonly kind: string;
  /** `call-result`, `call-error` (a direct call's), `program-output`, `program-logs`, `program-error`. */
  readonly location: string;
  /** Where in it: a JSON path (`$.rows[2].token`) or a log line (`logs[3]`). */
  readonly path: string;
  /** The direct call whose result or error held it; null for a program's own output, logs or error. */
  readonly callId: string | null;
}

/** One program run (or, with `programId` null, the direct calls outside any program). */
export interface TimelineRun {
  readonly programId: string | null;
  readonly startedAt: number;
  readonly endedAt: number;
  /** Null while the trace has no program-end for the run (cut short), and for direct calls. */
  readonly ok: boolean | null;
  readonly code: string | null;
  readonly message: string | null;
  readonly catalogVersion: number | null;
  readonly calls: readonly TimelineCall[];
  /** What was redacted before reaching a model, in trace order (at most 100 per result are traced). */
  readonly redactions: readonly TimelineRedaction[];
  /** The program's source when it was given; null otherwise. */
  readonly source: string | null;
  readonly marks: readonly SourceMark[];
}

export interface TimelineData {
  readonly title: string;
  /** ISO time the page was written. */
  readonly generatedAt: string;
  readonly runs: readonly TimelineRun[];
  /** Lines of the trace file that were not trace events, skipped. */
  readonly skippedLines: number;
}
