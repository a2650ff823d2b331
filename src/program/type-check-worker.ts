// Worker-thread entry of the type checker: answers one request per message with one
// ProgramTypeChecker, so the lib stays parsed for the worker's life. It never throws across
// the boundary: every request gets exactly one response carrying its id.
// Started by TypeChecker only; importing it outside a worker does nothing.

import { parentPort } from "node:worker_threads";
import type { Diagnostic, JsonValue } from "../contract.js";
import { SwitchyardError, type ConfigErrorCode, messageOf } from "../errors.js";
import { lintProgram } from "./lint-program.js";
import type { ProgramForm } from "./program-wrapper.js";
import type { ContractDeclarations } from "./contract-declarations.js";
import type { ToolReferences } from "./find-tool-references.js";
import { ProgramTypeChecker } from "./type-check-program.js";

/** A request from the host: a check, or the references that choose a check's declarations. */
export type TypeCheckRequest = CheckRequest | ReferencesRequest;

/** Checks a program against declarations. */
export interface CheckRequest {
  readonly id: number;
  readonly kind: "check";
  readonly source: string;
  readonly declarations: string;
  /** Also run the pre-run lint and append its warnings. */
  readonly lint: boolean;
  /** How the program is wrapped (as compiled). */
  readonly form: ProgramForm;
  /** The run's own declarations (its `input`). */
  readonly contract: ContractDeclarations;
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
  | { readonly id: number; readonly ok: true; readonly diagnostics: Diagnostic[]; readonly references?: ToolReferences }
  | {
      readonly id: number;
      readonly ok: false;
      /** `config` is a SwitchyardError to rebuild on the host; `internal` a checker bug. */
      readonly kind: "config" | "internal";
      readonly code: ConfigErrorCode | "INTERNAL_ERROR";
      readonly message: string;
      readonly details: JsonValue | undefined;
    };

const port = parentPort;
if (port !== null) {
  const checker = new ProgramTypeChecker();
  port.on("message", (request: TypeCheckRequest) => {
    port.postMessage(answer(checker, request));
  });
}

function answer(checker: ProgramTypeChecker, request: TypeCheckRequest): TypeCheckResponse {
  try {
    if (request.kind === "references") {
      return {
        id: request.id,
        ok: true,
        diagnostics: [],
        references: checker.references(request.source, request.form),
      };
    }
    const diagnostics = checker.check(request.source, request.declarations, request.form, request.contract);
    // Lint only a program that parses; its warnings follow the compiler's diagnostics.
    const warnings = request.lint && diagnostics.length === 0 ? lintProgram(request.source, request.form) : [];
    return { id: request.id, ok: true, diagnostics: [...diagnostics, ...warnings] };
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
