// How a model's program becomes a function: the body of one async function, so top-level
// `await` and `return` work. The compiler and the type checker both wrap with one whole line
// before the source, so the model's line N is line N + WRAPPER_LINES of the wrapped text and
// columns are unchanged. Free of imports: the type-check worker loads it without esbuild.

/** The name of the wrapped program; it shows in stack traces and nowhere else. */
export const PROGRAM_FUNCTION = "__switchyardProgram";
/** The file name the isolate compiles the program under. */
export const PROGRAM_FILE = "program.js";
/** Lines the wrapper puts before the model's first line. */
export const WRAPPER_LINES = 1;

/** The program as a function declaration: what the type checker and the linter read. */
export function wrapProgramBody(source: string): string {
  return `async function ${PROGRAM_FUNCTION}() {\n${source}\n}\n`;
}

/**
 * The program as the argument of the guest runtime's runner: what the isolate runs. An
 * expression, not a declaration, so the program function never becomes a global.
 */
export function wrapForRun(source: string): string {
  return `__switchyardRun(async function ${PROGRAM_FUNCTION}() {\n${source}\n});\n`;
}

/** Maps a 1-based position in wrapped text to the model's source. */
export function toModelPosition(line: number, column: number): { line: number; column: number } {
  return { line: Math.max(1, line - WRAPPER_LINES), column: Math.max(1, column) };
}
