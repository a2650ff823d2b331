// Tool names and the identifiers programs call them by. A name is `namespace.name` or a bare
// `name`; MCP-style names (dashes, leading digits, reserved words) are kept as they are and
// mapped to a deterministic TypeScript identifier, so `get-weather` is `tools.get_weather`.

import { SwitchyardError } from "../errors.js";

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

// Words a member of `tools` may not be called as written: JavaScript reserved words, and
// `then`, which would make `tools` (or a namespace) a thenable that `await` unwraps.
const RESERVED = new Set(
  (
    "break case catch class const continue debugger default delete do else enum export extends false " +
    "finally for function if import in instanceof new null return super switch this throw true try " +
    "typeof var void while with yield let static implements interface package private protected " +
    "public await arguments eval then constructor prototype __proto__"
  ).split(" "),
);

/** Names reserved by the runtime itself at the root of `tools`. */
export const RESERVED_ROOT_MEMBERS: ReadonlySet<string> = new Set(["$search", "$describe"]);

/**
 * Maps a name part to a valid TypeScript identifier, deterministically: invalid characters
 * become `_`, a leading digit gets a `_` prefix, a reserved word gets a `_` suffix.
 */
export function toIdentifier(part: string): string {
  let identifier = part.replace(/[^A-Za-z0-9_$]/g, "_");
  if (/^[0-9]/.test(identifier)) identifier = `_${identifier}`;
  if (RESERVED.has(identifier)) identifier = `${identifier}_`;
  return identifier;
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
      `Tool name ${JSON.stringify(name)} must be a string of 1 to ${MAX_NAME_LENGTH} characters.`,
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
    throw new SwitchyardError("TOOL_NAME_INVALID", `Tool name "${name}" is reserved by the runtime.`);
  }
  return {
    namespace,
    localName,
    namespaceIdentifier,
    localIdentifier,
    identifierPath: namespaceIdentifier === undefined ? localIdentifier : `${namespaceIdentifier}.${localIdentifier}`,
  };
}
