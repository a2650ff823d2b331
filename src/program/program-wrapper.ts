// How a model's program becomes a function. Two forms: the body of one async function (so
// top-level `await` and `return` work), or, when the whole program is one expression such as
// `async () => { ... }`, that expression's value: a function is called and its result
// returned, a promise is awaited. Every wrapper puts one whole line before the source, so the
// model's line N is line N + WRAPPER_LINES and columns are unchanged. Free of imports: the
// type-check worker loads it without esbuild.

/** The name of the wrapped program; it shows in stack traces and nowhere else. */
export const PROGRAM_FUNCTION = "__switchyardProgram";
/** The file name the isolate compiles the program under. */
export const PROGRAM_FILE = "program.js";
/** Lines the wrapper puts before the model's first line. */
export const WRAPPER_LINES = 1;

/**
 * `body`: statements, the body of an async function. `expression`: the whole program is one
 * expression (after an optional trailing `;`), whose value is the program's result.
 */
export type ProgramForm = "body" | "expression";

const VALUE = "__switchyardValue";
const CALL = "__switchyardCallProgram";

// What an expression program may start with to be a function: `async`, `function`, `(`, a
// type parameter list, or `name =>`. Anything else is tried as a body only.
const FUNCTION_START = /^(?:async\b|function\b|\(|<|[A-Za-z_$][\w$]*\s*=>)/;

/**
 * Whether `source` could be a single function expression, judged by how it starts (after
 * leading comments). Only a parse decides; this spares the parse for ordinary programs.
 */
export function mayBeExpressionProgram(source: string): boolean {
  return FUNCTION_START.test(skipLeadingComments(source));
}

/**
 * The program as a function declaration: what the type checker and the linter read. With
 * `returnType`, a body's function declares it returns that (so each `return` is checked where it
 * is written); an expression program's function must be given its own annotation (the checker
 * inserts it, see type-check-program.ts), the wrapper then checks only what the call yields.
 */
export function wrapProgramBody(source: string, form: ProgramForm = "body", returnType?: string): string {
  const declared = returnType === undefined ? "" : `: Promise<${returnType}>`;
  if (form === "body") return `async function ${PROGRAM_FUNCTION}()${declared} {\n${source}\n}\n`;
  // One top-level statement, as for a body: the helper lives inside the function. Its type
  // mirrors what the run does with the value.
  return (
    `async function ${PROGRAM_FUNCTION}()${declared} { return ${CALL}(\n${asExpression(source)}\n); ` +
    `function ${CALL}<T>(value: T): T extends (...args: never[]) => infer R ? R : T extends PromiseLike<unknown> ? T : undefined { return value as never; } }\n`
  );
}

/**
 * The program as the argument of the guest runtime's runner: what the isolate runs. An
 * expression, not a declaration, so the program function never becomes a global.
 */
export function wrapForRun(source: string, form: ProgramForm = "body"): string {
  if (form === "body") return `__switchyardRun(async function ${PROGRAM_FUNCTION}() {\n${source}\n});\n`;
  return (
    `__switchyardRun(async function ${PROGRAM_FUNCTION}() { const ${VALUE} = (\n${asExpression(source)}\n); ` +
    `return typeof ${VALUE} === "function" ? ${VALUE}() : ${VALUE} !== null && typeof ${VALUE} === "object" && typeof ${VALUE}.then === "function" ? ${VALUE} : undefined; });\n`
  );
}

/** Maps a 1-based position in wrapped text to the model's source. */
export function toModelPosition(line: number, column: number): { line: number; column: number } {
  return { line: Math.max(1, line - WRAPPER_LINES), column: Math.max(1, column) };
}

/** `source` with a final `;` blanked out (not removed, so no position moves). */
function asExpression(source: string): string {
  const end = source.trimEnd().length;
  return source[end - 1] === ";" ? `${source.slice(0, end - 1)} ${source.slice(end)}` : source;
}

function skipLeadingComments(source: string): string {
  let rest = source.trimStart();
  for (;;) {
    if (rest.startsWith("//")) {
      const newline = rest.indexOf("\n");
      rest = newline === -1 ? "" : rest.slice(newline + 1).trimStart();
    } else if (rest.startsWith("/*")) {
      const close = rest.indexOf("*/", 2);
      rest = close === -1 ? "" : rest.slice(close + 2).trimStart();
    } else {
      return rest;
    }
  }
}
