// The two error classes of Switchyard's thrown channel. SwitchyardError is for integrators:
// bad configuration, found as early as possible and never shown to a model. ToolError is
// for tool authors: thrown from `execute`, it becomes a returned outcome with the code and
// message the author chose, and nothing else of the host (no stack, no path) leaves with it.

import type { CallErrorCode, JsonValue, ToolDefinedCode } from "./contract.js";

/** Codes of configuration errors, thrown at registration or construction time. */
export type ConfigErrorCode =
  | "TOOL_NAME_INVALID"
  | "TOOL_NAME_DUPLICATE"
  | "TOOL_NAME_COLLISION"
  | "SCHEMA_INVALID"
  | "EXAMPLE_INVALID"
  | "OPTION_INVALID"
  | "NAMESPACE_CONFLICT"
  | "CONFIG_INVALID"
  | "SOURCE_START_FAILED"
  | "PEER_DEPENDENCY_MISSING";

/** A configuration error: thrown to the integrator before any model or program sees the setup. */
export class SwitchyardError extends Error {
  override readonly name = "SwitchyardError";
  readonly code: ConfigErrorCode;
  readonly details: JsonValue | undefined;

  constructor(code: ConfigErrorCode, message: string, details?: JsonValue) {
    super(message);
    this.code = code;
    this.details = details;
  }
}

/**
 * An error a tool throws on purpose. Its `code` (default `TOOL_ERROR`) and `message` are what
 * the model or program sees; any other thrown value is reported as `TOOL_ERROR` with its
 * message only.
 */
export class ToolError extends Error {
  override readonly name = "ToolError";
  readonly code: CallErrorCode | ToolDefinedCode;
  readonly details: JsonValue | undefined;

  constructor(message: string, options: { code?: string; details?: JsonValue } = {}) {
    super(message);
    this.code = options.code ?? "TOOL_ERROR";
    this.details = options.details;
  }
}

/** The message of anything thrown: an Error's message, else its string form. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
