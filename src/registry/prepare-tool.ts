// What registration does for one tool, without registering it: the name parsed, the schemas
// checked (compiled on first use), the examples checked. The registry runs it for every tool it
// takes in; sources run it to set one bad tool aside instead of failing the whole listing.

import type { JsonValue } from "../contract.js";
import { SwitchyardError } from "../errors.js";
import { formatViolations, prepareSchema, type CompiledValidator } from "../schema/schema-validator.js";
import { parsedNameOf, toToolDefinition, type ToolDefinition } from "./define-tool.js";
import type { ParsedToolName } from "./tool-name.js";

/** A registered tool: its definition plus what registration computed once. */
export interface RegisteredTool {
  readonly definition: ToolDefinition;
  readonly parsedName: ParsedToolName;
  /** Compiles the input schema on its first call, then reuses it. */
  readonly validateInput: CompiledValidator;
  /** Compiles the output schema on its first call, then reuses it. */
  readonly validateOutput: CompiledValidator | undefined;
}

/**
 * Does for one tool what registration does (name, schemas, examples), without registering it.
 * Throws the same SwitchyardError a registration would; lets a source set aside one bad tool.
 * Schemas are checked now and compiled on first use; a tool with `inputExamples` has its input
 * schema compiled now, because a bad example must be reported at registration, not at a call.
 */
export function prepareTool(input: ToolDefinition): RegisteredTool {
  // Accept specs that did not pass through defineTool (plain objects from config files).
  const definition = toToolDefinition(input);
  const parsedName = parsedNameOf(definition);
  const validateInput = prepareSchema(definition.inputSchema, `Tool "${definition.name}" inputSchema`);
  const validateOutput =
    definition.outputSchema === undefined
      ? undefined
      : prepareSchema(definition.outputSchema, `Tool "${definition.name}" outputSchema`);
  (definition.inputExamples ?? []).forEach((example: JsonValue, index: number) => {
    const violations = validateInput(example);
    if (violations.length > 0) {
      throw new SwitchyardError(
        "EXAMPLE_INVALID",
        formatViolations(`Tool "${definition.name}" inputExamples[${index}] does not match inputSchema`, violations),
      );
    }
  });
  return { definition, parsedName, validateInput, validateOutput };
}
