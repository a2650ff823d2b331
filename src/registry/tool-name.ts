// Tool names and the identifiers programs call them by. A name is `namespace.name` or a bare
// `name`; MCP-style names (dashes, leading digits, reserved words) are kept as they are and
// mapped to a deterministic TypeScript identifier, so `get-weather` is `tools.get_weather`.

import { SwitchyardError } from "../errors.js";
import { toIdentifier } from "../schema/to-identifier.js";

/** The parts of a tool name and the identifiers a program uses for them. */
export interface ParsedToolName {
  readonly namespace: string | undefined;
  readonly localName: string;
  /** `tools.<namespaceIdentifier>`; undefined for a bare name. */
  readonly namespaceIdentifier: string | undefined;
  /** The member a program calls: `tools.<ns>.<localIdentifier>` or `tools.<localIdentifier>`. */
  readonly localIdentifier: string;
  /** The dotted identifier path a program's call arrives with. */
  readonly identifierPath: string;
}

const MAX_NAME_LENGTH = 128;
const NAMESPACE_PATTERN = /^[A-Za-z0-9_$-]+$/;
const LOCAL_NAME_PATTERN = /^[A-Za-z0-9_$.-]+$/;

/**
 * Names the runtime answers itself at the root of `tools` (runtime/wire.ts): a tool or namespace of
 * one of them would be declared and checked, yet never reached by a program's call.
 */
export const RESERVED_ROOT_MEMBERS: ReadonlySet<string> = new Set(["$search", "$describe", "$budget", "$timer"]);

// A name of any length is quoted by its start, so a 100 KB name gives a message one line long.
function quoteStart(name: unknown): string {
  if (typeof name !== "string") return String(name);
  return name.length <= MAX_NAME_LENGTH
    ? JSON.stringify(name)
    : `${JSON.stringify(name.slice(0, 40))}… (${name.length} characters)`;
}

/**
 * Splits a tool name at its first dot and derives the identifiers. Throws
 * `SwitchyardError("TOOL_NAME_INVALID")` for an empty part, a character outside
 * `[A-Za-z0-9_$-]` (dots allowed after the namespace) or a name over 128 characters.
 */
export function parseToolName(name: string): ParsedToolName {
  if (typeof name !== "string" || name.length === 0 || name.length > MAX_NAME_LENGTH) {
    throw new SwitchyardError(
      "TOOL_NAME_INVALID",
      `Tool name ${quoteStart(name)} must be a string of 1 to ${MAX_NAME_LENGTH} characters.`,
    );
  }
  const dot = name.indexOf(".");
  const namespace = dot === -1 ? undefined : name.slice(0, dot);
  const localName = dot === -1 ? name : name.slice(dot + 1);
  if (namespace !== undefined && !NAMESPACE_PATTERN.test(namespace)) {
    throw new SwitchyardError(
      "TOOL_NAME_INVALID",
      `Tool name "${name}": namespace "${namespace}" may only contain letters, digits, "_", "$" and "-".`,
    );
  }
  if (!LOCAL_NAME_PATTERN.test(localName) || localName.startsWith(".") || localName.endsWith(".")) {
    throw new SwitchyardError(
      "TOOL_NAME_INVALID",
      `Tool name "${name}": "${localName}" may only contain letters, digits, "_", "$", "-" and inner dots.`,
    );
  }
  const namespaceIdentifier = namespace === undefined ? undefined : toIdentifier(namespace);
  const localIdentifier = toIdentifier(localName);
  if (RESERVED_ROOT_MEMBERS.has(namespaceIdentifier ?? localIdentifier)) {
    const reserved = [...RESERVED_ROOT_MEMBERS].map((member) => `tools.${member}`).join(", ");
    throw new SwitchyardError(
      "TOOL_NAME_INVALID",
      `Tool name "${name}" is reserved by the runtime (${reserved} are its own); rename the tool or its namespace.`,
    );
  }
  return {
    namespace,
    localName,
    namespaceIdentifier,
    localIdentifier,
    identifierPath: namespaceIdentifier === undefined ? localIdentifier : `${namespaceIdentifier}.${localIdentifier}`,
  };
}
