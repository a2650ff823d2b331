// The live progress bar of `switchyard batch ... --wait|--watch` on a terminal: a bar, then done,
// failed, running, rate and time left, rewritten in place on stderr. Printing only. When stderr is
// not a terminal it draws nothing, and only the final summary line is written (to stdout).

import type { BatchProgress, BatchStatus } from "../fleet/watch-batch.js";
import type { StatusOutput } from "./run-status-line.js";

const BAR_WIDTH = 24;

/** One reading as the line drawn on a terminal, cut to `columns`. */
export function formatBatchProgress(progress: BatchProgress, columns = 100): string {
  const fraction = progress.total === 0 ? 1 : progress.done / progress.total;
  const filled = Math.round(fraction * BAR_WIDTH);
  const bar = `${"█".repeat(filled)}${"░".repeat(BAR_WIDTH - filled)}`;
  const rate = progress.perSecond === undefined ? "" : ` · ${progress.perSecond.toFixed(1)}/s`;
  const eta = progress.etaMs === undefined || progress.finished ? "" : ` · ETA ${formatDuration(progress.etaMs)}`;
  const line =
    `${bar} ${progress.done}/${progress.total} done · ${progress.failed} failed · ` +
    `${progress.running} running${rate}${eta}`;
  const width = Math.max(20, columns - 1);
  return line.length > width ? `${line.slice(0, width - 1)}…` : line;
}

/** The summary of a batch, as `status` prints it and `--wait` ends with. */
export function formatBatchSummary(status: BatchStatus): string {
  const state = status.finished
    ? status.cancelled
      ? "cancelled"
      : "finished"
    : status.cancelled
      ? "cancelling"
      : "running";
  return (
    `batch ${status.batchId} ${state}: ${status.done} of ${status.total} done (${status.ok} ok, ` +
    `${status.failed} failed), ${status.running} running, ${status.queued} queued`
  );
}

/** Draws readings on a terminal; `end()` clears the line. A no-op off a terminal. */
export function startBatchProgress(output: StatusOutput): { draw(progress: BatchProgress): void; end(): void } {
  if (output.isTTY !== true) return { draw() {}, end() {} };
  let shown = false;
  return {
    draw(progress) {
      output.write(`\r\x1b[2K${formatBatchProgress(progress, output.columns ?? 100)}`);
      shown = true;
    },
    end() {
      if (shown) output.write("\r\x1b[2K");
      shown = false;
    },
  };
}

function formatDuration(ms: number): string {
  const seconds = Math.ceil(ms / 1000);
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min ${seconds % 60} s`;
  return `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}
