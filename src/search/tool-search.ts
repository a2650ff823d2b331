// ToolSearch: the discovery station's catalog index. It keeps one searchable document per
// tool (name, description, parameter names and descriptions pulled out of the JSON Schema),
// follows catalog changes one tool or one source at a time, and answers natural-language
// (BM25) or pattern (regex) queries with short references, never full definitions.

import type { JsonSchema } from "../contract.js";
import { Bm25Index, type Bm25Options, type SearchDocument } from "./bm25-index.js";
import { ExpansionTables, QueryExpander } from "./query-expansion.js";
import { splitWords, tokenize } from "./tokenize.js";
import { CONCEPT_GROUPS, ONE_WAY_TERMS } from "./vocabulary.js";
import type { PatternError } from "./regex-search.js";
import { RegexSearchWorker } from "./regex-search-worker.js";

/** What search needs of a tool; a `ToolDefinition` fits. */
export interface SearchableTool {
  /** The full name, `namespace.name` or a bare name; unique in the index. */
  readonly name: string;
  readonly description: string;
  readonly inputSchema: JsonSchema;
  /** Overrides the namespace derived from the name (the part before the first dot). */
  readonly namespace?: string | undefined;
}

/** A pointer to a tool, for the model: load its definition by name if it fits. */
export interface ToolReference {
  readonly name: string;
  /** The description's first sentence, at most 160 characters. */
  readonly summary: string;
  /** Relevance, higher is better; comparable only within one result. */
  readonly score: number;
}

export type SearchResult =
  | { readonly ok: true; readonly references: ToolReference[] }
  | { readonly ok: false; readonly error: PatternError };

export interface ToolSearchOptions {
  /** `bm25` (default) ranks natural-language queries; `regex` matches a pattern, case-insensitively. */
  readonly mode?: "bm25" | "regex";
  /** How many references to return. Default 5; clamped to [1, 50]. */
  readonly limit?: number;
}

export const DEFAULT_SEARCH_LIMIT = 5;
export const MAX_SEARCH_LIMIT = 50;
/** A BM25 query is cut to this many characters; a model's query is a phrase, not a document. */
export const MAX_QUERY_LENGTH = 1_000;
/** Longest summary, in characters, before it is cut with an ellipsis. */
export const MAX_SUMMARY_LENGTH = 160;
/** Deepest schema nesting whose parameters are indexed; deeper ones are ignored. */
export const MAX_SCHEMA_DEPTH = 6;
/** Most parameters indexed per tool, so a huge schema cannot dominate the index. */
export const MAX_INDEXED_PARAMETERS = 200;
/** Most enum values indexed per parameter: a list of 200 country codes says little about the tool. */
export const MAX_INDEXED_ENUM_VALUES = 20;

/** The first sentence of a description, whitespace-collapsed, cut to 160 characters. */
export function summarize(description: string): string {
  const text = description.replace(/\s+/g, " ").trim();
  // A sentence ends at ". ", "! " or "? " (not inside "e.g. x" or a dotted name like "a.b").
  const end = /[.!?](?=\s+[A-Z0-9("'`])/.exec(text);
  const sentence = end === null ? text : text.slice(0, end.index + 1);
  return sentence.length <= MAX_SUMMARY_LENGTH ? sentence : `${sentence.slice(0, MAX_SUMMARY_LENGTH - 1).trimEnd()}…`;
}

/**
 * Collects what a JSON Schema says about a tool's inputs: parameter names, schema `title`s and
 * string `enum`/`const` values (at most 20 per parameter) as `names`, and `description`s.
 * Visits `properties` at any depth, `items`, `prefixItems`, `additionalProperties`,
 * `anyOf`/`oneOf`/`allOf`, and `$defs` / `definitions`, to depth 6 and at most 200 parameters.
 * `$ref` is not followed (the definitions it points to are indexed where they are declared),
 * so cycles cannot loop.
 */
export function extractParameters(schema: JsonSchema): { names: string[]; descriptions: string[] } {
  const names: string[] = [];
  const descriptions: string[] = [];
  let parameters = 0;
  const visit = (node: unknown, depth: number): void => {
    if (depth > MAX_SCHEMA_DEPTH || node === null || typeof node !== "object" || parameters >= MAX_INDEXED_PARAMETERS)
      return;
    if (Array.isArray(node)) {
      for (const item of node) visit(item, depth);
      return;
    }
    const record = node as Record<string, unknown>;
    const title = record["title"];
    if (typeof title === "string") names.push(title);
    const values = [...(Array.isArray(record["enum"]) ? record["enum"] : []), record["const"]];
    for (const value of values.filter((value) => typeof value === "string").slice(0, MAX_INDEXED_ENUM_VALUES)) {
      names.push(value);
    }
    const properties = record["properties"];
    if (properties !== null && typeof properties === "object" && !Array.isArray(properties)) {
      for (const [name, property] of Object.entries(properties as Record<string, unknown>)) {
        if (parameters >= MAX_INDEXED_PARAMETERS) return;
        parameters += 1;
        names.push(name);
        if (property !== null && typeof property === "object") {
          const description = (property as Record<string, unknown>)["description"];
          if (typeof description === "string") descriptions.push(description);
        }
        visit(property, depth + 1);
      }
    }
    for (const keyword of ["items", "prefixItems", "additionalProperties", "anyOf", "oneOf", "allOf"]) {
      visit(record[keyword], depth + 1);
    }
    for (const keyword of ["$defs", "definitions"]) {
      const definitions = record[keyword];
      if (definitions !== null && typeof definitions === "object") {
        for (const definition of Object.values(definitions as Record<string, unknown>)) visit(definition, depth + 1);
      }
    }
  };
  visit(schema, 0);
  return { names, descriptions };
}

function clampLimit(requested: number | undefined = DEFAULT_SEARCH_LIMIT): number {
  return Number.isFinite(requested)
    ? Math.min(MAX_SEARCH_LIMIT, Math.max(1, Math.floor(requested)))
    : DEFAULT_SEARCH_LIMIT;
}

/** How a ToolSearch indexes and expands. */
export interface ToolSearchIndexOptions extends Bm25Options {
  /** Expand BM25 queries with the vocabulary table. Default true. */
  readonly expansion?: boolean;
  /** Weight of a vocabulary alternative against the query's own word, in (0, 1). Default 0.8. */
  readonly alternativeWeight?: number;
}

let expander: QueryExpander | undefined;
/** The shared expander's table while the background builds it (`prepare`). */
let expanderTables: ExpansionTables | undefined;
/**
 * Work units (see `ToolSearch.prepare`) one entry of the vocabulary costs to build: about 8 µs
 * in a process's first build, against well under 1 µs for a document of a posting.
 */
const VOCABULARY_ENTRY_WORK = 50;

// The table is compiled once per process: every session searches with the same vocabulary.
function sharedTables(): ExpansionTables {
  return (expanderTables ??= new ExpansionTables(CONCEPT_GROUPS, ONE_WAY_TERMS));
}

function sharedExpander(): QueryExpander {
  return (expander ??= new QueryExpander(sharedTables()));
}

/** Builds about `work` units more of the shared expander's table; true once the expander is made. */
function buildSharedExpander(work: number): boolean {
  if (expander === undefined && !sharedTables().build(Math.ceil(work / VOCABULARY_ENTRY_WORK))) return false;
  sharedExpander();
  return true;
}

function namespaceOf(tool: SearchableTool): string {
  const dot = tool.name.indexOf(".");
  return tool.namespace ?? (dot === -1 ? "" : tool.name.slice(0, dot));
}

function localNameOf(tool: SearchableTool, namespace: string): string {
  return namespace !== "" && tool.name.startsWith(`${namespace}.`) ? tool.name.slice(namespace.length + 1) : tool.name;
}

/**
 * Characters of a description the index reads (32 KB): words past them are not searchable, by
 * BM25 or by regex. Descriptions have no size cap (an MCP server picks them) and indexing costs by
 * the character: an 18 MB one held the event loop for over two seconds in its one indexing step.
 */
export const MAX_INDEXED_DESCRIPTION_CHARS = 32 * 1024;

/**
 * Characters of description one indexing step takes at most (a tool with a longer one is a step of
 * its own): tokenizing costs by the character, so `stepSize` tools of 100 KB descriptions would
 * make one step hold the loop for a tenth of a second.
 */
export const MAX_STEP_DESCRIPTION_CHARS = 32 * 1024;

// `tools` cut into slices of at most `size` tools and MAX_STEP_DESCRIPTION_CHARS of descriptions.
function slicesOf(tools: readonly SearchableTool[], size: number): SearchableTool[][] {
  const slices: SearchableTool[][] = [];
  let slice: SearchableTool[] = [];
  let chars = 0;
  for (const tool of tools) {
    const length =
      typeof tool.description === "string" ? Math.min(tool.description.length, MAX_INDEXED_DESCRIPTION_CHARS) : 0;
    if (slice.length > 0 && (slice.length >= size || chars + length > MAX_STEP_DESCRIPTION_CHARS)) {
      slices.push(slice);
      slice = [];
      chars = 0;
    }
    slice.push(tool);
    chars += length;
  }
  if (slice.length > 0) slices.push(slice);
  return slices;
}

/** One bounded piece of an index change; `true` means it has more to do and must run again. */
export type IndexStep = () => boolean | undefined;

/** A namespace needs this many tools before words all their names share count as its marker. */
const MIN_TOOLS_FOR_MARKERS = 3;

/**
 * Words every tool name of a namespace repeats (`slack_post_message`, `browser_click`,
 * `API-post-page`): they name the server, not what a tool does, so they are indexed with the
 * namespace rather than as name words, where they would outrank the words that tell tools apart.
 */
export function namespaceMarkers(tools: readonly SearchableTool[]): Map<string, Set<string>> {
  const collector = new MarkerCollector();
  collector.add(tools);
  return collector.markers();
}

/** Collects namespace markers a slice of tools at a time (the intersection is built as names come). */
class MarkerCollector {
  /** namespace → how many names it has, and the words all of them share so far. */
  readonly #namespaces = new Map<string, { count: number; shared: Set<string> }>();

  add(tools: readonly SearchableTool[]): void {
    for (const tool of tools) {
      const namespace = namespaceOf(tool);
      const terms = tokenize(localNameOf(tool, namespace));
      const seen = this.#namespaces.get(namespace);
      if (seen === undefined) {
        this.#namespaces.set(namespace, { count: 1, shared: new Set(terms) });
        continue;
      }
      seen.count += 1;
      for (const term of seen.shared) if (!terms.includes(term)) seen.shared.delete(term);
    }
  }

  markers(): Map<string, Set<string>> {
    const markers = new Map<string, Set<string>>();
    for (const [namespace, { count, shared }] of this.#namespaces) {
      if (count >= MIN_TOOLS_FOR_MARKERS && shared.size > 0) markers.set(namespace, shared);
    }
    return markers;
  }
}

function toDocument(tool: SearchableTool, markers: ReadonlySet<string> = new Set()): SearchDocument {
  const namespace = namespaceOf(tool);
  const localName = localNameOf(tool, namespace);
  const parameters = extractParameters(tool.inputSchema);
  const words = splitWords(localName);
  const isMarker = (word: string): boolean => markers.has(tokenize(word)[0] ?? "");
  const nameWords = words.filter((word) => !isMarker(word));
  // A marker that repeats the namespace itself (`slack.slack_post_message`) is not counted twice.
  const namespaceTerms = new Set(tokenize(namespace));
  return {
    id: tool.name,
    // A name made only of markers keeps them: it must still be found by its own words.
    namespace:
      nameWords.length === 0
        ? namespace
        : [namespace, ...words.filter((word) => isMarker(word) && !namespaceTerms.has(tokenize(word)[0] ?? ""))].join(
            " ",
          ),
    name: nameWords.length === 0 ? localName : nameWords.join(" "),
    description: tool.description.slice(0, MAX_INDEXED_DESCRIPTION_CHARS),
    parameterNames: parameters.names.join(" "),
    parameterDescriptions: parameters.descriptions.join("\n"),
  };
}

/**
 * A searchable catalog of tools, grouped by the source that provided them. `setTools`
 * swaps a whole source (an MCP server's `listChanged`), `upsert` and `remove` touch one
 * tool; each costs work proportional to the tools changed. Searching never throws for a
 * model's input: a refused regex is a `PATTERN_INVALID` result.
 */
export class ToolSearch {
  readonly #index: Bm25Index;
  /** id → document, in first-insertion order (regex ties follow it, like BM25's). */
  readonly #documents = new Map<string, SearchDocument>();
  readonly #summaries = new Map<string, string>();
  readonly #groupOf = new Map<string, string>();
  readonly #groups = new Map<string, Set<string>>();
  /** Namespace → its marker words, as last computed by `setTools`; `upsert` alone keeps them. */
  readonly #markers = new Map<string, Set<string>>();

  /** Whether BM25 queries are expanded; the shared table is compiled on the first search, not here. */
  readonly #expands: boolean;
  /** Bumped by every change, so the regex worker knows when its copy of the texts is stale. */
  #version = 0;
  #regexWorker: RegexSearchWorker | undefined;
  /** The worker behind synchronous regex searches (`search`); its own, so catalog copies never interleave. */
  #regexSyncWorker: RegexSearchWorker | undefined;
  readonly #alternativeWeight: number | undefined;

  /**
   * `expansion` (default true) matches a BM25 query's words and their vocabulary alternatives
   * (`CONCEPT_GROUPS`, weighted `alternativeWeight`, default 0.8); false matches the words alone.
   */
  constructor(options: ToolSearchIndexOptions = {}) {
    this.#index = new Bm25Index(options);
    this.#expands = options.expansion !== false;
    this.#alternativeWeight = options.alternativeWeight;
  }

  /** The number of tools indexed. */
  get size(): number {
    return this.#documents.size;
  }

  /**
   * Makes `tools` the complete set provided by `group` (a namespace or source id): tools
   * of the group no longer listed are removed, the others added or replaced. A name
   * currently held by another group moves to this one.
   */
  setTools(group: string, tools: readonly SearchableTool[]): void {
    for (const step of this.setToolsInSteps(group, tools, tools.length)) while (step() === true);
  }

  /**
   * `setTools` cut into steps that each touch at most `stepSize` tools, to run in order (between
   * them the index holds part of the change), so a large catalog can be indexed without holding
   * the event loop: the names to drop are listed, the namespace markers collected a slice at a
   * time, dropped names removed, then the tools added. A step that returns true has more to do
   * and is run again before the next. Running every step equals one `setTools`.
   */
  setToolsInSteps(group: string, tools: readonly SearchableTool[], stepSize: number): IndexStep[] {
    const size = Math.max(1, stepSize);
    const collector = new MarkerCollector();
    const dropped: string[] = [];
    const steps: IndexStep[] = [
      () => {
        // A group's first listing drops nothing: no set of 50,000 names (26 ms in one step) is built for it.
        const previous = this.#groups.get(group);
        if (previous === undefined || previous.size === 0) return;
        const keep = new Set(tools.map((tool) => tool.name));
        for (const name of previous) if (!keep.has(name)) dropped.push(name);
      },
    ];
    for (let start = 0; start < tools.length; start += size) {
      steps.push(() => {
        collector.add(tools.slice(start, start + size));
      });
    }
    steps.push(() => {
      for (const [namespace, markers] of collector.markers()) this.#markers.set(namespace, markers);
    });
    // Dropped before any upsert, as one setTools does; how many is known only once the first step ran.
    steps.push(() => {
      for (const name of dropped.splice(0, size)) this.remove(name);
      return dropped.length > 0;
    });
    for (const slice of slicesOf(tools, size)) {
      steps.push(() => {
        for (const tool of slice) this.upsert(tool, group);
      });
    }
    return steps;
  }

  /**
   * Adds or replaces one tool; a replaced tool keeps its place in tie order. Default group:
   * `default`. Its namespace's marker words are those `setTools` last found.
   */
  upsert(tool: SearchableTool, group = "default"): void {
    const document = toDocument(tool, this.#markers.get(namespaceOf(tool)));
    this.#version += 1;
    this.#index.replace(document);
    this.#documents.set(document.id, document);
    this.#summaries.set(document.id, summarize(document.description));
    const previousGroup = this.#groupOf.get(document.id);
    if (previousGroup !== undefined && previousGroup !== group) this.#groups.get(previousGroup)?.delete(document.id);
    this.#groupOf.set(document.id, group);
    let members = this.#groups.get(group);
    if (members === undefined) {
      members = new Set();
      this.#groups.set(group, members);
    }
    members.add(document.id);
  }

  /** Removes one tool by full name; returns false when it was not indexed. */
  remove(name: string): boolean {
    if (!this.#documents.has(name)) return false;
    this.#version += 1;
    this.#index.remove(name);
    this.#documents.delete(name);
    this.#summaries.delete(name);
    const group = this.#groupOf.get(name);
    this.#groupOf.delete(name);
    if (group !== undefined) {
      const members = this.#groups.get(group);
      members?.delete(name);
      if (members?.size === 0) this.#groups.delete(group);
    }
    return true;
  }

  /** `removeGroup` as one step that removes at most `stepSize` tools per run (true: run it again). */
  removeGroupInSteps(group: string, stepSize: number): IndexStep {
    return () => {
      const members = this.#groups.get(group);
      if (members === undefined) return false;
      let removed = 0;
      for (const name of members) {
        if (removed++ >= stepSize) return true;
        this.remove(name);
      }
      return false;
    };
  }

  /** Removes every tool of a group; returns how many were removed. */
  removeGroup(group: string): number {
    const members = [...(this.#groups.get(group) ?? [])];
    for (const name of members) this.remove(name);
    return members.length;
  }

  /**
   * Finds tools for a query and returns references, best first, equal scores in catalog
   * order. `bm25` (default) tokenizes the query (first 1,000 characters) like the catalog;
   * a query with no searchable words returns no references. `regex` treats the query as a case-insensitive
   * pattern and fails with `PATTERN_INVALID` for a refused one (see `checkPattern`) or one that runs
   * past `REGEX_WORKER_DEADLINE_MS`: it runs on a worker thread while this thread waits, so a
   * pattern the static check did not foresee blocks the caller for the deadline, not its own time.
   */
  search(query: string, options: ToolSearchOptions = {}): SearchResult {
    const limit = clampLimit(options.limit);
    let hits: readonly { readonly id: string; readonly score: number }[];
    if (options.mode === "regex") {
      this.#regexSyncWorker ??= new RegexSearchWorker();
      const result = this.#regexSyncWorker.searchNow(this.#documents.values(), this.#version, query, limit);
      if (!result.ok) return result;
      hits = result.hits;
    } else {
      const text = typeof query === "string" ? query.slice(0, MAX_QUERY_LENGTH) : "";
      hits = this.#expands
        ? this.#index.searchConcepts(sharedExpander().expand(text), limit, this.#alternativeWeight)
        : this.#index.search(text, limit);
    }
    return this.#answer(hits);
  }

  /**
   * Like `search`, for queries from models and programs: a regex runs on a worker thread with a
   * hard deadline (`REGEX_WORKER_DEADLINE_MS`), so no pattern can hold the host's event loop;
   * one that runs past it fails with `PATTERN_INVALID`. BM25 queries answer as `search` does.
   */
  async searchOffThread(query: string, options: ToolSearchOptions = {}): Promise<SearchResult> {
    if (options.mode !== "regex") return this.search(query, options);
    this.#regexWorker ??= new RegexSearchWorker();
    const result = await this.#regexWorker.search(
      () => this.#documents.values(),
      this.#version,
      query,
      clampLimit(options.limit),
    );
    return result.ok ? this.#answer(result.hits) : result;
  }

  /**
   * Prepares about `work` units of the scoring data searches would otherwise build on first use
   * (see Bm25Index.prepare); returns true when all is ready. For background work: searching never needs it.
   */
  prepare(work: number): boolean {
    // The shared vocabulary table first (compiled once per process, 10-30 ms): else the first search pays it.
    if (this.#expands && !buildSharedExpander(work)) return false;
    return this.#index.prepare(work);
  }

  /** The summary of an indexed tool, or undefined. */
  summaryOf(name: string): string | undefined {
    return this.#summaries.get(name);
  }

  /** Stops the regex workers, if any were started; searching later starts new ones. */
  async close(): Promise<void> {
    await Promise.all([this.#regexWorker?.close(), this.#regexSyncWorker?.close()]);
  }

  #answer(hits: readonly { readonly id: string; readonly score: number }[]): SearchResult {
    return {
      ok: true,
      references: hits.map(({ id, score }) => ({
        name: id,
        summary: this.#summaries.get(id) ?? "",
        score: Math.round(score * 1000) / 1000,
      })),
    };
  }
}
