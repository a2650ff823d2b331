// The one contract every place tools come from implements: an MCP server, a module of the
// user's, a framework's tool set. A source lists tools and answers calls to them; the
// registry (`ToolRegistry.attachSource`) claims its namespace, turns its listing into checked
// definitions, follows its changes and removes its tools when it closes. A source never
// touches a registry itself. The contract lives beside the registry that consumes it; sources/ implements it.

import type { ToolContext, ToolSpec } from "./define-tool.js";

/** Where a source is in its life; calls to a source that is not `connected` may fail `SOURCE_UNAVAILABLE`. */
export type ToolSourceState = "starting" | "connected" | "unavailable" | "gave-up" | "closed";

/**
 * A tool as its source lists it: a spec under its local name (the registry adds the source's
 * namespace), without `execute` (calls go to `ToolSource.call`) and without `source`.
 */
export type SourceTool = Omit<ToolSpec, "execute" | "source">;

/** A place tools come from; see the module comment. */
export interface ToolSource {
  /** Names the source; every tool it lists gets it as `source` (`mcp:github`, `module:./tools.ts`). */
  readonly name: string;
  /**
   * The namespace the source holds alone in a registry (its tools become
   * `tools.<namespace>.<name>`), or undefined when the listed names are already complete.
   */
  readonly namespace: string | undefined;
  readonly state: ToolSourceState;
  /**
   * Connects or loads, and lists for the first time. Throws `SwitchyardError`
   * (`SOURCE_START_FAILED`, naming what failed) when the source cannot be used.
   */
  start(): Promise<void>;
  /** The tools now; the same array until the listing changes. */
  list(): readonly SourceTool[];
  /**
   * Calls the listed tool `name` (its local name) with input that already passed validation
   * and the permission gate. Throws `ToolError` for failures the caller should see with a code.
   */
  call(name: string, input: unknown, context: ToolContext): Promise<unknown>;
  /** Calls `onChange` after every change of `list()`; returns the unsubscribe function. */
  watch(onChange: () => void): () => void;
  /** Releases what the source holds (child processes, connections). Safe to call twice. */
  close(): Promise<void>;
}
