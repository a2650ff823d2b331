// Vets the `outputSchema` a model passes to run_program, before the host compiles it: a model's
// schema is untrusted input, not the integrator's configuration. It must be small (32 KB of
// JSON, 32 levels), self-contained (`$ref` only to `#` or a definition `#/$defs/name`, no `$id`
// or dynamic anchors: nothing registered with or fetched by the shared validator) and free of
// regular expressions, which would run on the host against the program's output (one
// catastrophic pattern stalls every run). A `$ref` may not point into data (`#/default`) or an
// unknown keyword: ajv would compile what it finds there as a schema, unvetted.

import type { CallError, JsonSchema, JsonValue } from "../contract.js";

/** Bytes of a per-call outputSchema's JSON text. */
export const MAX_OUTPUT_SCHEMA_BYTES = 32 * 1024;
/** Nesting of objects and arrays in a per-call outputSchema. */
export const MAX_OUTPUT_SCHEMA_DEPTH = 32;

/** Keywords that register or resolve schemas beyond this one. */
const REFUSED_KEYWORDS = new Set([
  "$id",
  "$anchor",
  "$dynamicRef",
  "$dynamicAnchor",
  "$recursiveRef",
  "$recursiveAnchor",
]);
/**
 * The `$ref`s accepted: the root, or a definition by a name without `/` or `%` (so no pointer,
 * however encoded, reaches past the definitions, which are vetted as schemas).
 */
const LOCAL_REF = /^#(?:\/(?:\$defs|definitions)\/[^/%]+)?$/;
/** Keywords whose value is a regular expression the host would run. */
const REGEX_KEYWORDS = new Set(["pattern", "patternProperties"]);

/** The schema, or an `INPUT_INVALID` error saying what to change, with `details.path` into it. */
export function readOutputSchema(
  value: unknown,
): { readonly ok: true; readonly schema: JsonSchema } | { readonly ok: false; readonly error: CallError } {
  const refuse = (path: string, reason: string): { ok: false; error: CallError } => ({
    ok: false,
    error: {
      code: "INPUT_INVALID",
      message: `run_program's outputSchema was refused, nothing ran: ${reason}`,
      details: { path: `/outputSchema${path}`, reason } satisfies JsonValue,
    },
  });
  if (typeof value === "boolean") return { ok: true, schema: value };
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    return refuse("", "it must be a JSON Schema object (or a boolean).");
  }
  let text: string;
  try {
    text = JSON.stringify(value);
  } catch {
    return refuse("", "it is not JSON data.");
  }
  if (Buffer.byteLength(text) > MAX_OUTPUT_SCHEMA_BYTES) {
    return refuse("", `it is larger than ${MAX_OUTPUT_SCHEMA_BYTES} bytes of JSON; state the shape more simply.`);
  }
  // Walked without recursion: the depth check must hold for input nested past the stack's depth.
  const stack: { node: unknown; path: string; depth: number; kind: NodeKind }[] = [
    { node: value, path: "", depth: 1, kind: "schema" },
  ];
  while (stack.length > 0) {
    const { node, path, depth, kind } = stack.pop()!;
    if (node === null || typeof node !== "object") continue;
    if (depth > MAX_OUTPUT_SCHEMA_DEPTH) {
      return refuse(path, `it is nested deeper than ${MAX_OUTPUT_SCHEMA_DEPTH} levels.`);
    }
    for (const [key, child] of Object.entries(node)) {
      const childPath = `${path}/${key.replace(/~/g, "~0").replace(/\//g, "~1")}`;
      if (kind === "schema") {
        const refusal = refusalOf(key, child, path);
        if (refusal !== undefined) return refuse(childPath, refusal);
      }
      stack.push({ node: child, path: childPath, depth: depth + 1, kind: childKind(kind, key, child) });
    }
  }
  return { ok: true, schema: value as JsonSchema };
}

/**
 * What a node of the schema is: a schema (its keys are keywords), a map or list of schemas
 * (`properties`, `anyOf`), or data (`enum`, `default`: nothing in it is a keyword).
 */
type NodeKind = "schema" | "schemas" | "data";

// draft-07's `dependencies` maps a property to a schema (or a list of names): ajv applies it.
const SCHEMA_MAPS = new Set(["properties", "$defs", "definitions", "dependentSchemas", "dependencies"]);
const SCHEMA_LISTS = new Set(["allOf", "anyOf", "oneOf", "prefixItems"]);
const SUBSCHEMAS = new Set([
  "items",
  "additionalItems",
  "additionalProperties",
  "unevaluatedItems",
  "unevaluatedProperties",
  "not",
  "if",
  "then",
  "else",
  "contains",
  "propertyNames",
]);

function childKind(kind: NodeKind, key: string, child: unknown): NodeKind {
  if (kind === "schemas") return "schema";
  if (kind === "data") return "data";
  if (SCHEMA_MAPS.has(key) || SCHEMA_LISTS.has(key)) return "schemas";
  // `items` as an array is draft-07's tuple form: a list of schemas.
  if (SUBSCHEMAS.has(key)) return Array.isArray(child) ? "schemas" : "schema";
  return "data";
}

/** Why keyword `key` (of the schema at `path`) is refused, or undefined. */
function refusalOf(key: string, value: unknown, path: string): string | undefined {
  if (REFUSED_KEYWORDS.has(key)) return `"${key}" is not accepted here: the schema must be self-contained.`;
  if (REGEX_KEYWORDS.has(key)) {
    return `"${key}" is not accepted here (a regular expression would run on the host); check the string's shape in the program instead.`;
  }
  if (key === "$ref" && !(typeof value === "string" && LOCAL_REF.test(value))) {
    return `"$ref" may only point to this schema ("#") or one of its definitions ("#/$defs/name"), not to ${preview(value)}.`;
  }
  if (key === "$schema" && path !== "") return `"$schema" is accepted at the top of the schema only.`;
  return undefined;
}

function preview(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}
