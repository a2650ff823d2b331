// A module of the user's as a ToolSource: loaded once on start (see load-tool-module.ts for
// the export shapes it accepts), listed as it was loaded, and called through each tool's own
// `execute`. It never reloads: a module's tools change with a new session, not during one.

import { ToolError } from "../errors.js";
import type { ToolContext, ToolDefinition } from "../registry/define-tool.js";
import { loadToolModule } from "./load-tool-module.js";
import type { SourceTool, ToolSource, ToolSourceState } from "../registry/tool-source.js";

/** Options of `ModuleToolSource`. */
export interface ModuleToolSourceOptions {
  /** Folder a relative specifier is resolved against. Default: the process's working directory. */
  readonly cwd?: string;
  /**
   * Namespace the module's tools are put under (`tools.<namespace>.<name>`), claimed in the
   * registry. Default none: the names the module gives are used as they are.
   */
  readonly namespace?: string;
}

/** Tools exported by a module (path or package name); attach with `registry.attachSource`. */
export class ModuleToolSource implements ToolSource {
  readonly name: string;
  readonly namespace: string | undefined;
  readonly #specifier: string;
  readonly #cwd: string | undefined;
  #state: ToolSourceState = "starting";
  #listed: readonly SourceTool[] = [];
  #byName = new Map<string, ToolDefinition>();

  constructor(specifier: string, options: ModuleToolSourceOptions = {}) {
    this.#specifier = specifier;
    this.#cwd = options.cwd;
    this.namespace = options.namespace;
    this.name = `module:${specifier}`;
  }

  get state(): ToolSourceState {
    return this.#state;
  }

  /** Imports the module. Throws SwitchyardError `CONFIG_INVALID` naming it when it cannot be loaded or exports no tools. */
  async start(): Promise<void> {
    const definitions = await loadToolModule(this.#specifier, this.#cwd);
    this.#byName = new Map(definitions.map((definition) => [definition.name, definition]));
    this.#listed = definitions.map(
      ({ execute: _execute, source: _source, namespace: _namespace, localName: _local, ...spec }) => spec,
    );
    this.#state = "connected";
  }

  list(): readonly SourceTool[] {
    return this.#listed;
  }

  async call(name: string, input: unknown, context: ToolContext): Promise<unknown> {
    const tool = this.#byName.get(name);
    if (tool === undefined || this.#state === "closed") {
      throw new ToolError(`The module ${this.#specifier} has no tool "${name}" loaded.`, {
        code: "SOURCE_UNAVAILABLE",
      });
    }
    return await tool.execute(input, context);
  }

  watch(): () => void {
    return () => {};
  }

  async close(): Promise<void> {
    this.#state = "closed";
  }
}
