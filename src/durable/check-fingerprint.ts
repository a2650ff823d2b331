// The fingerprint of a passed type check, so a durable run's resume can take the check's findings
// from its journal instead of starting the checker: a hash of everything the findings depend on
// (program, form, declarations, contract, checker version, mode). It never loads TypeScript. It is
// no security boundary: whoever can write a journal can change its program and tools' answers anyway.

import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { JournaledCheck } from "./run-journal.js";
import { packageVersion } from "../package-version.js";
import type { TypeCheckOutcome } from "../program/check-types.js";
import type { ScopedDeclarations } from "../program/checked-declarations.js";
import type { ContractDeclarations } from "../program/contract-declarations.js";
import type { ProgramForm } from "../program/program-wrapper.js";
import { checkContentKey } from "../program/type-check-cache.js";
import type { ToolReferences } from "../program/tool-references.js";

/**
 * Raised when what a check reports changes within one package version (a lint rule, a compiler
 * option): journaled checks of the old rules then no longer match, and resumes check again.
 */
const CHECK_RULES_REVISION = 1;

/** What a check was asked: everything but the declarations, which `recordDeclarations` follows. */
export interface CheckSubject {
  readonly source: string;
  readonly form: ProgramForm;
  readonly contract: ContractDeclarations;
  readonly mode: "error" | "warn";
}

/** The declarations a check was given, and the text it was checked against once it chose them. */
export interface RecordedDeclarations {
  /** What to hand the checker: the given declarations, their choice recorded. */
  readonly declarations: string | ScopedDeclarations;
  /** The last text chosen (and the references it was chosen for), or the fixed text; undefined before a choice. */
  chosen(): { readonly text: string; readonly references?: ToolReferences | undefined } | undefined;
}

/**
 * Follows which declarations a check used: the checker chooses scoped declarations for the
 * program's references (found in its process) and checks against the last text it chose.
 */
export function recordDeclarations(declarations: string | ScopedDeclarations): RecordedDeclarations {
  if (typeof declarations === "string") return { declarations, chosen: () => ({ text: declarations }) };
  let last: { text: string; references: ToolReferences } | undefined;
  return {
    declarations: {
      select(references, contract) {
        const text = declarations.select(references, contract);
        last = { text, references };
        return text;
      },
    },
    chosen: () => last,
  };
}

/**
 * What a durable run's header keeps of `check`: undefined when it could not complete (a resume
 * must try again) or no declarations were chosen.
 */
export function journaledCheckOf(
  check: TypeCheckOutcome,
  recorded: RecordedDeclarations,
  subject: CheckSubject,
): JournaledCheck | undefined {
  const chosen = recorded.chosen();
  if (check.failure !== undefined || chosen === undefined) return undefined;
  return {
    fingerprint: fingerprintOf(subject, chosen.text),
    ...(chosen.references === undefined ? {} : { references: chosen.references }),
    errors: check.errors,
    warnings: check.warnings,
  };
}

/**
 * The journaled check's findings when a check of `subject` against `declarations` now would see
 * exactly what it saw (the declarations chosen again for its journaled references); undefined
 * when anything differs, or anything about it cannot be followed: then the program is checked.
 */
export function reuseJournaledCheck(
  journaled: JournaledCheck,
  declarations: string | ScopedDeclarations,
  subject: CheckSubject,
): TypeCheckOutcome | undefined {
  try {
    const { references } = journaled;
    let text: string;
    if (typeof declarations === "string") text = declarations;
    else if (references !== undefined) text = declarations.select(references, subject.contract);
    else return undefined;
    if (fingerprintOf(subject, text) !== journaled.fingerprint) return undefined;
    return { errors: journaled.errors, warnings: journaled.warnings };
  } catch {
    // A selection that throws on journaled references reads as a mismatch: the check decides.
    return undefined;
  }
}

function fingerprintOf(subject: CheckSubject, declarations: string): string {
  const content = checkContentKey({ ...subject, declarations, lint: true });
  return `sha256:${createHash("sha256").update(`${checkerVersion()}\0${subject.mode}\0${content}`).digest("hex")}`;
}

let version: string | undefined;

/** TypeScript's version (read from its package.json, not by loading it), this package's, and the rules'. */
export function checkerVersion(): string {
  return (version ??= `typescript@${typeScriptVersion()} switchyard-runtime@${packageVersion()} rules@${CHECK_RULES_REVISION}`);
}

function typeScriptVersion(): string {
  try {
    // Resolved from here, as the checker process (beside this file) resolves the compiler it loads.
    const manifest = createRequire(import.meta.url).resolve("typescript/package.json");
    const { version: found } = JSON.parse(readFileSync(manifest, "utf8")) as { version?: unknown };
    return typeof found === "string" ? found : "unknown";
  } catch {
    return "unknown";
  }
}
