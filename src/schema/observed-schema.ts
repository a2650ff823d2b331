// The shape of tool results, as a small subset of JSON Schema (type, properties, required,
// items, additionalProperties): inferred from one value, merged over many, and compared, so a
// tool without an outputSchema can be given an observed type. Every step is bounded in depth,
// keys, key length, array elements and nodes; values are read as JSON.stringify reads them. A
// key that may not be shown (too long, or holding a secret) is never recorded: its object is
// read as a record. Pure: no I/O.

import type { JsonSchema } from "../contract.js";

/** A JSON type as `typeof` of a parsed JSON value would tell it apart. */
export type ObservedKind = "null" | "boolean" | "number" | "string" | "object" | "array";

/**
 * An observed shape. `{}` is anything (what was cut at the depth limit). An object is either a
 * struct (`properties`, with `required` the keys every result had) or, past MAX_OBSERVED_KEYS
 * keys, a record (`additionalProperties`). An array without `items` held no element yet.
 */
export interface ObservedSchema {
  readonly type?: ObservedKind | readonly ObservedKind[];
  readonly properties?: Readonly<Record<string, ObservedSchema>>;
  readonly required?: readonly string[];
  readonly additionalProperties?: ObservedSchema;
  readonly items?: ObservedSchema;
}

/** Nesting levels kept; what lies deeper is `{}` (anything). */
export const MAX_OBSERVED_DEPTH = 6;
/** Keys an object may have before it is read as a record of one value type. */
export const MAX_OBSERVED_KEYS = 40;
/** Elements of an array (and values of a record) read per result, spread over its length. */
export const MAX_SAMPLED_ELEMENTS = 20;
/**
 * Longest key listed as a property. An object with a longer key is read as a record: keys that
 * long are data (ids, texts), and a hostile result must not grow every later declaration.
 */
export const MAX_OBSERVED_KEY_CHARS = 64;
/** Values read per result; a result larger than this read in full is not observed at all. */
export const MAX_INFERRED_NODES = 20_000;
/** Nodes a merged schema may keep; a larger one is cut to fewer levels until it fits. */
export const MAX_SCHEMA_NODES = 200;

const KIND_ORDER: readonly ObservedKind[] = ["null", "boolean", "number", "string", "object", "array"];
// Leaves are shared: a result's shape is mostly leaves, and nothing ever changes a schema.
const NULL_SCHEMA: ObservedSchema = Object.freeze({ type: "null" });
const BOOLEAN_SCHEMA: ObservedSchema = Object.freeze({ type: "boolean" });
const NUMBER_SCHEMA: ObservedSchema = Object.freeze({ type: "number" });
const STRING_SCHEMA: ObservedSchema = Object.freeze({ type: "string" });
const NO_PROPERTIES: Readonly<Record<string, ObservedSchema>> = Object.freeze({});

/**
 * Says whether a key may be recorded, besides its length: false for a key holding a secret.
 * Must not throw. An object with a key it refuses is read as a record.
 */
export type ObservedKeyFilter = (key: string) => boolean;

/** Whether `key` may be listed as a property. */
function isShownKey(key: string, showKey: ObservedKeyFilter | undefined): boolean {
  return key.length <= MAX_OBSERVED_KEY_CHARS && (showKey === undefined || showKey(key));
}

/**
 * The shape of `value` as the JSON text of it would have it (`toJSON` called, functions and
 * `undefined` dropped from objects, non-finite numbers as null), within the bounds above.
 * Undefined when the value is too large to read in MAX_INFERRED_NODES steps, is not JSON
 * (a BigInt), or throws while it is read. `showKey` refuses keys besides the length bound.
 */
export function inferSchema(value: unknown, showKey?: ObservedKeyFilter): ObservedSchema | undefined {
  const budget = { nodes: MAX_INFERRED_NODES, showKey };
  try {
    const schema = infer(value, "", 0, budget);
    if (schema === undefined) return undefined;
    // A schema has no more nodes than values were read: a small result needs no counting.
    return MAX_INFERRED_NODES - budget.nodes <= MAX_SCHEMA_NODES ? schema : bound(schema);
  } catch {
    return undefined;
  }
}

/** The shape that both `a` and `b` fit: kinds united, keys missing in one made optional. */
export function mergeSchemas(a: ObservedSchema, b: ObservedSchema): ObservedSchema {
  return covers(a, b) ? a : bound(merge(a, b));
}

/**
 * Where `actual` (the shape of one result) breaks `expected`, as a TypeScript reader would
 * judge it: a kind the type does not allow, or a required key missing. Keys `expected` does
 * not list are fine (structural typing). Undefined when it fits.
 */
export function findMismatch(expected: ObservedSchema, actual: ObservedSchema, path = "$"): string | undefined {
  const expectedKinds = kindsOf(expected);
  if (expectedKinds.length === 0) return undefined;
  const actualKinds = kindsOf(actual);
  const extra = actualKinds.filter((kind) => !expectedKinds.includes(kind));
  if (extra.length > 0) return `${path} is ${extra.join(" or ")}, where the type has ${expectedKinds.join(" | ")}`;
  if (actualKinds.includes("object") && expectedKinds.includes("object")) {
    const found = objectMismatch(expected, actual, path);
    if (found !== undefined) return found;
  }
  if (actualKinds.includes("array") && expectedKinds.includes("array")) {
    if (expected.items !== undefined && actual.items !== undefined) {
      return findMismatch(expected.items, actual.items, `${path}[]`);
    }
  }
  return undefined;
}

/** Whether `a` and `b` are the same shape (key order included, which the rendering shows). */
export function sameSchema(a: ObservedSchema, b: ObservedSchema): boolean {
  return a === b || JSON.stringify(a) === JSON.stringify(b);
}

/**
 * Whether merging `shape` into `schema` would leave `schema` as it is: every kind, key and
 * element of `shape` is already there, and every key `schema` requires is in `shape`. The
 * common case of a result like the ones before, answered without building a merged schema.
 */
export function covers(schema: ObservedSchema, shape: ObservedSchema): boolean {
  const kinds = kindsOf(schema);
  if (kinds.length === 0) return true;
  const shapeKinds = kindsOf(shape);
  if (shapeKinds.length === 0) return false;
  for (const kind of shapeKinds) if (!kinds.includes(kind)) return false;
  if (shapeKinds.includes("object")) {
    const part = objectPart(schema)!;
    const shapePart = objectPart(shape)!;
    if (part.additionalProperties !== undefined) {
      if (shapePart.additionalProperties !== undefined) {
        if (!covers(part.additionalProperties, shapePart.additionalProperties)) return false;
      } else {
        for (const value of Object.values(shapePart.properties ?? {})) {
          if (!covers(part.additionalProperties, value)) return false;
        }
      }
    } else {
      if (shapePart.additionalProperties !== undefined) return false;
      const properties = part.properties ?? {};
      const shapeProperties = shapePart.properties ?? {};
      for (const [key, value] of Object.entries(shapeProperties)) {
        const known = ownProperty(properties, key);
        if (known === undefined || !covers(known, value)) return false;
      }
      for (const key of part.required ?? []) if (!Object.hasOwn(shapeProperties, key)) return false;
    }
  }
  if (shapeKinds.includes("array") && shape.items !== undefined) {
    if (schema.items === undefined || !covers(schema.items, shape.items)) return false;
  }
  return true;
}

/**
 * `value` read as an ObservedSchema, as a file may hold one: unknown keywords dropped, kinds
 * checked, bounds applied (an object listing a key `showKey` or the length bound refuses becomes
 * a record of its values). Undefined for anything that is not a schema object.
 */
export function normalizeObservedSchema(
  value: unknown,
  depth = 0,
  showKey?: ObservedKeyFilter,
): ObservedSchema | undefined {
  if (!isRecord(value)) return undefined;
  if (depth > MAX_OBSERVED_DEPTH) return {};
  const kinds = (Array.isArray(value.type) ? value.type : value.type === undefined ? [] : [value.type]).filter(
    (kind): kind is ObservedKind => KIND_ORDER.includes(kind as ObservedKind),
  );
  if (kinds.length === 0) return {};
  const schema: Mutable<ObservedSchema> = { type: kindsValue(kinds) };
  if (kinds.includes("object")) {
    if (isRecord(value.additionalProperties)) {
      schema.additionalProperties = normalizeObservedSchema(value.additionalProperties, depth + 1, showKey) ?? {};
    } else {
      const properties = emptyProperties();
      const listed = isRecord(value.properties) ? Object.entries(value.properties) : [];
      for (const [key, propertySchema] of listed.slice(0, MAX_OBSERVED_KEYS)) {
        if (key === "__proto__") continue;
        properties[key] = normalizeObservedSchema(propertySchema, depth + 1, showKey) ?? {};
      }
      if (Object.keys(properties).some((key) => !isShownKey(key, showKey))) {
        // A file written before the key bounds, or by a session that knew other secrets.
        schema.additionalProperties = recordValues([{ properties }]);
      } else {
        schema.properties = properties;
        const required = Array.isArray(value.required) ? value.required : [];
        schema.required = required.filter(
          (key): key is string => typeof key === "string" && Object.hasOwn(properties, key),
        );
      }
    }
  }
  if (kinds.includes("array") && value.items !== undefined) {
    schema.items = normalizeObservedSchema(value.items, depth + 1, showKey) ?? {};
  }
  return bound(schema);
}

/**
 * How a count of results reads in a declaration: exact for one, else rounded down to 2+, 10+,
 * 100+ or 1,000+, so the text changes five times in a tool's life rather than at every result.
 */
export function describeResultCount(results: number): string {
  if (results <= 1) return "1 result";
  return `${countBand(results).toLocaleString("en-US")}+ results`;
}

/** The band `describeResultCount` rounds `results` down to: 1, 2, 10, 100 or 1,000. */
export function countBand(results: number): number {
  if (results >= 1_000) return 1_000;
  if (results >= 100) return 100;
  if (results >= 10) return 10;
  return results >= 2 ? 2 : 1;
}

/**
 * The JSON Schema of an observed shape (it already is one), with `description` set. With
 * `maxNodes`, only that many nodes are kept, depth first in key order: an object's keys past the
 * budget are left out and an index signature of `any` says how many (`12 more keys not shown`),
 * an array's elements past it become anything.
 */
export function observedToJsonSchema(schema: ObservedSchema, description: string, maxNodes = Infinity): JsonSchema {
  const kept = maxNodes === Infinity ? schema : keepNodes(schema, { left: maxNodes });
  return { ...kept, description } as JsonSchema;
}

/** `schema` with at most `budget.left` nodes, as `observedToJsonSchema` describes. */
function keepNodes(schema: ObservedSchema, budget: { left: number }): ObservedSchema {
  budget.left -= 1;
  const copy: Mutable<ObservedSchema> & { description?: string } = { ...schema };
  if (schema.properties !== undefined) {
    const properties = emptyProperties();
    const keys = Object.keys(schema.properties);
    let shown = 0;
    for (; shown < keys.length && budget.left > 0; shown++) {
      properties[keys[shown]!] = keepNodes(schema.properties[keys[shown]!]!, budget);
    }
    copy.properties = properties;
    if (shown < keys.length) {
      copy.required = (schema.required ?? []).filter((key) => Object.hasOwn(properties, key));
      const left = keys.length - shown;
      copy.additionalProperties = {
        description: `${left} more ${left === 1 ? "key" : "keys"} not shown`,
      } as ObservedSchema;
    }
  }
  if (schema.additionalProperties !== undefined)
    copy.additionalProperties = budget.left > 0 ? keepNodes(schema.additionalProperties, budget) : {};
  if (schema.items !== undefined) copy.items = budget.left > 0 ? keepNodes(schema.items, budget) : {};
  return copy;
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/**
 * Whether observing `value` would leave `schema` as it is, read the way `inferSchema` reads it
 * (the same elements, the same bounds) but without building its shape: the answer for nearly
 * every result once a tool's type has settled. False when in doubt, never wrongly true.
 */
export function fitsWithoutChange(schema: ObservedSchema, value: unknown): boolean {
  try {
    return coveredValue(schema, value, "", 0, { nodes: MAX_INFERRED_NODES });
  } catch {
    return false;
  }
}

/** `value` as JSON.stringify reads it: after `toJSON(key)`, if it has one. */
function jsonView(value: unknown, key: string | number): unknown {
  if (typeof value === "object" && value !== null && typeof (value as { toJSON?: unknown }).toJSON === "function") {
    return (value as { toJSON: (key: string) => unknown }).toJSON(String(key));
  }
  return value;
}

/** The kind of a JSON-visible value; undefined for what JSON leaves out (undefined, functions, symbols). */
function kindOfValue(value: unknown): ObservedKind | undefined {
  if (value === null) return "null";
  switch (typeof value) {
    case "boolean":
      return "boolean";
    case "number":
      return Number.isFinite(value) ? "number" : "null";
    case "string":
      return "string";
    case "object":
      return Array.isArray(value) ? "array" : "object";
    case "bigint":
      throw new Error("not JSON");
    default:
      return undefined;
  }
}

function coveredValue(
  schema: ObservedSchema,
  value: unknown,
  key: string | number,
  depth: number,
  budget: InferBudget,
): boolean {
  // Written for speed (it runs on every result): no allocation on the way down.
  const { type } = schema;
  if (type === undefined) return true;
  if (--budget.nodes < 0) return false;
  const current = jsonView(value, key);
  const kind = kindOfValue(current);
  if (kind === undefined || !(type === kind || (typeof type !== "string" && type.includes(kind)))) return false;
  if (kind === "array") {
    const array = current as readonly unknown[];
    const { items } = schema;
    if (depth >= MAX_OBSERVED_DEPTH) return items !== undefined && items.type === undefined;
    if (array.length === 0) return true;
    if (items === undefined) return false;
    const samples = sampleCount(array.length);
    for (let sample = 0; sample < samples; sample++) {
      const index = sampleIndex(sample, array.length);
      const element = array[index];
      const visible = kindOfValue(jsonView(element, index)) === undefined ? null : element;
      if (!coveredValue(items, visible, index, depth + 1, budget)) return false;
    }
    return true;
  }
  if (kind !== "object") return true;
  const object = current as Record<string, unknown>;
  const values = schema.additionalProperties;
  if (depth >= MAX_OBSERVED_DEPTH) return values !== undefined && values.type === undefined;
  if (values !== undefined) {
    const names = Object.keys(object).filter((name) => name !== "__proto__");
    const sampled = names.length > MAX_OBSERVED_KEYS;
    const samples = sampled ? sampleCount(names.length) : names.length;
    for (let sample = 0; sample < samples; sample++) {
      const name = names[sampled ? sampleIndex(sample, names.length) : sample]!;
      const element = object[name];
      if (kindOfValue(jsonView(element, name)) === undefined) continue;
      if (!coveredValue(values, element, name, depth + 1, budget)) return false;
    }
    return true;
  }
  const properties = schema.properties ?? NO_PROPERTIES;
  let keys = 0;
  for (const name in object) {
    if (!Object.hasOwn(object, name) || name === "__proto__") continue;
    // Past the key limit the result reads as a record, which a struct does not cover.
    if (++keys > MAX_OBSERVED_KEYS) return false;
    const element = object[name];
    if (kindOfValue(jsonView(element, name)) === undefined) continue;
    const known = ownProperty(properties, name);
    if (known === undefined || !coveredValue(known, element, name, depth + 1, budget)) return false;
  }
  const required = schema.required;
  if (required !== undefined) {
    for (let index = 0; index < required.length; index++) {
      const name = required[index]!;
      if (!Object.hasOwn(object, name) || kindOfValue(jsonView(object[name], name)) === undefined) return false;
    }
  }
  return true;
}

/** What one inference may still read, and the keys it may record. */
interface InferBudget {
  nodes: number;
  readonly showKey?: ObservedKeyFilter | undefined;
}

function infer(value: unknown, key: string | number, depth: number, budget: InferBudget): ObservedSchema | undefined {
  if (--budget.nodes < 0) throw new Error("too large to observe");
  const current = jsonView(value, key);
  if (current === null) return NULL_SCHEMA;
  switch (typeof current) {
    case "boolean":
      return BOOLEAN_SCHEMA;
    case "number":
      return Number.isFinite(current) ? NUMBER_SCHEMA : NULL_SCHEMA;
    case "string":
      return STRING_SCHEMA;
    case "object":
      break;
    case "bigint":
      throw new Error("not JSON");
    default:
      // undefined, a function or a symbol: JSON leaves the key out (in an array, writes null).
      return undefined;
  }
  if (Array.isArray(current)) {
    if (depth >= MAX_OBSERVED_DEPTH) return { type: "array", items: {} };
    let items: ObservedSchema | undefined;
    const samples = sampleCount(current.length);
    for (let sample = 0; sample < samples; sample++) {
      const index = sampleIndex(sample, current.length);
      const element = infer(current[index], index, depth + 1, budget) ?? NULL_SCHEMA;
      items = items === undefined ? element : covers(items, element) ? items : merge(items, element);
    }
    return items === undefined ? { type: "array" } : { type: "array", items };
  }
  if (depth >= MAX_OBSERVED_DEPTH) return { type: "object", additionalProperties: {} };
  const object = current as Record<string, unknown>;
  const properties = emptyProperties();
  const required: string[] = [];
  let keys = 0;
  for (const name in object) {
    if (!Object.hasOwn(object, name) || name === "__proto__") continue;
    if (++keys > MAX_OBSERVED_KEYS || !isShownKey(name, budget.showKey)) return inferRecord(object, depth, budget);
    const propertySchema = infer(object[name], name, depth + 1, budget);
    if (propertySchema === undefined) continue;
    properties[name] = propertySchema;
    required.push(name);
  }
  return { type: "object", properties, required };
}

/** An object with too many keys to list, read as a record: a sample of its values merged. */
function inferRecord(object: Record<string, unknown>, depth: number, budget: InferBudget): ObservedSchema {
  const names = Object.keys(object).filter((name) => name !== "__proto__");
  let values: ObservedSchema | undefined;
  const samples = sampleCount(names.length);
  for (let sample = 0; sample < samples; sample++) {
    const name = names[sampleIndex(sample, names.length)]!;
    const schema = infer(object[name], name, depth + 1, budget);
    if (schema !== undefined)
      values = values === undefined ? schema : covers(values, schema) ? values : merge(values, schema);
  }
  return { type: "object", additionalProperties: values ?? {} };
}

/** How many of `length` elements are read: all, up to MAX_SAMPLED_ELEMENTS. */
function sampleCount(length: number): number {
  return Math.min(length, MAX_SAMPLED_ELEMENTS);
}

/** The index of the `sample`th element read: spread over `length`, first and last included. */
function sampleIndex(sample: number, length: number): number {
  if (length <= MAX_SAMPLED_ELEMENTS) return sample;
  return Math.round((sample * (length - 1)) / (MAX_SAMPLED_ELEMENTS - 1));
}

function merge(a: ObservedSchema, b: ObservedSchema): ObservedSchema {
  const aKinds = kindsOf(a);
  const bKinds = kindsOf(b);
  // `{}` is anything, so anything merged with it is still anything.
  if (aKinds.length === 0 || bKinds.length === 0) return {};
  const kinds = KIND_ORDER.filter((kind) => aKinds.includes(kind) || bKinds.includes(kind));
  const merged: Mutable<ObservedSchema> = { type: kindsValue(kinds) };
  if (kinds.includes("object")) Object.assign(merged, mergeObjects(objectPart(a), objectPart(b)));
  if (kinds.includes("array")) {
    const items = a.items === undefined ? b.items : b.items === undefined ? a.items : merge(a.items, b.items);
    if (items !== undefined) merged.items = items;
  }
  return merged;
}

type ObjectPart = Pick<ObservedSchema, "properties" | "required" | "additionalProperties"> | undefined;

function objectPart(schema: ObservedSchema): ObjectPart {
  if (!kindsOf(schema).includes("object")) return undefined;
  return schema.additionalProperties !== undefined
    ? { additionalProperties: schema.additionalProperties }
    : { properties: schema.properties ?? {}, required: schema.required ?? [] };
}

function mergeObjects(a: ObjectPart, b: ObjectPart): ObjectPart {
  if (a === undefined) return b;
  if (b === undefined) return a;
  if (a.additionalProperties !== undefined || b.additionalProperties !== undefined) {
    return { additionalProperties: recordValues([a, b]) };
  }
  const aProperties = a.properties ?? {};
  const bProperties = b.properties ?? {};
  const properties = emptyProperties();
  for (const [key, schema] of Object.entries(aProperties)) {
    const other = ownProperty(bProperties, key);
    properties[key] = other === undefined ? schema : merge(schema, other);
  }
  for (const [key, schema] of Object.entries(bProperties))
    if (!Object.hasOwn(properties, key)) properties[key] = schema;
  if (Object.keys(properties).length > MAX_OBSERVED_KEYS) return { additionalProperties: recordValues([a, b]) };
  // A key is required only where every result had it; one result that lacked it makes it optional.
  const bRequired = new Set(b.required ?? []);
  const required = (a.required ?? []).filter((key) => bRequired.has(key));
  return { properties, required };
}

/** The one value type of a record made of object parts: every property and record value merged. */
function recordValues(parts: readonly NonNullable<ObjectPart>[]): ObservedSchema {
  let values: ObservedSchema | undefined;
  const add = (schema: ObservedSchema): void => {
    values = values === undefined ? schema : merge(values, schema);
  };
  for (const part of parts) {
    if (part.additionalProperties !== undefined) add(part.additionalProperties);
    for (const schema of Object.values(part.properties ?? {})) add(schema);
  }
  return values ?? {};
}

function objectMismatch(expected: ObservedSchema, actual: ObservedSchema, path: string): string | undefined {
  const expectedPart = objectPart(expected)!;
  const actualPart = objectPart(actual)!;
  if (expectedPart.additionalProperties !== undefined) {
    const values = expectedPart.additionalProperties;
    const actualValues =
      actualPart.additionalProperties === undefined
        ? Object.entries(actualPart.properties ?? {})
        : [["*", actualPart.additionalProperties] as const];
    for (const [key, schema] of actualValues) {
      const found = findMismatch(values, schema, `${path}${propertyPath(key)}`);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  // A record this large tells no key apart; nothing it lists can be checked key by key.
  if (actualPart.additionalProperties !== undefined) return undefined;
  const actualProperties = actualPart.properties ?? {};
  for (const key of expectedPart.required ?? []) {
    if (!Object.hasOwn(actualProperties, key)) return `${path}${propertyPath(key)} is missing`;
  }
  for (const [key, schema] of Object.entries(expectedPart.properties ?? {})) {
    const actualSchema = ownProperty(actualProperties, key);
    if (actualSchema === undefined) continue;
    const found = findMismatch(schema, actualSchema, `${path}${propertyPath(key)}`);
    if (found !== undefined) return found;
  }
  return undefined;
}

function propertyPath(key: string): string {
  return key === "*" ? "[*]" : /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`;
}

/** The schema cut to fewer levels until it has at most MAX_SCHEMA_NODES nodes. */
function bound(schema: ObservedSchema): ObservedSchema {
  let depth = MAX_OBSERVED_DEPTH;
  let current = schema;
  while (countNodes(current) > MAX_SCHEMA_NODES && depth > 0) current = cut(schema, --depth);
  return current;
}

function countNodes(schema: ObservedSchema): number {
  let nodes = 1;
  for (const child of Object.values(schema.properties ?? {})) nodes += countNodes(child);
  if (schema.additionalProperties !== undefined) nodes += countNodes(schema.additionalProperties);
  if (schema.items !== undefined) nodes += countNodes(schema.items);
  return nodes;
}

/** `schema` with everything below `depth` levels replaced by `{}`. */
function cut(schema: ObservedSchema, depth: number): ObservedSchema {
  const kinds = kindsOf(schema);
  if (depth <= 0) {
    if (kinds.length === 0) return {};
    const shallow: Mutable<ObservedSchema> = { type: schema.type! };
    if (kinds.includes("object")) shallow.additionalProperties = {};
    if (kinds.includes("array")) shallow.items = {};
    return shallow;
  }
  const copy: Mutable<ObservedSchema> = { ...schema };
  if (schema.properties !== undefined) {
    const properties = emptyProperties();
    for (const [key, child] of Object.entries(schema.properties)) properties[key] = cut(child, depth - 1);
    copy.properties = properties;
  }
  if (schema.additionalProperties !== undefined)
    copy.additionalProperties = cut(schema.additionalProperties, depth - 1);
  if (schema.items !== undefined) copy.items = cut(schema.items, depth - 1);
  return copy;
}

function kindsOf(schema: ObservedSchema): readonly ObservedKind[] {
  const { type } = schema;
  if (type === undefined) return [];
  return typeof type === "string" ? [type] : type;
}

function kindsValue(kinds: readonly ObservedKind[]): ObservedKind | readonly ObservedKind[] {
  const ordered = KIND_ORDER.filter((kind) => kinds.includes(kind));
  return ordered.length === 1 ? ordered[0]! : ordered;
}

/**
 * A properties map. A plain object (a prototype-less one is several times slower to build and
 * read), so every read of a key goes through `ownProperty`: `constructor` is just a key.
 */
function emptyProperties(): Record<string, ObservedSchema> {
  return {};
}

function ownProperty(properties: Readonly<Record<string, ObservedSchema>>, key: string): ObservedSchema | undefined {
  return Object.hasOwn(properties, key) ? properties[key] : undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
