// defineTool: the one way a tool enters Switchyard. It checks everything that can be checked
// without a registry (name shape, effect, timeout) and freezes the definition; schema
// compilation and example validation happen when the tool is registered, once per tool.

import type { CallerKind, JsonSchema, JsonValue, ToolEffect } from "../contract.js";
import { SwitchyardError } from "../errors.js";
import { type ParsedToolName, parseToolName } from "./tool-name.js";

/** What a tool's `execute` receives besides its validated input. */
export interface ToolContext {
  /** Fires when the call times out, the run is cancelled or the session ends. */
  readonly signal: AbortSignal;
  readonly callId: string;
  readonly caller: CallerKind;
  readonly programId: string | undefined;
  /**
   * In a durable run: `<runId>:<position>`, the same on every try of this call (a replay after a
   * crash tries again only the call that was in flight), so the tool can make it once. Else undefined.
   */
  readonly idempotencyKey?: string | undefined;
}

/** A tool as its author writes it. */
// biome-ignore lint/suspicious/noExplicitAny: an untyped execute(input) must accept any input; the schema is the check.
export interface ToolSpec<Input = any, Output = unknown> {
  /** `namespace.name` (becomes `tools.namespace.name(...)`) or a bare `name` (`tools.name(...)`). */
  readonly name: string;
  /** What the tool does, for the model: first sentence is the summary search shows. */
  readonly description: string;
  /** JSON Schema (draft 2020-12 or draft-07) of the input; checked at registration, compiled on first call. */
  readonly inputSchema: JsonSchema;
  /** Optional JSON Schema of the result; gives the declared return type and is enforced. */
  readonly outputSchema?: JsonSchema;
  /** Inputs that show correct use; each must validate against `inputSchema` (checked at registration). */
  readonly inputExamples?: readonly JsonValue[];
  /** Default `write`: unknown effects are treated as side effects. */
  readonly effect?: ToolEffect;
  /** The per-call timeout in milliseconds. Default: the pipeline's default (30 s). */
  readonly timeoutMs?: number;
  /** Keys of the resources a call touches (e.g. a real file path); writes to one key are serialized. */
  readonly resources?: (input: Input) => readonly string[];
  /**
   * Largest result, in bytes of JSON, a direct call puts into the model's context (or a call
   * hands a provider's hosted program) before it is spilled; overrides the session's
   * `results.maxDirectResultBytes` and `maxHostedResultBytes` for this tool.
   */
  readonly maxDirectResultBytes?: number;
  /**
   * `false` exempts this tool's direct results and errors from the session's redaction (a tool
   * whose output is known to hold no secrets, or must reach the model whole). Default true.
   * Programs' output is redacted as a whole whatever their tools say.
   */
  readonly redaction?: boolean;
  /**
   * Who may call the tool: `direct` (a model turn), `program` (any program: Switchyard's sandbox
   * or a provider's hosted one), `hosted-program` (only a provider's hosted program). In
   * hosted mode these become the provider's `allowed_callers`. Default `["direct", "program"]`.
   */
  readonly callers?: readonly CallerKind[];
  /** Where the tool came from, for listings (`code`, `builtin`, `mcp:<server>`). */
  readonly source?: string;
  /** Runs the tool. Throw `ToolError` to choose the code and message the caller sees. */
  readonly execute: (input: Input, context: ToolContext) => Promise<Output> | Output;
}

/** A checked, frozen tool definition. */
// biome-ignore lint/suspicious/noExplicitAny: see ToolSpec.
export interface ToolDefinition<Input = any, Output = unknown> extends ToolSpec<Input, Output> {
  readonly namespace: string | undefined;
  /** The name inside its namespace (the part after the first dot). */
  readonly localName: string;
  readonly effect: ToolEffect;
  readonly callers: readonly CallerKind[];
  readonly source: string;
}

const EFFECTS: readonly ToolEffect[] = ["read", "write", "destructive"];
const CALLERS: readonly CallerKind[] = ["direct", "program", "hosted-program"];

/**
 * Checks and freezes a tool definition. Throws `SwitchyardError` (`TOOL_NAME_INVALID`,
 * `OPTION_INVALID`) for a malformed name, effect, timeout or missing `execute`; schemas are
 * compiled later, by the registry.
 */
// biome-ignore lint/suspicious/noExplicitAny: see ToolSpec.
export function defineTool<Input = any, Output = unknown>(
  spec: ToolSpec<Input, Output>,
): ToolDefinition<Input, Output> {
  if (typeof spec !== "object" || spec === null)
    throw new SwitchyardError(
      "OPTION_INVALID",
      "A tool must be an object: { name, description, inputSchema, execute }.",
    );
  const parsed = parseToolName(spec.name);
  const { namespace, localName } = parsed;
  if (typeof spec.execute !== "function") {
    throw new SwitchyardError("OPTION_INVALID", `Tool "${spec.name}": execute must be a function.`);
  }
  if (typeof spec.description !== "string") {
    throw new SwitchyardError("OPTION_INVALID", `Tool "${spec.name}": description must be a string.`);
  }
  const effect = spec.effect ?? "write";
  if (!EFFECTS.includes(effect)) {
    throw new SwitchyardError(
      "OPTION_INVALID",
      `Tool "${spec.name}": effect must be one of ${EFFECTS.join(", ")}, got ${JSON.stringify(effect)}.`,
    );
  }
  if (
    spec.maxDirectResultBytes !== undefined &&
    !(Number.isFinite(spec.maxDirectResultBytes) && spec.maxDirectResultBytes > 0)
  ) {
    throw new SwitchyardError("OPTION_INVALID", `Tool "${spec.name}": maxDirectResultBytes must be a positive number.`);
  }
  if (spec.redaction !== undefined && typeof spec.redaction !== "boolean") {
    throw new SwitchyardError("OPTION_INVALID", `Tool "${spec.name}": redaction must be a boolean.`);
  }
  if (spec.timeoutMs !== undefined && !(Number.isFinite(spec.timeoutMs) && spec.timeoutMs > 0)) {
    throw new SwitchyardError("OPTION_INVALID", `Tool "${spec.name}": timeoutMs must be a positive number.`);
  }
  const callers: readonly unknown[] = spec.callers ?? ["direct", "program"];
  if (!Array.isArray(callers) || !callers.every((caller) => CALLERS.includes(caller as CallerKind))) {
    throw new SwitchyardError(
      "OPTION_INVALID",
      `Tool "${spec.name}": callers must be a list of ${CALLERS.map((caller) => `"${caller}"`).join(", ")}.`,
    );
  }
  const definition = Object.freeze({
    ...spec,
    namespace,
    localName,
    effect,
    callers: Object.freeze([...(callers as readonly CallerKind[])]),
    source: spec.source ?? "code",
  });
  parsedNames.set(definition, parsed);
  return definition;
}

// The parsed name of each definition defineTool made, so registration does not parse it again
// (a frozen definition's name cannot change).
const parsedNames = new WeakMap<ToolDefinition, ParsedToolName>();

/** The parsed name of a definition: the one defineTool computed, or parsed now. Throws like parseToolName. */
export function parsedNameOf(definition: ToolDefinition): ParsedToolName {
  return parsedNames.get(definition) ?? parseToolName(definition.name);
}

/** A tool as given (a spec, or already defined) as a checked definition; defines it once. */
export function toToolDefinition(tool: ToolSpec | ToolDefinition): ToolDefinition {
  return "localName" in tool && "callers" in tool && "source" in tool ? tool : defineTool(tool);
}
