// What `switchyard demo` prints for a person: what the sweep found against the ground truth,
// then the run's one-line account. The output itself (candidates, failures) is the JSON of
// `--json`; a summary that scrolls off behind 60 lines of JSON is not read.

import type { RunResult } from "../contract.js";
import { formatRunError, summarizeRun } from "./format-run-result.js";

/** The demo's ground truth, as far as the summary needs it. */
export interface DemoTruth {
  readonly orderCount: number;
  readonly duplicates: readonly unknown[];
  readonly permanentFailures: readonly unknown[];
}

/** Three lines: found against the truth, the run's account, and where the details are. */
export function formatDemoSummary(result: RunResult, truth: DemoTruth): string {
  const output = (result.ok ? result.output : null) as {
    checked?: unknown;
    candidates?: unknown;
    failed?: unknown;
  } | null;
  const count = (value: unknown): number => (Array.isArray(value) ? value.length : 0);
  const lines = result.ok
    ? [
        `found ${count(output?.candidates)} duplicate-charge candidates in ${String(output?.checked ?? 0)} orders, ` +
          `${count(output?.failed)} lookups failed for good; ground truth: ${truth.duplicates.length} duplicate charges, ` +
          `${truth.permanentFailures.length} orders whose payment lookup always fails.`,
      ]
    : formatRunError(result.error ?? { code: "INTERNAL_ERROR", message: "the run failed without an error" });
  lines.push(summarizeRun(result), "--json prints the whole RunResult; --show-program the program the model wrote.");
  return `${lines.join("\n")}\n`;
}
