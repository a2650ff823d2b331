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

/** Any mention of `tools` at all, to tell member chains from other uses. */
const ANY_TOOLS_MENTION = /\btools\b/g;
const NAMESPACE_CHAIN = /^tools\s*\.\s*([A-Za-z_$][\w$]*)/;

/**
 * The namespaces `source` names as `tools.<ns>...`, or `undefined` when it may reach others: a
 * `tools` it does not follow with a plain name (`tools[ns]`, `const t = tools`) or a search
 * (`tools.$search`, `tools.$describe`). Read from the text, as `findReferencedTools` does; a
 * mention in a comment or string only adds a namespace, never hides one.
 */
export function findReferencedNamespaces(source: string): string[] | undefined {
  const namespaces = new Set<string>();
  for (const match of source.matchAll(ANY_TOOLS_MENTION)) {
    const at = match.index ?? 0;
    // `isToolCallError` and the like contain the word only as part of a longer identifier.
    if (at > 0 && /[\w$.]/.test(source[at - 1] ?? "")) continue;
    const chain = NAMESPACE_CHAIN.exec(source.slice(at, at + 200));
    const namespace = chain?.[1];
    if (namespace === undefined || namespace === "$search" || namespace === "$describe") return undefined;
    if (namespace !== "$budget") namespaces.add(namespace);
  }
  return [...namespaces];
}
