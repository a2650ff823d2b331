// Child-process entry of the type checker: answers one request per IPC message with one
// ProgramTypeChecker, so the lib stays parsed (and the compiler's code optimised) for the
// process's life. It never throws across the boundary: every request gets exactly one response
// carrying its id. It exits when its host goes away, busy or idle. Started by TypeChecker only:
// imported anywhere else (a vitest fork has an IPC channel too) it does nothing.

import { Worker } from "node:worker_threads";
import type { Diagnostic, JsonValue } from "../contract.js";
import { SwitchyardError, type ConfigErrorCode, messageOf } from "../errors.js";
import { lintProgram } from "./lint-program.js";
import type { ProgramForm } from "./program-wrapper.js";
import type { ContractDeclarations } from "./contract-declarations.js";
import type { ToolReferences } from "./tool-references.js";
import { CHECKER_PROCESS_FLAG } from "./start-checker-process.js";
import { ProgramTypeChecker } from "./type-check-program.js";

/** A request from the host: a check, or the references that choose a check's declarations. */
export type TypeCheckRequest = CheckRequest | ReferencesRequest;

/** Checks a program against declarations. */
export interface CheckRequest {
  readonly id: number;
  readonly kind: "check";
  readonly source: string;
  /**
   * The declarations text, sent only when it differs from the previous check's (a catalog is
   * one long string sent with every check); absent, the process reuses the text it holds.
   */
  readonly declarations?: string;
  /** Also run the pre-run lint and append its warnings. */
  readonly lint: boolean;
  /** How the program is wrapped (as compiled). */
  readonly form: ProgramForm;
  /** The run's own declarations (its `input`). */
  readonly contract: ContractDeclarations;
  /**
   * Check only if the program's references are these (the ones the declarations were chosen for),
   * and answer its references either way: a new program then costs one round trip, not two.
   */
  readonly ifReferences?: ToolReferences;
  /** A warm-up's: the program's references are read too (and dropped), so that path is optimised as well. */
  readonly warmUp?: boolean;
}

/** Asks what a program reads of `tools` (find-tool-references.ts), to choose its declarations. */
export interface ReferencesRequest {
  readonly id: number;
  readonly kind: "references";
  readonly source: string;
  readonly form: ProgramForm;
}

/** The single answer to a request with the same id; `references` answers a ReferencesRequest. */
export type TypeCheckResponse =
  | {
      readonly id: number;
      readonly ok: true;
      readonly diagnostics: Diagnostic[];
      readonly references?: ToolReferences;
      /** False when an `ifReferences` check was not run (its references differ): `diagnostics` is then empty. */
      readonly checked?: boolean;
    }
  | {
      readonly id: number;
      readonly ok: false;
      /** `config` is a SwitchyardError to rebuild on the host; `internal` a checker bug. */
      readonly kind: "config" | "internal";
      readonly code: ConfigErrorCode | "INTERNAL_ERROR";
      readonly message: string;
      readonly details: JsonValue | undefined;
    };

if (process.send !== undefined && process.argv.includes(CHECKER_PROCESS_FLAG)) serve();

function serve(): void {
  watchParent();
  // Idle, the channel's disconnect is how the host's end (exit, crash, SIGKILL) shows.
  process.on("disconnect", () => process.exit(0));
  const checker = new ProgramTypeChecker();
  let declarations = "";
  process.on("message", (request: TypeCheckRequest) => {
    if (request.kind === "check" && request.declarations !== undefined) declarations = request.declarations;
    const response = answer(checker, request, declarations);
    // The host may be gone by now: an answer nobody reads is not an error.
    if (process.connected) process.send?.(response);
    // Between requests, after the answer: a request arriving meanwhile waits for it (one cold check at most).
    if (request.kind === "check" && request.warmUp !== true) setImmediate(() => checker.prepareIdle());
  });
}

/**
 * A check is synchronous, so while one runs the disconnect event cannot fire: a thread of its
 * own sees the host go (this process is handed to another parent) and kills the process, so a
 * hostile program's check never outlives the host that asked for it. Costs one small thread.
 */
function watchParent(): void {
  const watcher = new Worker(
    `const { ppid, pid } = require("node:process");
     setInterval(() => { if (process.ppid !== ppid) process.kill(pid, "SIGKILL"); }, 250);`,
    { eval: true },
  );
  watcher.unref();
}

function answer(checker: ProgramTypeChecker, request: TypeCheckRequest, declarations: string): TypeCheckResponse {
  try {
    if (request.kind === "references") {
      return {
        id: request.id,
        ok: true,
        diagnostics: [],
        references: checker.references(request.source, request.form),
      };
    }
    let references: ToolReferences | undefined;
    if (request.ifReferences !== undefined) {
      references = checker.references(request.source, request.form);
      // Both sides build references in one deterministic order: equal data, equal text.
      if (JSON.stringify(references) !== JSON.stringify(request.ifReferences)) {
        return { id: request.id, ok: true, diagnostics: [], references, checked: false };
      }
    } else if (request.warmUp === true) checker.references(request.source, request.form);
    const diagnostics = checker.check(request.source, declarations, request.form, request.contract, {
      warmUp: request.warmUp === true,
    });
    // Lint only a program that parses; its warnings follow the compiler's diagnostics.
    const warnings = request.lint && diagnostics.length === 0 ? lintProgram(request.source, request.form) : [];
    const checked = [...diagnostics, ...warnings];
    return references === undefined
      ? { id: request.id, ok: true, diagnostics: checked }
      : { id: request.id, ok: true, diagnostics: checked, references, checked: true };
  } catch (error) {
    if (SwitchyardError.isInstance(error)) {
      return {
        id: request.id,
        ok: false,
        kind: "config",
        code: error.code,
        message: error.message,
        details: error.details,
      };
    }
    const message = messageOf(error);
    return { id: request.id, ok: false, kind: "internal", code: "INTERNAL_ERROR", message, details: undefined };
  }
}
