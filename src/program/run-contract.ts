// A run's contract with its caller: the constant `input` the program reads and the value it must
// return, each typed for the checker from its JSON Schema (through the same JSON Schema ->
// TypeScript generator as the tools) and validated with the pipeline's ajv validator: the input
// before anything runs, the output when the program has returned. A schema ajv cannot compile
// is the integrator's mistake: it throws SCHEMA_INVALID, before the run starts.

import type { JsonSchema, JsonValue, RunError } from "../contract.js";
import { compileSchema, formatViolations, violationsToJson } from "../schema/schema-validator.js";
import { schemaToTypeScript } from "../schema/schema-to-typescript.js";
import { type ContractDeclarations, NO_CONTRACT } from "./contract-declarations.js";

/** What a run states about its input and output. */
export interface RunContractOptions {
  /** JSON Schema the input must match; it also types `input` in the check. */
  readonly inputSchema?: JsonSchema | undefined;
  /** Whether the run was given an input: `input` is declared only then (or with a schema). */
  readonly hasInput: boolean;
  /** JSON Schema the program's output must match; it also declares the program's return type. */
  readonly outputSchema?: JsonSchema | undefined;
}

/** A compiled contract: what the checker declares, and the checks of the values. */
export interface RunContract {
  readonly types: ContractDeclarations;
  /** The TypeScript of the output type alone (`interface ProgramOutput ...`); empty without outputSchema. */
  readonly outputDeclarations: string;
  /**
   * `INPUT_INVALID` with every failing path when the input (its JSON text; undefined when the
   * run has none) does not match `inputSchema`; undefined when it does or there is no schema.
   */
  checkInput(inputJson: string | undefined): RunError | undefined;
  /** `OUTPUT_INVALID` with every failing path when `output` does not match `outputSchema`. */
  checkOutput(output: JsonValue): RunError | undefined;
}

/** The names the contract's types are declared under, unless a tool's type already has one. */
const INPUT_TYPE_NAME = "ProgramInput";
const OUTPUT_TYPE_NAME = "ProgramOutput";

const NO_RUN_CONTRACT: RunContract = Object.freeze({
  types: NO_CONTRACT,
  outputDeclarations: "",
  checkInput: () => undefined,
  checkOutput: () => undefined,
});

/**
 * Compiles the contract of one run against `declarations` (the text the program is checked
 * against: contract type names avoid the names declared there, since interfaces with one name
 * would silently merge), or against the names such a text declares, asked for only when the run
 * has a contract. Throws `SwitchyardError("SCHEMA_INVALID")` for a schema ajv rejects.
 */
export function compileRunContract(
  options: RunContractOptions,
  declarations: string | (() => ReadonlySet<string>),
): RunContract {
  const { inputSchema, hasInput, outputSchema } = options;
  if (inputSchema === undefined && !hasInput && outputSchema === undefined) return NO_RUN_CONTRACT;
  const validateInput = inputSchema === undefined ? undefined : compileSchema(inputSchema, "The run's inputSchema");
  const validateOutput = outputSchema === undefined ? undefined : compileSchema(outputSchema, "The run's outputSchema");
  const takenNames = typeof declarations === "string" ? declaredTypeNames(declarations) : new Set(declarations());
  const input = inputSchema !== undefined || hasInput ? inputDeclarations(inputSchema, takenNames) : "";
  const output =
    outputSchema === undefined
      ? undefined
      : schemaToTypeScript(outputSchema, { rootName: OUTPUT_TYPE_NAME, takenNames });
  const outputDeclarations = output === undefined ? "" : `${output.declarations.join("\n\n")}\n`;
  return {
    types: {
      declarations: [input, outputDeclarations].filter((part) => part !== "").join("\n"),
      ...(output === undefined ? {} : { outputType: output.name }),
    },
    outputDeclarations,
    checkInput: (inputJson) => {
      if (validateInput === undefined) return undefined;
      if (inputJson === undefined) {
        return {
          code: "INPUT_INVALID",
          message: "The run has an inputSchema but was given no input; nothing ran. Pass `input` with the run.",
          details: [{ path: "", expected: "a value matching the inputSchema", received: "missing" }],
        };
      }
      // Checked as the program will see it: the JSON copy, not the caller's object.
      const violations = validateInput(JSON.parse(inputJson));
      if (violations.length === 0) return undefined;
      return {
        code: "INPUT_INVALID",
        message: formatViolations("The run's input does not match its inputSchema; nothing ran", violations),
        details: violationsToJson(violations),
      };
    },
    checkOutput: (value) => {
      if (validateOutput === undefined) return undefined;
      const violations = validateOutput(value);
      if (violations.length === 0) return undefined;
      return {
        code: "OUTPUT_INVALID",
        message: formatViolations(
          `The program ran, but its output does not match the run's outputSchema (${output?.name ?? OUTPUT_TYPE_NAME})`,
          violations,
        ),
        details: violationsToJson(violations),
      };
    },
  };
}

function inputDeclarations(inputSchema: JsonSchema | undefined, takenNames: Set<string>): string {
  if (inputSchema === undefined) {
    return `/** The input this run was given: JSON data, the program's own copy. No inputSchema was given, so its shape is not checked. */
declare const input: any;
`;
  }
  const rendered = schemaToTypeScript(inputSchema, { rootName: INPUT_TYPE_NAME, takenNames });
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
