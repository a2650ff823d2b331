// A fast, conservative check for the JSON Schemas most tools have (objects of typed properties,
// enums, formats, bounds): when it vouches for a schema, ajv's meta-schema validation and its
// compile cannot fail on it, so registration need not run them. It refuses whatever it does not
// know (references, conditionals, tuples, unknown keywords, non-plain objects, deep nesting): those
// take ajv's own check, which gives the error texts. It never throws.

import { isRunnablePattern } from "./schema-pattern.js";

const TYPES: ReadonlySet<string> = new Set(["array", "boolean", "integer", "null", "number", "object", "string"]);
const DRAFT_2020 = /^https:\/\/json-schema\.org\/draft\/2020-12\/schema#?$/;
const DRAFT_07 = /^http:\/\/json-schema\.org\/draft-07\/schema#?$/;
/** Deepest nesting of schemas vouched for; ajv's compile recurses, so deeper ones take its check. */
const MAX_DEPTH = 32;
/** Most schema nodes visited per schema, so a graph that shares objects cannot blow the walk up. */
const MAX_NODES = 5_000;

// Schema nodes left to visit in the current walk (one walk at a time: it is synchronous).
let budget = 0;

function isRecord(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

function isNumber(value: unknown): boolean {
  return typeof value === "number" && Number.isFinite(value);
}

function isCount(value: unknown): boolean {
  return typeof value === "number" && Number.isInteger(value) && value >= 0;
}

function isUniqueStrings(value: unknown): value is string[] {
  if (!Array.isArray(value)) return false;
  for (const item of value) if (typeof item !== "string") return false;
  return value.length < 2 || new Set(value).size === value.length;
}

function isType(value: unknown): boolean {
  if (typeof value === "string") return TYPES.has(value);
  if (!isUniqueStrings(value) || value.length === 0) return false;
  for (const item of value) if (!TYPES.has(item)) return false;
  return true;
}

function isSchemaMap(value: unknown, depth: number): boolean {
  if (!isRecord(value)) return false;
  for (const key of Object.keys(value)) if (!isSubschema(value[key], depth)) return false;
  return true;
}

function isSchemaList(value: unknown, depth: number): boolean {
  if (!Array.isArray(value) || value.length === 0) return false;
  for (const item of value) if (!isSubschema(item, depth)) return false;
  return true;
}

function isSubschema(value: unknown, depth: number): boolean {
  return typeof value === "boolean" || isNode(value, depth + 1);
}

// Each keyword vouched for, with what its value must be in both draft 2020-12 and draft-07.
function isKeyword(keyword: string, value: unknown, depth: number): boolean {
  switch (keyword) {
    case "type":
      return isType(value);
    case "properties":
    case "$defs":
    case "definitions":
      return isSchemaMap(value, depth);
    case "patternProperties":
      return isSchemaMap(value, depth) && Object.keys(value as object).every(isRunnablePattern);
    // An array of `items` is a tuple in draft-07 and an error in 2020-12: ajv's check tells.
    case "items":
    case "additionalProperties":
    case "not":
      return isSubschema(value, depth);
    case "anyOf":
    case "oneOf":
    case "allOf":
      return isSchemaList(value, depth);
    case "required":
      return isUniqueStrings(value);
    // The meta-schema allows an empty enum; ajv's compile refuses it.
    case "enum":
      return Array.isArray(value) && value.length > 0;
    case "const":
    case "default":
      return true;
    case "examples":
      return Array.isArray(value);
    case "title":
    case "description":
    case "$comment":
    case "format":
      return typeof value === "string";
    case "pattern":
      return isRunnablePattern(value);
    case "minimum":
    case "maximum":
    case "exclusiveMinimum":
    case "exclusiveMaximum":
      return isNumber(value);
    case "multipleOf":
      return isNumber(value) && (value as number) > 0;
    case "minLength":
    case "maxLength":
    case "minItems":
    case "maxItems":
    case "minProperties":
    case "maxProperties":
      return isCount(value);
    case "uniqueItems":
    case "deprecated":
    case "readOnly":
    case "writeOnly":
      return typeof value === "boolean";
    default:
      return false;
  }
}

function isNode(value: unknown, depth: number): boolean {
  if (depth > MAX_DEPTH || !isRecord(value) || --budget < 0) return false;
  for (const keyword of Object.keys(value)) if (!isKeyword(keyword, value[keyword], depth)) return false;
  return true;
}

/**
 * True when `schema` uses only keywords this module knows, each with a value both draft 2020-12
 * and draft-07 accept, no `$ref` or nested `$id`, every pattern one schema-pattern.ts runs, nesting at
 * most 32 deep: then ajv's meta-schema check and compile cannot fail on it. False means "ask
 * ajv", not "invalid". The root may carry `$id` (registration compiles without it) and a
 * `$schema` naming draft 2020-12 or draft-07.
 */
export function isPlainSchema(schema: unknown): boolean {
  if (!isRecord(schema)) return false;
  const declared = schema["$schema"];
  if (
    declared !== undefined &&
    !(typeof declared === "string" && (DRAFT_2020.test(declared) || DRAFT_07.test(declared)))
  ) {
    return false;
  }
  if (schema["$id"] !== undefined && typeof schema["$id"] !== "string") return false;
  budget = MAX_NODES;
  try {
    if (declared === undefined && !Object.hasOwn(schema, "$id")) return isNode(schema, 0);
    const { $schema: _schema, $id: _id, ...rest } = schema;
    return isNode(rest, 0);
  } catch {
    // A getter that throws, a proxy: ajv's check decides and reports.
    return false;
  }
}
