// The catalogs bench:scale measures: the search bench's SaaS catalog replicated under numbered
// namespaces, each tool with schema objects of its own.

import { defineTool, type ToolDefinition } from "../src/registry/define-tool.js";
import { saasTools } from "./search/catalog/saas-tools.js";

/** `size` tools; `round` names a catalog of its own (no check of another round's answers from the checker's cache). */
export function catalogOf(size: number, round?: number): ToolDefinition[] {
  const tools: ToolDefinition[] = [];
  for (let index = 0; tools.length < size; index++) {
    const template = saasTools[index % saasTools.length]!;
    const replica = Math.floor(index / saasTools.length);
    const [service, ...rest] = template.name.split(".");
    tools.push(
      defineTool({
        name: `${service}${replica}${round === undefined ? "" : `r${round}`}.${rest.join(".")}`,
        description: template.description,
        // A fresh object per tool, so no cache by object helps; these schemas are all plain (see
        // isPlainSchema), so registration checks each without ajv, which is what is measured.
        inputSchema: structuredClone({ ...template.inputSchema, required: [] }),
        effect: "read",
        execute: () => ({ ok: true }),
      }),
    );
  }
  return tools;
}
