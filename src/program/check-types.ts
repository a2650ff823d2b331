// What a run makes of a type check: the checker's diagnostics split into errors and warnings, a
// check that could not complete turned into a warning and a refusal message, and the RunError a
// program with type errors ends with (TYPE_ERROR, or TYPE_CHECK_FAILED when the compiler threw).
// It decides nothing about modes: the run's check station applies `error`, `warn` or `off`.

import type { Diagnostic, RunError } from "../contract.js";
import { SwitchyardError, messageOf } from "../errors.js";
import type { ScopedDeclarations } from "./checked-declarations.js";
import { stripCodeFence } from "./compile-program.js";
import type { ContractDeclarations } from "./contract-declarations.js";
import { mayBeExpressionProgram, type ProgramForm } from "./program-wrapper.js";
import type { RunContract } from "./run-contract.js";
import type { TypeChecker } from "./type-checker.js";

/** What a type check found, or why it could not complete. */
export interface TypeCheckOutcome {
  readonly errors: readonly Diagnostic[];
  readonly warnings: readonly Diagnostic[];
  /** Set when the check could not complete: the message of TYPE_CHECK_FAILED. */
  readonly failure?: string;
}

/** The outcome of a run whose type check was skipped (`typeCheck: "off"`). */
export const UNCHECKED: TypeCheckOutcome = Object.freeze({ errors: [], warnings: [] });

/** The warning of a run whose check could not complete (in `warn` mode it ran anyway). */
const TYPE_CHECK_UNAVAILABLE = "type-check-unavailable";
/** The diagnostic the checker gives when the compiler threw on a program (see ProgramTypeChecker). */
const CHECK_FAILED = "CHECK_FAILED";

const SIMPLIFY_ADVICE = "Simplify its types (less recursion, smaller unions and literals) and try again.";

const MAX_REPORTED_DIAGNOSTICS = 10;
/** Most characters of the contract's types quoted under a type error that names them. */
const MAX_QUOTED_CONTRACT_CHARS = 2_000;

/**
 * Type-checks and lints `source` against `declarations` and the run's contract with `checker`.
 * Never rejects: a check that could not complete (it timed out, killed the worker twice, or the
 * declarations do not compile) resolves with a `type-check-unavailable` warning and `failure` set.
 */
export async function checkTypes(
  checker: TypeChecker,
  declarations: string | ScopedDeclarations,
  source: string,
  form: ProgramForm,
  contract: ContractDeclarations,
): Promise<TypeCheckOutcome> {
  try {
    const diagnostics = await checker.check(source, declarations, {
      lint: true,
      form,
      contract,
    });
    return {
      errors: diagnostics.filter((diagnostic) => diagnostic.severity === "error"),
      warnings: diagnostics.filter((diagnostic) => diagnostic.severity === "warning"),
    };
  } catch (error) {
    // The check could not complete (it timed out, killed the worker twice, or the declarations
    // do not compile): in `error` mode the program does not run unchecked; in `warn` mode it
    // runs, and the run says it was not checked.
    const message = `The program was not type-checked: ${messageOf(error)}`;
    // A configuration error is the host's to fix; anything else came from this program's check.
    const advice = SwitchyardError.isInstance(error) ? "" : ` ${SIMPLIFY_ADVICE}`;
    return {
      errors: [],
      warnings: [{ line: 1, column: 1, code: TYPE_CHECK_UNAVAILABLE, message, severity: "warning" }],
      failure: `${message}\nIn typeCheck "error" mode a program that could not be checked does not run.${advice}`,
    };
  }
}

/** A check started before its program compiled: for the source and form it assumed. */
export interface EarlyCheck {
  readonly source: string;
  readonly form: ProgramForm;
  readonly outcome: Promise<TypeCheckOutcome>;
}

/**
 * Starts the check of `rawSource` before it compiles, when nothing the compiler decides changes
 * it: the code fence is stripped the same way, and a source that cannot start like a function
 * expression is a body whatever the compiler finds. Undefined otherwise (an expression candidate,
 * or a source over `maxSourceBytes`, which is never sent to the checker). Only the check's answer
 * lets a program run, so starting it early changes when it is known, not what it gates.
 */
export function checkBeforeCompiling(
  checker: TypeChecker,
  declarations: string | ScopedDeclarations,
  rawSource: string,
  maxSourceBytes: number,
  contract: ContractDeclarations,
): EarlyCheck | undefined {
  const source = stripCodeFence(rawSource);
  if (Buffer.byteLength(source) > maxSourceBytes || mayBeExpressionProgram(source)) return undefined;
  return { source, form: "body", outcome: checkTypes(checker, declarations, source, "body", contract) };
}

/**
 * What a run refused in `error` mode reports for what `check` found: TYPE_CHECK_FAILED when the
 * check could not complete (and no warnings) or the compiler threw on the program, else TYPE_ERROR
 * with every error's line and column (with the check's warnings); undefined when the program may run.
 */
export function refusalOf(
  check: TypeCheckOutcome,
  source: string,
  contract: RunContract,
): { readonly error: RunError; readonly warnings: readonly Diagnostic[] } | undefined {
  if (check.failure !== undefined)
    return { error: { code: "TYPE_CHECK_FAILED", message: check.failure }, warnings: [] };
  if (check.errors.length === 0) return undefined;
  // The compiler threw on this program: it was not checked, rather than found wrong.
  const crashed = check.errors.every((diagnostic) => diagnostic.code === CHECK_FAILED);
  return {
    error: crashed
      ? { code: "TYPE_CHECK_FAILED", message: check.errors[0]!.message }
      : typeErrorOf(check.errors, source, contract),
    warnings: check.warnings,
  };
}

/** TYPE_ERROR for `errors`: the first ten, each with its line of `source`, and the contract's types when named. */
function typeErrorOf(errors: readonly Diagnostic[], source: string, contract: RunContract): RunError {
  const lines = source.split("\n");
  const shown = errors.slice(0, MAX_REPORTED_DIAGNOSTICS).map((diagnostic) => {
    const text = lines[diagnostic.line - 1]?.trim().slice(0, 160) ?? "";
    const code = typeof diagnostic.code === "number" ? `TS${diagnostic.code}` : diagnostic.code;
    return `line ${diagnostic.line}, column ${diagnostic.column}: ${diagnostic.message} (${code})\n    ${text}`;
  });
  const more =
    errors.length > MAX_REPORTED_DIAGNOSTICS ? `\n...and ${errors.length - MAX_REPORTED_DIAGNOSTICS} more` : "";
  const first = errors[0]!;
  // The model never saw ProgramInput or ProgramOutput declared: quote them when a message names them.
  const contractTypes = contract.types.declarations;
  const namesContract = contractTypes !== "" && shown.some((line) => /\bProgram(?:Input|Output)\d*\b/.test(line));
  const quoted = namesContract
    ? `\nThe run's input and output types:\n${contractTypes.length > MAX_QUOTED_CONTRACT_CHARS ? `${contractTypes.slice(0, MAX_QUOTED_CONTRACT_CHARS)}\n...` : contractTypes.trimEnd()}`
    : "";
  return {
    code: "TYPE_ERROR",
    message: `The program does not type-check against the tool declarations; nothing ran.\n${shown.join("\n")}${more}${quoted}`,
    line: first.line,
    column: first.column,
    diagnostics: errors,
  };
}
