// A journal as text: one JSON object per line, the header first. Reading tolerates the torn last
// line a crash leaves behind, and drops a header's journaled check of the wrong shape (the run then
// checks again); it refuses anything else with `JOURNAL_INVALID`: a line that is not JSON, an entry
// of an unknown kind or with fields of the wrong type, a second header, a version it does not know.

import { JournalError } from "./journal-error.js";
import type { ToolReferences } from "../program/tool-references.js";
import type { JournalEntry, JournalHeader, JournaledCheck, StoredJournal } from "./run-journal.js";

/** The text of entries to append: one line each, newline-terminated. */
export function encodeJournalLines(entries: readonly (JournalHeader | JournalEntry)[]): string {
  let text = "";
  for (const entry of entries) text += `${JSON.stringify(entry)}\n`;
  return text;
}

/**
 * Reads a journal's text. `complete` is the length of the text up to its last newline: what a
 * writer keeps (and truncates the file to) before appending again. `bytes`: the text's UTF-8
 * size when the caller knows it (a file's size), else it is measured. Throws `JOURNAL_INVALID`.
 */
export function decodeJournalText(
  id: string,
  text: string,
  bytes?: number,
): { journal: StoredJournal; complete: number } {
  const complete = text.lastIndexOf("\n") + 1;
  const lines = text.slice(0, complete).split("\n");
  lines.pop();
  const invalid = (line: number, why: string): JournalError =>
    new JournalError("JOURNAL_INVALID", `The journal of run ${id} is damaged at line ${line}: ${why}.`);
  if (lines.length === 0) throw invalid(1, "it has no header");
  const parsed = parseLine(lines[0]!, 1, invalid);
  if (!isHeader(parsed, id)) throw invalid(1, "the header is not a version-1 header of this run");
  const header = withReadableCheck(parsed);
  const entries: JournalEntry[] = [];
  for (let at = 1; at < lines.length; at++) {
    const entry = parseLine(lines[at]!, at + 1, invalid);
    if (!isEntry(entry)) throw invalid(at + 1, "not a journal entry");
    entries.push(entry);
  }
  return { journal: { header, entries, bytes: bytes ?? Buffer.byteLength(text) }, complete };
}

function parseLine(line: string, number: number, invalid: (line: number, why: string) => JournalError): unknown {
  try {
    return JSON.parse(line) as unknown;
  } catch {
    throw invalid(number, "not JSON");
  }
}

function isHeader(value: unknown, id: string): value is JournalHeader {
  if (!isRecord(value) || value["t"] !== "run" || value["v"] !== 1 || value["id"] !== id) return false;
  const seed = value["seed"];
  return (
    typeof value["source"] === "string" &&
    isNumber(value["createdAt"]) &&
    isNumber(value["expiresAt"]) &&
    isNumber(value["nowMs"]) &&
    (value["inputJson"] === undefined || typeof value["inputJson"] === "string") &&
    Array.isArray(seed) &&
    seed.length === 4 &&
    seed.every(isNumber)
  );
}

/**
 * The header, without its journaled check when that is not one (hand-edited, or written by a later
 * format): the check is an optimisation, so a damaged one means checking again, not a refused run.
 */
function withReadableCheck(header: JournalHeader): JournalHeader {
  if (header.check === undefined || isJournaledCheck(header.check)) return header;
  const { check: _unreadable, ...rest } = header;
  return rest;
}

/** Names a journaled check's references may list in all: far above what a program's check records. */
const MAX_JOURNALED_REFERENCE_NAMES = 10_000;
/** Diagnostics a journaled check may hold: the checker reports at most 50. */
const MAX_JOURNALED_DIAGNOSTICS = 200;

function isJournaledCheck(value: unknown): value is JournaledCheck {
  return (
    isRecord(value) &&
    typeof value["fingerprint"] === "string" &&
    (value["references"] === undefined || isReferences(value["references"])) &&
    isDiagnostics(value["errors"]) &&
    isDiagnostics(value["warnings"])
  );
}

function isReferences(value: unknown): value is ToolReferences {
  if (!isRecord(value) || typeof value["wholeCatalog"] !== "boolean") return false;
  const { namespaces, members, typeNameCandidates, unresolvedTypeNames } = value;
  if (!isStrings(namespaces) || !isStrings(typeNameCandidates) || !isStrings(unresolvedTypeNames)) return false;
  if (!Array.isArray(members) || !members.every((pair) => isStrings(pair) && pair.length === 2)) return false;
  const names = namespaces.length + members.length + typeNameCandidates.length + unresolvedTypeNames.length;
  return names <= MAX_JOURNALED_REFERENCE_NAMES;
}

function isDiagnostics(value: unknown): boolean {
  return (
    Array.isArray(value) &&
    value.length <= MAX_JOURNALED_DIAGNOSTICS &&
    value.every(
      (diagnostic) =>
        isRecord(diagnostic) &&
        isNumber(diagnostic["line"]) &&
        isNumber(diagnostic["column"]) &&
        typeof diagnostic["message"] === "string" &&
        (isNumber(diagnostic["code"]) || typeof diagnostic["code"] === "string") &&
        (diagnostic["severity"] === "error" || diagnostic["severity"] === "warning"),
    )
  );
}

function isStrings(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === "string");
}

const KINDS: ReadonlySet<unknown> = new Set(["now", "mayWait", "later", "wait"]);

function isEntry(value: unknown): value is JournalEntry {
  if (!isRecord(value)) return false;
  switch (value["t"]) {
    case "x":
      return (
        isNumber(value["k"]) &&
        KINDS.has(value["kind"]) &&
        isNumber(value["nowMs"]) &&
        optionalNumber(value["first"]) &&
        optionalNumber(value["count"]) &&
        Array.isArray(value["answers"]) &&
        value["answers"].every(isAnswer)
      );
    case "pause":
      return isNumber(value["at"]) && Array.isArray(value["pending"]) && value["pending"].every(isPending);
    case "decision":
      return isNumber(value["at"]) && isNumber(value["position"]) && typeof value["approved"] === "boolean";
    case "end":
      return (
        isNumber(value["at"]) &&
        typeof value["ok"] === "boolean" &&
        (value["message"] === undefined || typeof value["message"] === "string")
      );
    case "resume":
      return isNumber(value["at"]) && isNumber(value["replayed"]);
    default:
      return false;
  }
}

function isAnswer(value: unknown): boolean {
  return (
    isRecord(value) &&
    isNumber(value["i"]) &&
    optionalNumber(value["n"]) &&
    typeof value["tool"] === "string" &&
    typeof value["h"] === "string" &&
    (typeof value["e"] === "string" ? isEnvelopeOf(value["i"], value["e"]) : typeof value["ref"] === "string") &&
    (value["r"] === undefined || isRecord(value["r"]))
  );
}

/**
 * Whether `envelope` is one answer, of wire index `index`, as the bridge encodes it: a replay
 * splices it into the guest's answer as it is, so a tampered one must not smuggle in a second
 * answer (for a call that was never answered) or text that is not JSON.
 */
export function isEnvelopeOf(index: number, envelope: string): boolean {
  try {
    const pair = JSON.parse(`[${envelope}]`) as unknown[];
    return pair.length === 2 && (pair[0] === index || pair[0] === -1 - index);
  } catch {
    return false;
  }
}

function isPending(value: unknown): boolean {
  return (
    isRecord(value) &&
    isNumber(value["position"]) &&
    typeof value["tool"] === "string" &&
    typeof value["idempotencyKey"] === "string"
  );
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isNumber(value: unknown): value is number {
  return typeof value === "number" && Number.isFinite(value);
}

function optionalNumber(value: unknown): boolean {
  return value === undefined || isNumber(value);
}
