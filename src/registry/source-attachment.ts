// A tool source attached to a registry: its listing becomes checked definitions under the
// source's namespace, registered in one step whenever the listing changes. One bad tool (a
// name that cannot be a path, a schema ajv refuses, two names mapping to one identifier) is
// set aside with its reason; it never hides the source's other tools.

import { messageOf } from "../errors.js";
import type { SourceTool, ToolSource } from "./tool-source.js";
import { defineTool, type ToolDefinition } from "./define-tool.js";
import { prepareTool } from "./prepare-tool.js";

/** The part of the registry an attachment writes to. */
export interface SourceRegistrar {
  replaceSource(source: string, tools: readonly ToolDefinition[]): void;
}

/** A tool a source listed that could not be registered, and why. */
export interface SkippedTool {
  readonly name: string;
  readonly reason: string;
}

/** A source's place in a registry; `ToolRegistry.attachSource` makes one. */
export class SourceAttachment {
  readonly source: ToolSource;
  readonly #registry: SourceRegistrar;
  readonly #release: () => void;
  #listed: readonly SourceTool[] | undefined;
  #tools: readonly ToolDefinition[] = [];
  #skipped: readonly SkippedTool[] = [];
  #unwatch: (() => void) | undefined;
  #detached = false;

  constructor(registry: SourceRegistrar, source: ToolSource, release: () => void) {
    this.#registry = registry;
    this.source = source;
    this.#release = release;
  }

  /** The definitions registered for the source now. */
  get tools(): readonly ToolDefinition[] {
    return this.#tools;
  }

  /** Listed tools left out, with the reason. */
  get skippedTools(): readonly SkippedTool[] {
    return this.#skipped;
  }

  /** Registers the current listing and follows later ones. */
  follow(): void {
    this.sync();
    this.#unwatch = this.source.watch(() => {
      if (!this.#detached) this.sync();
    });
  }

  /** Registers the source's listing unless it is the one registered; returns whether the catalog moved. */
  sync(): boolean {
    const listed = this.source.list();
    if (listed === this.#listed) return false;
    this.#listed = listed;
    const skipped: SkippedTool[] = [];
    let definitions = this.#definitionsOf(listed, skipped);
    try {
      this.#registry.replaceSource(this.source.name, definitions);
    } catch {
      definitions = usableDefinitions(definitions, skipped);
      this.#registry.replaceSource(this.source.name, definitions);
    }
    this.#tools = definitions;
    this.#skipped = skipped;
    return true;
  }

  /** Removes the source's tools, releases its namespace and closes the source. Safe to call twice. */
  async close(): Promise<void> {
    if (this.#detached) return;
    this.#detached = true;
    this.#unwatch?.();
    try {
      this.#registry.replaceSource(this.source.name, []);
    } finally {
      this.#tools = [];
      this.#release();
      await this.source.close();
    }
  }

  #definitionsOf(listed: readonly SourceTool[], skipped: SkippedTool[]): ToolDefinition[] {
    const { source } = this;
    const definitions: ToolDefinition[] = [];
    for (const tool of listed) {
      try {
        definitions.push(
          defineTool({
            ...tool,
            name: source.namespace === undefined ? tool.name : `${source.namespace}.${tool.name}`,
            source: source.name,
            execute: (input: unknown, context) => source.call(tool.name, input, context),
          }),
        );
      } catch (error) {
        skipped.push({ name: tool.name, reason: messageOf(error) });
      }
    }
    return definitions;
  }
}

/** The definitions that register on their own and map to distinct identifiers; the rest go to `skipped`. */
function usableDefinitions(definitions: readonly ToolDefinition[], skipped: SkippedTool[]): ToolDefinition[] {
  const usable: ToolDefinition[] = [];
  const identifiers = new Set<string>();
  for (const definition of definitions) {
    try {
      const identifier = prepareTool(definition).parsedName.identifierPath;
      if (identifiers.has(identifier)) throw new Error(`another tool of the source also maps to tools.${identifier}`);
      identifiers.add(identifier);
      usable.push(definition);
    } catch (error) {
      skipped.push({ name: definition.localName, reason: messageOf(error) });
    }
  }
  return usable;
}
