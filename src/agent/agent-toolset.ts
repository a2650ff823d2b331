// The tools a model is offered in each agent mode, under provider names, and the way back
// from a called name to what runs it. Built from one catalog snapshot; the loop rebuilds it
// when the catalog version changes. Only offered names resolve: a name the model invents, or
// a catalog tool not offered in this mode, resolves to nothing and is never run.

import type { Switchyard } from "../switchyard.js";
import type { ModelToolDefinition } from "../model-tools/model-tool-definition.js";
import { RUN_PROGRAM_TOOL } from "../model-tools/run-program-tool.js";
import { describeSearchTool, SEARCH_TOOLS_TOOL } from "../model-tools/search-tools-tool.js";
import { ProviderToolNames } from "./provider-tool-names.js";

/**
 * - `direct`: every direct-callable tool, one provider tool each;
 * - `programmatic`: `run_program` (and `search_tools` when discovery defers tools);
 * - `hybrid`: both; a tool's `callers` decides where it appears.
 */
export type AgentMode = "direct" | "programmatic" | "hybrid";

export const AGENT_MODES: readonly AgentMode[] = ["direct", "programmatic", "hybrid"];

/** What a provider tool name stands for. */
export type ToolTarget =
  | { readonly kind: "program" }
  | { readonly kind: "search" }
  | { readonly kind: "tool"; readonly tool: string };

/** The offered tools of one catalog version. */
export interface AgentToolset {
  readonly catalogVersion: number;
  /** Definitions under provider names, in a stable order: run_program, search_tools, catalog order. */
  readonly definitions: readonly ModelToolDefinition[];
  readonly names: ProviderToolNames;
  resolve(providerName: string): ToolTarget | undefined;
}

/**
 * Builds the toolset of `mode` over the session's current catalog. Throws
 * `SwitchyardError("TOOL_NAME_COLLISION")` when two offered names share a provider name.
 */
export function createAgentToolset(yard: Switchyard, mode: AgentMode): AgentToolset {
  const snapshot = yard.registry.snapshot();
  const definitions: ModelToolDefinition[] = [];
  const reserved: string[] = [];
  if (mode !== "direct") {
    definitions.push(yard.programTool());
    reserved.push(RUN_PROGRAM_TOOL);
    if (yard.discovery.deferring) {
      definitions.push(describeSearchTool());
      reserved.push(SEARCH_TOOLS_TOOL);
    }
  }
  const direct =
    mode === "programmatic"
      ? []
      : snapshot.tools.filter(
          (tool) => tool.definition.callers.includes("direct") && yard.offers(tool.definition.name),
        );
  const names = new ProviderToolNames(
    direct.map((tool) => tool.definition.name),
    reserved,
  );
  for (const { definition } of direct) {
    definitions.push({
      name: names.toProvider(definition.name)!,
      description: definition.description,
      inputSchema: definition.inputSchema,
      ...(definition.inputExamples === undefined || definition.inputExamples.length === 0
        ? {}
        : { inputExamples: definition.inputExamples }),
    });
  }
  return {
    catalogVersion: snapshot.version,
    definitions,
    names,
    resolve(providerName) {
      const name = names.fromProvider(providerName);
      if (name === undefined) return undefined;
      if (name === RUN_PROGRAM_TOOL && reserved.includes(RUN_PROGRAM_TOOL)) return { kind: "program" };
      if (name === SEARCH_TOOLS_TOOL && reserved.includes(SEARCH_TOOLS_TOOL)) return { kind: "search" };
      return { kind: "tool", tool: name };
    },
  };
}
