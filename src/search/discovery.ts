// Discovery, before the pipeline: what the model is shown of the catalog. Keeps a search index in step with the registry, decides which tools'
// declarations are loaded up front and which wait to be found (deferred loading), and
// answers searches from the host, from the model (`search_tools`) and from programs
// (`tools.$search`, `tools.$describe`). Loading never edits the request prefix: found
// declarations travel in tool results, so prompt caching keeps hitting.

import { ToolError } from "../errors.js";
import { globToRegExp } from "../permissions/permission-gate.js";
import type { CatalogSnapshot, RegisteredTool } from "../registry/tool-registry.js";
import { generateToolDeclaration, type DeclarationTool } from "../schema/generate-declarations.js";
import { countTokens, TOKENIZER } from "./token-count.js";
import { ToolSearch, type SearchResult, type ToolReference, type ToolSearchOptions } from "./tool-search.js";

export interface DiscoveryOptions {
  /**
   * `auto` (default): everything is loaded while the catalog is small (at most
   * `maxLoadedTools` tools and `maxLoadedTokens` tokens of declarations), else deferred.
   * `true` defers every tool not in `alwaysLoaded`; `false` loads everything.
   */
  readonly defer?: "auto" | boolean;
  /** Globs of tool names that are always loaded, e.g. core tools. */
  readonly alwaysLoaded?: readonly string[];
  readonly maxLoadedTools?: number;
  readonly maxLoadedTokens?: number;
  /** List the names of deferred tools in the run_program description. Default true up to 200 tools. */
  readonly listDeferredNames?: boolean;
}

/** What `catalogStats()` reports; token counts use `tokenizer`. */
export interface CatalogStats {
  /** Tools a program may call (their declarations are what the counts measure). */
  readonly tools: number;
  readonly loadedTools: number;
  readonly declarationTokens: number;
  readonly loadedTokens: number;
  readonly tokenizer: string;
  readonly catalogVersion: number;
}

/** A search for the model or a program: references plus the declarations of what was found. */
export interface SearchToolsAnswer {
  readonly references: readonly ToolReference[];
  /** TypeScript declarations of the found tools; once seen, the model may call them. */
  readonly declarations: string;
}

const DEFAULT_MAX_LOADED_TOOLS = 10;
const DEFAULT_MAX_LOADED_TOKENS = 10_000;
const MAX_LISTED_NAMES = 200;

/** The discovery station of one session. */
export class Discovery {
  readonly #search = new ToolSearch();
  readonly #options: DiscoveryOptions;
  readonly #alwaysLoaded: readonly RegExp[];
  readonly #loaded = new Set<string>();
  // Keyed weakly by tool: a tool replaced by a catalog change drops out with its entries.
  readonly #declarationCache = new WeakMap<RegisteredTool, string>();
  readonly #tokenCache = new WeakMap<RegisteredTool, number>();
  #snapshot: CatalogSnapshot | undefined;

  constructor(options: DiscoveryOptions = {}) {
    this.#options = options;
    this.#alwaysLoaded = (options.alwaysLoaded ?? []).map(globToRegExp);
  }

  /** Re-indexes after a catalog change, one source at a time (unchanged sources keep their index). */
  update(snapshot: CatalogSnapshot): void {
    const previousBySource = groupBySource(this.#snapshot?.tools ?? []);
    const bySource = groupBySource(snapshot.tools);
    this.#snapshot = snapshot;
    for (const [source, tools] of bySource) {
      const before = previousBySource.get(source);
      if (before !== undefined && sameTools(before, tools)) continue;
      this.#search.setTools(
        source,
        tools.map((tool) => tool.definition),
      );
    }
    for (const source of previousBySource.keys()) if (!bySource.has(source)) this.#search.removeGroup(source);
    for (const name of this.#loaded) if (snapshot.get(name) === undefined) this.#loaded.delete(name);
  }

  /** Searches the catalog: references only. A bad regex is `{ ok: false, error: PATTERN_INVALID }`. */
  search(query: string, options: ToolSearchOptions = {}): SearchResult {
    return this.#search.search(query, options);
  }

  /** Whether the catalog is deferred (too large to load whole) under the options. */
  get deferring(): boolean {
    const defer = this.#options.defer ?? "auto";
    if (defer !== "auto") return defer;
    const tools = this.#programTools();
    if (tools.length > (this.#options.maxLoadedTools ?? DEFAULT_MAX_LOADED_TOOLS)) return true;
    return this.#tokensOf(tools) > (this.#options.maxLoadedTokens ?? DEFAULT_MAX_LOADED_TOKENS);
  }

  /** Tools whose declarations go into the run_program description (the stable prefix). */
  upFrontTools(): RegisteredTool[] {
    const tools = this.#programTools();
    if (!this.deferring) return tools;
    return tools.filter((tool) => this.#alwaysLoaded.some((pattern) => pattern.test(tool.definition.name)));
  }

  /**
   * Whether a provider that searches natively should load `name` only when its search finds it:
   * the catalog is deferred and `name` matches none of `alwaysLoaded`.
   */
  defersTool(name: string): boolean {
    return this.deferring && !this.#alwaysLoaded.some((pattern) => pattern.test(name));
  }

  /** Names of tools that must be searched for before use; empty when nothing is deferred. */
  deferredNames(): string[] {
    const upFront = new Set(this.upFrontTools());
    return this.#programTools()
      .filter((tool) => !upFront.has(tool))
      .map((tool) => tool.definition.name);
  }

  // Declarations are what programs see: tools only a model may call directly do not count.
  #programTools(): RegisteredTool[] {
    return this.#requireSnapshot().tools.filter((tool) => tool.definition.callers.includes("program"));
  }

  /** Whether the run_program description should list deferred names. */
  get listsDeferredNames(): boolean {
    return this.#options.listDeferredNames ?? this.deferredNames().length <= MAX_LISTED_NAMES;
  }

  /**
   * Runs a search for the model and loads what it found: the answer carries the found tools'
   * declarations, and `loadedTools()` includes them from now on.
   */
  searchAndLoad(query: string, options: ToolSearchOptions = {}): SearchToolsAnswer {
    const found = this.search(query, options);
    if (!found.ok) throw new ToolError(found.error.message, { code: "PATTERN_INVALID" });
    const snapshot = this.#requireSnapshot();
    const declarations = found.references
      .map((reference) => snapshot.get(reference.name))
      .filter((tool): tool is RegisteredTool => tool !== undefined)
      .map((tool) => {
        this.#loaded.add(tool.definition.name);
        return this.#declarationOf(tool);
      });
    return { references: found.references, declarations: declarations.join("\n") };
  }

  /** Names loaded by searches so far in this session. */
  loadedTools(): string[] {
    return [...this.#loaded];
  }

  /** The declaration text of one tool, by full name or identifier path; undefined for an unknown name. */
  declarationOf(name: string): string | undefined {
    const tool = this.#requireSnapshot().get(name);
    return tool === undefined ? undefined : this.#declarationOf(tool);
  }

  /** Counts of the catalog and of what is loaded now, in tokens of declarations. */
  stats(): CatalogStats {
    const snapshot = this.#requireSnapshot();
    const loaded = new Set([
      ...this.upFrontTools(),
      ...[...this.#loaded].map((name) => snapshot.get(name)).filter((tool) => tool !== undefined),
    ]);
    const programTools = this.#programTools();
    return {
      tools: programTools.length,
      loadedTools: loaded.size,
      declarationTokens: this.#tokensOf(programTools),
      loadedTokens: this.#tokensOf([...loaded]),
      tokenizer: TOKENIZER,
      catalogVersion: snapshot.version,
    };
  }

  #tokensOf(tools: readonly RegisteredTool[]): number {
    let total = 0;
    for (const tool of tools) {
      let tokens = this.#tokenCache.get(tool);
      if (tokens === undefined) {
        tokens = countTokens(this.#declarationOf(tool));
        this.#tokenCache.set(tool, tokens);
      }
      total += tokens;
    }
    return total;
  }

  #declarationOf(tool: RegisteredTool): string {
    let declaration = this.#declarationCache.get(tool);
    if (declaration === undefined) {
      declaration = generateToolDeclaration(declarationToolOf(tool));
      this.#declarationCache.set(tool, declaration);
    }
    return declaration;
  }

  #requireSnapshot(): CatalogSnapshot {
    if (this.#snapshot === undefined) throw new Error("Discovery.update() was never called");
    return this.#snapshot;
  }
}

/** The declaration input of a registered tool. */
export function declarationToolOf(tool: RegisteredTool): DeclarationTool {
  return {
    name: tool.definition.name,
    namespaceIdentifier: tool.parsedName.namespaceIdentifier,
    localIdentifier: tool.parsedName.localIdentifier,
    description: tool.definition.description,
    inputSchema: tool.definition.inputSchema,
    ...(tool.definition.outputSchema === undefined ? {} : { outputSchema: tool.definition.outputSchema }),
    ...(tool.definition.inputExamples === undefined ? {} : { inputExamples: tool.definition.inputExamples }),
  };
}

function groupBySource(tools: readonly RegisteredTool[]): Map<string, RegisteredTool[]> {
  const groups = new Map<string, RegisteredTool[]>();
  for (const tool of tools) {
    const group = groups.get(tool.definition.source);
    if (group === undefined) groups.set(tool.definition.source, [tool]);
    else group.push(tool);
  }
  return groups;
}

function sameTools(a: readonly RegisteredTool[], b: readonly RegisteredTool[]): boolean {
  return a.length === b.length && a.every((tool, index) => tool === b[index]);
}
