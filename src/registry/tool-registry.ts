// Step 1 of the pipeline (see execute-tool-call.ts): the single source of truth for a
// session's tools. Registration checks each schema and example (an invalid one throws here);
// a schema compiles on its tool's first call, once; order is registration order; a source's
// tools are swapped atomically (MCP list_changed), which bumps the catalog version; a namespace
// claimed by a source belongs to it alone. A tool not in the registry does not exist, whatever a
// model says.

import { SwitchyardError } from "../errors.js";
import type { ToolSource } from "./tool-source.js";
import type { ToolDefinition } from "./define-tool.js";
import { prepareTool, type RegisteredTool } from "./prepare-tool.js";
import { SourceAttachment } from "./source-attachment.js";
import { parseToolName } from "./tool-name.js";

export type { RegisteredTool } from "./prepare-tool.js";

/** An immutable view of the catalog at one version; a run keeps the snapshot it started with. */
export interface CatalogSnapshot {
  readonly version: number;
  readonly tools: readonly RegisteredTool[];
  /** Looks a tool up by its name or by the identifier path a program calls it by. */
  get(nameOrIdentifierPath: string): RegisteredTool | undefined;
}

/** Listener called after every catalog change, with the new snapshot. */
export type CatalogListener = (snapshot: CatalogSnapshot) => void;

/** Holds the tools of a session; see the module comment for its guarantees. */
export class ToolRegistry {
  #tools: readonly RegisteredTool[] = [];
  #version = 1;
  #snapshot: CatalogSnapshot | undefined;
  readonly #listeners = new Set<CatalogListener>();

  /** Namespace identifiers claimed by sources, and the source holding each. */
  readonly #claims = new Map<string, string>();

  constructor(tools: readonly ToolDefinition[] = []) {
    this.addAll(tools);
  }

  /**
   * Claims the source's namespace, starts the source, registers its tools and follows its
   * changes until the attachment is closed. Throws SwitchyardError: `OPTION_INVALID` for a
   * namespace that cannot be an identifier, `NAMESPACE_CONFLICT` when another source or a
   * registered tool uses it, and whatever `source.start()` throws (the claim is then released).
   */
  async attachSource(source: ToolSource): Promise<SourceAttachment> {
    const release = this.#claim(source);
    const attachment = new SourceAttachment(this, source, release);
    try {
      await source.start();
      attachment.follow();
    } catch (error) {
      release();
      await source.close().catch(() => {});
      throw error;
    }
    return attachment;
  }

  /** The catalog version; it increases with every change. */
  get version(): number {
    return this.#version;
  }

  /**
   * Registers tools in order. Throws `SwitchyardError` with `TOOL_NAME_DUPLICATE`,
   * `TOOL_NAME_COLLISION` (two names mapping to one identifier), `SCHEMA_INVALID` or
   * `EXAMPLE_INVALID`; on a throw nothing of the batch is registered.
   */
  addAll(tools: readonly ToolDefinition[]): void {
    if (tools.length === 0) return;
    const prepared = tools.map(prepareTool);
    this.#commit([...this.#tools, ...prepared]);
  }

  /**
   * Replaces every tool whose `source` is `source` with `tools`, in one step: a run that
   * already started keeps its snapshot. Throws like `addAll`, leaving the catalog unchanged.
   */
  replaceSource(source: string, tools: readonly ToolDefinition[]): void {
    const prepared = tools.map(prepareTool);
    const kept = this.#tools.filter((tool) => tool.definition.source !== source);
    this.#commit([...kept, ...prepared]);
  }

  /** The current catalog. Cheap: snapshots are shared until the next change. */
  snapshot(): CatalogSnapshot {
    return (this.#snapshot ??= createSnapshot(this.#version, this.#tools, uniqueLookup(this.#tools)));
  }

  /** Subscribes to catalog changes; returns the unsubscribe function. */
  onChange(listener: CatalogListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** A claimed namespace takes tools from its source only. */
  #assertClaimsHeld(tools: readonly RegisteredTool[]): void {
    if (this.#claims.size === 0) return;
    for (const tool of tools) {
      const holder = this.#claims.get(tool.parsedName.namespaceIdentifier ?? tool.parsedName.localIdentifier);
      if (holder !== undefined && holder !== tool.definition.source) {
        throw new SwitchyardError(
          "NAMESPACE_CONFLICT",
          `Tool "${tool.definition.name}" is in namespace "${tool.parsedName.namespaceIdentifier ?? tool.parsedName.localIdentifier}", which source ${holder} holds; rename the tool.`,
        );
      }
    }
  }

  #claim(source: ToolSource): () => void {
    if (source.namespace === undefined) return () => {};
    let identifier: string;
    try {
      identifier = parseToolName(`${source.namespace}.tool`).namespaceIdentifier ?? "";
    } catch {
      throw new SwitchyardError(
        "OPTION_INVALID",
        `Source namespace ${JSON.stringify(source.namespace)} may only contain letters, digits, "_", "$" and "-".`,
      );
    }
    const holder = this.#claims.get(identifier);
    if (holder !== undefined) {
      throw new SwitchyardError(
        "NAMESPACE_CONFLICT",
        `Namespace "${source.namespace}" is already used by another source in this registry (${holder}).`,
      );
    }
    const owner = this.#tools.find(
      (tool) => (tool.parsedName.namespaceIdentifier ?? tool.parsedName.localIdentifier) === identifier,
    );
    if (owner !== undefined) {
      throw new SwitchyardError(
        "NAMESPACE_CONFLICT",
        `Namespace "${source.namespace}" is already used by tool "${owner.definition.name}" (source ${owner.definition.source}); give the source another namespace.`,
      );
    }
    this.#claims.set(identifier, source.name);
    return () => {
      if (this.#claims.get(identifier) === source.name) this.#claims.delete(identifier);
    };
  }

  #commit(next: RegisteredTool[]): void {
    // The lookup maps the snapshot answers from are the ones the uniqueness check fills: at
    // thousands of tools, building them twice was a fifth of registration.
    const lookup = uniqueLookup(next);
    this.#assertClaimsHeld(next);
    this.#tools = next;
    this.#version += 1;
    const snapshot = createSnapshot(this.#version, next, lookup);
    this.#snapshot = snapshot;
    for (const listener of this.#listeners) listener(snapshot);
  }
}

/** A catalog's tools by name and by identifier path. */
interface Lookup {
  readonly byName: ReadonlyMap<string, RegisteredTool>;
  readonly byPath: ReadonlyMap<string, RegisteredTool>;
}

/** The lookup of `tools`; throws TOOL_NAME_DUPLICATE or TOOL_NAME_COLLISION when two cannot be told apart. */
function uniqueLookup(tools: readonly RegisteredTool[]): Lookup {
  const byName = new Map<string, RegisteredTool>();
  const byPath = new Map<string, RegisteredTool>();
  const namespaces = new Set<string>();
  const bareNames = new Set<string>();
  for (const tool of tools) {
    const { name } = tool.definition;
    if (byName.has(name)) {
      throw new SwitchyardError("TOOL_NAME_DUPLICATE", `Tool "${name}" is registered twice.`);
    }
    byName.set(name, tool);
    const path = tool.parsedName.identifierPath;
    const other = byPath.get(path);
    if (other !== undefined) {
      throw new SwitchyardError(
        "TOOL_NAME_COLLISION",
        `Tools "${other.definition.name}" and "${name}" both map to tools.${path}; rename one of them.`,
      );
    }
    byPath.set(path, tool);
    if (tool.parsedName.namespaceIdentifier === undefined) bareNames.add(tool.parsedName.localIdentifier);
    else namespaces.add(tool.parsedName.namespaceIdentifier);
  }
  for (const bare of bareNames) {
    if (namespaces.has(bare)) {
      throw new SwitchyardError(
        "TOOL_NAME_COLLISION",
        `tools.${bare} is both a tool and a namespace; rename the tool or the namespace.`,
      );
    }
  }
  return { byName, byPath };
}

// Identifier paths are idempotent (toIdentifier maps an identifier to itself), so a key that is
// one tool's name and another's path would have collided above: the two maps never disagree.
function createSnapshot(version: number, tools: readonly RegisteredTool[], lookup: Lookup): CatalogSnapshot {
  const { byName, byPath } = lookup;
  // Every commit builds a new array and the registry never edits one: frozen as it is, not copied.
  return Object.freeze({
    version,
    tools: Object.freeze(tools),
    get: (name: string) => byName.get(name) ?? byPath.get(name),
  });
}
