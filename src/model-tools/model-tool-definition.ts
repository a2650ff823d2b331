// The shape of a tool as a provider or an MCP client sees it: name, description, JSON Schema.
// Switchyard's own model-facing tools and the catalog's direct tools are offered in this form.

import type { JsonSchema } from "../contract.js";

/** A tool as a provider or MCP client sees it. */
export interface ModelToolDefinition {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: JsonSchema;
  readonly inputExamples?: readonly unknown[];
}
