// The did-you-mean of TOOL_NOT_FOUND: registered names within a few typos of the name asked
// for. Bounded in work whatever the name (a hostile program controls it): an edit distance
// stops at the largest distance that would still count as a typo, and a run gets a budget of
// lookups, after which its unknown names get no suggestions.

import leven from "leven";
import type { CatalogSnapshot } from "./tool-registry.js";

/** Lookups one run may make; the next unknown names get no suggestions. */
export const SUGGESTION_LOOKUPS_PER_RUN = 100;

/** Longest name a suggestion is looked up for. */
const MAX_NAME_LENGTH = 256;

/** A run's remaining suggestion lookups; share one object across the run's calls. */
export interface SuggestionBudget {
  remaining: number;
}

/**
 * The registered tools whose names are closest to `name`, best first: what a
 * `TOOL_NOT_FOUND` message suggests. A suggestion must be plausibly a typo of the request
 * (within a quarter of its length, at least 2), not merely another short name. Spends one
 * lookup of `budget` when given; an empty budget or a name over 256 characters gets none.
 */
export function closestToolNames(
  snapshot: CatalogSnapshot,
  name: string,
  options: { readonly limit?: number; readonly budget?: SuggestionBudget } = {},
): string[] {
  if (name.length > MAX_NAME_LENGTH) return [];
  if (options.budget !== undefined) {
    if (options.budget.remaining <= 0) return [];
    options.budget.remaining -= 1;
  }
  const target = name.toLowerCase();
  const targetLocal = target.split(".").pop() ?? target;
  const maxDistance = Math.max(2, Math.floor(target.length / 4));
  const found: { name: string; distance: number }[] = [];
  for (const tool of snapshot.tools) {
    const distance = Math.min(
      leven(target, tool.definition.name.toLowerCase(), { maxDistance: maxDistance + 1 }),
      leven(targetLocal, tool.parsedName.localName.toLowerCase(), { maxDistance }) + 1,
    );
    if (distance <= maxDistance) found.push({ name: tool.definition.name, distance });
  }
  return found
    .sort((a, b) => a.distance - b.distance)
    .slice(0, options.limit ?? 3)
    .map((entry) => entry.name);
}
