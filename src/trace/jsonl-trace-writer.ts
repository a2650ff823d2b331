// Writes trace events to a file, one JSON object per line, in the order they happened.
// Appends through one stream; `close` flushes. Never throws into the pipeline.

import { createWriteStream, type WriteStream } from "node:fs";
import type { TraceBus, TraceEvent } from "./trace-events.js";

/** Subscribes to `bus` and appends every event to `path` as JSONL until `close()`. */
export class JsonlTraceWriter {
  readonly #stream: WriteStream;
  readonly #unsubscribe: () => void;

  constructor(bus: TraceBus, path: string) {
    this.#stream = createWriteStream(path, { flags: "a" });
    this.#stream.on("error", () => {
      // A full disk must not crash a run; the trace is best effort.
    });
    this.#unsubscribe = bus.subscribe((event: TraceEvent) => {
      this.#stream.write(`${JSON.stringify(event)}\n`);
    });
  }

  /** Stops listening and flushes the file. */
  close(): Promise<void> {
    this.#unsubscribe();
    return new Promise((resolve) => this.#stream.end(resolve));
  }
}
