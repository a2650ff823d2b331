// One TypeScript checker kept across the checks of new programs against the same declarations, so
// lib es2022's types (Array, Promise, Map...) are resolved once, not once per program: a new
// ts.Program re-resolves every lib type a program touches, about three quarters of a warm check.
// It only says whether a program is clean; anything else goes to the full check, whose diagnostics
// stay exactly what they were. Programs never join its globals, and any doubt retires it.

import { createRequire } from "node:module";
import type * as TS from "typescript";

const ts = createRequire(import.meta.url)("typescript") as typeof TS;

/** The parts of TypeScript's compiler this module uses that its public declarations leave out (TypeScript 6.0). */
interface CompilerInternals {
  /** Binds a parsed file (symbols, flow nodes); idempotent, as a Program's checker does it. */
  bindSourceFile(file: TS.SourceFile, options: TS.CompilerOptions): void;
}

interface CheckerInternals {
  /** A file's bind-free check diagnostics: what `Program.getSemanticDiagnostics` asks its checker. */
  getDiagnostics(file: TS.SourceFile): readonly TS.Diagnostic[];
}

/**
 * Limits whose error leaves a cached error type behind (an instantiation cut off at depth 100, a
 * union too large, a comparison too deep or too complex): it could reach the next program through
 * a lib type, so a checker that reported one is retired.
 */
const LIMIT_CODES: ReadonlySet<number> = new Set([2589, 2590, 2321, 2859]);

/** Decides which of a program's raw diagnostics a check drops; true keeps one (an error to report). */
export type ReportedFilter = (diagnostic: TS.Diagnostic, file: TS.SourceFile, checker: TS.TypeChecker) => boolean;

/**
 * A checker over `files` (the lib, the declarations, a run's contract: SourceFiles already parsed
 * and bound by the language service, shared, never re-parsed), with `options`. Checks each program
 * in a file of its own that no Program lists, so nothing a program declares reaches another's
 * scope. Retire it after `maxChecks` checks: caches of program types grow with every check.
 */
export class ResidentChecker {
  readonly #checker: TS.TypeChecker;
  readonly #options: TS.CompilerOptions;
  readonly #fileNamePrefix: string;
  readonly #maxChecks: number;
  #checks = 0;
  #retired = false;

  constructor(options: {
    readonly compilerOptions: TS.CompilerOptions;
    /** The root files (declarations, contract), as named in `sourceFileOf`. */
    readonly rootNames: readonly string[];
    /** The SourceFile of a root or lib file; undefined for a file that does not exist. */
    readonly sourceFileOf: (fileName: string) => TS.SourceFile | undefined;
    readonly host: Pick<TS.CompilerHost, "fileExists" | "readFile" | "getDefaultLibFileName" | "getCurrentDirectory">;
    /** Program files are named `<prefix><n>.ts`: unique per check, so no file's diagnostics meet another's. */
    readonly fileNamePrefix: string;
    readonly maxChecks: number;
  }) {
    this.#options = options.compilerOptions;
    this.#fileNamePrefix = options.fileNamePrefix;
    this.#maxChecks = options.maxChecks;
    const program = ts.createProgram({
      rootNames: options.rootNames,
      options: options.compilerOptions,
      host: {
        ...options.host,
        getSourceFile: (fileName) => options.sourceFileOf(fileName),
        writeFile: () => undefined,
        getCanonicalFileName: (fileName) => fileName,
        useCaseSensitiveFileNames: () => true,
        getNewLine: () => "\n",
      },
    });
    this.#checker = program.getTypeChecker();
  }

  /** False once retired (a doubtful check, or `maxChecks` reached): make a new one. */
  get usable(): boolean {
    return !this.#retired && this.#checks < this.#maxChecks;
  }

  /**
   * Checks `text` (a wrapped program): true when the full check would report nothing once
   * `reported` has filtered it (no need to run it), false when not known to be clean. Unsure
   * whenever the file is not an ordinary script: it does not parse, carries `@ts-` comment
   * directives or references, is a module, or breaks out of its wrapper (`isEscaped`). Never throws: a compiler failure, or a limit's error, retires the checker.
   */
  check(text: string, isEscaped: (file: TS.SourceFile) => boolean, reported: ReportedFilter): boolean {
    this.#checks += 1;
    const fileName = `${this.#fileNamePrefix}${this.#checks}.ts`;
    try {
      const file = ts.createSourceFile(
        fileName,
        text,
        { languageVersion: ts.ScriptTarget.ES2022 },
        false,
        ts.ScriptKind.TS,
      );
      if (!isOrdinaryScript(file) || isEscaped(file)) return false;
      // A Program sets these on the files it lists; the checker keys its per-file state by them.
      const paths = file as unknown as { path: string; resolvedPath: string; originalFileName: string };
      paths.path = fileName;
      paths.resolvedPath = fileName;
      paths.originalFileName = fileName;
      (ts as unknown as CompilerInternals).bindSourceFile(file, this.#options);
      const checker = this.#checker as TS.TypeChecker & CheckerInternals;
      const raw = [...fileOf(file).bindDiagnostics, ...checker.getDiagnostics(file)];
      if (raw.some((diagnostic) => LIMIT_CODES.has(diagnostic.code))) this.#retired = true;
      return !raw.some((diagnostic) => reported(diagnostic, file, checker));
    } catch {
      // A stack overflow, say: the checker may be mid-update.
      this.#retired = true;
      return false;
    }
  }
}

/** A SourceFile's parse and bind diagnostics, which its public type does not show. */
function fileOf(file: TS.SourceFile): {
  parseDiagnostics: readonly TS.Diagnostic[];
  bindDiagnostics: readonly TS.Diagnostic[];
  commentDirectives?: readonly unknown[];
} {
  return file as unknown as ReturnType<typeof fileOf>;
}

function isOrdinaryScript(file: TS.SourceFile): boolean {
  const internal = fileOf(file);
  const module = (file as unknown as { externalModuleIndicator?: unknown }).externalModuleIndicator;
  return (
    internal.parseDiagnostics.length === 0 &&
    (internal.commentDirectives?.length ?? 0) === 0 &&
    file.referencedFiles.length === 0 &&
    file.typeReferenceDirectives.length === 0 &&
    file.libReferenceDirectives.length === 0 &&
    (module === undefined || module === false) &&
    (file as unknown as { checkJsDirective?: unknown }).checkJsDirective === undefined
  );
}
