// The tools a model is offered in each agent mode, under provider names, and the way back
// from a called name to what runs it. Built from one catalog snapshot; the loop rebuilds it
// when the catalog version changes. Only offered names resolve: a name the model invents, or
// a catalog tool not offered in this mode, resolves to nothing and is never run.

import { acceptsCaller } from "../execute-tool-call.js";
import { describeResumeRunTool, RESUME_RUN_TOOL } from "../model-tools/resume-run-tool.js";
import { RUN_PROGRAM_TOOL } from "../model-tools/run-program-tool.js";
import { describeSearchTool, SEARCH_TOOLS_TOOL } from "../model-tools/search-tools-tool.js";
import type { RegisteredTool } from "../registry/tool-registry.js";
import type { Switchyard } from "../switchyard.js";
import type { AgentMode, ProviderToolDefinition } from "./model-adapter.js";
import { ProviderToolNames } from "./provider-tool-names.js";

// The modes' type lives with the adapter contract that names it; exported here too, beside AGENT_MODES.
export type { AgentMode } from "./model-adapter.js";

/** Every agent mode, in the order help texts list them; see AgentMode. */
export const AGENT_MODES: readonly AgentMode[] = ["direct", "programmatic", "hybrid", "hosted"];

/** The provider name of the client-executed tool search (`ModelAdapter.toolSearch: "client"`). */
export const TOOL_SEARCH_TOOL = "tool_search";

/** What a provider tool name stands for. */
export type ToolTarget =
  | { readonly kind: "program" }
  /** `resume_run`: resumes a durable run that paused. */
  | { readonly kind: "resume" }
  /** Switchyard's `search_tools`: references and declarations, for programs. */
  | { readonly kind: "search" }
  /** The provider's client-executed tool search: references that load deferred definitions. */
  | { readonly kind: "tool-search" }
  | { readonly kind: "tool"; readonly tool: string };

/** How the toolset is built besides the mode. */
export interface AgentToolsetOptions {
  /** How the provider searches deferred tools itself, if it does (see `ModelAdapter.toolSearch`). */
  readonly toolSearch?: "server" | "client" | undefined;
  /**
   * Direct mode without a provider search: when the catalog is deferred
   * (`yard.discovery.deferring`), offer Switchyard's `search_tools`, the tools discovery does
   * not defer (always-loaded ones, direct-only ones such as `results.read`) and the tools
   * searches have loaded, appended in the order they were found (the tools prefix only grows
   * at its end). Default false: every direct-callable tool is offered up front.
   */
  readonly deferDirectTools?: boolean;
  /** Runs are durable: offer `resume_run` after run_program (programmatic and hybrid modes). Default false. */
  readonly durable?: boolean;
}

/** The offered tools of one catalog version. */
export interface AgentToolset {
  readonly catalogVersion: number;
  /** Tools loaded by searches when this toolset was built; a deferred direct toolset is rebuilt when it grows. */
  readonly loadedTools: number;
  /**
   * Definitions under provider names, in a stable order: run_program, search_tools,
   * tool_search, catalog order. Deferred ones carry `deferLoading`.
   */
  readonly definitions: readonly ProviderToolDefinition[];
  readonly names: ProviderToolNames;
  resolve(providerName: string): ToolTarget | undefined;
}

/** Catalog tools a hosted program finds a spill note pointing at: never deferred. */
const ALWAYS_LOADED_TOOLS = new Set(["results.read"]);

/**
 * Builds the toolset of `mode` over the session's current catalog. Throws
 * `SwitchyardError("TOOL_NAME_COLLISION")` when two offered names share a provider name.
 */
export function createAgentToolset(yard: Switchyard, mode: AgentMode, options: AgentToolsetOptions = {}): AgentToolset {
  const snapshot = yard.registry.snapshot();
  const definitions: ProviderToolDefinition[] = [];
  const reserved: string[] = [];
  const loaded = yard.discovery.loadedTools();
  const searchFirst =
    mode === "direct" &&
    options.deferDirectTools === true &&
    options.toolSearch === undefined &&
    yard.discovery.deferring;
  if (searchFirst) {
    definitions.push(describeSearchTool());
    reserved.push(SEARCH_TOOLS_TOOL);
  } else if (mode === "programmatic" || mode === "hybrid") {
    definitions.push(yard.programTool());
    reserved.push(RUN_PROGRAM_TOOL);
    if (options.durable === true) {
      definitions.push(describeResumeRunTool());
      reserved.push(RESUME_RUN_TOOL);
    }
    if (yard.discovery.deferring) {
      definitions.push(describeSearchTool());
      reserved.push(SEARCH_TOOLS_TOOL);
    }
  }
  const callable = snapshot.tools.filter((tool) => offeredAsTool(tool, mode) && yard.offers(tool.definition.name));
  const offered = searchFirst ? deferredDirectTools(callable, loaded, yard) : callable;
  // The provider loads a deferred tool when its own search finds it; that needs a native search.
  const nativeSearch = options.toolSearch !== undefined && mode !== "programmatic";
  const deferred = (name: string): boolean =>
    nativeSearch && !ALWAYS_LOADED_TOOLS.has(name) && yard.discovery.defersTool(name);
  const anyDeferred = offered.some((tool) => deferred(tool.definition.name));
  if (options.toolSearch === "client" && anyDeferred) {
    definitions.push({ ...describeSearchTool(), name: TOOL_SEARCH_TOOL, description: TOOL_SEARCH_DESCRIPTION });
    reserved.push(TOOL_SEARCH_TOOL);
  }
  const names = new ProviderToolNames(
    offered.map((tool) => tool.definition.name),
    reserved,
  );
  for (const { definition } of offered) {
    const callers = mode === "hosted" ? hostedCallers(definition.callers) : undefined;
    definitions.push({
      name: names.toProvider(definition.name)!,
      description: definition.description,
      inputSchema: definition.inputSchema,
      ...(definition.inputExamples === undefined || definition.inputExamples.length === 0
        ? {}
        : { inputExamples: definition.inputExamples }),
      ...(callers === undefined ? {} : { callers }),
      ...(deferred(definition.name) ? { deferLoading: true } : {}),
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
      if (name === RESUME_RUN_TOOL && reserved.includes(RESUME_RUN_TOOL)) return { kind: "resume" };
      if (name === SEARCH_TOOLS_TOOL && reserved.includes(SEARCH_TOOLS_TOOL)) return { kind: "search" };
      if (name === TOOL_SEARCH_TOOL && reserved.includes(TOOL_SEARCH_TOOL)) return { kind: "tool-search" };
      return { kind: "tool", tool: name };
    },
  };
}

/**
 * The tools offered before any search, in catalog order: the always-loaded ones and those a
 * program cannot call (session plumbing such as `results.read`, which discovery never
 * defers); then the searched-for ones in the order they were loaded.
 */
function deferredDirectTools(
  callable: readonly RegisteredTool[],
  loaded: readonly string[],
  yard: Switchyard,
): RegisteredTool[] {
  const byName = new Map(callable.map((tool) => [tool.definition.name, tool]));
  const upFront = callable.filter(
    (tool) => yard.discovery.alwaysLoads(tool.definition.name) || !tool.definition.callers.includes("program"),
  );
  const found = loaded
    .map((name) => byName.get(name))
    .filter((tool): tool is RegisteredTool => tool !== undefined && !upFront.includes(tool));
  return [...upFront, ...found];
}

const TOOL_SEARCH_DESCRIPTION =
  "Search for more tools by words (query) or by a regular expression over names and descriptions (pattern). The tools found are loaded and can be called right after.";

function offeredAsTool(tool: RegisteredTool, mode: AgentMode): boolean {
  const { callers } = tool.definition;
  switch (mode) {
    case "programmatic":
      return false;
    case "direct":
    case "hybrid":
      return callers.includes("direct");
    case "hosted":
      return callers.includes("direct") || acceptsCaller(callers, "hosted-program");
  }
}

/** A tool's callers as the provider's two: the model's turn and the hosted program. */
function hostedCallers(callers: readonly string[]): ("direct" | "program")[] {
  const mapped: ("direct" | "program")[] = [];
  if (callers.includes("direct")) mapped.push("direct");
  if (callers.includes("program") || callers.includes("hosted-program")) mapped.push("program");
  return mapped;
}
