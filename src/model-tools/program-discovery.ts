// `tools.$search` and `tools.$describe` inside programs: the same input readers and catalog
// answers as the search_tools and describe_tools tools, in the shapes a program gets
// (references; one declaration). A refusal is a ToolError with the same code a model would see.

import type { JsonValue } from "../contract.js";
import { ToolError } from "../errors.js";
import { SUGGESTION_LOOKUPS_PER_RUN, type SuggestionBudget } from "../registry/closest-tool-names.js";
import type { DiscoveryHandler } from "../sandbox/tool-bridge.js";
import type { Discovery } from "../search/discovery.js";
import { type DescribeToolsHost, describeTools } from "./describe-tools-tool.js";
import { readSearchRequest } from "./search-tools-tool.js";

/** What `tools.$search` and `tools.$describe` read of a session (a Switchyard fits). */
export interface ProgramDiscoveryHost extends DescribeToolsHost {
  readonly discovery: Pick<Discovery, "describeMany" | "find">;
}

/**
 * The discovery handler a session hands to one run: make one per run. Its did-you-mean
 * lookups for unknown `$describe` names are charged to that run, SUGGESTION_LOOKUPS_PER_RUN at
 * most (as for unknown tool calls), so a loop of typos costs the host a bounded amount of work.
 */
export function createProgramDiscovery(yard: ProgramDiscoveryHost): DiscoveryHandler {
  const suggestions: SuggestionBudget = { remaining: SUGGESTION_LOOKUPS_PER_RUN };
  return {
    async search(input: unknown): Promise<JsonValue> {
      // The guest sends `$search(query, { limit, mode })` as `{ query, limit, mode }`.
      const { query, limit, mode } = (input ?? {}) as { query?: unknown; limit?: unknown; mode?: unknown };
      const read = readSearchRequest({
        [mode === "regex" ? "pattern" : "query"]: query,
        ...(limit === undefined ? {} : { limit }),
      });
      if (!read.ok) throw new ToolError(read.error.message, { code: read.error.code });
      // The model-facing search: regex off the host's loop with a deadline, words fused with an embedder if any.
      const found = await yard.discovery.find(read.request.text, read.request.options);
      if (!found.ok) throw new ToolError(found.error.message, { code: "PATTERN_INVALID" });
      return found.references.map((reference) => ({ ...reference }));
    },
    async describe(input: unknown): Promise<JsonValue> {
      const { name } = (input ?? {}) as { name?: unknown };
      if (typeof name !== "string") {
        throw new ToolError("tools.$describe(name) needs a tool name.", { code: "INPUT_INVALID" });
      }
      const answer = await describeTools(yard, [name], suggestions);
      if (answer.found.length > 0) return answer.declarations;
      const closest = answer.unknown[0]?.closest ?? [];
      const hint =
        closest.length > 0 ? ` Did you mean ${closest.join(", ")}?` : " Find names with tools.$search(query).";
      throw new ToolError(`No tool named "${name.slice(0, 200)}".${hint}`, { code: "TOOL_NOT_FOUND" });
    },
  };
}
