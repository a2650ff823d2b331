// A run's check of its tools' results against the observed output types its program was
// type-checked with: the first result of each tool that does not fit becomes an `output-drift`
// warning at the line first calling the tool. The session's types still learn every result.

import type { Diagnostic } from "../contract.js";
import type { ObservedOutputTypes, ObservedType } from "./observed-output-types.js";

/** The code of the warning a run gets when a result does not fit the tool's observed type. */
export const OUTPUT_DRIFT = "output-drift";

/**
 * What the warnings read of the catalog: the identifiers a program calls a tool by (a
 * CatalogSnapshot fits). Declared here so schema/ does not import the registry, which imports it.
 */
export interface ToolIdentifiers {
  get(
    name: string,
  ):
    | { readonly parsedName: { readonly namespaceIdentifier: string | undefined; readonly localIdentifier: string } }
    | undefined;
}

/**
 * One run's view of the observed types: the types as its program was checked against them,
 * and the first result of each tool that did not fit them (the session's types still learn it).
 */
export class OutputDrift {
  readonly #expected: ReadonlyMap<string, ObservedType> | undefined;
  readonly #found = new Map<string, string>();
  /** The run's `observeOutput`; undefined when the session observes nothing. */
  readonly observe: ((tool: string, value: unknown) => void) | undefined;

  constructor(observedTypes: ObservedOutputTypes | undefined) {
    this.#expected = observedTypes?.snapshot();
    this.observe =
      observedTypes === undefined
        ? undefined
        : (tool, value) => {
            const mismatch = observedTypes.observe(tool, value, this.#expected?.get(tool));
            if (mismatch !== undefined && !this.#found.has(tool)) this.#found.set(tool, mismatch);
          };
  }

  /** One `output-drift` warning per tool whose results broke its observed type, at the line first calling it. */
  warnings(source: string, catalog: ToolIdentifiers): Diagnostic[] {
    return [...this.#found].map(([name, mismatch]) => {
      const tool = catalog.get(name);
      const path =
        tool === undefined
          ? name
          : [tool.parsedName.namespaceIdentifier, tool.parsedName.localIdentifier].filter(Boolean).join(".");
      return {
        ...firstCallPosition(source, tool?.parsedName.localIdentifier),
        code: OUTPUT_DRIFT,
        severity: "warning",
        message:
          `tools.${path} returned a result that does not fit its observed type (${mismatch}). The type was only ` +
          "observed, never declared; it is widened from the next run on. Check that value before relying on it.",
      };
    });
  }
}

/** The line and column of the first `<identifier>(` in `source`, else the program's start. */
function firstCallPosition(source: string, identifier: string | undefined): { line: number; column: number } {
  if (identifier === undefined) return { line: 1, column: 1 };
  const escaped = identifier.replace(/[$]/g, "\\$");
  const match = new RegExp(`(?<![\\w$])${escaped}\\s*\\(`).exec(source);
  if (match === null) return { line: 1, column: 1 };
  const before = source.slice(0, match.index).split("\n");
  return { line: before.length, column: (before.at(-1)?.length ?? 0) + 1 };
}
