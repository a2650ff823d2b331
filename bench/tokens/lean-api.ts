// The lean variant of a list-returning tool: the same tool with field selection and
// server-side filters added to its input, as a well-designed API would offer them. The
// service behind it is unchanged; the tool filters and projects the list before it answers,
// so only what the caller asked for enters the context.

import type { JsonSchema } from "../../src/contract.js";
import { defineTool, type ToolDefinition } from "../../src/registry/define-tool.js";

/** One server-side filter on the items of the list. */
export interface LeanFilter {
  /** The input field, e.g. `statuses`. */
  readonly name: string;
  readonly schema: JsonSchema;
  /** Keeps an item when the caller set the filter to `value`. */
  keep(item: Record<string, unknown>, value: unknown): boolean;
}

export interface LeanSpec {
  /** The result field holding the list, e.g. `expenses`. */
  readonly listField: string;
  /** Fields of one item that `fields` may select. */
  readonly itemFields: readonly string[];
  readonly filters?: readonly LeanFilter[];
  /** Replaces the tool's description (it should mention the new options). */
  readonly description: string;
}

/**
 * `tool` with `fields` (which item fields to return; default all) and `spec.filters` added
 * to its input. The output schema is dropped: projected items no longer have every field,
 * and only direct callers use lean tools.
 */
export function leanTool(tool: ToolDefinition, spec: LeanSpec): ToolDefinition {
  const base = tool.inputSchema as { properties?: Record<string, unknown>; required?: string[] };
  const filters = spec.filters ?? [];
  const extras = new Set(["fields", ...filters.map((filter) => filter.name)]);
  return defineTool({
    name: tool.name,
    description: spec.description,
    inputSchema: {
      ...base,
      properties: {
        ...base.properties,
        fields: {
          type: "array",
          items: { type: "string", enum: [...spec.itemFields] },
          minItems: 1,
          uniqueItems: true,
          description: `Fields of each item of \`${spec.listField}\` to return; default all.`,
        },
        ...Object.fromEntries(filters.map((filter) => [filter.name, filter.schema])),
      },
    },
    effect: tool.effect,
    execute: async (input: Record<string, unknown>, context) => {
      const plain = Object.fromEntries(Object.entries(input).filter(([key]) => !extras.has(key)));
      const result = (await tool.execute(plain, context)) as Record<string, unknown>;
      const items = result[spec.listField];
      if (!Array.isArray(items)) return result;
      const fields = input.fields as string[] | undefined;
      const kept = items
        .filter((item: Record<string, unknown>) =>
          filters.every((filter) => input[filter.name] === undefined || filter.keep(item, input[filter.name])),
        )
        .map((item: Record<string, unknown>) =>
          fields === undefined
            ? item
            : Object.fromEntries(fields.filter((field) => field in item).map((field) => [field, item[field]])),
        );
      return { ...result, [spec.listField]: kept };
    },
  });
}

/** A filter keeping items whose `field` is one of the given values. */
export function oneOfFilter(name: string, field: string, values: readonly string[], description: string): LeanFilter {
  return {
    name,
    schema: { type: "array", items: { type: "string", enum: [...values] }, minItems: 1, description },
    keep: (item, value) => (value as string[]).includes(String(item[field])),
  };
}
