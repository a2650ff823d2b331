// The `call_tool` tool: one direct call, by full name, through the same pipeline programs use.
// Offered by the gateway when enabled; the agent loop offers catalog tools under their own names.

import type { CallError, JsonSchema } from "../contract.js";
import type { ModelToolDefinition } from "./model-tool-definition.js";
import { readModelToolInput } from "./read-model-tool-input.js";

export const CALL_TOOL_TOOL = "call_tool";

const CALL_TOOL_INPUT_SCHEMA = {
  type: "object",
  properties: {
    name: { type: "string", description: "Full tool name, e.g. 'memory.read_graph'." },
    input: { type: "object", description: "The tool's input.", additionalProperties: true },
  },
  required: ["name"],
  additionalProperties: false,
} as const satisfies JsonSchema;

/** The `call_tool` tool: one direct call through the same pipeline programs use. */
export function describeCallTool(): ModelToolDefinition {
  return {
    name: CALL_TOOL_TOOL,
    description:
      "Call one tool directly by full name with a JSON input, through the same validation and permissions as programs. Prefer run_program for more than one call.",
    inputSchema: CALL_TOOL_INPUT_SCHEMA,
  };
}

/** Reads a call_tool input: the tool's name and its input (default `{}`), or `INPUT_INVALID`. */
export function readCallToolRequest(
  input: unknown,
):
  | { readonly ok: true; readonly name: string; readonly input: unknown }
  | { readonly ok: false; readonly error: CallError } {
  const read = readModelToolInput<{ name: string; input?: unknown }>(
    CALL_TOOL_TOOL,
    CALL_TOOL_INPUT_SCHEMA,
    input,
    "{ name: string, input?: object }",
  );
  return read.ok ? { ok: true, name: read.value.name, input: read.value.input ?? {} } : read;
}
