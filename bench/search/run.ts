// Search benchmark: ranks the labeled queries against the real MCP tool lists plus the
// hand-written SaaS catalog, in BM25 and regex mode, and prints recall@1/3/5 and MRR, then
// the o200k token cost of loading every definition against a typical deferred session.
// Run: node --import tsx bench/search/run.ts [--refresh-mcp] [--verbose]

import { pathToFileURL } from "node:url";
import { countTokens } from "gpt-tokenizer";
import { ToolSearch, type ToolReference } from "../../src/search/tool-search.js";
import { fetchMcpTools, loadMcpTools } from "./catalog/mcp-tools.js";
import { type CatalogTool, saasTools } from "./catalog/saas-tools.js";
import { type LabeledQuery, queries } from "./queries.js";

/** Retrieval quality of one search mode over the labeled queries. */
export interface ModeFigures {
  /** Share of queries with a correct tool in the top k (a query may have several correct tools). */
  readonly recallAt1: number;
  readonly recallAt3: number;
  readonly recallAt5: number;
  /** Mean reciprocal rank of the first correct tool (0 when not in the top 50). */
  readonly mrr: number;
  /** Queries with no correct tool in the top 5. */
  readonly misses: { query: string; expected: readonly string[]; got: string[] }[];
}

export interface SearchBenchmarkFigures {
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
}

const SEARCHES_PER_SESSION = 3;
const LOADED_PER_SEARCH = 5;

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

function score(labeled: readonly LabeledQuery[], run: (query: LabeledQuery) => ToolReference[]): ModeFigures {
  let at1 = 0;
  let at3 = 0;
  let at5 = 0;
  let reciprocal = 0;
  const misses: ModeFigures["misses"] = [];
  for (const query of labeled) {
    const names = run(query).map((reference) => reference.name);
    const rank = names.findIndex((name) => query.answers.includes(name)) + 1;
    if (rank === 1) at1 += 1;
    if (rank >= 1 && rank <= 3) at3 += 1;
    if (rank >= 1 && rank <= 5) at5 += 1;
    else misses.push({ query: query.query, expected: query.answers, got: names.slice(0, 5) });
    if (rank >= 1) reciprocal += 1 / rank;
  }
  const count = labeled.length;
  return { recallAt1: at1 / count, recallAt3: at3 / count, recallAt5: at5 / count, mrr: reciprocal / count, misses };
}

/**
 * Runs the benchmark and returns its figures. Reads the saved MCP tool lists unless
 * `refreshMcp` is set, in which case the three servers are started over stdio first.
 */
export async function runSearchBenchmark(options: { refreshMcp?: boolean } = {}): Promise<SearchBenchmarkFigures> {
  const mcpTools = options.refreshMcp === true ? await fetchMcpTools() : await loadMcpTools();
  const catalog: CatalogTool[] = [...mcpTools, ...saasTools];
  const byName = new Map(catalog.map((tool) => [tool.name, tool]));
  for (const query of queries) {
    for (const answer of query.answers) {
      if (!byName.has(answer)) throw new Error(`Query "${query.query}" is labeled with unknown tool ${answer}.`);
    }
  }

  const search = new ToolSearch();
  const groups = new Map<string, CatalogTool[]>();
  for (const tool of catalog) {
    const namespace = tool.name.slice(0, tool.name.indexOf("."));
    groups.set(namespace, [...(groups.get(namespace) ?? []), tool]);
  }
  for (const [namespace, tools] of groups) search.setTools(namespace, tools);

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

  const bm25 = score(queries, (query) => run(query.query, "bm25"));
  const regex = score(queries, (query) => run(query.pattern, "regex"));
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

  return {
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
  };
}

function printFigures(figures: SearchBenchmarkFigures, verbose: boolean): void {
  const fixed = (value: number): string => value.toFixed(3);
  console.log(
    `Catalog: ${figures.catalogSize} tools (${figures.mcpTools} from 3 MCP servers, ${figures.saasTools} SaaS); ${figures.queryCount} labeled queries.`,
  );
  console.log("");
  console.log("mode    recall@1  recall@3  recall@5  MRR    ms/search");
  for (const [mode, modeFigures] of [
    ["bm25", figures.bm25],
    ["regex", figures.regex],
  ] as const) {
    console.log(
      `${mode.padEnd(8)}${fixed(modeFigures.recallAt1).padEnd(10)}${fixed(modeFigures.recallAt3).padEnd(10)}${fixed(modeFigures.recallAt5).padEnd(10)}${fixed(modeFigures.mrr).padEnd(7)}${figures.meanSearchMs[mode].toFixed(2)}`,
    );
  }
  console.log("");
  console.log(`Tokens (${figures.tokenizer}):`);
  console.log(`  full catalog, every definition loaded:      ${figures.fullCatalogTokens}`);
  console.log(`  search tool definition:                     ${figures.searchToolTokens}`);
  console.log(`  one search (references + top 5 definitions): ${figures.meanTokensPerSearch.toFixed(0)} (mean)`);
  console.log(
    `  typical session (${figures.searchesPerSession} searches x top 5):        ${figures.typicalSessionTokens} (${((1 - figures.typicalSessionTokens / figures.fullCatalogTokens) * 100).toFixed(1)}% fewer)`,
  );
  if (verbose) {
    for (const [mode, modeFigures] of [
      ["bm25", figures.bm25],
      ["regex", figures.regex],
    ] as const) {
      console.log(`\n${mode} misses at 5 (${modeFigures.misses.length}):`);
      for (const miss of modeFigures.misses) {
        console.log(`  "${miss.query}" expected ${miss.expected.join(" | ")}; got ${miss.got.join(", ") || "nothing"}`);
      }
    }
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const figures = await runSearchBenchmark({ refreshMcp: process.argv.includes("--refresh-mcp") });
  printFigures(figures, process.argv.includes("--verbose"));
}
