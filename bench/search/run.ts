// Search benchmark. Two labelled sets, side by side in one run:
// - the phrased set (phrased-queries.ts) over the real tool lists of 20 MCP servers, split into
//   user-phrased queries (tuning part and held-out part scored apart) and keyword queries;
// - the original set (queries.ts) over three MCP servers plus the hand-written SaaS catalog, in
//   BM25 and regex mode, with the token cost of loading every definition against a deferred session.
// Then search latency (p50/p99) on a 1,000-tool catalog, and the host event-loop lag while a
// hostile regex runs over it. Run: node --import tsx bench/search/run.ts [--verbose] [--show-held-out]
// Writes bench/results/search.json, whose figures docs/benchmarks.md quotes.

import { availableParallelism, loadavg } from "node:os";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { pathToFileURL } from "node:url";
import { countTokens } from "gpt-tokenizer";
import { type SearchableTool, ToolSearch, type ToolReference } from "../../src/search/tool-search.js";
import { tokenize } from "../../src/search/tokenize.js";
import { benchConditions, currentLoad, writeBenchResult } from "../bench-result.js";
import { loadMcpTools } from "./catalog/mcp-tools.js";
import { type CatalogTool, saasTools } from "./catalog/saas-tools.js";
import { type PhrasedQuery, phrasedQueries } from "./phrased-queries.js";
import { type LabeledQuery, queries } from "./queries.js";

/** Retrieval quality of one search mode over a list of labelled queries. */
export interface ModeFigures {
  readonly count: number;
  /** Share of queries with a correct tool in the top k (a query may have several correct tools). */
  readonly recallAt1: number;
  readonly recallAt3: number;
  readonly recallAt5: number;
  /** Mean reciprocal rank of the first correct tool (0 when not in the top 50). */
  readonly mrr: number;
  /** Queries with no correct tool in the top 5. */
  readonly misses: { query: string; expected: readonly string[]; got: string[] }[];
}

/** The phrased set's figures: user-phrased (all, tuning part, held-out part) and keyword queries. */
export interface PhrasedFigures {
  readonly catalogSize: number;
  readonly servers: number;
  readonly user: ModeFigures;
  readonly userTuning: ModeFigures;
  readonly userHeldOut: ModeFigures;
  readonly keyword: ModeFigures;
}

export interface LatencyFigures {
  readonly catalogSize: number;
  readonly searches: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
  /** p99 of the process CPU time per search (user + system, µs resolution): unaffected by other processes' load. */
  readonly p99CpuMs: number;
}

/** Event-loop lag while a hostile pattern is searched over the 1,000-tool catalog. */
export interface RegexStallFigures {
  readonly pattern: string;
  readonly catalogSize: number;
  /** Wall time of the search call, ms. */
  readonly searchMs: number;
  /** Longest event-loop delay observed while it ran (monitorEventLoopDelay, 1 ms resolution), ms. */
  readonly maxLoopLagMs: number;
  /** The same over an idle wait of the same length in the same run: the machine's share. */
  readonly idleLoopLagMs: number;
  readonly outcome: string;
}

export interface SearchBenchmarkFigures {
  readonly phrased: PhrasedFigures;
  readonly catalogSize: number;
  readonly mcpTools: number;
  readonly saasTools: number;
  readonly queryCount: number;
  readonly bm25: ModeFigures;
  readonly regex: ModeFigures;
  readonly tokenizer: string;
  /** Tokens of every tool's JSON definition (name, description, inputSchema). */
  readonly fullCatalogTokens: number;
  /** Tokens of the search tool's own definition, always loaded in deferred mode. */
  readonly searchToolTokens: number;
  /** Mean tokens per search: the references returned plus the definitions of the top 5. */
  readonly meanTokensPerSearch: number;
  /** The search tool plus three searches, each loading its top 5 definitions. */
  readonly typicalSessionTokens: number;
  readonly searchesPerSession: number;
  readonly meanSearchMs: { bm25: number; regex: number };
  readonly latency: LatencyFigures;
  /** Absent when the run was asked to skip it (`--skip-regex-stall`: a backtracking engine takes minutes). */
  readonly regexStall: RegexStallFigures | undefined;
}

const SEARCHES_PER_SESSION = 3;
const LOADED_PER_SEARCH = 5;
/** The servers of the original set's catalog (the three this project depends on). */
const ORIGINAL_SERVERS = new Set(["everything", "filesystem", "memory"]);
const LATENCY_CATALOG_SIZE = 1_000;
/** The hostile pattern of issue 14: four bounded wildcards, then a character no tool text has. */
export const HOSTILE_PATTERN = ".{0,99}.{0,99}.{0,99}.{0,99}~";

// The definition a model would see for discovery itself, so its cost is counted too.
const SEARCH_TOOL_DEFINITION = {
  name: "tool_search",
  description:
    "Search the tool catalog. Returns up to `limit` references (name, one-line summary, score); load a tool's full declaration by name before calling it. mode 'bm25' takes plain words, 'regex' a case-insensitive pattern.",
  inputSchema: {
    type: "object",
    properties: {
      query: { type: "string", description: "Words describing the task, or a regular expression in regex mode." },
      mode: { type: "string", enum: ["bm25", "regex"], description: "Default bm25." },
      limit: { type: "integer", minimum: 1, maximum: 50, description: "Default 5." },
    },
    required: ["query"],
  },
};

function definitionJson(tool: CatalogTool): string {
  return JSON.stringify({ name: tool.name, description: tool.description, inputSchema: tool.inputSchema });
}

interface Labelled {
  readonly query: string;
  readonly answers: readonly string[];
}

function score(labeled: readonly Labelled[], run: (query: string) => ToolReference[]): ModeFigures {
  let at1 = 0;
  let at3 = 0;
  let at5 = 0;
  let reciprocal = 0;
  const misses: ModeFigures["misses"] = [];
  for (const query of labeled) {
    const names = run(query.query).map((reference) => reference.name);
    const rank = names.findIndex((name) => query.answers.includes(name)) + 1;
    if (rank === 1) at1 += 1;
    if (rank >= 1 && rank <= 3) at3 += 1;
    if (rank >= 1 && rank <= 5) at5 += 1;
    else misses.push({ query: query.query, expected: query.answers, got: names.slice(0, 5) });
    if (rank >= 1) reciprocal += 1 / rank;
  }
  const count = Math.max(1, labeled.length);
  return {
    count: labeled.length,
    recallAt1: at1 / count,
    recallAt3: at3 / count,
    recallAt5: at5 / count,
    mrr: reciprocal / count,
    misses,
  };
}

function buildSearch(catalog: readonly SearchableTool[]): ToolSearch {
  const search = new ToolSearch();
  const groups = new Map<string, SearchableTool[]>();
  for (const tool of catalog) {
    const namespace = tool.name.slice(0, tool.name.indexOf("."));
    groups.set(namespace, [...(groups.get(namespace) ?? []), tool]);
  }
  for (const [namespace, tools] of groups) search.setTools(namespace, tools);
  return search;
}

function checkLabels(labelled: readonly Labelled[], catalog: readonly CatalogTool[]): void {
  const names = new Set(catalog.map((tool) => tool.name));
  for (const query of labelled) {
    for (const answer of query.answers) {
      if (!names.has(answer)) throw new Error(`Query "${query.query}" is labeled with unknown tool ${answer}.`);
    }
  }
}

/**
 * The rule of the user-phrased half: no content word (after stop words and stemming) of the
 * query appears in the full name of any tool that answers it. Throws on a query that breaks it.
 */
export function checkUserPhrasing(labelled: readonly PhrasedQuery[]): void {
  for (const query of labelled) {
    if (query.style !== "user") continue;
    const words = new Set(tokenize(query.query));
    for (const answer of query.answers) {
      const shared = tokenize(answer).filter((word) => words.has(word));
      if (shared.length > 0) {
        throw new Error(`User query "${query.query}" shares ${shared.join(", ")} with the name ${answer}.`);
      }
    }
  }
}

/** Every fourth user query (by position in the file) is held out; fixed before any tuning. */
export function isHeldOut(query: PhrasedQuery, userIndex: number): boolean {
  return query.style === "user" && userIndex % 4 === 3;
}

function phrasedFigures(catalog: readonly CatalogTool[]): PhrasedFigures {
  checkLabels(phrasedQueries, catalog);
  checkUserPhrasing(phrasedQueries);
  const search = buildSearch(catalog);
  const run = (text: string): ToolReference[] => {
    const result = search.search(text, { limit: 50 });
    return result.ok ? result.references : [];
  };
  const users = phrasedQueries.filter((query) => query.style === "user");
  return {
    catalogSize: catalog.length,
    servers: new Set(catalog.map((tool) => tool.name.slice(0, tool.name.indexOf(".")))).size,
    user: score(users, run),
    userTuning: score(
      users.filter((query, index) => !isHeldOut(query, index)),
      run,
    ),
    userHeldOut: score(
      users.filter((query, index) => isHeldOut(query, index)),
      run,
    ),
    keyword: score(
      phrasedQueries.filter((query) => query.style === "keyword"),
      run,
    ),
  };
}

// 1,000 tools: the real catalogs and the SaaS one, then copies of them under numbered
// namespaces (github2.create_issue), as a large deployment with several similar servers has.
function latencyCatalog(real: readonly CatalogTool[]): CatalogTool[] {
  const catalog: CatalogTool[] = [...real];
  for (let copy = 2; catalog.length < LATENCY_CATALOG_SIZE; copy++) {
    for (const tool of real) {
      if (catalog.length >= LATENCY_CATALOG_SIZE) break;
      const dot = tool.name.indexOf(".");
      catalog.push({ ...tool, name: `${tool.name.slice(0, dot)}${copy}${tool.name.slice(dot)}` });
    }
  }
  return catalog;
}

function percentile(sorted: readonly number[], share: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil(share * sorted.length) - 1)] ?? 0;
}

function measureLatency(search: ToolSearch, catalogSize: number): LatencyFigures {
  const texts = [...phrasedQueries.map((query) => query.query), ...queries.map((query) => query.query)];
  for (const text of texts) search.search(text, { limit: 5 }); // warm up
  const samples: number[] = [];
  const cpuSamples: number[] = [];
  for (let round = 0; round < 5; round++) {
    for (const text of texts) {
      const cpuBefore = process.cpuUsage();
      const startedAt = performance.now();
      search.search(text, { limit: 5 });
      samples.push(performance.now() - startedAt);
      const cpu = process.cpuUsage(cpuBefore);
      cpuSamples.push((cpu.user + cpu.system) / 1000);
    }
  }
  samples.sort((left, right) => left - right);
  cpuSamples.sort((left, right) => left - right);
  return {
    catalogSize,
    searches: samples.length,
    p50Ms: percentile(samples, 0.5),
    p99Ms: percentile(samples, 0.99),
    maxMs: samples.at(-1) ?? 0,
    p99CpuMs: percentile(cpuSamples, 0.99),
  };
}

// The largest event-loop delay while `work` runs, from a 1 ms monitor.
async function loopLagDuring(work: () => Promise<unknown>): Promise<number> {
  const histogram = monitorEventLoopDelay({ resolution: 1 });
  histogram.enable();
  await new Promise((resolve) => setTimeout(resolve, 10));
  await work();
  await new Promise((resolve) => setTimeout(resolve, 10));
  histogram.disable();
  return histogram.max / 1e6;
}

async function measureRegexStall(search: ToolSearch, catalogSize: number): Promise<RegexStallFigures> {
  // A harmless pattern first starts the worker and copies the catalog to it, as any first
  // regex search of a session would; the row measures the hostile input itself.
  await search.searchOffThread("refund", { mode: "regex", limit: 5 });
  let searchMs = 0;
  let outcome = "";
  // The path models and programs take (search_tools, tools.$search): off the event loop.
  const maxLoopLagMs = await loopLagDuring(async () => {
    const startedAt = performance.now();
    const result = await search.searchOffThread(HOSTILE_PATTERN, { mode: "regex", limit: 5 });
    searchMs = performance.now() - startedAt;
    outcome = result.ok ? `${result.references.length} matches` : result.error.code;
  });
  // The same monitor over an idle wait as long: what the machine's load alone costs.
  const idleLoopLagMs = await loopLagDuring(() => new Promise((resolve) => setTimeout(resolve, searchMs)));
  return { pattern: HOSTILE_PATTERN, catalogSize, searchMs, maxLoopLagMs, idleLoopLagMs, outcome };
}

/** Runs the benchmark and returns its figures, from the saved MCP tool lists (offline). */
export async function runSearchBenchmark(options: { skipRegexStall?: boolean } = {}): Promise<SearchBenchmarkFigures> {
  const allMcpTools = await loadMcpTools();
  const phrased = phrasedFigures(allMcpTools);

  const mcpTools = allMcpTools.filter((tool) => ORIGINAL_SERVERS.has(tool.name.slice(0, tool.name.indexOf("."))));
  const catalog: CatalogTool[] = [...mcpTools, ...saasTools];
  const byName = new Map(catalog.map((tool) => [tool.name, tool]));
  checkLabels(
    queries.map((query) => ({ query: query.query, answers: query.answers })),
    catalog,
  );
  const search = buildSearch(catalog);

  const run = (text: string, mode: "bm25" | "regex"): ToolReference[] => {
    const result = search.search(text, { mode, limit: 50 });
    if (!result.ok) throw new Error(`Benchmark pattern ${JSON.stringify(text)} was refused: ${result.error.message}`);
    return result.references;
  };
  const timed = (mode: "bm25" | "regex", pick: (query: LabeledQuery) => string): number => {
    const startedAt = performance.now();
    for (const query of queries) run(pick(query), mode);
    return (performance.now() - startedAt) / queries.length;
  };

  const bm25 = score(queries, (text) => run(text, "bm25"));
  const regex = score(
    queries.map((query) => ({ query: query.pattern, answers: query.answers })),
    (text) => run(text, "regex"),
  );
  const meanSearchMs = { bm25: timed("bm25", (query) => query.query), regex: timed("regex", (query) => query.pattern) };

  const fullCatalogTokens = countTokens(`[${catalog.map(definitionJson).join(",")}]`);
  const searchToolTokens = countTokens(JSON.stringify(SEARCH_TOOL_DEFINITION));
  let perSearchTotal = 0;
  for (const query of queries) {
    const result = search.search(query.query, { limit: LOADED_PER_SEARCH });
    if (!result.ok) continue;
    const loaded = result.references
      .map((reference) => byName.get(reference.name))
      .filter((tool) => tool !== undefined);
    perSearchTotal +=
      countTokens(JSON.stringify(result.references)) + countTokens(`[${loaded.map(definitionJson).join(",")}]`);
  }
  const meanTokensPerSearch = perSearchTotal / queries.length;
  // Regex mode starts a worker thread; left open, it kept `npm run bench:search` from exiting.
  await search.close();

  const large = latencyCatalog([...allMcpTools, ...saasTools]);
  const largeSearch = buildSearch(large);
  const latency = measureLatency(largeSearch, large.length);
  const regexStall = options.skipRegexStall === true ? undefined : await measureRegexStall(largeSearch, large.length);
  await largeSearch.close();

  return {
    phrased,
    catalogSize: catalog.length,
    mcpTools: mcpTools.length,
    saasTools: saasTools.length,
    queryCount: queries.length,
    bm25,
    regex,
    tokenizer: "o200k_base (gpt-tokenizer 4.0.0)",
    fullCatalogTokens,
    searchToolTokens,
    meanTokensPerSearch,
    typicalSessionTokens: Math.round(searchToolTokens + SEARCHES_PER_SESSION * meanTokensPerSearch),
    searchesPerSession: SEARCHES_PER_SESSION,
    meanSearchMs,
    latency,
    regexStall,
  };
}

const fixed = (value: number): string => value.toFixed(3);

function row(label: string, figures: ModeFigures, extra = ""): string {
  return `${label.padEnd(22)}${String(figures.count).padEnd(6)}${fixed(figures.recallAt1).padEnd(10)}${fixed(figures.recallAt3).padEnd(10)}${fixed(figures.recallAt5).padEnd(10)}${fixed(figures.mrr).padEnd(7)}${extra}`;
}

function printMisses(label: string, figures: ModeFigures): void {
  console.log(`\n${label} misses at 5 (${figures.misses.length}):`);
  for (const miss of figures.misses) {
    console.log(`  "${miss.query}" expected ${miss.expected.join(" | ")}; got ${miss.got.join(", ") || "nothing"}`);
  }
}

function printFigures(figures: SearchBenchmarkFigures, options: { verbose: boolean; showHeldOut: boolean }): void {
  const { phrased } = figures;
  const header = `${"queries".padEnd(22)}${"n".padEnd(6)}recall@1  recall@3  recall@5  MRR`;
  console.log(
    `Phrased set: ${phrased.catalogSize} real tools from ${phrased.servers} MCP servers' tools/list; lexical search (BM25 + vocabulary).`,
  );
  console.log(header);
  console.log(row("user-phrased (all)", phrased.user));
  console.log(row("  tuning part", phrased.userTuning));
  console.log(row("  held out", phrased.userHeldOut));
  console.log(row("keyword", phrased.keyword));
  console.log("");
  console.log(
    `Original set: ${figures.catalogSize} tools (${figures.mcpTools} from 3 MCP servers, ${figures.saasTools} SaaS); ${figures.queryCount} labeled queries.`,
  );
  console.log(`${header}    ms/search`);
  console.log(row("bm25", figures.bm25, figures.meanSearchMs.bm25.toFixed(2)));
  console.log(row("regex", figures.regex, figures.meanSearchMs.regex.toFixed(2)));
  console.log("");
  const { latency, regexStall } = figures;
  console.log(
    `Latency on a ${latency.catalogSize}-tool catalog (${latency.searches} searches): p50 ${latency.p50Ms.toFixed(3)} ms, p99 ${latency.p99Ms.toFixed(3)} ms, max ${latency.maxMs.toFixed(3)} ms (wall); p99 ${latency.p99CpuMs.toFixed(3)} ms CPU; load average ${loadavg()[0]?.toFixed(1)} on ${availableParallelism()} cores`,
  );
  if (regexStall !== undefined) {
    console.log(
      `Regex ${JSON.stringify(regexStall.pattern)} over ${regexStall.catalogSize} tools: ${regexStall.searchMs.toFixed(1)} ms, host event-loop lag ${regexStall.maxLoopLagMs.toFixed(1)} ms (idle, same run: ${regexStall.idleLoopLagMs.toFixed(1)} ms); ${regexStall.outcome}`,
    );
  }
  console.log("");
  console.log(`Tokens (${figures.tokenizer}), original set:`);
  console.log(`  full catalog, every definition loaded:      ${figures.fullCatalogTokens}`);
  console.log(`  search tool definition:                     ${figures.searchToolTokens}`);
  console.log(`  one search (references + top 5 definitions): ${figures.meanTokensPerSearch.toFixed(0)} (mean)`);
  console.log(
    `  typical session (${figures.searchesPerSession} searches x top 5):        ${figures.typicalSessionTokens} (${((1 - figures.typicalSessionTokens / figures.fullCatalogTokens) * 100).toFixed(1)}% fewer)`,
  );
  printMisses("phrased user-phrased (tuning part)", phrased.userTuning);
  if (options.showHeldOut) printMisses("phrased user-phrased (held out)", phrased.userHeldOut);
  else
    console.log(
      `\nphrased user-phrased (held out): ${phrased.userHeldOut.misses.length} misses, not listed (--show-held-out)`,
    );
  printMisses("phrased keyword", phrased.keyword);
  if (options.verbose) {
    printMisses("original bm25", figures.bm25);
    printMisses("original regex", figures.regex);
  }
}

/** The figures docs/benchmarks.md quotes, by key, each as the docs print it. */
export function searchResultFigures(figures: SearchBenchmarkFigures): Record<string, string> {
  const { phrased, latency, regexStall } = figures;
  const pair = (mode: ModeFigures): string => `${fixed(mode.recallAt5)} / ${fixed(mode.mrr)}`;
  const count = (value: number): string => value.toLocaleString("en-US");
  const ms = (value: number): string => `${value.toFixed(value < 1 ? 2 : 1)} ms`;
  return {
    "phrased-queries": count(phrased.user.count + phrased.keyword.count),
    "phrased-tools": count(phrased.catalogSize),
    "phrased-servers": count(phrased.servers),
    "user-count": count(phrased.user.count),
    "tuning-count": count(phrased.userTuning.count),
    "held-out-count": count(phrased.userHeldOut.count),
    "keyword-count": count(phrased.keyword.count),
    user: pair(phrased.user),
    tuning: pair(phrased.userTuning),
    "held-out": pair(phrased.userHeldOut),
    keyword: pair(phrased.keyword),
    "original-queries": count(figures.queryCount),
    "original-tools": count(figures.catalogSize),
    "original-bm25": pair(figures.bm25),
    "user-misses": count(phrased.user.misses.length),
    "user-first-share": `${Math.round(phrased.user.recallAt1 * 100)}%`,
    "regex-recall5": fixed(figures.regex.recallAt5),
    "regex-mrr": fixed(figures.regex.mrr),
    "session-tokens": count(figures.typicalSessionTokens),
    "catalog-tokens": count(figures.fullCatalogTokens),
    "latency-catalog": count(latency.catalogSize),
    "latency-p50-ms": ms(latency.p50Ms),
    "latency-p99-cpu-ms": ms(latency.p99CpuMs),
    "latency-p99-ms": ms(latency.p99Ms),
    ...(regexStall === undefined
      ? {}
      : { "stall-lag-ms": ms(regexStall.maxLoopLagMs), "stall-idle-ms": ms(regexStall.idleLoopLagMs) }),
  };
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const startLoad = currentLoad();
  const figures = await runSearchBenchmark({ skipRegexStall: process.argv.includes("--skip-regex-stall") });
  printFigures(figures, {
    verbose: process.argv.includes("--verbose"),
    showHeldOut: process.argv.includes("--show-held-out"),
  });
  // A run without the regex stall would drop figures the docs quote: only a whole run is written.
  if (figures.regexStall !== undefined) {
    const written = writeBenchResult("search", benchConditions(startLoad), searchResultFigures(figures), [
      "Relevance figures (recall, MRR, tokens) are deterministic; latency is wall and CPU time on the machine and load stated.",
    ]);
    console.log(`\nwrote ${written}`);
  }
}
