// Turns the model's TypeScript into a script for the isolate: strips a Markdown fence, caps
// the size, wraps the source (as the body of an async function, or as one function expression
// whose result is returned: program-wrapper.ts) and strips types with esbuild's transform. It
// never bundles: bundling would read host files. Errors come back located in the model's own lines.

import { createRequire } from "node:module";
import { Script } from "node:vm";
import type * as Esbuild from "esbuild";
import type { Message, TransformResult } from "esbuild";
import type { RunError } from "../contract.js";
import {
  mayBeExpressionProgram,
  PROGRAM_FILE,
  type ProgramForm,
  toModelPosition,
  WRAPPER_LINES,
  wrapForRun,
} from "./program-wrapper.js";
import { SourceMapLookup, type SourcePosition } from "./source-map.js";
import { messageOf } from "../errors.js";

/** A program ready for the isolate. */
export interface CompiledProgram {
  /** The source after fence stripping: what line numbers refer to. */
  readonly source: string;
  /** How the source was wrapped; the type checker and the linter wrap it the same way. */
  readonly form: ProgramForm;
  /** Script text for the isolate; evaluates to the runner's promise. */
  readonly script: string;
  /** Maps a 1-based position in `script` (file `program.js`) to the wrapped source. */
  originalPosition(generated: SourcePosition): SourcePosition | undefined;
}

export type CompileResult =
  | { readonly ok: true; readonly program: CompiledProgram }
  | { readonly ok: false; readonly error: RunError };

/** Bytes a Markdown fence may add around a program at the size limit. */
const FENCE_ALLOWANCE_BYTES = 256;

function tooLarge(bytes: number, options: { maxSourceBytes: number }): RunError {
  return {
    code: "SOURCE_TOO_LARGE",
    message: `The program is ${bytes} bytes, over the ${options.maxSourceBytes}-byte limit; write a shorter program.`,
  };
}

/** An opening fence line: three or more backticks or tildes, then an info string. */
const FENCE_OPENER = /^[ \t]*(`{3,}|~{3,})[^`\n]*$/;

/**
 * Removes one Markdown code fence around the whole text, if there is one: the first non-blank
 * line opens it, and the last non-blank line ends with the same fence. Linear in the text by
 * construction (it looks at two lines), so hostile input cannot make it backtrack.
 */
export function stripCodeFence(text: string): string {
  const start = text.length - text.trimStart().length;
  const openerEnd = text.indexOf("\n", start);
  if (openerEnd === -1) return text;
  const fence = FENCE_OPENER.exec(text.slice(start, openerEnd))?.[1];
  if (fence === undefined) return text;
  const end = text.trimEnd().length;
  if (end <= openerEnd || !text.endsWith(fence, end)) return text;
  const fenceAt = end - fence.length;
  // A longer run is a different fence (```` does not close ```).
  if (text[fenceAt - 1] === fence[0]) return text;
  const lastLineStart = text.lastIndexOf("\n", fenceAt - 1) + 1;
  const closerAlone = text.slice(lastLineStart, fenceAt).trim() === "";
  const bodyEnd = closerAlone ? Math.max(openerEnd + 1, lastLineStart - 1) : fenceAt;
  return bodyEnd <= openerEnd ? "" : text.slice(openerEnd + 1, bodyEnd);
}

/**
 * Compiles a program. Resolves `SOURCE_TOO_LARGE` over `maxSourceBytes` and `SYNTAX_ERROR`
 * with the model's line and column; never rejects for anything in the source.
 */
export async function compileProgram(rawSource: string, options: { maxSourceBytes: number }): Promise<CompileResult> {
  // The size is checked before any other work on the text (a fence adds a few bytes at most).
  const rawBytes = Buffer.byteLength(rawSource);
  if (rawBytes > options.maxSourceBytes + FENCE_ALLOWANCE_BYTES)
    return { ok: false, error: tooLarge(rawBytes, options) };
  const source = stripCodeFence(rawSource);
  const bytes = Buffer.byteLength(source);
  if (bytes > options.maxSourceBytes) return { ok: false, error: tooLarge(bytes, options) };
  // A program that is one function expression runs as that expression; any other program,
  // and one that only starts like a function, as a body (whose errors are the ones reported).
  if (mayBeExpressionProgram(source)) {
    const compiled = await compileAs(source, "expression");
    if (compiled !== undefined) return { ok: true, program: compiled };
  }
  const wrapped = wrapForRun(source, "body");
  if (isPlainJavaScript(wrapped)) {
    return { ok: true, program: { source, form: "body", script: wrapped, originalPosition: (position) => position } };
  }
  let result: TransformResult;
  try {
    result = await transformWithRestart(wrapped);
  } catch (error) {
    return { ok: false, error: syntaxErrorOf(error, source) };
  }
  return { ok: true, program: withSourceMap(source, "body", result) };
}

/** The program compiled in `form`, or undefined when it does not parse that way. */
async function compileAs(source: string, form: ProgramForm): Promise<CompiledProgram | undefined> {
  const wrapped = wrapForRun(source, form);
  if (isPlainJavaScript(wrapped)) return { source, form, script: wrapped, originalPosition: (position) => position };
  try {
    return withSourceMap(source, form, await transformWithRestart(wrapped));
  } catch {
    return undefined;
  }
}

function withSourceMap(source: string, form: ProgramForm, result: TransformResult): CompiledProgram {
  let map: SourceMapLookup | undefined;
  const mapText = result.map;
  // The map is decoded only when an error has to be located.
  const originalPosition = (position: SourcePosition): SourcePosition | undefined =>
    (map ??= new SourceMapLookup((JSON.parse(mapText) as { mappings: string }).mappings)).originalPosition(position);
  return { source, form, script: result.code, originalPosition };
}

// `f<T>(x)` is a call with a type argument in TypeScript and two comparisons in JavaScript:
// text of that shape always goes through the TypeScript transform.
const TYPE_ARGUMENT_SHAPE = /<[^<>;{}]*>\s*[(`]/;

/**
 * True when the wrapped program is already JavaScript that means the same as TypeScript:
 * V8 parses it (without running anything), so it needs no transform. About 0.02 ms against
 * esbuild's 0.6-0.9 ms; any TypeScript syntax fails the parse and takes the esbuild path.
 */
function isPlainJavaScript(wrapped: string): boolean {
  if (TYPE_ARGUMENT_SHAPE.test(wrapped)) return false;
  try {
    new Script(wrapped, { filename: PROGRAM_FILE });
    return true;
  } catch {
    // A syntax error, TypeScript syntax, or a parser stack overflow: esbuild decides.
    return false;
  }
}

let esbuild: typeof Esbuild | undefined;

// Loaded on the first TypeScript program (plain JavaScript never needs it), and with require:
// an ESM import of this CommonJS package would scan it for exports at every start-up.
function loadEsbuild(): typeof Esbuild {
  esbuild ??= createRequire(import.meta.url)("esbuild") as typeof Esbuild;
  return esbuild;
}

/**
 * Loads esbuild and starts its service process (about 15-50 ms, once per process) with one tiny
 * transform, so the first TypeScript program of a session does not wait for it. Never rejects; the
 * service is esbuild's own, unreferenced while idle, so it keeps no host alive and ends with it.
 */
export async function warmUpCompiler(): Promise<void> {
  try {
    await transformWithRestart("const warm: number = 1;");
  } catch {
    // A compiler that cannot start fails the first program instead, with its own message.
  }
}

async function transformWithRestart(code: string): Promise<TransformResult> {
  const { stop, transform } = loadEsbuild();
  // minifyWhitespace keeps output linear in the input: indented output of deeply nested
  // blocks grows quadratically (98 KB of nested `if` printed as 392 MB, measured).
  const options = {
    loader: "ts",
    target: "es2022",
    sourcemap: "external",
    sourcefile: "program.ts",
    minifyWhitespace: true,
    logLevel: "silent",
  } as const;
  try {
    return await transform(code, options);
  } catch (error) {
    if (!isServiceDown(error)) throw error;
    // A deeply nested input can overflow esbuild's stack and stop its service for the whole
    // process; stopping it clears esbuild's handle so the next call starts a fresh one.
    await stop();
    return await transform(code, options);
  }
}

function isServiceDown(error: unknown): boolean {
  return error instanceof Error && /service (is no longer running|was stopped)/i.test(error.message);
}

function syntaxErrorOf(error: unknown, source: string): RunError {
  const messages = (error as { errors?: Message[] }).errors;
  const first = messages?.[0];
  if (first === undefined) {
    return { code: "SYNTAX_ERROR", message: `The program could not be compiled: ${messageOf(error)}` };
  }
  const lineCount = source.split("\n").length;
  const location = first.location;
  const position =
    location === null
      ? { line: 1, column: 1 }
      : toModelPosition(Math.min(location.line, lineCount + WRAPPER_LINES), location.column + 1);
  const lineText = (source.split("\n")[position.line - 1] ?? "").trim().slice(0, 200);
  return {
    code: "SYNTAX_ERROR",
    // The position is in `line` and `column`, which every renderer prints: said once, not again here.
    message: lineText === "" ? first.text : `${first.text}: ${lineText}`,
    line: position.line,
    column: position.column,
  };
}
