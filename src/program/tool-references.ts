// What a program reads of `tools`, as plain data: the host's checker and the checking process both
// use it, and only find-tool-references.ts (in the checking process) needs TypeScript to find it,
// so the host importing this never loads the compiler.

/** What a program reads of `tools`, by name; plain data, so it crosses to the host as is. */
export interface ToolReferences {
  /** `tools` itself is used in a way that cannot be followed (passed, spread, a computed key): all of it. */
  readonly wholeCatalog: boolean;
  /** Keys of `tools` whose value is used whole: a namespace passed on, a bare tool, or an unknown key. */
  readonly namespaces: readonly string[];
  /** `[key, member]`: `tools[key][member]` read with both names written out. */
  readonly members: readonly (readonly [string, string])[];
  /** Distinct identifiers that may be generated type names (they contain Input, Output or Observed). */
  readonly typeNameCandidates: readonly string[];
  /** Names used as types that the program does not declare and lib es2022 lacks: catalog types, or typos. */
  readonly unresolvedTypeNames: readonly string[];
}

/** What a program that cannot be followed, or a hostile one, is checked against: everything. */
export const WHOLE_CATALOG: ToolReferences = Object.freeze({
  wholeCatalog: true,
  namespaces: [],
  members: [],
  typeNameCandidates: [],
  unresolvedTypeNames: [],
});
