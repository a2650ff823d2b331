// The two error classes of Switchyard's thrown channel. SwitchyardError is for integrators:
// bad configuration, found as early as possible and never shown to a model. ToolError is
// for tool authors: thrown from `execute`, it becomes a returned outcome with the code and
// message the author chose, and nothing else of the host (no stack, no path) leaves with it.
// Both are recognised by a registered brand (`Symbol.for`), never by class identity: a tool
// module may import a second copy of the package (an installed build beside a checkout).

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
  | "SANDBOX_UNAVAILABLE"
  | "OPTIONAL_DEPENDENCY_MISSING"
  | "FLEET_UNAVAILABLE"
  | "BATCH_NOT_FOUND"
  | "PROGRAM_INVALID";

const SWITCHYARD_ERROR_BRAND = Symbol.for("switchyard.SwitchyardError");
const TOOL_ERROR_BRAND = Symbol.for("switchyard.ToolError");

/** Marks `error` with `brand`: not enumerable, so it never shows in logs or JSON. */
function brand(error: Error, mark: symbol): void {
  Object.defineProperty(error, mark, { value: true, enumerable: false });
}

function hasBrand(value: unknown, mark: symbol): boolean {
  return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[mark] === true;
}

/** A configuration error: thrown to the integrator before any model or program sees the setup. */
export class SwitchyardError extends Error {
  override readonly name = "SwitchyardError";
  readonly code: ConfigErrorCode;
  readonly details: JsonValue | undefined;

  constructor(code: ConfigErrorCode, message: string, details?: JsonValue) {
    super(message);
    this.code = code;
    this.details = details;
    brand(this, SWITCHYARD_ERROR_BRAND);
  }

  /** True for a SwitchyardError from any copy of the package (`instanceof` sees only this copy's). */
  static isInstance(value: unknown): value is SwitchyardError {
    return hasBrand(value, SWITCHYARD_ERROR_BRAND);
  }
}

/**
 * An error a tool throws on purpose. Its `code` (default `TOOL_ERROR`) and `message` are what
 * the model or program sees; any other thrown value is reported as `TOOL_ERROR` with its
 * message only. A ToolError from another copy of the package counts too (`ToolError.isInstance`).
 */
export class ToolError extends Error {
  override readonly name = "ToolError";
  readonly code: CallErrorCode | ToolDefinedCode;
  readonly details: JsonValue | undefined;

  constructor(message: string, options: { code?: string; details?: JsonValue } = {}) {
    super(message);
    this.code = options.code ?? "TOOL_ERROR";
    this.details = options.details;
    brand(this, TOOL_ERROR_BRAND);
  }

  /** True for a ToolError from any copy of the package (`instanceof` sees only this copy's). */
  static isInstance(value: unknown): value is ToolError {
    return hasBrand(value, TOOL_ERROR_BRAND);
  }
}

/** The message of anything thrown: an Error's message, else its string form. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * A given value as an error message quotes it: a number as written (NaN, Infinity, which JSON
 * shows as null), anything else as JSON.
 */
export function shownValue(value: unknown): string {
  return typeof value === "number" ? String(value) : String(JSON.stringify(value));
}
