// A config that does not match CONFIG_SCHEMA, said in one line: each bad key with what was
// expected, and for a key the schema does not know, the closest key it does know ("did you
// mean"), else the keys allowed there. Reads the schema; never guesses a value.

import leven from "leven";
import type { SchemaViolation } from "../schema/schema-validator.js";
import { CONFIG_SCHEMA } from "./config-schema.js";

const UNKNOWN_KEY = /^no such property/;
const MAX_KEY_LENGTH = 64;

/** `<label> is not a valid Switchyard config: /a: ...; /b: ...` (one line; see the module comment). */
export function describeConfigViolations(label: string, violations: readonly SchemaViolation[]): string {
  const parts = violations.map((violation) => {
    const path = violation.path === "" ? "(root)" : violation.path;
    if (!UNKNOWN_KEY.test(violation.expected))
      return `${path}: expected ${violation.expected}, received ${violation.received}`;
    const segments = violation.path.split("/").slice(1).map(unescapePointer);
    const key = segments.pop() ?? "";
    const known = keysAt(segments);
    const closest = closestKey(key, known);
    if (closest !== undefined) return `${path}: unknown key; did you mean "${closest}"?`;
    return known.length === 0
      ? `${path}: unknown key`
      : `${path}: unknown key; the keys here are ${known.map((name) => `"${name}"`).join(", ")}`;
  });
  return `${label} is not a valid Switchyard config: ${parts.join("; ")}`;
}

/** The known key closest to `key` by edit distance (case-insensitive), if close enough to be a typo. */
export function closestKey(key: string, known: readonly string[]): string | undefined {
  // No config key is this long: a huge one is not a typo, and comparing it would cost its length.
  if (key.length > MAX_KEY_LENGTH) return undefined;
  const lower = key.toLowerCase();
  // A typo is a slip or two, not a different word: at most a third of the key, at most 3 edits.
  const limit = Math.min(3, Math.max(1, Math.floor(key.length / 3)));
  let best: { name: string; distance: number } | undefined;
  for (const name of known) {
    const distance = leven(lower, name.toLowerCase());
    if (distance <= limit && (best === undefined || distance < best.distance)) best = { name, distance };
  }
  return best?.name;
}

type SchemaNode = { readonly [key: string]: unknown };

/** The property names the schema allows at the object reached by `segments` (empty if unknown). */
function keysAt(segments: readonly string[]): string[] {
  let node: SchemaNode | undefined = CONFIG_SCHEMA as unknown as SchemaNode;
  for (const segment of segments) {
    node = resolve(node);
    if (node === undefined) return [];
    const properties = node["properties"] as Record<string, SchemaNode> | undefined;
    if (properties?.[segment] !== undefined) node = properties[segment];
    else if (/^\d+$/.test(segment) && typeof node["items"] === "object") node = node["items"] as SchemaNode;
    else if (typeof node["additionalProperties"] === "object") node = node["additionalProperties"] as SchemaNode;
    else return [];
  }
  node = resolve(node);
  const names = new Set(Object.keys((node?.["properties"] as object | undefined) ?? {}));
  // A union (an MCP server is a command or a URL: if/then/else) allows the keys of every branch.
  const branches = [
    ...((node?.["anyOf"] as SchemaNode[] | undefined) ?? []),
    ...((node?.["oneOf"] as SchemaNode[] | undefined) ?? []),
    ...[node?.["then"], node?.["else"]].filter((branch): branch is SchemaNode => typeof branch === "object"),
  ];
  for (const branch of branches) {
    for (const name of Object.keys((resolve(branch)?.["properties"] as object | undefined) ?? {})) names.add(name);
  }
  names.delete("$schema");
  return [...names];
}

/** Follows a local `$ref` (`#/$defs/x`). */
function resolve(node: SchemaNode | undefined): SchemaNode | undefined {
  const ref = node?.["$ref"];
  if (typeof ref !== "string" || !ref.startsWith("#/")) return node;
  let target: unknown = CONFIG_SCHEMA;
  for (const part of ref.slice(2).split("/")) target = (target as SchemaNode | undefined)?.[unescapePointer(part)];
  return target as SchemaNode | undefined;
}

function unescapePointer(segment: string): string {
  return segment.replace(/~1/g, "/").replace(/~0/g, "~");
}
