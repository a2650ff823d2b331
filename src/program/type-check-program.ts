// Type-checks a model-written program against the tool declarations: synchronous and pure, so
// it can run inside a worker thread. Positions are 1-based in the model's own source; a bad
// program never throws (it yields diagnostics), only declarations that do not compile do.
// It never emits JavaScript and never sees DOM or Node types: lib es2022 plus the declarations.

import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname } from "node:path";
import type * as TS from "typescript";
import type { Diagnostic, JsonValue } from "../contract.js";
import { SwitchyardError } from "../errors.js";
import { type ContractDeclarations, NO_CONTRACT } from "./contract-declarations.js";
import { findToolReferences, type ToolReferences } from "./find-tool-references.js";
import { parseWrappedProgram } from "./parse-wrapped-program.js";
import { PROGRAM_FUNCTION, type ProgramForm, WRAPPER_LINES, wrapProgramBody } from "./program-wrapper.js";
import { RUNTIME_DECLARATIONS } from "../schema/generate-declarations.js";
import { ResidentChecker } from "./resident-checker.js";

// `import ts from "typescript"` makes Node scan the 9 MB CommonJS file for named exports,
// about 300 ms of every cold start (a worker's included); require skips the scan.
const ts = createRequire(import.meta.url)("typescript") as typeof TS;

const VIRTUAL_DIRECTORY = "/switchyard";
const MAX_DIAGNOSTICS = 50;
const MAX_REMEMBERED_DECLARATIONS = 16;
/**
 * Programs one resident checker checks before a new one replaces it: each leaves its types in the
 * checker's caches (about 120 KB for the 37-line sweep), and a new checker costs one cold check.
 */
const MAX_RESIDENT_CHECKS = 100;
/**
 * Resident checkers kept, one per declarations and contract, least recently used dropped: a model's
 * programs come back to the same few sets of tools. Each holds the lib's resolved types (about
 * 2.5 MB) and its declarations' SourceFile, even after the service let it go: beyond
 * MAX_RESIDENT_DECLARATION_CHARS of declarations in all, only the newest is kept.
 */
const MAX_RESIDENTS = 4;
const MAX_RESIDENT_DECLARATION_CHARS = 2_000_000;
/** Declaration sets whose uses are counted (see `prepareIdle`), least recently used dropped. */
const MAX_REMEMBERED_USES = 64;
/**
 * Most characters of a program's own declarations (its tools', after RUNTIME_DECLARATIONS, and
 * its run's contract) the shared checker checks with it, in the program's file: about a thousand
 * characters per tool, bound and checked again with every program. Larger sets (a whole catalog)
 * get a resident checker of their own, where they are checked once.
 */
const MAX_SHARED_PREFIX_CHARS = 64 * 1024;
/** Programs the shared checker checks before a new one replaces it (see MAX_RESIDENT_CHECKS). */
const MAX_SHARED_CHECKS = 200;
/** The runtime's declarations as the shared checker lists them: every run has them. */
const RUNTIME_FILE_NAME = `${VIRTUAL_DIRECTORY}/runtime-declarations.d.ts`;

/** The compiler options every program is checked with. */
const COMPILER_OPTIONS: TS.CompilerOptions = {
  strict: true,
  // `catch (error) { error.message }` is what models write, and it works at runtime in almost
  // every case; failing the whole run on it costs a model turn for nothing.
  useUnknownInCatchVariables: false,
  // Kept on for what it enables (`const rows = []` evolves as rows are pushed; off, it would be
  // `never[]`); its own diagnostics are dropped from programs (IMPLICIT_ANY_CODES).
  noImplicitAny: true,
  noEmit: true,
  target: ts.ScriptTarget.ES2022,
  lib: ["lib.es2022.d.ts"],
  types: [],
  noUnusedLocals: false,
  noUnusedParameters: false,
  // The declarations file must be checked itself (a broken one is a configuration bug);
  // lib files are never asked for diagnostics.
  skipLibCheck: false,
  skipDefaultLibCheck: true,
  // Keeps program.ts a script even under TypeScript defaults that would make it a module.
  moduleDetection: ts.ModuleDetectionKind.Legacy,
};

/**
 * The noImplicitAny family, never reported for a program: results of tools without an
 * outputSchema (and an `input` without a schema) are `any`, a model cannot know their shape, and
 * `rows.map((row) => row.id)` is correct JavaScript that must not cost a turn for an annotation.
 * TypeScript types such values `any` whether or not it reports them, so dropping the reports
 * changes nothing else: unknown tools, wrong inputs, misspelled fields of typed results and wrong
 * output shapes are other diagnostics and stay errors.
 */
export const IMPLICIT_ANY_CODES: ReadonlySet<number> = new Set([
  7005, 7006, 7008, 7009, 7010, 7011, 7013, 7015, 7017, 7018, 7019, 7020, 7022, 7023, 7024, 7031, 7032, 7033, 7034,
  7052, 7053, 7055, 7057,
  // "'c' is of type 'unknown'" (and "Object is of type 'unknown'"): lib es2022 types
  // `Object.entries(untyped)` and `Object.values(untyped)` as `unknown`, so `([team, c]) => c.open`
  // over an untyped result would fail; a field without a type in a schema is `unknown` too. Such
  // a value is used as freely as `any`; assigning it to a typed place is still checked.
  18046, 2571,
]);

/** "'x' is possibly 'undefined'" and its kin (null, null or undefined; object forms). */
const POSSIBLY_EMPTY_CODES: ReadonlySet<number> = new Set([18047, 18048, 18049, 2531, 2532, 2533]);

/**
 * Whether a "possibly undefined" diagnostic is about a variable declared without a type and
 * without a value (`let last;`, `let best = null;`): TypeScript types it from the assignments it
 * sees in the control flow, and misses those made inside callbacks (`rows.forEach((row) => {
 * last = row; })`), so it would refuse correct JavaScript. Such a variable is as untyped as a tool
 * result without a schema and gets the same rule. Decided from the syntax tree, never a message.
 */
function isAboutUntypedVariable(diagnostic: TS.Diagnostic, file: TS.SourceFile, checker: TS.TypeChecker): boolean {
  if (!POSSIBLY_EMPTY_CODES.has(diagnostic.code) || diagnostic.start === undefined) return false;
  const node = identifierAt(file, diagnostic.start);
  const declaration = node === undefined ? undefined : checker.getSymbolAtLocation(node)?.valueDeclaration;
  if (declaration === undefined || !ts.isVariableDeclaration(declaration) || declaration.type !== undefined)
    return false;
  const initializer = declaration.initializer;
  return (
    initializer === undefined ||
    initializer.kind === ts.SyntaxKind.NullKeyword ||
    (ts.isIdentifier(initializer) && initializer.text === "undefined")
  );
}

function identifierAt(file: TS.SourceFile, position: number): TS.Identifier | undefined {
  let found: TS.Identifier | undefined;
  const visit = (node: TS.Node): void => {
    if (found !== undefined || position < node.getStart(file) || position >= node.getEnd()) return;
    if (ts.isIdentifier(node)) found = node;
    else ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

/** Text the checker put into the model's source (a return type annotation): never on a line of its own. */
export interface Insertion {
  /** Position in the wrapped text where the inserted text starts. */
  readonly at: number;
  readonly text: string;
}

/**
 * Maps a position in `wrapProgramBody(source)` to a 1-based line and column of `source`.
 * Positions inside the wrapper are clamped to the start or end of the source, so an error
 * the wrapper's closing brace reports (an unclosed block) lands on the model's last line.
 * Columns after an `inserted` text on its line move back by its length; inside it, to its start.
 */
export function locateInSource(
  wrapped: TS.SourceFile,
  position: number,
  sourceLength: number,
  inserted?: Insertion,
): { line: number; column: number } {
  // The wrapper's own lines end where the source starts.
  const start = wrapped.getPositionOfLineAndCharacter(WRAPPER_LINES, 0);
  const extra = inserted?.text.length ?? 0;
  const clamped = Math.min(Math.max(position, start), start + sourceLength + extra);
  const found = wrapped.getLineAndCharacterOfPosition(clamped);
  let character = found.character;
  if (inserted !== undefined && clamped > inserted.at) {
    const at = wrapped.getLineAndCharacterOfPosition(inserted.at);
    if (at.line === found.line) character = clamped >= inserted.at + extra ? character - extra : at.character;
  }
  return { line: found.line - WRAPPER_LINES + 1, column: character + 1 };
}

/** Counters a test or benchmark can read; they never influence a check. */
export interface ProgramTypeCheckerStats {
  /** Checks run by this instance. */
  readonly checks: number;
  /** Times the declarations text was parsed into a new SourceFile; unchanged text is reused. */
  readonly declarationParses: number;
  /** Checks a resident checker answered "clean" alone, with no full check. */
  readonly residentClean: number;
  /** Resident checkers made (the first per declarations, and each replacement). */
  readonly residentStarts: number;
  /** Checks the shared checker answered "clean" alone: declarations and program, with no full check. */
  readonly sharedClean: number;
  /** Shared checkers made (the first, and each replacement). */
  readonly sharedStarts: number;
}

/** Options of a ProgramTypeChecker. */
export interface ProgramTypeCheckerOptions {
  /**
   * Whether a program is first checked by a checker kept across programs (see resident-checker.ts):
   * the shared one, with its declarations in its file, or one kept for its declarations and contract
   * when they recur or are large; a clean program is then answered without a new ts.Program.
   * Default true; false checks every program with a fresh one, as a reference.
   */
  readonly resident?: boolean;
}

// Lib texts and snapshots are process-wide: read once from the typescript package, parsed
// once into the shared document registry, whatever number of checkers exist.
const libDirectory = dirname(ts.getDefaultLibFilePath(COMPILER_OPTIONS));
const libSnapshots = new Map<string, TS.IScriptSnapshot | undefined>();
const baseRegistry = ts.createDocumentRegistry(true, VIRTUAL_DIRECTORY);
// Lib SourceFiles are never released, so they stay parsed and bound for the life of the
// process even when every service is disposed (or reset after a compiler crash).
const documentRegistry: TS.DocumentRegistry = {
  ...baseRegistry,
  releaseDocumentWithKey(
    path: TS.Path,
    key: TS.DocumentRegistryBucketKey,
    scriptKind?: TS.ScriptKind,
    impliedNodeFormat?: TS.ResolutionMode,
  ): void {
    if (isLibFile(path)) return;
    baseRegistry.releaseDocumentWithKey(path, key, scriptKind as TS.ScriptKind, impliedNodeFormat);
  },
  releaseDocument(
    fileName: string,
    settings: TS.CompilerOptions,
    scriptKind?: TS.ScriptKind,
    impliedNodeFormat?: TS.ResolutionMode,
  ): void {
    if (isLibFile(fileName)) return;
    baseRegistry.releaseDocument(fileName, settings, scriptKind as TS.ScriptKind, impliedNodeFormat);
  },
};
/** Lib SourceFiles as the service parsed them (never released, never changed): what the shared checker lists. */
const libSourceFiles = new Map<string, TS.SourceFile>();
let runtimeSourceFile: TS.SourceFile | undefined;
let instanceCount = 0;
let libTypeNames: ReadonlySet<string> | undefined;

function isLibFile(fileName: string): boolean {
  return dirname(fileName) === libDirectory;
}

function libSnapshot(fileName: string): TS.IScriptSnapshot | undefined {
  if (!libSnapshots.has(fileName)) {
    let snapshot: TS.IScriptSnapshot | undefined;
    try {
      snapshot = ts.ScriptSnapshot.fromString(readFileSync(fileName, "utf8"));
    } catch {
      snapshot = undefined;
    }
    libSnapshots.set(fileName, snapshot);
  }
  return libSnapshots.get(fileName);
}

/** RUNTIME_DECLARATIONS parsed once per process, as a Program parses a listed declarations file. */
function runtimeFile(): TS.SourceFile {
  runtimeSourceFile ??= ts.createSourceFile(RUNTIME_FILE_NAME, RUNTIME_DECLARATIONS, {
    languageVersion: ts.ScriptTarget.ES2022,
  });
  return runtimeSourceFile;
}

function hashText(text: string): string {
  return createHash("sha256").update(text).digest("hex").slice(0, 24);
}

interface VirtualFile {
  readonly version: string;
  readonly snapshot: TS.IScriptSnapshot;
}

/** What checking the declarations alone found; cached by content hash. */
type DeclarationsVerdict = { readonly ok: true } | { readonly ok: false; readonly error: SwitchyardError };

/**
 * Checks programs against declarations with one long-lived TypeScript LanguageService.
 * The first check in a process costs about half a second (lib es2022 is parsed and bound);
 * later checks reuse the lib and, when the declarations text is unchanged, the declarations'
 * SourceFile too, and take tens of milliseconds. Not safe for concurrent use (it is synchronous).
 */
export class ProgramTypeChecker {
  readonly #programFileName: string;
  #programVersion = 0;
  #program: VirtualFile;
  /** The wrapped text of `#program`. */
  #programText = "";
  /** The source and form of `#program` when its text is exactly `wrapProgramBody(source, form)`. */
  #plainProgram: { readonly source: string; readonly form: ProgramForm } | undefined;
  #declarationsFileName = "";
  #declarations: (VirtualFile & { readonly text: string }) | undefined;
  #contractFileName = "";
  #contract: VirtualFile | undefined;
  #contractText = "";
  /** The return type annotation put into an expression program, if any. */
  #insertion: Insertion | undefined;
  #outputType: string | undefined;
  #service: TS.LanguageService;
  readonly #verdicts = new Map<string, DeclarationsVerdict>();
  #lastDeclarationsSourceFile: TS.SourceFile | undefined;
  #checks = 0;
  #declarationParses = 0;
  readonly #useResident: boolean;
  /** Resident checkers by declarations and contract file names, least recently used first. */
  readonly #residents = new Map<string, { readonly checker: ResidentChecker; readonly chars: number }>();
  #residentStarts = 0;
  #residentClean = 0;
  /** The one checker of lib and runtime that checks small declaration sets with their programs. */
  #shared: ResidentChecker | undefined;
  #sharedStarts = 0;
  #sharedClean = 0;
  /** Uses (checks other than warm-ups) by declarations and contract, least recently used first. */
  readonly #uses = new Map<string, number>();
  /** The declarations and contract the shared checker last answered for. */
  #lastShared: string | undefined;
  #warmUpTurns = 0;

  constructor(options: ProgramTypeCheckerOptions = {}) {
    instanceCount += 1;
    this.#useResident = options.resident ?? true;
    // A distinct path per instance: the shared registry keys SourceFiles by path and version.
    this.#programFileName = `${VIRTUAL_DIRECTORY}/program-${instanceCount}.ts`;
    this.#program = { version: "0", snapshot: ts.ScriptSnapshot.fromString("") };
    this.#service = this.#createService();
  }

  /** Counters for tests and benchmarks. */
  get stats(): ProgramTypeCheckerStats {
    return {
      checks: this.#checks,
      declarationParses: this.#declarationParses,
      residentClean: this.#residentClean,
      residentStarts: this.#residentStarts,
      sharedClean: this.#sharedClean,
      sharedStarts: this.#sharedStarts,
    };
  }

  /**
   * Type-checks `source` as the body of an async function, against `declarations` (the
   * `declare const tools` text, which must also declare `console`) and the run's `contract`
   * (its `input`, and the type it must return). Returns at most 50 diagnostics sorted by
   * position, severity "error": only the syntax errors when there are
   * any, else the type errors. Never throws for a bad program: an internal compiler failure
   * (say, a stack overflow on absurd nesting) becomes one diagnostic with code
   * "CHECK_FAILED". Throws `SwitchyardError` (`CONFIG_INVALID`) when the declarations (or the
   * contract's) do not compile on their own. `warmUp: true` marks a check that does not count as
   * a use of its declarations (see `prepareIdle`); warm-ups alternate between the shared checker and
   * one of their declarations' own.
   */
  check(
    source: string,
    declarations: string,
    form: ProgramForm = "body",
    contract: ContractDeclarations = NO_CONTRACT,
    options: { readonly warmUp?: boolean } = {},
  ): Diagnostic[] {
    this.#checks += 1;
    this.#setDeclarations(declarations);
    this.#setContract(contract.declarations);
    this.#setProgram(source, form, contract.outputType);
    const key = this.#residentKey();
    if (options.warmUp !== true) this.#countUse(key);
    try {
      // A set with a resident checker of its own is checked there: its types are resolved already.
      // Else clean in the shared checker means the declarations compile too: no service, no verdict.
      // Warm-ups take turns between the shared checker and their set's own, so both get fast: real
      // checks go to the first for new sets, to the second for the (small) catalog warmed up with.
      const own =
        options.warmUp === true ? this.#warmUpTurns++ % 2 === 1 : this.#residents.get(key)?.checker.usable === true;
      const shared = own ? "not-shared" : this.#sharedAnswer();
      if (shared !== "not-shared") this.#lastShared = key;
      if (shared === "clean") return [];
      const verdict = this.#declarationsVerdict();
      if (!verdict.ok) throw verdict.error;
      // A resident checker would only repeat the shared one's doubt: straight to the full check.
      if (shared === "not-shared" && this.#isResidentClean()) return [];
      return this.#programDiagnostics(source);
    } catch (error) {
      if (SwitchyardError.isInstance(error)) throw error;
      // The service may be mid-update after a compiler crash; start from a clean one.
      this.#resetService();
      const reason = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
      return [
        {
          line: 1,
          column: 1,
          code: "CHECK_FAILED",
          severity: "error",
          message: `The type checker could not analyse this program (${reason}). Simplify it: less nesting, smaller literals.`,
        },
      ];
    }
  }

  /**
   * What `source` (wrapped as `form`) reads of `tools`, from its syntax tree alone: the tools
   * whose declarations it must be checked against (see find-tool-references.ts). Never throws.
   */
  references(source: string, form: ProgramForm = "body"): ToolReferences {
    const globals = this.#libTypeNames();
    return findToolReferences(source, form, (name) => globals.has(name));
  }

  /** Type names lib es2022 declares, read once per process from the lib files the service parsed. */
  #libTypeNames(): ReadonlySet<string> {
    if (libTypeNames !== undefined) return libTypeNames;
    const names = new Set<string>();
    for (const file of this.#service.getProgram()?.getSourceFiles() ?? []) {
      if (!isLibFile(file.fileName)) continue;
      for (const statement of file.statements) {
        const name = (statement as TS.Node & { readonly name?: TS.Node }).name;
        if (name !== undefined && ts.isIdentifier(name)) names.add(name.text);
      }
    }
    if (names.size > 0) libTypeNames = names;
    return names;
  }

  /** Releases the service's SourceFiles from the shared registry; the instance is unusable after. */
  dispose(): void {
    this.#service.dispose();
  }

  #setDeclarations(text: string): void {
    // The checker process passes the very string it holds when the host sent none: no hash needed.
    if (this.#declarations?.text === text) return;
    const hash = hashText(text);
    // Named by content so checkers with the same catalog share one parse in the registry.
    this.#declarationsFileName = `${VIRTUAL_DIRECTORY}/declarations-${hash}.d.ts`;
    this.#declarations = { version: hash, snapshot: ts.ScriptSnapshot.fromString(text), text };
  }

  #setContract(text: string): void {
    this.#contractText = text;
    if (text === "") {
      this.#contractFileName = "";
      this.#contract = undefined;
      return;
    }
    const hash = hashText(text);
    if (this.#contract?.version === hash) return;
    this.#contractFileName = `${VIRTUAL_DIRECTORY}/contract-${hash}.d.ts`;
    this.#contract = { version: hash, snapshot: ts.ScriptSnapshot.fromString(text) };
  }

  #setProgram(source: string, form: ProgramForm, outputType: string | undefined): void {
    this.#programVersion += 1;
    let text = wrapProgramBody(source, form, outputType);
    this.#outputType = outputType;
    this.#insertion =
      form === "expression" && outputType !== undefined ? returnAnnotation(text, outputType) : undefined;
    if (this.#insertion !== undefined) {
      const { at, text: inserted } = this.#insertion;
      text = `${text.slice(0, at)}${inserted}${text.slice(at)}`;
    }
    this.#programText = text;
    this.#plainProgram = outputType === undefined ? { source, form } : undefined;
    this.#program = { version: String(this.#programVersion), snapshot: ts.ScriptSnapshot.fromString(text) };
  }

  /**
   * The program's tree as its other readers (references, lint) parse it, when the text checked is
   * the one they read (no declared return type): a resident checker then checks that tree rather
   * than parsing the program a second time. Undefined otherwise, or when it does not parse.
   */
  #readersTree(): TS.SourceFile | undefined {
    const plain = this.#plainProgram;
    if (plain === undefined) return undefined;
    try {
      return parseWrappedProgram(plain.source, plain.form);
    } catch {
      // Too deeply nested to parse: the resident checker parses it itself, and fails as it did.
      return undefined;
    }
  }

  #programDiagnostics(source: string): Diagnostic[] {
    const syntactic = this.#service.getSyntacticDiagnostics(this.#programFileName);
    const found = syntactic.length > 0 ? syntactic : this.#service.getSemanticDiagnostics(this.#programFileName);
    this.#countDeclarationParse();
    const program = this.#service.getProgram();
    const wrapped = program?.getSourceFile(this.#programFileName);
    if (wrapped === undefined) throw new Error("program file missing from the compiled program");
    const escapeNode = syntactic.length > 0 ? undefined : wrapperEscape(wrapped);
    if (escapeNode !== undefined) {
      return [
        {
          ...locateInSource(wrapped, escapeNode, source.length, this.#insertion),
          code: 1128,
          severity: "error",
          message:
            "Unexpected '}': it closes the program's own body, so the code after it is outside the program. Remove the extra '}'.",
        },
      ];
    }
    const sourceStart = wrapped.getPositionOfLineAndCharacter(WRAPPER_LINES, 0);
    const checker = program?.getTypeChecker();
    return found
      .filter((diagnostic) => isReported(diagnostic, wrapped, checker))
      .sort((a, b) => (a.start ?? 0) - (b.start ?? 0))
      .slice(0, MAX_DIAGNOSTICS)
      .map((diagnostic): Diagnostic => {
        const start = diagnostic.start ?? 0;
        const message = explainMessage(diagnostic.code, ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n"));
        const onDeclaredReturn =
          this.#outputType !== undefined &&
          (start < sourceStart ||
            (this.#insertion !== undefined &&
              start >= this.#insertion.at &&
              start < this.#insertion.at + this.#insertion.text.length));
        if (onDeclaredReturn && MISSING_RETURN_CODES.has(diagnostic.code)) {
          // Reported on the declared return type, which the model never wrote: say what is
          // missing, on the line where the program ends without returning.
          return {
            line: source.trimEnd().split("\n").length,
            column: 1,
            code: diagnostic.code,
            severity: "error",
            message: `The program must return a ${this.#outputType} (the run's outputSchema) on every path, and it can end without returning one. End it with \`return <value>\`.`,
          };
        }
        const { line, column } = locateInSource(wrapped, start, source.length, this.#insertion);
        return { line, column, code: diagnostic.code, severity: "error", message };
      });
  }

  /**
   * Asks the shared checker (lib and RUNTIME_DECLARATIONS, see resident-checker.ts) about the
   * program with its own declarations (after the runtime's) and contract in its file: "clean" when
   * both compile and the program is clean, "unsure" when not known, "not-shared" when they are not
   * the runtime's followed by at most MAX_SHARED_PREFIX_CHARS (a resident checker of their own
   * then answers). One checker for every tool set: a new set costs its own binding and checking,
   * not a new TypeChecker that resolves the lib again and runs cold.
   */
  #sharedAnswer(): "clean" | "unsure" | "not-shared" {
    const declarations = this.#declarations?.text ?? "";
    if (!this.#useResident || !declarations.startsWith(RUNTIME_DECLARATIONS)) return "not-shared";
    const own = declarations.slice(RUNTIME_DECLARATIONS.length);
    if (own.length + this.#contractText.length >= MAX_SHARED_PREFIX_CHARS) return "not-shared";
    if (this.#shared === undefined || !this.#shared.usable) {
      this.#shared = new ResidentChecker({
        compilerOptions: COMPILER_OPTIONS,
        rootNames: [RUNTIME_FILE_NAME],
        sourceFileOf: (fileName) => (fileName === RUNTIME_FILE_NAME ? runtimeFile() : this.#libSourceFile(fileName)),
        host: {
          fileExists: (fileName) =>
            fileName === RUNTIME_FILE_NAME || (isLibFile(fileName) && libSnapshot(fileName) !== undefined),
          readFile: () => undefined,
          getDefaultLibFileName: (options) => ts.getDefaultLibFilePath(options),
          getCurrentDirectory: () => VIRTUAL_DIRECTORY,
        },
        fileNamePrefix: `${this.#programFileName.slice(0, -".ts".length)}-shared-${this.#sharedStarts}-`,
        maxChecks: MAX_SHARED_CHECKS,
      });
      this.#sharedStarts += 1;
    }
    const clean = this.#shared.check(this.#programText, () => true, isReported, `${own}\n${this.#contractText}`);
    if (clean) this.#sharedClean += 1;
    return clean ? "clean" : "unsure";
  }

  /** A lib file as the service parsed it: taken from its program once, then kept for the process. */
  #libSourceFile(fileName: string): TS.SourceFile | undefined {
    if (!isLibFile(fileName)) return undefined;
    if (!libSourceFiles.has(fileName)) {
      for (const file of this.#service.getProgram()?.getSourceFiles() ?? []) {
        if (isLibFile(file.fileName)) libSourceFiles.set(file.fileName, file);
      }
    }
    return libSourceFiles.get(fileName);
  }

  /**
   * Whether the resident checker for the current declarations and contract finds the program clean,
   * so the full check would report nothing. The resident checker is made from the service's own
   * SourceFiles (the lib, the declarations, the contract), never a second parse of them.
   */
  #isResidentClean(): boolean {
    if (!this.#useResident) return false;
    const resident = this.#residentFor(this.#residentKey());
    if (resident === undefined) return false;
    const clean = resident.check(
      this.#programText,
      (file) => wrapperEscape(file) !== undefined,
      isReported,
      undefined,
      this.#readersTree(),
    );
    if (clean) this.#residentClean += 1;
    return clean;
  }

  /**
   * Prepares, while the process is idle, a resident checker of its own for the declarations the
   * shared checker last answered for, once they were used twice (a model's programs keep coming back
   * to the same tools): each program then costs only itself, not the declarations' types again. Does
   * nothing for declarations that do not compile, that already have one, or used once. Never throws;
   * takes about what one cold check takes, so call it when no request waits.
   */
  prepareIdle(): void {
    const key = this.#lastShared;
    this.#lastShared = undefined;
    if (key === undefined || key !== this.#residentKey() || (this.#uses.get(key) ?? 0) < 2) return;
    if (this.#residents.get(key)?.checker.usable === true) return;
    try {
      if (!this.#declarationsVerdict().ok) return;
      // One small program resolves the basics (Promise, Array) in the new checker.
      this.#residentFor(key)?.check(wrapProgramBody("return 0;"), () => false, isReported);
    } catch {
      // Nothing is lost: the next check goes to the shared checker, or makes this one itself.
    }
  }

  /** The key of the current declarations and contract among the resident checkers. */
  #residentKey(): string {
    return `${this.#declarationsFileName}|${this.#contractFileName}`;
  }

  #countUse(key: string): void {
    const uses = (this.#uses.get(key) ?? 0) + 1;
    this.#uses.delete(key);
    this.#uses.set(key, uses);
    if (this.#uses.size > MAX_REMEMBERED_USES) this.#uses.delete(this.#uses.keys().next().value as string);
  }

  /**
   * The resident checker for `key` (the current declarations and contract), made if there is none
   * usable: from the service's own SourceFiles (the lib, the declarations, the contract), never a
   * second parse of them. Kept as the most recently used.
   */
  #residentFor(key: string): ResidentChecker | undefined {
    let resident = this.#residents.get(key);
    this.#residents.delete(key);
    if (resident === undefined || !resident.checker.usable) {
      const program = this.#service.getProgram();
      if (program === undefined) return undefined;
      const checker = new ResidentChecker({
        compilerOptions: COMPILER_OPTIONS,
        rootNames: [this.#declarationsFileName, this.#contractFileName].filter((name) => name !== ""),
        sourceFileOf: (fileName) => program.getSourceFile(fileName),
        host: {
          fileExists: (fileName) => program.getSourceFile(fileName) !== undefined,
          readFile: () => undefined,
          getDefaultLibFileName: (options) => ts.getDefaultLibFilePath(options),
          getCurrentDirectory: () => VIRTUAL_DIRECTORY,
        },
        fileNamePrefix: `${this.#programFileName.slice(0, -".ts".length)}-resident-${this.#residentStarts}-`,
        maxChecks: MAX_RESIDENT_CHECKS,
      });
      const chars = (this.#declarations?.text.length ?? 0) + (this.#contract?.snapshot.getLength() ?? 0);
      resident = { checker, chars };
      this.#residentStarts += 1;
      this.#countDeclarationParse();
    }
    this.#keepResident(key, resident);
    return resident.checker;
  }

  /** Keeps `resident` as the most recently used, dropping the oldest beyond the count and size limits. */
  #keepResident(key: string, resident: { readonly checker: ResidentChecker; readonly chars: number }): void {
    this.#residents.set(key, resident);
    let chars = 0;
    for (const { chars: each } of this.#residents.values()) chars += each;
    for (const [oldest, { chars: each }] of this.#residents) {
      if (oldest === key || (this.#residents.size <= MAX_RESIDENTS && chars <= MAX_RESIDENT_DECLARATION_CHARS)) break;
      this.#residents.delete(oldest);
      chars -= each;
    }
  }

  #declarationsVerdict(): DeclarationsVerdict {
    // The contract joins the key: a contract type clashing with a tool's type breaks both files.
    const hash = `${this.#declarations?.version ?? ""}|${this.#contract?.version ?? ""}`;
    const known = this.#verdicts.get(hash);
    if (known !== undefined) return known;
    let errors = this.#declarationErrors();
    if (errors.length > 0) {
      // A program that breaks out of its wrapper can make the declarations look broken
      // (duplicate identifiers): confirm against an empty program before blaming them.
      const program = this.#program;
      this.#program = {
        version: `${program.version}-empty`,
        snapshot: ts.ScriptSnapshot.fromString(wrapProgramBody("")),
      };
      try {
        errors = this.#declarationErrors();
      } finally {
        this.#program = program;
      }
    }
    const verdict: DeclarationsVerdict =
      errors.length === 0
        ? { ok: true }
        : {
            ok: false,
            error: new SwitchyardError(
              "CONFIG_INVALID",
              `The tool declarations${this.#contract === undefined ? "" : " or the run's input and output types"} do not compile: ${errors
                .slice(0, 3)
                .map((error) => `line ${error.line}: ${error.message}`)
                .join("; ")}`,
              { diagnostics: errors.slice(0, MAX_DIAGNOSTICS).map((error): JsonValue => ({ ...error })) },
            ),
          };
    if (this.#verdicts.size >= MAX_REMEMBERED_DECLARATIONS) {
      const oldest = this.#verdicts.keys().next();
      if (oldest.done !== true) this.#verdicts.delete(oldest.value);
    }
    this.#verdicts.set(hash, verdict);
    return verdict;
  }

  #declarationErrors(): { line: number; column: number; code: number; message: string }[] {
    const fileNames = [this.#declarationsFileName, this.#contractFileName].filter((name) => name !== "");
    const found = [
      ...this.#service.getCompilerOptionsDiagnostics(),
      ...fileNames.flatMap((fileName) => [
        ...this.#service.getSyntacticDiagnostics(fileName),
        ...this.#service.getSemanticDiagnostics(fileName),
      ]),
    ];
    return found
      .filter((diagnostic) => diagnostic.category === ts.DiagnosticCategory.Error)
      .map((diagnostic) => {
        const position =
          diagnostic.file !== undefined && diagnostic.start !== undefined
            ? diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start)
            : { line: 0, character: 0 };
        return {
          line: position.line + 1,
          column: position.character + 1,
          code: diagnostic.code,
          message: ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n"),
        };
      });
  }

  #countDeclarationParse(): void {
    const sourceFile = this.#service.getProgram()?.getSourceFile(this.#declarationsFileName);
    if (sourceFile !== undefined && sourceFile !== this.#lastDeclarationsSourceFile) {
      this.#declarationParses += 1;
      this.#lastDeclarationsSourceFile = sourceFile;
    }
  }

  #resetService(): void {
    try {
      this.#service.dispose();
    } catch {
      // A service that crashed mid-update may fail to release; the registry entries it held
      // are then simply re-acquired by the new one.
    }
    this.#service = this.#createService();
  }

  #createService(): TS.LanguageService {
    const host: TS.LanguageServiceHost = {
      getCompilationSettings: () => COMPILER_OPTIONS,
      getScriptFileNames: () =>
        [this.#declarationsFileName, this.#contractFileName, this.#programFileName].filter((name) => name !== ""),
      getScriptVersion: (fileName) => this.#virtualFile(fileName)?.version ?? "1",
      getScriptSnapshot: (fileName) =>
        this.#virtualFile(fileName)?.snapshot ?? (isLibFile(fileName) ? libSnapshot(fileName) : undefined),
      getCurrentDirectory: () => VIRTUAL_DIRECTORY,
      getDefaultLibFileName: (options) => ts.getDefaultLibFilePath(options),
      fileExists: (fileName) =>
        this.#virtualFile(fileName) !== undefined || (isLibFile(fileName) && libSnapshot(fileName) !== undefined),
      readFile: (fileName) => {
        const snapshot =
          this.#virtualFile(fileName)?.snapshot ?? (isLibFile(fileName) ? libSnapshot(fileName) : undefined);
        return snapshot?.getText(0, snapshot.getLength());
      },
      directoryExists: (directoryName) => directoryName === VIRTUAL_DIRECTORY || directoryName === libDirectory,
      getDirectories: () => [],
    };
    return ts.createLanguageService(host, documentRegistry, ts.LanguageServiceMode.Semantic);
  }

  #virtualFile(fileName: string): VirtualFile | undefined {
    if (fileName === this.#programFileName) return this.#program;
    if (fileName === this.#declarationsFileName) return this.#declarations;
    if (fileName === this.#contractFileName) return this.#contract;
    return undefined;
  }
}

/**
 * Whether a diagnostic of the wrapped program is reported: errors, without the noImplicitAny family
 * or a "possibly undefined" about an untyped variable.
 */
function isReported(diagnostic: TS.Diagnostic, wrapped: TS.SourceFile, checker: TS.TypeChecker | undefined): boolean {
  return (
    diagnostic.category === ts.DiagnosticCategory.Error &&
    !IMPLICIT_ANY_CODES.has(diagnostic.code) &&
    !(checker !== undefined && isAboutUntypedVariable(diagnostic, wrapped, checker))
  );
}

/**
 * Finds where a program closes its wrapper early (an extra `}` ends the async function and
 * the rest runs as top-level script): the position of that brace, or undefined.
 */
function wrapperEscape(wrapped: TS.SourceFile): number | undefined {
  const wrapper = wrapped.statements[0];
  const body = wrapper !== undefined && ts.isFunctionDeclaration(wrapper) ? wrapper.body : undefined;
  if (wrapped.statements.length === 1 && body !== undefined && body.end >= wrapped.text.length - 1) return undefined;
  return body === undefined ? 0 : body.end - 1;
}

// Messages that would send the model to a tsconfig it does not have: say what the sandbox is.
const MISSING_ENVIRONMENT_CODES = new Set([2580, 2581, 2582, 2583, 2584, 2591, 2592, 2593]);
const SANDBOX_GLOBALS =
  "the sandbox has no Node.js or browser APIs; only ECMAScript 2022 built-ins, `console`, `tools`, `sleep`, `setTimeout` and `clearTimeout` exist";

// Host globals models reach for that TypeScript reports with a bare "Cannot find name".
const HOST_GLOBALS = new Set([
  "window",
  "self",
  "global",
  "fetch",
  "setInterval",
  "clearInterval",
  "setImmediate",
  "queueMicrotask",
  "structuredClone",
  "URL",
  "URLSearchParams",
  "TextEncoder",
  "TextDecoder",
  "atob",
  "btoa",
  "AbortController",
  "crypto",
  "performance",
  "navigator",
  "location",
  "localStorage",
  "XMLHttpRequest",
  "__dirname",
  "__filename",
]);

const NO_INPUT_MESSAGE =
  "Cannot find name 'input': this run was given no input. Pass one with the run (run_program's `input`), or define the value in the program.";

function explainMessage(code: number, message: string): string {
  const named = message.replaceAll(PROGRAM_FUNCTION, "the program");
  const name = /^Cannot find name '([^']+)'/.exec(named)?.[1];
  if (name === "input" && code === 2304) return NO_INPUT_MESSAGE;
  if (name !== undefined && (MISSING_ENVIRONMENT_CODES.has(code) || (code === 2304 && HOST_GLOBALS.has(name)))) {
    return `Cannot find name '${name}': ${SANDBOX_GLOBALS}.`;
  }
  const libHint = named.indexOf(" Do you need to change your target library?");
  if (libHint >= 0)
    return `${named.slice(0, libHint)} It is not in ECMAScript 2022, which is all the sandbox provides.`;
  return named;
}

/** "Must return a value" (2355) and "lacks ending return statement" (2366). */
const MISSING_RETURN_CODES = new Set([2355, 2366]);

/**
 * The return type annotation that makes an expression program's own function declare
 * `outputType`, so each of its `return`s is checked where it is written (a call's argument is
 * only checked as a whole). Undefined when the expression is not a function written without one:
 * the wrapper's own return type then checks what the call yields.
 */
function returnAnnotation(wrapped: string, outputType: string): Insertion | undefined {
  const file = ts.createSourceFile("expression.ts", wrapped, ts.ScriptTarget.ES2022, true, ts.ScriptKind.TS);
  const wrapper = file.statements[0];
  const returned = wrapper !== undefined && ts.isFunctionDeclaration(wrapper) ? wrapper.body?.statements[0] : undefined;
  const call = returned !== undefined && ts.isReturnStatement(returned) ? returned.expression : undefined;
  let value = call !== undefined && ts.isCallExpression(call) ? call.arguments[0] : undefined;
  while (value !== undefined && ts.isParenthesizedExpression(value)) value = value.expression;
  if (value === undefined || !(ts.isArrowFunction(value) || ts.isFunctionExpression(value))) return undefined;
  if (value.type !== undefined || value.asteriskToken !== undefined) return undefined;
  const isAsync = value.modifiers?.some((modifier) => modifier.kind === ts.SyntaxKind.AsyncKeyword) === true;
  const annotation = isAsync ? `: Promise<${outputType}> ` : `: ${outputType} | PromiseLike<${outputType}> `;
  if (ts.isFunctionExpression(value)) return { at: value.body.getStart(file), text: annotation };
  // An arrow's annotation goes after its parameter list's `)`; `x => ...` has none to follow.
  const arrow = value.equalsGreaterThanToken.getStart(file);
  if (wrapped.slice(0, arrow).trimEnd().endsWith(")")) return { at: arrow, text: annotation };
  return undefined;
}

let sharedChecker: ProgramTypeChecker | undefined;

/**
 * Type-checks `source` against `declarations` with a process-wide `ProgramTypeChecker`;
 * see `ProgramTypeChecker.check` for the result and failure modes. Blocks the calling thread
 * for the whole check (about 570 ms cold, tens of ms warm): call it from a worker thread.
 */
export function typeCheckProgram(
  source: string,
  declarations: string,
  form: ProgramForm = "body",
  contract: ContractDeclarations = NO_CONTRACT,
): Diagnostic[] {
  sharedChecker ??= new ProgramTypeChecker();
  return sharedChecker.check(source, declarations, form, contract);
}
