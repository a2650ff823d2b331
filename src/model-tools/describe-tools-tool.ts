// The `describe_tools` tool: declarations of tools by full name, unknown names answered with
// the closest known ones. Shared by the gateway and `tools.$describe` inside programs.

import type { CallError, JsonSchema } from "../contract.js";
import { type SuggestionBudget, suggestToolNames } from "../registry/closest-tool-names.js";
import type { ToolRegistry } from "../registry/tool-registry.js";
import type { Discovery } from "../search/discovery.js";
import type { ModelToolDefinition } from "./model-tool-definition.js";
import { readModelToolInput } from "./read-model-tool-input.js";

export const DESCRIBE_TOOLS_TOOL = "describe_tools";

/** Most names one describe_tools request may ask for. */
export const MAX_DESCRIBED_TOOLS = 50;

/**
 * Unknown names of one describe_tools request that get did-you-mean suggestions; the rest are
 * told to search. Each lookup is an edit distance against every tool (a few ms on 1,000 tools).
 */
export const DESCRIBE_SUGGESTION_LOOKUPS = 5;

const DESCRIBE_TOOLS_INPUT_SCHEMA = {
  type: "object",
  properties: {
    names: {
      type: "array",
      items: { type: "string" },
      minItems: 1,
      maxItems: MAX_DESCRIBED_TOOLS,
      description: "Full tool names.",
    },
  },
  required: ["names"],
  additionalProperties: false,
} as const satisfies JsonSchema;

/** The `describe_tools` tool. */
export function describeDescribeTool(): ModelToolDefinition {
  return {
    name: DESCRIBE_TOOLS_TOOL,
    description:
      "Get the TypeScript declarations of tools by full name (e.g. 'memory.create_entities'), to call them from run_program. Unknown names are reported with the closest known names.",
    inputSchema: DESCRIBE_TOOLS_INPUT_SCHEMA,
  };
}

/** What describe_tools found: declarations, and the unknown names with the closest known ones. */
export interface DescribeAnswer {
  /** Full names described, in the order asked. */
  readonly found: readonly string[];
  /** Their declarations in one `declare const tools` wrapper. */
  readonly declarations: string;
  readonly unknown: readonly { readonly name: string; readonly closest: readonly string[] }[];
}

/** Reads a describe_tools input: the distinct names asked for, or `INPUT_INVALID`. */
export function readDescribeRequest(
  input: unknown,
): { readonly ok: true; readonly names: readonly string[] } | { readonly ok: false; readonly error: CallError } {
  const read = readModelToolInput<{ names: string[] }>(
    DESCRIBE_TOOLS_TOOL,
    DESCRIBE_TOOLS_INPUT_SCHEMA,
    input,
    `{ names: string[] } with 1 to ${MAX_DESCRIBED_TOOLS} full tool names`,
  );
  return read.ok ? { ok: true, names: [...new Set(read.value.names)] } : read;
}

/** What describe_tools reads of a session: the catalog and its declarations (a Switchyard fits). */
export interface DescribeToolsHost {
  readonly registry: Pick<ToolRegistry, "snapshot">;
  readonly discovery: Pick<Discovery, "describeMany">;
}

/**
 * Declarations of the tools named that the model is offered, in one wrapper; the rest are
 * unknown, with suggestions while `suggestions` lasts (default: a budget of
 * DESCRIBE_SUGGESTION_LOOKUPS for this answer alone; a run passes its own, shared by its calls).
 */
export async function describeTools(
  yard: DescribeToolsHost,
  names: readonly string[],
  suggestions: SuggestionBudget = { remaining: DESCRIBE_SUGGESTION_LOOKUPS },
): Promise<DescribeAnswer> {
  const snapshot = yard.registry.snapshot();
  const described = yard.discovery.describeMany(names);
  const unknown: { name: string; closest: readonly string[] }[] = [];
  // One lookup per turn of the event loop (suggestToolNames): a request's lookups never add up to one block.
  for (const name of described.unknown) {
    unknown.push({
      name: name.slice(0, 200),
      closest: await suggestToolNames(snapshot, name, { budget: suggestions }),
    });
  }
  return { found: described.found, declarations: described.declarations, unknown };
}
