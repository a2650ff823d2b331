// Applies a session's Redactor at the boundary to the model: a program's output, logs, error
// (message, details, diagnostics) and warnings once its run is over, and a direct call's error. Counts what it replaced by
// kind and tells the trace where (kind and path, never the value), at most
// MAX_REDACTION_EVENTS events per result; the counts are always complete.

import type { CallError, Diagnostic, JsonValue, RedactionCounts, RunError, RunResult } from "../contract.js";
import type { RedactionLocation, TraceBus } from "../trace/trace-events.js";
import { redactEmbeddedJsonStrings } from "./embedded-json-strings.js";
import { countByKind, type RedactedText, type Redaction, type Redactor } from "./redactor.js";

/** Most `redaction` trace events for one result; the result's counts stay exact beyond it. */
export const MAX_REDACTION_EVENTS = 100;

/** Who the redacted text belonged to, for the trace. */
export interface RedactionOwner {
  readonly callId?: string | undefined;
  readonly tool?: string | undefined;
  readonly programId?: string | undefined;
}

/** A located redaction, ready for the trace. */
export interface LocatedRedaction extends Redaction {
  readonly location: RedactionLocation;
}

/**
 * `result` with its output, logs, error (message, details, diagnostics) and warnings redacted,
 * and `redactions` set when anything was.
 */
export function redactRunResult(redactor: Redactor, result: RunResult, trace?: TraceBus): RunResult {
  const found: LocatedRedaction[] = [];
  const output = redactor.redactValue(result.output);
  for (const redaction of output.redactions) found.push({ ...redaction, location: "program-output" });
  let logs = result.logs;
  const mayHaveSecrets = result.logs.length > 0 && redactor.mayHaveSecrets(result.logs.join("\n"));
  result.logs.forEach((line, index) => {
    // A line with an escape may hold a secret escaped twice (JSON text a tool returned, printed as
    // JSON), which no form the pre-check knows matches: its literals are decoded and looked at.
    if (!mayHaveSecrets && !line.endsWith(" characters]") && !line.includes("\\")) return;
    const redacted = redactCutLine(redactor, line);
    if (redacted.kinds.length === 0) return;
    if (logs === result.logs) logs = [...result.logs];
    (logs as string[])[index] = redacted.text;
    for (const kind of redacted.kinds) found.push({ kind, path: `logs[${index}]`, location: "program-logs" });
  });
  let error = result.error;
  if (error !== undefined) {
    const redacted = redactRunError(redactor, error);
    error = redacted.error;
    found.push(...redacted.redactions);
  }
  // A program may call a tool by a name it built from a result (`tools.t[key]()`): the record keeps
  // it. A tool's own error code is any string it chose, and the record keeps that too.
  let calls = result.calls;
  if (calls.length > 0 && redactor.mayHaveSecrets(calls.map((call) => `${call.tool}\n${call.code ?? ""}`).join("\n"))) {
    calls = calls.map((call, index) => {
      const tool = redactor.redactText(call.tool);
      const code = call.code === undefined ? undefined : redactor.redactText(call.code);
      for (const kind of tool.kinds) found.push({ kind, path: `calls[${index}].tool`, location: "program-calls" });
      for (const kind of code?.kinds ?? [])
        found.push({ kind, path: `calls[${index}].code`, location: "program-calls" });
      if (tool.kinds.length === 0 && (code === undefined || code.kinds.length === 0)) return call;
      return { ...call, tool: tool.text, ...(code === undefined ? {} : { code: code.text }) };
    });
  }
  // Warnings quote declarations and results' shapes (an output-drift path, a type's keys).
  const warnings = redactDiagnostics(redactor, result.warnings, "warnings", "program-warnings");
  found.push(...warnings.redactions);
  if (found.length === 0) return result;
  emitRedactions(trace, found, { programId: result.programId });
  return {
    ...result,
    output: output.value as JsonValue,
    logs,
    ...(error === undefined ? {} : { error }),
    warnings: warnings.diagnostics,
    calls,
    redactions: mergeCounts(result.redactions, countByKind(found))!,
  };
}

/** A run's error with its message and details redacted, and what was replaced. */
export function redactRunError(
  redactor: Redactor,
  error: RunError,
): { readonly error: RunError; readonly redactions: readonly LocatedRedaction[] } {
  const found: LocatedRedaction[] = [];
  let redacted = error;
  const message = redactCutHeads(
    redactor,
    redactEmbeddedJsonStrings(redactor, redactor.redactText(error.message)),
    CUT_ERROR_TEXT,
  );
  if (message.kinds.length > 0) {
    redacted = { ...redacted, message: message.text };
    for (const kind of message.kinds) found.push({ kind, path: "error.message", location: "program-error" });
  }
  // The failing paths of INPUT_INVALID quote the input, which may carry secrets.
  const details = error.details === undefined ? undefined : redactor.redactValue(error.details, "error.details");
  if (details !== undefined && details.redactions.length > 0) {
    redacted = { ...redacted, details: details.value as JsonValue };
    for (const redaction of details.redactions) found.push({ ...redaction, location: "program-error" });
  }
  if (error.diagnostics !== undefined) {
    const diagnostics = redactDiagnostics(redactor, error.diagnostics, "error.diagnostics", "program-error");
    if (diagnostics.redactions.length > 0) redacted = { ...redacted, diagnostics: diagnostics.diagnostics };
    found.push(...diagnostics.redactions);
  }
  return { error: redacted, redactions: found };
}

/** Diagnostics with their messages redacted (the same array when nothing was), and what was replaced. */
export function redactDiagnostics(
  redactor: Redactor,
  diagnostics: readonly Diagnostic[],
  path: string,
  location: RedactionLocation,
): { readonly diagnostics: readonly Diagnostic[]; readonly redactions: readonly LocatedRedaction[] } {
  const found: LocatedRedaction[] = [];
  let redacted = diagnostics;
  diagnostics.forEach((diagnostic, index) => {
    const message = redactor.redactText(diagnostic.message);
    if (message.kinds.length === 0) return;
    if (redacted === diagnostics) redacted = [...diagnostics];
    (redacted as Diagnostic[])[index] = { ...diagnostic, message: message.text };
    for (const kind of message.kinds) found.push({ kind, path: `${path}[${index}].message`, location });
  });
  return { diagnostics: redacted, redactions: found };
}

/** How the sandbox marks a console line it cut at its length limit. */
const CUT_LINE = /([A-Za-z0-9_\-+/=.]{8,})(… \[line cut at \d+ characters\])$/g;
/**
 * How `capErrorText` marks an error text it cut, anywhere in a run's message: the guest cuts a
 * program's error before the host sees it, and the host adds the failing line after the marker.
 * Heads from 4 characters: the host's cut, which leaves room for that line, can fall 4 into a token.
 */
const CUT_ERROR_TEXT = /([A-Za-z0-9_\-+/=.]{4,})(… \[cut: \d+ characters in all\])/g;

/**
 * A log line redacted, inside the JSON string literals the guest prints objects with too, and a
 * token's head left at the sandbox's cut (see redactCutHeads).
 */
function redactCutLine(redactor: Redactor, line: string): RedactedText {
  return redactCutHeads(redactor, redactEmbeddedJsonStrings(redactor, redactor.redactText(line)), CUT_LINE);
}

/**
 * A redacted text where a token-like run ending at a cut marker is replaced too: when a text was
 * cut at its length limit in the middle of a token, where no redactor could see the whole, no
 * rule recognises the token's head any more.
 */
function redactCutHeads(redactor: Redactor, redacted: RedactedText, marker: RegExp): RedactedText {
  let kinds = redacted.kinds;
  const text = redacted.text.replace(marker, (whole, head: string, cut: string) => {
    // Any run that is not a plain word: the head of a token may be short and without digits. A
    // plain word too when it ends with the start of a listed secret (a passphrase of letters).
    const plainWord = /^[a-z]+$|^[A-Z]+$/.test(head) && !redactor.endsWithSecretStart(head);
    if (plainWord || head.includes("REDACTED")) return whole;
    kinds = [...kinds, "cut-secret"];
    return `[REDACTED:cut-secret]${cut}`;
  });
  return kinds === redacted.kinds ? redacted : { text, kinds };
}

/** A direct call's error with its message and details redacted, and what was replaced. */
export function redactCallError(
  redactor: Redactor,
  error: CallError,
): { readonly error: CallError; readonly redactions: readonly LocatedRedaction[] } {
  const found: LocatedRedaction[] = [];
  const code = redactor.redactText(error.code);
  for (const kind of code.kinds) found.push({ kind, path: "error.code", location: "call-error" });
  const message = redactor.redactText(error.message);
  for (const kind of message.kinds) found.push({ kind, path: "error.message", location: "call-error" });
  const details = error.details === undefined ? undefined : redactor.redactValue(error.details, "error.details");
  for (const redaction of details?.redactions ?? []) found.push({ ...redaction, location: "call-error" });
  if (found.length === 0) return { error, redactions: found };
  return {
    error: {
      ...error,
      code: code.text,
      message: message.text,
      ...(details === undefined ? {} : { details: details.value }),
    },
    redactions: found,
  };
}

/** One `redaction` event per replacement, up to MAX_REDACTION_EVENTS; nothing when nobody listens. */
export function emitRedactions(
  trace: TraceBus | undefined,
  redactions: readonly LocatedRedaction[],
  owner: RedactionOwner,
): void {
  if (trace === undefined || !trace.active) return;
  const at = Date.now();
  for (const redaction of redactions.slice(0, MAX_REDACTION_EVENTS)) {
    trace.emit({
      type: "redaction",
      at,
      kind: redaction.kind,
      location: redaction.location,
      callId: owner.callId,
      tool: owner.tool,
      programId: owner.programId,
      path: redaction.path,
    });
  }
}

/** The sum of two count records; undefined when both are. */
export function mergeCounts(
  first: RedactionCounts | undefined,
  second: RedactionCounts | undefined,
): RedactionCounts | undefined {
  if (first === undefined) return second;
  if (second === undefined) return first;
  const merged: Record<string, number> = { ...first };
  for (const [kind, count] of Object.entries(second)) merged[kind] = (merged[kind] ?? 0) + count;
  return merged;
}
