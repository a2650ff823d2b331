// One TypeScript checker kept across the checks of new programs, so lib es2022's types (Array,
// Promise, Map...) are resolved once and the checker's own code stays optimised, not once per
// program. A program's tool declarations may travel with it (a prefix, checked in the same module
// file), so one checker serves every small declaration set. It only says whether a program is clean;
// anything else goes to the full check, whose diagnostics stay exactly what they were. Programs and
// prefixes never join its globals, a prefix that could read differently there is refused, and any
// doubt retires it.

import { createRequire } from "node:module";
import type * as TS from "typescript";
import { PROGRAM_FUNCTION } from "./program-wrapper.js";

const ts = createRequire(import.meta.url)("typescript") as typeof TS;

/** The parts of TypeScript's compiler this module uses that its public declarations leave out (TypeScript 6.0). */
interface CompilerInternals {
  /** Binds a parsed file (symbols, flow nodes); idempotent, as a Program's checker does it. */
  bindSourceFile(file: TS.SourceFile, options: TS.CompilerOptions): void;
}

interface CheckerInternals {
  /** A file's bind-free check diagnostics: what `Program.getSemanticDiagnostics` asks its checker. */
  getDiagnostics(file: TS.SourceFile): readonly TS.Diagnostic[];
  /** Errors of no file (a global type missing or malformed), as `Program.getGlobalDiagnostics` reads them. */
  getGlobalDiagnostics(): readonly TS.Diagnostic[];
}

/**
 * The parser's marks of an `import.meta` or an `import()` anywhere in a file (internal NodeFlags):
 * either makes a file read differently as a module. Undefined if this TypeScript lacks them: no
 * prefixed file is then trusted.
 */
const IMPORT_FLAGS: number | undefined = (() => {
  const flags = ts.NodeFlags as unknown as Record<string, number | undefined>;
  const meta = flags.PossiblyContainsImportMeta;
  const dynamic = flags.PossiblyContainsDynamicImport;
  return meta === undefined || dynamic === undefined ? undefined : meta | dynamic;
})();

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
  readonly #program: TS.Program;
  readonly #checker: TS.TypeChecker;
  #globals: ReadonlySet<string> | undefined;
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
    this.#program = program;
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
   * directives or references, is a module, or breaks out of its wrapper (`isEscaped`).
   * With a `prefix` (declarations the full check would compile as global script files beside the
   * ones this checker lists), the prefix and the program share one module file, so the program sees
   * the prefix's names as it would see them as globals; true then also says the prefix compiles
   * with no error at all. Unsure when the prefix holds anything but interfaces, type aliases and
   * `declare` constants or functions, or declares a name this checker's files declare (a global
   * it would merge with or clash with). Never throws: a compiler failure, or a limit's error,
   * retires the checker.
   * Without a prefix, `parsed` may carry the tree of `text` another pass already parsed (see
   * parse-wrapped-program.ts): it is checked instead of a second parse, unless its text differs or
   * it was handed to a resident checker before (its diagnostics are kept under its first name).
   * The tree is renamed and bound, its syntax left as it was for the passes that read it after.
   */
  check(
    text: string,
    isEscaped: (file: TS.SourceFile) => boolean,
    reported: ReportedFilter,
    prefix?: string,
    parsed?: TS.SourceFile,
  ): boolean {
    this.#checks += 1;
    const fileName = `${this.#fileNamePrefix}${this.#checks}.ts`;
    try {
      // The program starts on a line of its own, so a prefix's last line comment cannot swallow it.
      const programStart = prefix === undefined ? 0 : prefix.length + 1;
      const fileText = prefix === undefined ? text : `${prefix}\n${text}export {};\n`;
      const file =
        prefix === undefined && parsed !== undefined && adoptTree(parsed, fileText)
          ? parsed
          : ts.createSourceFile(
              fileName,
              fileText,
              { languageVersion: ts.ScriptTarget.ES2022 },
              false,
              ts.ScriptKind.TS,
            );
      if (
        prefix === undefined
          ? !isOrdinaryScript(file) || isEscaped(file)
          : !this.#isPrefixedProgram(file, text, programStart)
      )
        return false;
      // A Program sets these on the files it lists; the checker keys its per-file state by them.
      const paths = file as unknown as {
        fileName: string;
        path: string;
        resolvedPath: string;
        originalFileName: string;
      };
      paths.fileName = fileName;
      paths.path = fileName;
      paths.resolvedPath = fileName;
      paths.originalFileName = fileName;
      (ts as unknown as CompilerInternals).bindSourceFile(file, this.#options);
      const checker = this.#checker as TS.TypeChecker & CheckerInternals;
      const globalErrors = checker.getGlobalDiagnostics().length;
      const raw = [...fileOf(file).bindDiagnostics, ...checker.getDiagnostics(file)];
      if (raw.some((diagnostic) => LIMIT_CODES.has(diagnostic.code))) this.#retired = true;
      // A global error now is one no listed file had: the checker's state is in doubt.
      if (checker.getGlobalDiagnostics().length !== globalErrors) {
        this.#retired = true;
        return false;
      }
      // An error in the prefix is an error of the declarations, reported whatever it is.
      return !raw.some((diagnostic) =>
        (diagnostic.start ?? 0) < programStart
          ? diagnostic.category === ts.DiagnosticCategory.Error
          : reported(diagnostic, file, checker),
      );
    } catch {
      // A stack overflow, say: the checker may be mid-update.
      this.#retired = true;
      return false;
    }
  }

  /**
   * Whether a prefixed file reads as the full check's files would: it parses with no directive, pragma
   * or reference, its only module marker is the `export {}` closing it (no `import.meta` or
   * `import()` anywhere), the prefix holds only declarations that mean the same in a module as in
   * a global script (see `plainDeclarationNames`) under names no listed file declares, and the program
   * is one statement, its wrapper function, exactly where `text` put it.
   */
  #isPrefixedProgram(file: TS.SourceFile, text: string, programStart: number): boolean {
    const internal = fileOf(file);
    if (
      internal.parseDiagnostics.length > 0 ||
      (internal.commentDirectives?.length ?? 0) > 0 ||
      file.referencedFiles.length > 0 ||
      file.typeReferenceDirectives.length > 0 ||
      file.libReferenceDirectives.length > 0 ||
      (file as unknown as { checkJsDirective?: unknown }).checkJsDirective !== undefined ||
      // `no-default-lib` would take the lib from the full check's program; AMD names mean nothing here.
      file.hasNoDefaultLib ||
      file.amdDependencies.length > 0 ||
      file.moduleName !== undefined ||
      IMPORT_FLAGS === undefined ||
      (file.flags & IMPORT_FLAGS) !== 0
    ) {
      return false;
    }
    const statements = file.statements;
    const wrapper = statements.at(-2);
    const closing = statements.at(-1);
    const programEnd = programStart + text.trimEnd().length;
    if (
      wrapper === undefined ||
      closing === undefined ||
      !ts.isFunctionDeclaration(wrapper) ||
      wrapper.name?.text !== PROGRAM_FUNCTION ||
      wrapper.getStart(file) !== programStart ||
      wrapper.end !== programEnd ||
      !ts.isExportDeclaration(closing) ||
      closing.getStart(file) !== programEnd + 1
    ) {
      return false;
    }
    const globals = this.#globalNames();
    for (const statement of statements.slice(0, -2)) {
      if (statement.end >= programStart) return false;
      const names = plainDeclarationNames(statement);
      if (names === undefined || names.some((name) => globals.has(name))) return false;
    }
    return true;
  }

  /** Every name the checker's own files (the lib, its roots) declare at their top level, read once. */
  #globalNames(): ReadonlySet<string> {
    if (this.#globals !== undefined) return this.#globals;
    // Names the checker itself holds in the global scope, and the program function's.
    const names = new Set(["globalThis", "undefined", PROGRAM_FUNCTION]);
    for (const file of this.#program.getSourceFiles()) {
      for (const statement of file.statements) {
        if (ts.isVariableStatement(statement)) {
          for (const declaration of statement.declarationList.declarations)
            collectBindingNames(declaration.name, names);
          continue;
        }
        const name = (statement as TS.Node & { readonly name?: TS.Node }).name;
        if (name !== undefined && (ts.isIdentifier(name) || ts.isStringLiteral(name))) names.add(name.text);
      }
    }
    this.#globals = names;
    return names;
  }
}

/**
 * The names a prefix statement declares when it means the same at a module's top level as in a
 * global script: an interface or type alias, or a `declare` constant (no initializer, plain names)
 * or function (no body), with no other modifier. Undefined for anything else (an `export`, a
 * namespace, a class, an enum, a `declare global`, a `var`, which a global script would put on
 * `globalThis`): such a prefix is left to the full check.
 */
function plainDeclarationNames(statement: TS.Statement): string[] | undefined {
  const modifiers = ts.canHaveModifiers(statement) ? (ts.getModifiers(statement) ?? []) : [];
  const declared = modifiers.length === 1 && modifiers[0]?.kind === ts.SyntaxKind.DeclareKeyword;
  if (ts.isInterfaceDeclaration(statement) || ts.isTypeAliasDeclaration(statement)) {
    return modifiers.length === 0 ? [statement.name.text] : undefined;
  }
  if (ts.isFunctionDeclaration(statement)) {
    return declared && statement.body === undefined && statement.name !== undefined ? [statement.name.text] : undefined;
  }
  const flags = ts.isVariableStatement(statement) ? statement.declarationList.flags & ts.NodeFlags.BlockScoped : 0;
  if (ts.isVariableStatement(statement) && declared && flags === ts.NodeFlags.Const) {
    const names: string[] = [];
    for (const declaration of statement.declarationList.declarations) {
      if (!ts.isIdentifier(declaration.name) || declaration.initializer !== undefined) return undefined;
      names.push(declaration.name.text);
    }
    return names;
  }
  return undefined;
}

function collectBindingNames(name: TS.BindingName, into: Set<string>): void {
  if (ts.isIdentifier(name)) into.add(name.text);
  else
    for (const element of name.elements) if (!ts.isOmittedExpression(element)) collectBindingNames(element.name, into);
}

/** Trees parsed elsewhere that a resident checker took: each is checked once, under one name. */
const adoptedTrees = new WeakSet<TS.SourceFile>();

/**
 * Whether a tree parsed elsewhere may stand for `text` in a check: the very text, parsed as the
 * checker parses (a TypeScript script, not a declaration file), and taken by no checker before. A
 * checker keeps a checked file's diagnostics under the name it gave it: a second name would hide them.
 */
function adoptTree(tree: TS.SourceFile, text: string): boolean {
  if (adoptedTrees.has(tree) || tree.text !== text || tree.isDeclarationFile) return false;
  if (
    tree.languageVersion !== ts.ScriptTarget.ES2022 ||
    tree.languageVariant !== ts.LanguageVariant.Standard ||
    (tree.flags & ts.NodeFlags.JavaScriptFile) !== 0
  )
    return false;
  adoptedTrees.add(tree);
  return true;
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
