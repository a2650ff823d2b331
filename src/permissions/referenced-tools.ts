// Finds the tools a program names, for showing a whole program to an approver once. It reads
// `tools.<ns>.<name>` and `tools.<name>` member chains in the source text; calls built at run
// time (`tools[ns][name]`) cannot be seen, which is why an approval covers only the names
// found here and every other call still goes through the per-call gate.

import type { CatalogSnapshot } from "../registry/tool-registry.js";

const MEMBER_CHAIN = /\btools\s*\.\s*([A-Za-z_$][\w$]*)(?:\s*\.\s*([A-Za-z_$][\w$]*))?/g;

/** Full names of the catalog tools that `source` names, in order of first mention. */
export function findReferencedTools(source: string, catalog: CatalogSnapshot): string[] {
  const names = new Set<string>();
  for (const match of source.matchAll(MEMBER_CHAIN)) {
    const [, first, second] = match;
    const tool = (second === undefined ? undefined : catalog.get(`${first}.${second}`)) ?? catalog.get(first ?? "");
    if (tool !== undefined) names.add(tool.definition.name);
  }
  return [...names];
}
