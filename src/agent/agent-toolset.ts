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

/** How the toolset is built besides the mode. */
export interface AgentToolsetOptions {
  /**
   * Direct mode only: when the catalog is deferred (`yard.discovery.deferring`), offer
   * `search_tools`, the tools discovery does not defer (always-loaded ones, direct-only ones
   * such as `results.read`) and the tools searches have loaded, appended in the order they
   * were found (the tools prefix only grows at its end). Default false: every
   * direct-callable tool is offered up front.
   */
  readonly deferDirectTools?: boolean;
}

/** The offered tools of one catalog version. */
export interface AgentToolset {
  readonly catalogVersion: number;
  /** Tools loaded by searches when this toolset was built; a deferred direct toolset is rebuilt when it grows. */
  readonly loadedTools: number;
  /** Definitions under provider names, in a stable order: run_program, search_tools, catalog order. */
  readonly definitions: readonly ModelToolDefinition[];
  readonly names: ProviderToolNames;
  resolve(providerName: string): ToolTarget | undefined;
}

/**
 * Builds the toolset of `mode` over the session's current catalog. Throws
 * `SwitchyardError("TOOL_NAME_COLLISION")` when two offered names share a provider name.
 */
export function createAgentToolset(yard: Switchyard, mode: AgentMode, options: AgentToolsetOptions = {}): AgentToolset {
  const snapshot = yard.registry.snapshot();
  const definitions: ModelToolDefinition[] = [];
  const reserved: string[] = [];
  const loaded = yard.discovery.loadedTools();
  const searchFirst = mode === "direct" && options.deferDirectTools === true && yard.discovery.deferring;
  if (searchFirst) {
    definitions.push(describeSearchTool());
    reserved.push(SEARCH_TOOLS_TOOL);
  } else if (mode !== "direct") {
    definitions.push(yard.programTool());
    reserved.push(RUN_PROGRAM_TOOL);
    if (yard.discovery.deferring) {
      definitions.push(describeSearchTool());
      reserved.push(SEARCH_TOOLS_TOOL);
    }
  }
  const callable =
    mode === "programmatic"
      ? []
      : snapshot.tools.filter(
          (tool) => tool.definition.callers.includes("direct") && yard.offers(tool.definition.name),
        );
  const direct = searchFirst ? deferredDirectTools(callable, loaded, yard) : callable;
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
    loadedTools: loaded.length,
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

/**
 * The tools offered before any search, in catalog order: the always-loaded ones and those a
 * program cannot call (session plumbing such as `results.read`, which discovery never
 * defers); then the searched-for ones in the order they were loaded.
 */
function deferredDirectTools<
  Tool extends { readonly definition: { readonly name: string; readonly callers: readonly string[] } },
>(callable: readonly Tool[], loaded: readonly string[], yard: Switchyard): Tool[] {
  const byName = new Map(callable.map((tool) => [tool.definition.name, tool]));
  const upFront = callable.filter(
    (tool) => yard.discovery.alwaysLoads(tool.definition.name) || !tool.definition.callers.includes("program"),
  );
  const found = loaded
    .map((name) => byName.get(name))
    .filter((tool): tool is Tool => tool !== undefined && !upFront.includes(tool));
  return [...upFront, ...found];
}
