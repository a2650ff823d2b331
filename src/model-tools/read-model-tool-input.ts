// Checks the input of one of Switchyard's own model-facing tools with the same JSON Schema
// validator the pipeline uses for catalog tools, so a model gets the same INPUT_INVALID
// message shape from run_program as from any tool. Schemas are compiled once.

import type { CallError, JsonSchema } from "../contract.js";
import {
  compileSchema,
  formatViolations,
  violationsToJson,
  type CompiledValidator,
} from "../schema/schema-validator.js";

const validators = new WeakMap<object, CompiledValidator>();

/** The input, typed, or an `INPUT_INVALID` error naming every failing path and what the tool takes. */
export function readModelToolInput<T>(
  tool: string,
  schema: JsonSchema & object,
  input: unknown,
  takes: string,
): { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: CallError } {
  let validate = validators.get(schema);
  if (validate === undefined) {
    validate = compileSchema(schema, `The ${tool} tool's inputSchema`);
    validators.set(schema, validate);
  }
  const violations = validate(input);
  if (violations.length === 0) return { ok: true, value: input as T };
  return {
    ok: false,
    error: {
      code: "INPUT_INVALID",
      message: formatViolations(`Invalid input for ${tool} (it takes ${takes})`, violations),
      details: violationsToJson(violations),
    },
  };
}
