// Reads a JSONL trace as `switchyard run --trace` writes it: one event per line. A line that is
// not JSON, or not an event of a known type, is skipped and counted, never fatal: a trace cut
// mid-line by a crash still shows everything before the cut.

import { readFile } from "node:fs/promises";
import type { TraceEvent } from "../trace/trace-events.js";

const EVENT_TYPES: ReadonlySet<string> = new Set([
  "tool-call-start",
  "tool-call-end",
  "tool-call-late-result",
  "program-start",
  "program-end",
]);

/** The events of a JSONL trace text, in file order, and how many non-empty lines were skipped. */
export function parseTraceLines(text: string): { events: TraceEvent[]; skippedLines: number } {
  const events: TraceEvent[] = [];
  let skippedLines = 0;
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    try {
      const event = JSON.parse(line) as { type?: unknown } | null;
      if (
        event !== null &&
        typeof event === "object" &&
        typeof event.type === "string" &&
        EVENT_TYPES.has(event.type)
      ) {
        events.push(event as TraceEvent);
      } else {
        skippedLines++;
      }
    } catch {
      skippedLines++;
    }
  }
  return { events, skippedLines };
}

/** Reads and parses a JSONL trace file; rejects only when the file cannot be read. */
export async function readTraceFile(path: string): Promise<{ events: TraceEvent[]; skippedLines: number }> {
  return parseTraceLines(await readFile(path, "utf8"));
}
