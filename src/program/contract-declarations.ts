// What a run declares to the type checker beyond the tools: the TypeScript of its contract with
// the caller (the constant `input`), as plain data so it can travel to the type-check worker.
// Free of imports: the host side of the checker loads it without loading TypeScript.

/**
 * A run's own declarations, checked in a file of their own so the (large, shared) tool
 * declarations stay parsed when only the run's contract changes.
 */
export interface ContractDeclarations {
  /** TypeScript declaring `input` and the types it names; empty when the run has no contract. */
  readonly declarations: string;
}

/** No input, any output. */
export const NO_CONTRACT: ContractDeclarations = Object.freeze({ declarations: "" });
