// Turns trace events (as `--trace` writes them, or as a session emits them) and program sources
// into the data a timeline page draws: one entry per program run, its calls with their queued
// and running times, what was redacted before reaching the model, and the source lines to
// mark. Pure: reads nothing, writes nothing.

import type {
  SourceMark,
  TimelineCall,
  TimelineData,
  TimelineRedaction,
  TimelineRun,
} from "../../browser/timeline-data.js";
import { parseToolName } from "../registry/tool-name.js";
import type { TraceEvent } from "../trace/trace-events.js";

/** What a timeline is built with besides the events. */
export interface BuildTimelineOptions {
  /** The page title. Default `Switchyard run timeline`. */
  readonly title?: string;
  /**
   * Program sources: by program id, or one source for every run in the events (the case of
   * `switchyard run`, one program). Runs without a source show no source view.
   */
  readonly sources?: ReadonlyMap<string, string> | string;
  /** Lines of the trace file that were not events (see readTraceFile). Default 0. */
  readonly skippedLines?: number;
  /** When the page is written. Default now. */
  readonly now?: Date;
}

interface RunBuilder {
  programId: string | null;
  startedAt: number | undefined;
  endedAt: number | undefined;
  ok: boolean | null;
  code: string | null;
  message: string | null;
  line: number | undefined;
  catalogVersion: number | null;
  calls: TimelineCall[];
  redactions: TimelineRedaction[];
}

/**
 * The timeline of `events`: runs in the order they started (direct calls, if any, last), each
 * call once with its single outcome. A call with a start but no end in the events (a trace cut
 * short) is left out; so is a late result, which only says a tool finished after its call ended.
 */
export function buildTimeline(events: readonly TraceEvent[], options: BuildTimelineOptions = {}): TimelineData {
  const runs = new Map<string | null, RunBuilder>();
  const runOf = (programId: string | null): RunBuilder => {
    let run = runs.get(programId);
    if (run === undefined) {
      run = {
        programId,
        startedAt: undefined,
        endedAt: undefined,
        ok: null,
        code: null,
        message: null,
        line: undefined,
        catalogVersion: null,
        calls: [],
        redactions: [],
      };
      runs.set(programId, run);
    }
    return run;
  };
  for (const event of events) {
    switch (event.type) {
      case "program-start": {
        const run = runOf(event.programId);
        run.startedAt = event.at;
        run.catalogVersion = event.catalogVersion;
        break;
      }
      case "program-end": {
        const run = runOf(event.programId);
        run.endedAt = event.at;
        run.ok = event.ok;
        run.code = event.code ?? null;
        run.message = event.message ?? null;
        run.line = event.line;
        break;
      }
      case "tool-call-end":
        runOf(event.programId ?? null).calls.push({
          id: event.callId,
          tool: event.tool,
          status: event.status,
          code: event.code ?? null,
          queuedAt: event.queuedAt,
          startedAt: event.startedAt ?? null,
          endedAt: event.endedAt,
          bytesIn: event.bytesIn,
          bytesOut: event.bytesOut,
          ...(event.replayed === true ? { replayed: true as const } : {}),
        });
        break;
      case "redaction":
        runOf(event.programId ?? null).redactions.push({
          kind: event.kind,
          location: event.location,
          path: event.path,
          callId: event.callId ?? null,
        });
        break;
      default:
        break;
    }
  }
  const ordered = [...runs.values()].filter((run) => run.programId !== null);
  const direct = runs.get(null);
  if (direct !== undefined) ordered.push(direct);
  return {
    title: options.title ?? "Switchyard run timeline",
    generatedAt: (options.now ?? new Date()).toISOString(),
    runs: ordered.map((run) => finishRun(run, sourceOf(options.sources, run.programId))),
    skippedLines: options.skippedLines ?? 0,
  };
}

function sourceOf(sources: BuildTimelineOptions["sources"], programId: string | null): string | null {
  if (programId === null || sources === undefined) return null;
  if (typeof sources === "string") return sources;
  return sources.get(programId) ?? null;
}

function finishRun(run: RunBuilder, source: string | null): TimelineRun {
  const calls = [...run.calls].sort((a, b) => a.queuedAt - b.queuedAt);
  const firstQueued = calls.reduce((first, call) => Math.min(first, call.queuedAt), Number.POSITIVE_INFINITY);
  const lastEnded = calls.reduce((last, call) => Math.max(last, call.endedAt), Number.NEGATIVE_INFINITY);
  const startedAt = Math.min(run.startedAt ?? firstQueued, firstQueued);
  const endedAt = Math.max(run.endedAt ?? lastEnded, lastEnded);
  return {
    programId: run.programId,
    startedAt: Number.isFinite(startedAt) ? startedAt : (run.endedAt ?? 0),
    endedAt: Number.isFinite(endedAt) ? endedAt : (run.startedAt ?? 0),
    ok: run.ok,
    code: run.code,
    message: run.message,
    catalogVersion: run.catalogVersion,
    calls,
    redactions: run.redactions,
    source,
    marks: source === null ? [] : sourceMarks(source, calls, run),
  };
}

/**
 * The lines to mark: where the run failed, and every line that calls a tool some of whose calls
 * failed (the trace does not say which line made a call, so each such line carries the tool's
 * failure count).
 */
function sourceMarks(source: string, calls: readonly TimelineCall[], run: RunBuilder): SourceMark[] {
  const lines = source.split("\n");
  const marks: SourceMark[] = [];
  if (run.line !== undefined && run.line >= 1 && run.line <= lines.length) {
    marks.push({ line: run.line, kind: "error", note: `the run failed here: ${run.code ?? "error"}` });
  }
  const byTool = new Map<string, { total: number; failed: Map<string, number> }>();
  for (const call of calls) {
    const entry = byTool.get(call.tool) ?? { total: 0, failed: new Map<string, number>() };
    entry.total++;
    if (call.status !== "ok") {
      const code = call.code ?? call.status;
      entry.failed.set(code, (entry.failed.get(code) ?? 0) + 1);
    }
    byTool.set(call.tool, entry);
  }
  for (const [tool, { total, failed }] of byTool) {
    if (failed.size === 0) continue;
    const pattern = callPattern(tool);
    if (pattern === undefined) continue;
    const failures = [...failed.values()].reduce((sum, count) => sum + count, 0);
    const codes = [...failed].map(([code, count]) => `${count} ${code}`).join(", ");
    const note = `${failures} of ${total} calls to ${tool} failed (${codes})`;
    lines.forEach((text, index) => {
      if (pattern.test(text)) marks.push({ line: index + 1, kind: "failed-calls", note });
    });
  }
  return marks.sort((a, b) => a.line - b.line || (a.kind === "error" ? -1 : 1));
}

/** `tools.<namespace>.<name>(` as a program writes it, or undefined for a name that is not a tool name. */
function callPattern(tool: string): RegExp | undefined {
  try {
    const path = parseToolName(tool).identifierPath.split(".").map(escapeRegExp).join("\\s*\\.\\s*");
    return new RegExp(`\\btools\\s*\\.\\s*${path}\\s*\\(`);
  } catch {
    return undefined;
  }
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
