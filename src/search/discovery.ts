// Discovery, before the pipeline: what the model is shown of the catalog. Keeps a search index
// in step with the registry (leaving out tools every call to which is denied: a model would
// only waste turns on them), decides which tools' declarations are loaded up front and which
// wait to be found (deferred loading), and
// answers searches from the host, from the model (`search_tools`) and from programs
// (`tools.$search`, `tools.$describe`). Loading never edits the request prefix: found
// declarations travel in tool results, so prompt caching keeps hitting.

import { type BackgroundTurn, nextBackgroundTurn } from "../background-turn.js";
import { ToolError } from "../errors.js";
import { globToRegExp } from "../permissions/permission-gate.js";
import type { CatalogSnapshot, RegisteredTool } from "../registry/tool-registry.js";
import type { ObservedType } from "../schema/observed-output-types.js";
import {
  type DeclarationTool,
  generateDeclarations,
  generateToolDeclaration,
  generateToolDeclarations,
} from "../schema/generate-declarations.js";
import { type Embedder, EmbeddingIndex, fuseByReciprocalRank } from "./embedding-index.js";
import { bestTokenCounter } from "./token-count.js";
import {
  extractParameters,
  MAX_SEARCH_LIMIT,
  type SearchResult,
  ToolSearch,
  type ToolReference,
  type IndexStep,
  type ToolSearchOptions,
} from "./tool-search.js";

export interface DiscoveryOptions {
  /**
   * `auto` (default): everything is loaded while the declarations of the catalog fit in
   * `maxLoadedTokens`, else deferred (the number of tools does not matter). `true` defers every
   * tool not in `alwaysLoaded`; `false` loads everything.
   */
  readonly defer?: "auto" | boolean;
  /** Globs of tool names that are always loaded, e.g. core tools. */
  readonly alwaysLoaded?: readonly string[];
  /** Token budget (o200k) of the declarations loaded up front under `auto`. Default 8,000. */
  readonly maxLoadedTokens?: number;
  /**
   * Optional embedder for hybrid retrieval: word queries from models and programs are ranked by
   * BM25 (with the vocabulary) and by embedding similarity, fused by reciprocal rank fusion.
   * Vectors are cached per tool text and catalog version; if the embedder fails, the lexical
   * ranking answers alone. `yard.searchTools` and `searchAndLoad` stay lexical and synchronous.
   * See `createOpenAIEmbedder` and `createTransformersEmbedder`.
   */
  readonly embed?: Embedder;
  /** List the names of deferred tools in the run_program description. Default true up to 200 tools. */
  readonly listDeferredNames?: boolean;
}

/**
 * What `catalogStats()` reports. Token counts use `tokenizer`: exact o200k when gpt-tokenizer
 * is installed, else an estimate that says so (see ESTIMATED_TOKENIZER).
 */
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

/**
 * Characters of declarations per token of the budget past which `auto` defers without counting
 * tokens. o200k averages 3 to 5 characters a token on declarations; 16 is far beyond, so a catalog
 * deferred by this bound would be deferred by the count too (and deferring costs a search, never a tool).
 */
const DEFERRED_CHARS_PER_TOKEN = 16;
/** Default token budget of up-front declarations under `defer: "auto"`. */
export const DEFAULT_MAX_LOADED_TOKENS = 8_000;
const MAX_LISTED_NAMES = 200;
/** Tools per index step (well under a millisecond of work); a background turn runs steps for SLICE_MS. */
const INDEX_STEP_TOOLS = 25;
/**
 * Units of scoring data one preparation step builds once the index holds the catalog (a document
 * of the dense view or of a term's posting; about 1-2 ms). In terms, a step's cost followed the
 * catalog: 50 terms of a 5,000-tool catalog held the loop 35 ms, of 50,000 tools 113 ms.
 */
const PREPARE_STEP_WORK = 10_000;
/**
 * How long one background turn of indexing runs before it yields to the event loop: the longest
 * the index holds the loop, whatever the catalog's size (a step that starts runs to its end).
 */
export const INDEX_SLICE_MS = 8;
/**
 * How often a background build held back by a session's runs looks again whether they have ended.
 * Each look is one timer callback: holding costs a run nothing.
 */
const HELD_RECHECK_MS = 50;
/**
 * Searches the background runs once the index is prepared, for tools spread over the catalog, so
 * that V8 has optimized the search before a person or a model asks: cold, one search over 5,000
 * tools took 5-20 ms and the first ten or so stood out in the p99, warm it takes 0.1 ms. Once per
 * session (what V8 compiled stays compiled), about 100 ms of background work at 5,000 tools.
 */
const WARM_UP_SEARCHES = 30;
/** How many of each ranking enter the fusion. */
const FUSION_DEPTH = MAX_SEARCH_LIMIT;

/** The discovery station of one session. */
export class Discovery {
  readonly #search = new ToolSearch();
  readonly #options: DiscoveryOptions;
  readonly #alwaysLoaded: readonly RegExp[];
  readonly #loaded = new Set<string>();
  // Keyed weakly by tool: a tool replaced by a catalog change drops out with its entries. A
  // declaration holds the tool's observed type, so it is also keyed by that type's revision.
  readonly #declarationCache = new WeakMap<RegisteredTool, { readonly revision: number; readonly text: string }>();
  // What the counts measure of each tool's declaration: numbers only, as the text of thousands of
  // declarations would stay in memory for as long as their tools.
  readonly #tokenCache = new WeakMap<RegisteredTool, number>();
  readonly #charsCache = new WeakMap<RegisteredTool, number>();
  #programToolsOf: { readonly snapshot: CatalogSnapshot; readonly tools: readonly RegisteredTool[] } | undefined;
  readonly #embeddings: EmbeddingIndex | undefined;
  /** The registry's catalog as last given to `update`. */
  #catalog: CatalogSnapshot | undefined;
  /** The offered view of `#catalog`, made on first use after each update (a pass over every tool). */
  #snapshot: CatalogSnapshot | undefined;
  /** The catalog the search index holds once `#indexSteps` have run. */
  #planned: CatalogSnapshot | undefined;
  readonly #indexSteps: IndexStep[] = [];
  /** The next background turn (or, held back, the next look at whether the session's runs have ended). */
  #indexing: BackgroundTurn | undefined;
  /** Resolved when the index holds the catalog: searches from models and programs wait for it. */
  #waiting: { readonly promise: Promise<void>; readonly resolve: () => void } | undefined;
  #closed = false;
  /** Whether the index's scoring data is ready for the catalog indexed (see `ToolSearch.prepare`). */
  #prepared = false;
  /** Warm-up searches run so far (see WARM_UP_SEARCHES). */
  #warmUpSearches = 0;
  /** The last embedder failure, kept for the host to inspect; searches fell back to BM25. */
  lastEmbeddingError: Error | undefined;

  readonly #isOffered: (tool: string) => boolean;
  readonly #observedTypeOf: (tool: string) => ObservedType | undefined;
  readonly #isBusy: () => boolean;
  readonly #describe: ((tools: readonly RegisteredTool[]) => string) | undefined;

  /**
   * `isOffered` says whether a model may be shown a tool (false: every call to it is denied).
   * Default: all are. `observedTypeOf` gives a tool's observed output type for the answers'
   * declarations; the token counts (and so the choice to defer) leave observed types out, so
   * that results never tip a catalog from loaded to deferred. While `isBusy` (runs are in the
   * sandbox; default never) the background build waits, rechecking every HELD_RECHECK_MS, unless a
   * search waits for it: a running program (a resumed run's replay above all) does not share the
   * thread with the vocabulary's compile (tens of ms at once) nor with a large catalog's slices.
   * `describe` renders the declarations answers carry, as the session's checks name their types
   * (CheckedDeclarations.describe); without it, each answer is rendered on its own.
   */
  constructor(
    options: DiscoveryOptions = {},
    isOffered: (tool: string) => boolean = () => true,
    observedTypeOf: (tool: string) => ObservedType | undefined = () => undefined,
    isBusy: () => boolean = () => false,
    describe?: (tools: readonly RegisteredTool[]) => string,
  ) {
    this.#describe = describe;
    this.#options = options;
    this.#isBusy = isBusy;
    this.#observedTypeOf = observedTypeOf;
    this.#alwaysLoaded = (options.alwaysLoaded ?? []).map(globToRegExp);
    this.#isOffered = isOffered;
    this.#embeddings = options.embed === undefined ? undefined : new EmbeddingIndex(options.embed);
  }

  /**
   * Takes a catalog change, in constant time. The search index follows in the background, in
   * turns of at most INDEX_SLICE_MS, or at once on the next synchronous search if that comes first:
   * indexing was the largest cost of constructing a session with a large catalog.
   */
  update(catalog: CatalogSnapshot): void {
    this.#catalog = catalog;
    this.#snapshot = undefined;
    this.#prepared = false;
    this.#closed = false;
    this.#indexInBackground();
  }

  /** Queues the index steps that bring it from the last planned catalog to the current one. */
  #planIndexing(): void {
    const snapshot = this.#requireSnapshot();
    if (snapshot === this.#planned) return;
    const previousBySource = groupBySource(this.#planned?.tools ?? []);
    const bySource = groupBySource(snapshot.tools);
    this.#planned = snapshot;
    for (const [source, tools] of bySource) {
      const before = previousBySource.get(source);
      if (before !== undefined && sameTools(before, tools)) continue;
      const definitions = tools.map((tool) => tool.definition);
      this.#indexSteps.push(...this.#search.setToolsInSteps(source, definitions, INDEX_STEP_TOOLS));
    }
    for (const source of previousBySource.keys()) {
      if (!bySource.has(source)) this.#indexSteps.push(this.#search.removeGroupInSteps(source, INDEX_STEP_TOOLS));
    }
  }

  // Then, once the index holds the catalog, its scoring data, so a first query costs what later ones do.
  #indexInBackground(): void {
    if (this.#indexing !== undefined || this.#closed) return;
    // A session that is never closed is not kept alive by its search index, unless a search waits.
    this.#indexing = nextBackgroundTurn(
      () => {
        this.#indexing = undefined;
        if (this.#waiting === undefined && this.#isBusy()) {
          // Held back while the session's runs are under way; a search that waits starts it at once (`#indexed`).
          this.#indexing = nextBackgroundTurn(() => this.#resumeIndexing(), { afterMs: HELD_RECHECK_MS });
          return;
        }
        const started = performance.now();
        this.#planIndexing();
        while (this.#indexSteps.length > 0 && performance.now() - started < INDEX_SLICE_MS) this.#runStep();
        if (this.#indexSteps.length === 0) this.#settleWaiting();
        while (this.#indexSteps.length === 0 && !this.#prepared && performance.now() - started < INDEX_SLICE_MS) {
          this.#prepared = this.#search.prepare(PREPARE_STEP_WORK);
        }
        while (this.#readyToWarmUp() && performance.now() - started < INDEX_SLICE_MS) this.#warmUpSearch();
        if (this.#indexSteps.length > 0 || !this.#prepared || this.#readyToWarmUp()) this.#indexInBackground();
      },
      { awaited: this.#waiting !== undefined },
    );
  }

  /**
   * Whether the background has nothing left to do for the catalog it was last given: the index
   * holds it, its scoring data is built and its warm-up searches have run. For tests and benchmarks.
   */
  get backgroundDone(): boolean {
    return this.#indexing === undefined && this.#indexSteps.length === 0 && this.#prepared && !this.#readyToWarmUp();
  }

  #readyToWarmUp(): boolean {
    return this.#indexSteps.length === 0 && this.#prepared && this.#warmUpSearches < WARM_UP_SEARCHES;
  }

  // One search for the name of a tool picked evenly over the catalog: its words, as a person types them.
  #warmUpSearch(): void {
    const tools = this.#planned?.tools ?? [];
    const tool = tools[Math.floor((this.#warmUpSearches * tools.length) / WARM_UP_SEARCHES)];
    this.#warmUpSearches = tool === undefined ? WARM_UP_SEARCHES : this.#warmUpSearches + 1;
    if (tool !== undefined) this.#search.search(wordsOfName(tool.definition.name));
  }

  #resumeIndexing(): void {
    this.#indexing = undefined;
    this.#indexInBackground();
  }

  /** Cancels the next background turn, if one is scheduled. */
  #cancelIndexing(): void {
    this.#indexing?.cancel();
    this.#indexing = undefined;
  }

  #runStep(): void {
    const step = this.#indexSteps[0] as IndexStep;
    if (step() !== true) this.#indexSteps.shift();
  }

  #settleWaiting(): void {
    this.#waiting?.resolve();
    this.#waiting = undefined;
  }

  /** The search index brought up to the catalog: what the background has not done yet, now. */
  #index(): ToolSearch {
    this.#planIndexing();
    while (this.#indexSteps.length > 0) this.#runStep();
    this.#settleWaiting();
    return this.#search;
  }

  /**
   * The search index once it holds the catalog, without holding the event loop: waits for the
   * background turns when a build is under way (a closed session's index is finished at once).
   */
  async #indexed(): Promise<ToolSearch> {
    for (;;) {
      this.#planIndexing();
      if (this.#indexSteps.length === 0 || this.#closed) return this.#index();
      if (this.#waiting === undefined) {
        let resolve = (): void => {};
        const promise = new Promise<void>((settle) => {
          resolve = settle;
        });
        this.#waiting = { promise, resolve };
      }
      // The next turn, held back for the session's runs or not awaited, is replaced by one that keeps the process up.
      this.#cancelIndexing();
      this.#indexInBackground();
      await this.#waiting.promise;
    }
  }

  /**
   * Searches the catalog: references only, lexical, synchronous. A bad regex, or one that runs
   * past its deadline on the search worker (the calling thread waits for it, at most the
   * deadline), is `{ ok: false, error: PATTERN_INVALID }`. For the host's own queries; model and
   * program queries go through `find`, which does not block the event loop at all. Being
   * synchronous, a search while the index is still being built finishes the build first (about
   * 40 µs a tool not yet indexed); `find` waits for the background instead.
   */
  search(query: string, options: ToolSearchOptions = {}): SearchResult {
    return this.#index().search(query, options);
  }

  /**
   * Searches for a model or a program. A regex runs on a worker thread with a hard deadline
   * (PATTERN_INVALID past it); words are ranked by BM25 with the vocabulary, fused with the
   * embedder's ranking when `embed` is configured (falling back to BM25 alone if it fails).
   * During a build of the index (a large catalog just registered or changed) it waits for the
   * background turns, so it finds every registered tool without holding the event loop.
   */
  async find(query: string, options: ToolSearchOptions = {}): Promise<SearchResult> {
    const index = await this.#indexed();
    if (options.mode === "regex" || this.#embeddings === undefined || query.trim() === "") {
      return index.searchOffThread(query, options);
    }
    const lexical = index.search(query, { ...options, limit: FUSION_DEPTH });
    if (!lexical.ok) return lexical;
    const limit = Math.min(MAX_SEARCH_LIMIT, Math.max(1, Math.floor(options.limit ?? 5)));
    const snapshot = this.#requireSnapshot();
    let semantic: readonly { name: string }[];
    try {
      semantic = await this.#embeddings.rank(
        query.slice(0, 1_000),
        () => this.#programTools().map((tool) => ({ name: tool.definition.name, text: embeddingTextOf(tool) })),
        snapshot.version,
        FUSION_DEPTH,
      );
    } catch (error) {
      this.lastEmbeddingError = error instanceof Error ? error : new Error(String(error));
      return { ok: true, references: lexical.references.slice(0, limit) };
    }
    const byName = new Map(lexical.references.map((reference) => [reference.name, reference]));
    const fused = fuseByReciprocalRank([
      lexical.references.map((reference) => reference.name),
      semantic.map(({ name }) => name),
    ]);
    const references: ToolReference[] = [];
    for (const { name, score } of fused.slice(0, limit)) {
      const tool = snapshot.get(name);
      if (tool === undefined) continue;
      const summary = byName.get(name)?.summary ?? this.#index().summaryOf(name) ?? "";
      references.push({ name, summary, score: Math.round(score * 10_000) / 10_000 });
    }
    return { ok: true, references };
  }

  /**
   * Whether the catalog is deferred under the options: with `auto`, when its declarations take
   * more than `maxLoadedTokens` (default 8,000) o200k tokens, however many tools that is.
   */
  get deferring(): boolean {
    const defer = this.#options.defer ?? "auto";
    if (defer !== "auto") return defer;
    const budget = this.#options.maxLoadedTokens ?? DEFAULT_MAX_LOADED_TOKENS;
    const tools = this.#programTools();
    // Counting stops once past the budget: at thousands of tools, rendering and tokenizing every
    // declaration held the loop for seconds, and the first few dozen tools settle the answer.
    // Declarations over DEFERRED_CHARS_PER_TOKEN characters per token of budget are deferred
    // without loading the tokenizer at all (about 0.2 s of CPU, once per process).
    if (this.#charsOf(tools, budget * DEFERRED_CHARS_PER_TOKEN) > budget * DEFERRED_CHARS_PER_TOKEN) return true;
    return this.#tokensOf(tools, budget) > budget;
  }

  // The characters of the tools' declarations (as counted for tokens); stops once past `stopAbove`.
  #charsOf(tools: readonly RegisteredTool[], stopAbove: number): number {
    let total = 0;
    for (const tool of tools) {
      if (total > stopAbove) break;
      let chars = this.#charsCache.get(tool);
      if (chars === undefined) {
        chars = this.#countedDeclarationOf(tool).length;
        this.#charsCache.set(tool, chars);
      }
      total += chars;
    }
    return total;
  }

  /** Whether `name` is loaded up front whatever the catalog's size (it matches `alwaysLoaded`). */
  alwaysLoads(name: string): boolean {
    return this.#alwaysLoaded.some((pattern) => pattern.test(name));
  }

  /** Tools whose declarations go into the run_program description (the stable prefix). */
  upFrontTools(): RegisteredTool[] {
    const tools = this.#programTools();
    if (!this.deferring) return [...tools];
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
  // Kept per snapshot: deferral, the up-front set and the deferred names each ask, every turn.
  #programTools(): readonly RegisteredTool[] {
    const snapshot = this.#requireSnapshot();
    if (this.#programToolsOf?.snapshot !== snapshot) {
      const tools = snapshot.tools.filter((tool) => tool.definition.callers.includes("program"));
      this.#programToolsOf = { snapshot, tools };
    }
    return this.#programToolsOf.tools;
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
    return this.#load(this.search(query, options));
  }

  /**
   * `searchAndLoad` through `find`: the regex off the event loop, words fused with the embedder's
   * ranking when one is configured. What model-facing search tools answer with.
   */
  async findAndLoad(query: string, options: ToolSearchOptions = {}): Promise<SearchToolsAnswer> {
    return this.#load(await this.find(query, options));
  }

  // The found tools' declarations in one `declare const tools` wrapper; they count as loaded.
  #load(found: SearchResult): SearchToolsAnswer {
    if (!found.ok) throw new ToolError(found.error.message, { code: "PATTERN_INVALID" });
    const snapshot = this.#requireSnapshot();
    const tools = found.references
      .map((reference) => snapshot.get(reference.name))
      .filter((tool): tool is RegisteredTool => tool !== undefined);
    for (const tool of tools) this.#loaded.add(tool.definition.name);
    return { references: found.references, declarations: this.#declarationsOf(tools) };
  }

  /** Names loaded by searches so far in this session. */
  loadedTools(): string[] {
    // The offered view, made on first use after a catalog change, drops loaded names that change removed.
    if (this.#loaded.size > 0) this.#requireSnapshot();
    return [...this.#loaded];
  }

  /** The declaration text of one tool, by full name or identifier path; undefined for an unknown name. */
  declarationOf(name: string): string | undefined {
    const tool = this.#requireSnapshot().get(name);
    return tool === undefined ? undefined : this.#declarationOf(tool);
  }

  /**
   * The declarations of several tools in one `declare const tools` wrapper, by full name; names
   * not in the catalog are returned apart. Duplicates are described once.
   */
  describeMany(names: readonly string[]): { declarations: string; found: string[]; unknown: string[] } {
    const snapshot = this.#requireSnapshot();
    const tools: RegisteredTool[] = [];
    const unknown: string[] = [];
    for (const name of new Set(names)) {
      const tool = snapshot.get(name);
      if (tool === undefined) unknown.push(name);
      else tools.push(tool);
    }
    return {
      declarations: this.#declarationsOf(tools),
      found: tools.map((tool) => tool.definition.name),
      unknown,
    };
  }

  /** Stops the regex search worker, if any; searching later starts it again. */
  async close(): Promise<void> {
    // Steps left stay queued: a search after close still finds the whole catalog.
    this.#cancelIndexing();
    this.#closed = true;
    this.#settleWaiting();
    await this.#search.close();
  }

  /** Counts of the catalog and of what is loaded now, in tokens of declarations. */
  stats(): CatalogStats {
    const snapshot = this.#requireSnapshot();
    const loaded = new Set([
      ...this.upFrontTools(),
      ...[...this.#loaded].map((name) => snapshot.get(name)).filter((tool) => tool !== undefined),
    ]);
    const programTools = this.#programTools();
    // The token counts are computed when read, once: a caller after the counts of tools (the
    // gateway's start line) must not tokenize thousands of declarations, nor load the tokenizer.
    const tokensOf = (tools: readonly RegisteredTool[]): (() => number) => {
      let tokens: number | undefined;
      return () => (tokens ??= this.#tokensOf(tools));
    };
    const declarationTokens = tokensOf(programTools);
    const loadedTokens = tokensOf([...loaded]);
    return {
      tools: programTools.length,
      loadedTools: loaded.size,
      get declarationTokens() {
        return declarationTokens();
      },
      get loadedTokens() {
        return loadedTokens();
      },
      get tokenizer() {
        return bestTokenCounter().tokenizer;
      },
      catalogVersion: snapshot.version,
    };
  }

  // The tokens of the tools' declarations; stops counting once the total passes `stopAbove`.
  #tokensOf(tools: readonly RegisteredTool[], stopAbove = Number.POSITIVE_INFINITY): number {
    let total = 0;
    for (const tool of tools) {
      if (total > stopAbove) break;
      let tokens = this.#tokenCache.get(tool);
      if (tokens === undefined) {
        tokens = bestTokenCounter().count(this.#countedDeclarationOf(tool));
        this.#tokenCache.set(tool, tokens);
      }
      total += tokens;
    }
    return total;
  }

  // The declaration the counts measure: without observed types, so results never tip deferral.
  #countedDeclarationOf(tool: RegisteredTool): string {
    return generateToolDeclaration(declarationToolOf(tool));
  }

  #declarationsOf(tools: readonly RegisteredTool[]): string {
    if (this.#describe !== undefined) return this.#describe(tools);
    if (tools.length === 1) return this.#declarationOf(tools[0] as RegisteredTool);
    return generateToolDeclarations(
      tools.map((tool) => declarationToolOf(tool, this.#observedTypeOf(tool.definition.name))),
    );
  }

  #declarationOf(tool: RegisteredTool): string {
    if (this.#describe !== undefined) return this.#describe([tool]);
    const observed = this.#observedTypeOf(tool.definition.name);
    const revision = observed?.revision ?? -1;
    let declaration = this.#declarationCache.get(tool);
    if (declaration?.revision !== revision) {
      declaration = { revision, text: generateToolDeclaration(declarationToolOf(tool, observed)) };
      this.#declarationCache.set(tool, declaration);
    }
    return declaration.text;
  }

  #requireSnapshot(): CatalogSnapshot {
    if (this.#snapshot !== undefined) return this.#snapshot;
    if (this.#catalog === undefined) throw new Error("Discovery.update() was never called");
    const snapshot = offeredView(this.#catalog, this.#isOffered);
    this.#snapshot = snapshot;
    for (const name of this.#loaded) if (snapshot.get(name) === undefined) this.#loaded.delete(name);
    return snapshot;
  }
}

/** The declaration input of a registered tool, with its observed output type when it declares none. */
export function declarationToolOf(tool: RegisteredTool, observed?: ObservedType): DeclarationTool {
  return {
    name: tool.definition.name,
    namespaceIdentifier: tool.parsedName.namespaceIdentifier,
    localIdentifier: tool.parsedName.localIdentifier,
    description: tool.definition.description,
    inputSchema: tool.definition.inputSchema,
    ...(tool.definition.outputSchema === undefined ? {} : { outputSchema: tool.definition.outputSchema }),
    ...(tool.definition.outputSchema !== undefined || observed === undefined
      ? {}
      : { observedOutput: { schema: observed.schema, results: observed.results } }),
    ...(tool.definition.inputExamples === undefined ? {} : { inputExamples: tool.definition.inputExamples }),
  };
}

/** The declaration text of the program-callable tools among `tools`, with their observed types. */
export function declarationsOf(
  tools: readonly RegisteredTool[],
  observed: ReadonlyMap<string, ObservedType> | undefined,
): string {
  return generateDeclarations(
    tools
      .filter((tool) => tool.definition.callers.includes("program"))
      .map((tool) => declarationToolOf(tool, observed?.get(tool.definition.name))),
  );
}

/** Whether `tool` is declared with an observed output type (it has none of its own, and results came in). */
export function hasObservedType(
  tool: RegisteredTool,
  observed: ReadonlyMap<string, ObservedType> | undefined,
): boolean {
  return tool.definition.outputSchema === undefined && observed?.get(tool.definition.name)?.schema.type !== undefined;
}

// What an embedder sees of a tool: its name, description and parameter names.
function embeddingTextOf(tool: RegisteredTool): string {
  const parameters = extractParameters(tool.definition.inputSchema).names.join(", ");
  return `${tool.definition.name}: ${tool.definition.description}${parameters === "" ? "" : `\nParameters: ${parameters}`}`;
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

/** The snapshot without the tools a model is never offered; the same snapshot when all are. */
function offeredView(snapshot: CatalogSnapshot, isOffered: (tool: string) => boolean): CatalogSnapshot {
  const tools = snapshot.tools.filter((tool) => isOffered(tool.definition.name));
  if (tools.length === snapshot.tools.length) return snapshot;
  const offered = new Set(tools);
  return {
    version: snapshot.version,
    tools,
    get: (name) => {
      const tool = snapshot.get(name);
      return tool !== undefined && offered.has(tool) ? tool : undefined;
    },
  };
}

/** A tool name's words as a person would type them: `crm2.createContact` is "crm create contact". */
function wordsOfName(name: string): string {
  return name
    .replace(/([a-z])([A-Z])/g, "$1 $2")
    .replace(/[^A-Za-z]+/g, " ")
    .trim();
}
