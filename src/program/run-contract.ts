// A run's contract with its caller: the constant `input` the program reads, typed for the
// checker from `inputSchema` (through the same JSON Schema -> TypeScript generator as the
// tools) and validated against it with the pipeline's ajv validator before anything runs.
// A schema ajv cannot compile is the integrator's mistake: it throws SCHEMA_INVALID, early.

import type { JsonSchema, RunError } from "../contract.js";
import { compileSchema, formatViolations, violationsToJson } from "../schema/schema-validator.js";
import { schemaToTypeScript } from "../schema/schema-to-typescript.js";
import { type ContractDeclarations, NO_CONTRACT } from "./contract-declarations.js";

/** What a run states about its input. */
export interface RunContractOptions {
  /** JSON Schema the input must match; it also types `input` in the check. */
  readonly inputSchema?: JsonSchema | undefined;
  /** Whether the run was given an input: `input` is declared only then (or with a schema). */
  readonly hasInput: boolean;
}

/** A compiled contract: what the checker declares, and the checks of the values. */
export interface RunContract {
  readonly types: ContractDeclarations;
  /**
   * `INPUT_INVALID` with every failing path when the input (its JSON text; undefined when the
   * run has none) does not match `inputSchema`; undefined when it does or there is no schema.
   */
  checkInput(inputJson: string | undefined): RunError | undefined;
}

/** The name `input`'s type is declared under, unless a tool's type already has it. */
const INPUT_TYPE_NAME = "ProgramInput";

const NO_RUN_CONTRACT: RunContract = Object.freeze({ types: NO_CONTRACT, checkInput: () => undefined });

/**
 * Compiles the contract of one run against `declarations` (the text the program is checked
 * against: contract type names avoid the names declared there, since interfaces with one name
 * would silently merge). Throws `SwitchyardError("SCHEMA_INVALID")` for a schema ajv rejects.
 */
export function compileRunContract(options: RunContractOptions, declarations: string): RunContract {
  const { inputSchema, hasInput } = options;
  if (inputSchema === undefined && !hasInput) return NO_RUN_CONTRACT;
  const validate = inputSchema === undefined ? undefined : compileSchema(inputSchema, "The run's inputSchema");
  return {
    types: { declarations: inputDeclarations(inputSchema, declarations) },
    checkInput: (inputJson) => {
      if (validate === undefined) return undefined;
      if (inputJson === undefined) {
        return {
          code: "INPUT_INVALID",
          message: "The run has an inputSchema but was given no input; nothing ran. Pass `input` with the run.",
          details: [{ path: "", expected: "a value matching the inputSchema", received: "missing" }],
        };
      }
      // Checked as the program will see it: the JSON copy, not the caller's object.
      const violations = validate(JSON.parse(inputJson));
      if (violations.length === 0) return undefined;
      return {
        code: "INPUT_INVALID",
        message: formatViolations("The run's input does not match its inputSchema; nothing ran", violations),
        details: violationsToJson(violations),
      };
    },
  };
}

function inputDeclarations(inputSchema: JsonSchema | undefined, declarations: string): string {
  if (inputSchema === undefined) {
    return `/** The input this run was given: JSON data, the program's own copy. No inputSchema was given, so its shape is not checked. */
declare const input: any;
`;
  }
  const rendered = schemaToTypeScript(inputSchema, {
    rootName: INPUT_TYPE_NAME,
    takenNames: declaredTypeNames(declarations),
  });
  return `${rendered.declarations.join("\n\n")}

/** The input this run was given: JSON data matching the run's inputSchema, the program's own copy. */
declare const input: ${rendered.name};
`;
}

let lastDeclarations: { readonly text: string; readonly names: ReadonlySet<string> } | undefined;

/** Type names declared at the top level of generated declarations (they start a line). */
function declaredTypeNames(declarations: string): Set<string> {
  if (lastDeclarations?.text !== declarations) {
    const names = new Set<string>();
    for (const match of declarations.matchAll(/^(?:interface|type)\s+([A-Za-z_$][\w$]*)/gm)) names.add(match[1]!);
    lastDeclarations = { text: declarations, names };
  }
  return new Set(lastDeclarations.names);
}
