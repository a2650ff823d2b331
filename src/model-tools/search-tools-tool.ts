// The `search_tools` tool and the reading of a search request, shared by every surface that
// searches for a model: the agent loop, the gateway and `tools.$search` inside programs.

import type { CallError, JsonSchema } from "../contract.js";
import type { ToolSearchOptions } from "../search/tool-search.js";
import type { ModelToolDefinition } from "./model-tool-definition.js";
import { readModelToolInput } from "./read-model-tool-input.js";

export const SEARCH_TOOLS_TOOL = "search_tools";

/** Most tools one search may return. */
export const MAX_SEARCH_RESULTS = 20;

const SEARCH_TOOLS_INPUT_SCHEMA = {
  type: "object",
  properties: {
    query: { type: "string", description: "What you need, in words, e.g. 'refund a charge'." },
    pattern: {
      type: "string",
      description: "A regular expression over tool names and descriptions, e.g. 'list.*invoice'.",
    },
    limit: {
      type: "integer",
      minimum: 1,
      maximum: MAX_SEARCH_RESULTS,
      default: 5,
      description: "How many tools to return.",
    },
  },
  additionalProperties: false,
} as const satisfies JsonSchema;

/** The `search_tools` tool for the model. */
export function describeSearchTool(): ModelToolDefinition {
  return {
    name: SEARCH_TOOLS_TOOL,
    description:
      "Search the tool catalog by words (query) or by a regular expression over names and descriptions (pattern). Returns references (name, summary, score) and the TypeScript declarations of the tools found, which can then be called.",
    inputSchema: SEARCH_TOOLS_INPUT_SCHEMA,
  };
}

/** A checked search request: the text and how to search with it. */
export interface SearchRequest {
  readonly text: string;
  readonly options: ToolSearchOptions;
}

/** Reads a search_tools input; `INPUT_INVALID` when it breaks the schema or names neither a query nor a pattern. */
export function readSearchRequest(
  input: unknown,
): { readonly ok: true; readonly request: SearchRequest } | { readonly ok: false; readonly error: CallError } {
  const read = readModelToolInput<{ query?: string; pattern?: string; limit?: number }>(
    SEARCH_TOOLS_TOOL,
    SEARCH_TOOLS_INPUT_SCHEMA,
    input,
    "{ query?: string, pattern?: string, limit?: integer 1-20 }",
  );
  if (!read.ok) return read;
  const { query, pattern, limit } = read.value;
  const text = pattern ?? query;
  if (text === undefined || text.trim() === "") {
    return {
      ok: false,
      error: {
        code: "INPUT_INVALID",
        message: "search_tools needs a query (words) or a pattern (a regular expression).",
      },
    };
  }
  return {
    ok: true,
    request: {
      text,
      options: { mode: pattern === undefined ? "bm25" : "regex", ...(limit === undefined ? {} : { limit }) },
    },
  };
}
