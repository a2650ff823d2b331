// The syntax tree of a wrapped program, shared by every pass of the checking process that reads
// it: a new program's references are read, it is type-checked by a resident checker (which binds
// this tree, once, rather than parsing it again), then it is linted. The last tree is kept, so
// later passes do not parse again. Its syntax is never changed.

import { createRequire } from "node:module";
import type * as TS from "typescript";
import { type ProgramForm, wrapProgramBody } from "./program-wrapper.js";

// Loaded with require, not import: see type-check-program.ts (saves a 300 ms export scan).
const ts = createRequire(import.meta.url)("typescript") as typeof TS;

let last: { readonly source: string; readonly form: ProgramForm; readonly file: TS.SourceFile } | undefined;

/**
 * `wrapProgramBody(source, form)` parsed with parent pointers, as "program.ts": the same tree for
 * the same source and form as the last call. Throws what the parser throws (a stack overflow on
 * absurd nesting); such a source is not kept. Its readers must not change the tree's syntax (a
 * resident checker may rename and bind it: see ResidentChecker.check).
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
