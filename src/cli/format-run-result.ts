// Renders a RunResult for a person at a terminal: the output first, then logs, errors with
// their source line, and a one-line account of the calls, bytes and redacted secrets. Formatting
// only; what the program wrote reaches the terminal with its control characters escaped.

import type { Diagnostic, RunError, RunResult } from "../contract.js";
import { escapeControls } from "./cli-error.js";

/** A readable multi-line rendering of a run. */
export function formatRunResult(result: RunResult): string {
  const lines: string[] = [];
  if (result.ok) {
    lines.push("output:", indent(JSON.stringify(result.output, null, 2)));
  } else if (result.error !== undefined) {
    lines.push(...formatRunError(result.error));
  }
  lines.push(...formatWarnings(result.warnings));
  if (result.logs.length > 0) lines.push("logs:", ...result.logs.map((line) => indent(line)));
  lines.push(summarizeRun(result));
  return lines.join("\n");
}

/** A run's error: its code and position, then its message and diagnostics, indented. */
export function formatRunError(error: RunError): string[] {
  // A TYPE_ERROR's message already lists every diagnostic with its source line.
  if (error.code === "TYPE_ERROR") return ["error TYPE_ERROR:", indent(error.message)];
  const where =
    error.line === undefined
      ? ""
      : ` (line ${error.line}${error.column === undefined ? "" : `, column ${error.column}`})`;
  const lines = [`error ${error.code}${where}:`, indent(error.message)];
  for (const diagnostic of error.diagnostics ?? []) {
    const code = typeof diagnostic.code === "number" ? `TS${diagnostic.code}` : diagnostic.code;
    lines.push(indent(`line ${diagnostic.line}:${diagnostic.column} ${code}: ${diagnostic.message}`));
  }
  return lines;
}

/** One line per warning, with its line. */
export function formatWarnings(warnings: readonly Diagnostic[]): string[] {
  return warnings.map((warning) => `warning (line ${warning.line}): ${escapeControls(warning.message)}`);
}

/** One line: calls by status, time, and bytes kept in the sandbox against bytes returned. */
export function summarizeRun(result: RunResult): string {
  const byStatus = new Map<string, number>();
  for (const call of result.calls) byStatus.set(call.status, (byStatus.get(call.status) ?? 0) + 1);
  const statuses = [...byStatus].map(([status, count]) => `${count} ${status}`).join(", ");
  const { stats } = result;
  return (
    `calls: ${stats.toolCalls}${statuses === "" ? "" : ` (${statuses})`}; ` +
    `${stats.wallMs.toFixed(0)} ms wall, ${stats.cpuMs.toFixed(0)} ms cpu; ` +
    `${formatBytes(stats.bytesIn)} of tool results stayed in the sandbox, ${formatBytes(stats.bytesOut)} returned` +
    formatRedactions(result.redactions)
  );
}

/** `; redacted: 2 github-token, 1 jwt`, or nothing when no secret was redacted. */
export function formatRedactions(redactions: RunResult["redactions"]): string {
  if (redactions === undefined) return "";
  const parts = Object.entries(redactions).map(([kind, count]) => `${count} ${kind}`);
  return parts.length === 0 ? "" : `; redacted: ${parts.join(", ")}`;
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/** Each line indented, its control characters written as escapes: a model's program wrote them. */
function indent(text: string): string {
  return text
    .split("\n")
    .map((line) => `  ${escapeControls(line)}`)
    .join("\n");
}
