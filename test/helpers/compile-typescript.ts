// Type-checks in-memory TypeScript sources against the real lib.es2022 (no DOM, no Node types),
// for tests asserting that generated declarations and sample programs compile. Lib files are
// parsed once per process and shared by every check; nothing is read from the project.

import path from "node:path";
import ts from "typescript";

/** One compiler finding, with a 1-based position in the in-memory file. */
export interface CompileDiagnostic {
  readonly file: string;
  readonly line: number;
  readonly column: number;
  readonly code: number;
  readonly message: string;
}

const LIB_DIRECTORY = path.dirname(ts.getDefaultLibFilePath({}));
const libFiles = new Map<string, ts.SourceFile>();

/**
 * Type-checks `files` (name -> source; names ending in `.ts`) as one program with `strict`,
 * lib es2022 only and no emit; `options` override those. Returns every diagnostic, empty when
 * the program compiles. Lib files themselves are not checked (`skipLibCheck`).
 */
export function compileTypeScript(
  files: Readonly<Record<string, string>>,
  options: ts.CompilerOptions = {},
): CompileDiagnostic[] {
  const compilerOptions: ts.CompilerOptions = {
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    target: ts.ScriptTarget.ES2022,
    lib: ["lib.es2022.d.ts"],
    types: [],
    ...options,
  };
  const host: ts.CompilerHost = {
    getSourceFile(fileName, languageVersion) {
      const source = files[fileName];
      if (source !== undefined) return ts.createSourceFile(fileName, source, languageVersion, true);
      return readLibFile(fileName, languageVersion);
    },
    getDefaultLibFileName: () => path.join(LIB_DIRECTORY, "lib.es2022.d.ts"),
    writeFile: () => {},
    getCurrentDirectory: () => "/",
    getDirectories: () => [],
    fileExists: (fileName) => files[fileName] !== undefined || ts.sys.fileExists(fileName),
    readFile: (fileName) => files[fileName] ?? ts.sys.readFile(fileName),
    getCanonicalFileName: (fileName) => fileName,
    useCaseSensitiveFileNames: () => true,
    getNewLine: () => "\n",
  };
  const program = ts.createProgram(Object.keys(files), compilerOptions, host);
  return ts.getPreEmitDiagnostics(program).map(toCompileDiagnostic);
}

/** Formats diagnostics one per line (`file:line:column TScode message`), for assertion output. */
export function formatDiagnostics(diagnostics: readonly CompileDiagnostic[]): string {
  return diagnostics
    .map(({ file, line, column, code, message }) => `${file}:${line}:${column} TS${code} ${message}`)
    .join("\n");
}

function readLibFile(
  fileName: string,
  languageVersion: ts.ScriptTarget | ts.CreateSourceFileOptions,
): ts.SourceFile | undefined {
  const cached = libFiles.get(fileName);
  if (cached !== undefined) return cached;
  const text = ts.sys.readFile(fileName);
  if (text === undefined) return undefined;
  const sourceFile = ts.createSourceFile(fileName, text, languageVersion);
  libFiles.set(fileName, sourceFile);
  return sourceFile;
}

function toCompileDiagnostic(diagnostic: ts.Diagnostic): CompileDiagnostic {
  const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n");
  if (diagnostic.file === undefined || diagnostic.start === undefined) {
    return { file: "", line: 0, column: 0, code: diagnostic.code, message };
  }
  const { line, character } = diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start);
  return { file: diagnostic.file.fileName, line: line + 1, column: character + 1, code: diagnostic.code, message };
}
