// The syntax tree of a wrapped program, shared by the passes that only read it: in the checking
// process a new program's references are read, then (when it type-checks) it is linted, from
// the same text. The last tree is kept, so the second pass does not parse again. Never mutated.

import { createRequire } from "node:module";
import type * as TS from "typescript";
import { type ProgramForm, wrapProgramBody } from "./program-wrapper.js";

// Loaded with require, not import: see type-check-program.ts (saves a 300 ms export scan).
const ts = createRequire(import.meta.url)("typescript") as typeof TS;

let last: { readonly source: string; readonly form: ProgramForm; readonly file: TS.SourceFile } | undefined;

/**
 * `wrapProgramBody(source, form)` parsed with parent pointers, as "program.ts": the same tree for
 * the same source and form as the last call. Throws what the parser throws (a stack overflow on
 * absurd nesting); such a source is not kept. Its readers must not change the tree.
 */
export function parseWrappedProgram(source: string, form: ProgramForm): TS.SourceFile {
  if (last?.source === source && last.form === form) return last.file;
  const file = ts.createSourceFile(
    "program.ts",
    wrapProgramBody(source, form),
    ts.ScriptTarget.ES2022,
    true,
    ts.ScriptKind.TS,
  );
  last = { source, form, file };
  return file;
}
