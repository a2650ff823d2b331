// The did-you-mean of TOOL_NOT_FOUND: registered names within a few typos of the name asked
// for. Bounded in work whatever the name (a hostile program controls it): an edit distance
// stops at the largest distance that would still count as a typo, a run gets a budget of
// lookups, after which its unknown names get no suggestions, and `suggestToolNames` spreads each
// lookup over turns of the event loop, so no loop of typos holds the host's loop for long.

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
  if (!spendLookup(name, options.budget)) return [];
  const lookup = new NameLookup(snapshot, name, options.limit ?? 3);
  lookup.compare(snapshot.tools.length);
  return lookup.closest();
}

/**
 * `closestToolNames` as the did-you-mean of a call or a describe request: spends one lookup of
 * `budget` now, and compares the name with at most TOOLS_PER_TURN tools per turn of the event
 * loop, one lookup after another for the whole process, in the order asked; answers at once
 * (and empty) when `budget` is spent or the name too long. A lookup is an edit distance against
 * every tool, a few ms on 1,000 tools: a program's calls answered synchronously, or many made at
 * once, would otherwise add their lookups up into one long block of the host's loop.
 */
export function suggestToolNames(
  snapshot: CatalogSnapshot,
  name: string,
  options: { readonly limit?: number; readonly budget?: SuggestionBudget } = {},
): readonly string[] | Promise<string[]> {
  if (!spendLookup(name, options.budget)) return [];
  return new Promise((resolve) => {
    queued.push({ lookup: new NameLookup(snapshot, name, options.limit ?? 3), resolve });
    if (queued.length === 1) setImmediate(compareSome);
  });
}

/** Spends one lookup of `budget` for `name`; false, spending nothing, for a name too long or a budget spent. */
function spendLookup(name: string, budget: SuggestionBudget | undefined): boolean {
  if (name.length > MAX_NAME_LENGTH) return false;
  if (budget === undefined) return true;
  if (budget.remaining <= 0) return false;
  budget.remaining -= 1;
  return true;
}

/** Tools a queued lookup is compared with in one turn of the event loop (well under a millisecond). */
export const TOOLS_PER_TURN = 100;

/** Lookups waiting for their turns, first asked first; the first one is under way. */
const queued: { readonly lookup: NameLookup; readonly resolve: (names: string[]) => void }[] = [];

function compareSome(): void {
  const head = queued[0];
  if (head === undefined) return;
  if (head.lookup.compare(TOOLS_PER_TURN)) {
    queued.shift();
    head.resolve(head.lookup.closest());
  }
  // Scheduled from inside the check phase, the next slice runs in the loop's next turn.
  if (queued.length > 0) setImmediate(compareSome);
}

/** One name compared with a snapshot's tools, a slice at a time. */
class NameLookup {
  readonly #tools: CatalogSnapshot["tools"];
  readonly #target: string;
  readonly #targetLocal: string;
  readonly #maxDistance: number;
  readonly #limit: number;
  readonly #found: { name: string; distance: number }[] = [];
  #next = 0;

  constructor(snapshot: CatalogSnapshot, name: string, limit: number) {
    this.#tools = snapshot.tools;
    this.#target = name.toLowerCase();
    this.#targetLocal = this.#target.split(".").pop() ?? this.#target;
    this.#maxDistance = Math.max(2, Math.floor(this.#target.length / 4));
    this.#limit = limit;
  }

  /** Compares the name with the next `count` tools; true when every tool has been compared. */
  compare(count: number): boolean {
    const end = Math.min(this.#tools.length, this.#next + count);
    const maxDistance = this.#maxDistance;
    for (; this.#next < end; this.#next++) {
      const tool = this.#tools[this.#next]!;
      const distance = Math.min(
        leven(this.#target, tool.definition.name.toLowerCase(), { maxDistance: maxDistance + 1 }),
        leven(this.#targetLocal, tool.parsedName.localName.toLowerCase(), { maxDistance }) + 1,
      );
      if (distance <= maxDistance) this.#found.push({ name: tool.definition.name, distance });
    }
    return this.#next >= this.#tools.length;
  }

  /** The closest names found, best first (a stable sort: ties keep the catalog's order). */
  closest(): string[] {
    return [...this.#found]
      .sort((a, b) => a.distance - b.distance)
      .slice(0, this.#limit)
      .map((entry) => entry.name);
  }
}
