// What the three framework integrations share when they bring a framework's tools into a
// Switchyard catalog: the options (namespace, effects, timeout), the names the tools get, and
// the check a framework's own approval flag gets. The framework-specific parts live beside it.

import type { ToolEffect } from "../contract.js";
import { SwitchyardError, ToolError } from "../errors.js";

/** How a framework's tools become Switchyard tools. */
export interface ImportToolsOptions {
  /** Tools become `tools.<namespace>.<name>` in programs (letters, digits, `_`, `$`, `-`). Required. */
  readonly namespace: string;
  /**
   * How each tool touches the world, which decides scheduling and default permission: one
   * effect for all, or one per tool name (unlisted tools get `write`). Default `write`: a
   * framework tool says nothing about its effects, so it is treated as having side effects.
   */
  readonly effect?: ToolEffect | Readonly<Record<string, ToolEffect>>;
  /** Per-call timeout in ms. Default: the session's default (30 s). */
  readonly timeoutMs?: number;
}

/** The full Switchyard name of a framework tool. Throws OPTION_INVALID for a missing namespace. */
export function importedToolName(options: ImportToolsOptions, name: string): string {
  if (typeof options.namespace !== "string" || options.namespace === "") {
    throw new SwitchyardError(
      "OPTION_INVALID",
      "Importing framework tools needs a namespace, e.g. { namespace: 'crm' }.",
    );
  }
  return `${options.namespace}.${name}`;
}

/** The effect and timeout fields of the definition of tool `name`. */
export function importedToolFields(
  options: ImportToolsOptions,
  name: string,
): { effect: ToolEffect; timeoutMs?: number } {
  const effect =
    typeof options.effect === "string" ? options.effect : (options.effect?.[name] ?? ("write" as ToolEffect));
  return { effect, ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }) };
}

/**
 * Refuses a call the framework would have stopped for a human's approval: Switchyard cannot
 * ask that human, so the call ends PERMISSION_DENIED. Give the tool a Switchyard permission
 * rule with `decision: "ask"` and drop the framework's flag to approve such calls instead.
 */
export function refuseUnapproved(fullName: string): never {
  throw new ToolError(
    `${fullName} needs a human's approval in its framework, which a program cannot get; the call was not made.`,
    { code: "PERMISSION_DENIED" },
  );
}

/** The last value of an async iterable (a tool streaming preliminary results), else the value itself. */
export async function finalValueOf(value: unknown): Promise<unknown> {
  const settled = await value;
  if (settled !== null && typeof settled === "object" && Symbol.asyncIterator in settled) {
    let last: unknown;
    for await (const item of settled as AsyncIterable<unknown>) last = item;
    return last;
  }
  return settled;
}
