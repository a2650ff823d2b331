// JSON Schema -> TypeScript type text, for declarations a model reads and a compiler checks.
// Covers the practical subset (types, objects, arrays and tuples, enums, unions, local $refs);
// what TypeScript cannot say becomes `unknown` with a comment giving the reason. It never
// throws, and recursion is bounded: $refs become named types, nesting stops at 64 levels.

import type { JsonSchema } from "../contract.js";
import { toIdentifier } from "./to-identifier.js";
import { blockComment, formatJsDoc, HIDDEN_CHARACTERS, inlineJsDoc, schemaDocLines } from "./jsdoc.js";

/** Options of `schemaToTypeScript`. */
export interface SchemaToTypeScriptOptions {
  /**
   * Name of the root type, e.g. `OrdersSearchInput`; types for `$defs` are named after it
   * (`OrdersSearchInputAddress`). Sanitized to an identifier; a numeric suffix is added when
   * the name is taken.
   */
  readonly rootName: string;
  /** One level of indentation. Default two spaces. */
  readonly indent?: string;
  /**
   * Type names already declared next to this schema's. The names this call declares are
   * added, so calls sharing one set never collide. Default: a fresh set.
   */
  readonly takenNames?: Set<string>;
  /**
   * What a schema that allows anything becomes (`true`, `{}`, an array without `items`, the
   * values of an open object). Default `unknown`; observed types use `any`, so the part of a
   * result nobody has seen yet is trusted rather than refused.
   */
  readonly unconstrained?: "unknown" | "any";
}

/** The TypeScript rendering of one schema. */
export interface SchemaTypeScript {
  /** The name the root type is declared under: `rootName`, or it with a numeric suffix. */
  readonly name: string;
  /** The root type as an expression; it may mention `name` and the `$defs` types. */
  readonly type: string;
  /**
   * Complete declarations (`interface X {...}` or `type X = ...;`, each with its JSDoc):
   * the root type first, then one per `$ref` target in order of first use.
   */
  readonly declarations: readonly string[];
}

/** Deepest schema nesting rendered; deeper subschemas become `unknown`. */
export const MAX_SCHEMA_DEPTH = 64;

// Caps the subschemas visited in one call, so a schema object that shares subtrees (legal
// in JavaScript, impossible in JSON) cannot make rendering exponential.
const MAX_VISITS = 100_000;

// Keywords whose meaning TypeScript types cannot carry; named in the comment of `unknown`.
const UNEXPRESSIBLE_KEYWORDS = ["not", "if", "then", "else", "dependentSchemas", "$dynamicRef", "$recursiveRef"];

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

// Longer unions are laid out one member per line.
const MAX_INLINE_UNION_LENGTH = 80;

/**
 * Converts a JSON Schema (draft-07 or 2020-12, plus OpenAPI `nullable`) to TypeScript.
 * Objects become interfaces or type literals with JSDoc from each level's annotations;
 * `$ref`s to `#`, `#/$defs/X`, `#/definitions/X` or another local pointer become named types,
 * declared once, so recursive schemas give recursive types. External or broken `$ref`s and
 * schemas nested over 64 levels become `unknown` with a comment, as do `not` and
 * `if/then/else` when nothing else gives a type (beside other keywords they are left out:
 * the type is then wider than the schema). The schema `false` becomes `never`. Never throws.
 */
export function schemaToTypeScript(schema: JsonSchema, options: SchemaToTypeScriptOptions): SchemaTypeScript {
  const state: RenderState = {
    root: schema,
    indentUnit: options.indent ?? "  ",
    takenNames: options.takenNames ?? new Set(),
    rootName: "",
    refNames: new Map(),
    declarations: [""],
    visitsLeft: MAX_VISITS,
    unconstrained: options.unconstrained ?? "unknown",
  };
  state.rootName = allocateName(state.takenNames, options.rootName);
  state.refNames.set("#", state.rootName);
  const rendered = render(schema, { state, depth: 0, indent: "", unguarded: new Set(["#"]) });
  state.declarations[0] = declareType(state.rootName, schema, rendered);
  return { name: state.rootName, type: rendered.text, declarations: state.declarations };
}

/**
 * Joins parts into a PascalCase type name: `toTypeName("orders", "search_all")` is
 * `OrdersSearchAll`. Characters outside `[A-Za-z0-9]` separate words; the result is a valid
 * identifier (see `toIdentifier`), possibly empty.
 */
export function toTypeName(...parts: readonly string[]): string {
  // One pass over the characters: a check derives the base name of every tool of the catalog
  // (5,000 at a time), and splitting with a regular expression cost ~20 µs a name.
  let joined = "";
  for (const part of parts) {
    let wordStart = true;
    for (let at = 0; at < part.length; at++) {
      const code = part.charCodeAt(at);
      const lower = code >= 97 && code <= 122;
      if (!(lower || (code >= 65 && code <= 90) || (code >= 48 && code <= 57))) {
        wordStart = true;
        continue;
      }
      joined += wordStart && lower ? String.fromCharCode(code - 32) : part.charAt(at);
      wordStart = false;
    }
  }
  return toIdentifier(joined);
}

interface RenderState {
  readonly root: JsonSchema;
  readonly indentUnit: string;
  readonly takenNames: Set<string>;
  rootName: string;
  /** Local `$ref` (normalized) -> the name of its declared type. */
  readonly refNames: Map<string, string>;
  /** Slots are reserved before a type is rendered, so the order is the order of first use. */
  readonly declarations: string[];
  visitsLeft: number;
  readonly unconstrained: "unknown" | "any";
}

interface RenderContext {
  readonly state: RenderState;
  readonly depth: number;
  /** Indentation of the line the type starts on; nested members go one level deeper. */
  readonly indent: string;
  /**
   * `$ref`s entered without passing through an object or array since. Referring to one of
   * them again would make a type alias that is its own definition (`type A = A | null`),
   * which TypeScript rejects; anything behind a property or element is fine.
   */
  readonly unguarded: ReadonlySet<string>;
}

/** Type text with how tightly it binds, so composing never needs a parser to add parentheses. */
interface TypeText {
  readonly text: string;
  readonly binding: "union" | "intersection" | "atom";
}

function atom(text: string): TypeText {
  return { text, binding: "atom" };
}

function unknownBecause(reason: string): TypeText {
  return atom(`unknown ${blockComment(reason)}`);
}

function render(schema: unknown, context: RenderContext): TypeText {
  const { state } = context;
  if (--state.visitsLeft < 0) return unknownBecause("schema too large to render");
  if (context.depth > MAX_SCHEMA_DEPTH) return unknownBecause(`nested deeper than ${MAX_SCHEMA_DEPTH} levels`);
  if (schema === true) return atom(state.unconstrained);
  if (schema === false) return atom("never");
  if (!isRecord(schema)) return unknownBecause("not a schema");

  const inner: RenderContext = { ...context, depth: context.depth + 1 };
  // Members of a union may be laid out one per line after `| `, two levels deeper.
  const unionMember: RenderContext = { ...inner, indent: context.indent + context.state.indentUnit.repeat(2) };
  const parts: TypeText[] = [];
  if (typeof schema.$ref === "string") parts.push(renderRef(schema.$ref, inner));
  if (schema.const !== undefined) parts.push(literal(schema.const));
  else if (Array.isArray(schema.enum)) parts.push(union(schema.enum.map(literal), context));
  else {
    const types = typeNames(schema);
    if (types.length === 1 && types[0] !== undefined) parts.push(renderType(types[0], schema, inner));
    else if (types.length > 1) {
      parts.push(
        union(
          types.map((type) => renderType(type, schema, unionMember)),
          context,
        ),
      );
    }
  }
  for (const keyword of ["anyOf", "oneOf"] as const) {
    const members = schema[keyword];
    if (Array.isArray(members) && members.length > 0) {
      parts.push(
        union(
          members.map((member) => withInlineDoc(member, render(member, unionMember))),
          context,
        ),
      );
    }
  }
  if (Array.isArray(schema.allOf)) parts.push(...schema.allOf.map((member) => render(member, inner)));

  const typed = parts.filter((part) => part.text !== "unknown");
  if (typed.length > 0) return intersection(typed, context);
  if (parts.length > 0) return atom("unknown");
  const unexpressible = UNEXPRESSIBLE_KEYWORDS.filter((keyword) => schema[keyword] !== undefined);
  if (unexpressible.length === 0) return atom(state.unconstrained);
  return unknownBecause(`${unexpressible.join("/")} cannot be expressed`);
}

/**
 * The `type` keyword as a list; inferred from object or array keywords when absent.
 * OpenAPI's `nullable: true` adds "null".
 */
function typeNames(schema: Record<string, unknown>): string[] {
  const { type } = schema;
  let names: string[] = [];
  if (typeof type === "string") names = [type];
  else if (Array.isArray(type)) names = [...new Set(type.filter(isString))];
  else if (["properties", "additionalProperties", "patternProperties", "required"].some((key) => key in schema)) {
    names = ["object"];
  } else if (["items", "prefixItems"].some((key) => key in schema)) names = ["array"];
  const isNullable = schema.nullable === true && names.length > 0 && !names.includes("null");
  return isNullable ? [...names, "null"] : names;
}

function renderType(type: string, schema: Record<string, unknown>, context: RenderContext): TypeText {
  switch (type) {
    case "string":
    case "boolean":
    case "null":
      return atom(type);
    case "number":
    case "integer":
      return atom("number");
    case "object":
      return renderObject(schema, context);
    case "array":
      return renderArray(schema, context);
    default:
      return unknownBecause(`unknown type ${JSON.stringify(type)}`);
  }
}

function renderObject(schema: Record<string, unknown>, context: RenderContext): TypeText {
  const memberIndent = context.indent + context.state.indentUnit;
  const memberContext: RenderContext = { ...context, indent: memberIndent, unguarded: new Set() };
  const properties = isRecord(schema.properties) ? schema.properties : {};
  const required = new Set(Array.isArray(schema.required) ? schema.required.filter(isString) : []);
  const undescribed = [...required].filter((key) => !Object.hasOwn(properties, key));
  const index = renderIndexSignature(schema, memberContext, Object.keys(properties).length + undescribed.length > 0);
  const members: string[] = [];
  const memberTypes: TypeText[] = [];
  let anyOptional = false;

  for (const [key, propertySchema] of Object.entries(properties)) {
    const type = render(propertySchema, memberContext);
    const optional = !required.has(key);
    anyOptional ||= optional;
    memberTypes.push(type);
    const line = `${annotate(`${propertyKey(key)}${optional ? "?" : ""}:`, type)};`;
    members.push(member(schemaDocLines(propertySchema), line, memberIndent));
  }
  // A required key without a schema of its own is validated by the index signature's schema.
  const indexType = index === undefined ? atom("unknown") : unionIfInline(index.types, memberContext);
  for (const key of undescribed) {
    const type = indexType;
    memberTypes.push(type);
    members.push(member([], `${annotate(`${propertyKey(key)}:`, type)};`, memberIndent));
  }

  if (index !== undefined) {
    // TypeScript requires every named property to fit the index signature as well. Types
    // that span lines are widened to `unknown` rather than stacked into an unreadable union.
    const all = [...index.types, ...memberTypes, ...(anyOptional ? [atom("undefined")] : [])];
    const covering = memberTypes.length === 0 ? indexType : unionIfInline(all, memberContext);
    members.push(member(index.doc, `${annotate("[key: string]:", covering)};`, memberIndent));
  }
  if (members.length === 0) return atom("{ [key: string]: never }");
  return atom(`{\n${members.join("\n")}\n${context.indent}}`);
}

/**
 * The type of keys outside `properties`, from `patternProperties` and `additionalProperties`;
 * undefined for a closed object, or an object with named members and no explicit keyword.
 */
function renderIndexSignature(
  schema: Record<string, unknown>,
  context: RenderContext,
  hasNamedMembers: boolean,
): { types: TypeText[]; doc: string[] } | undefined {
  const types: TypeText[] = [];
  const doc: string[] = [];
  if (isRecord(schema.patternProperties)) {
    for (const [pattern, patternSchema] of Object.entries(schema.patternProperties)) {
      types.push(render(patternSchema, context));
      doc.push(`Keys matching /${pattern}/`, ...schemaDocLines(patternSchema));
    }
  }
  const additional = schema.additionalProperties;
  if (additional === true || (additional === undefined && !hasNamedMembers && types.length === 0)) {
    types.push(atom(context.state.unconstrained));
  } else if (additional !== undefined && additional !== false) {
    types.push(render(additional, context));
    doc.push(...schemaDocLines(additional));
  }
  return types.length === 0 ? undefined : { types, doc };
}

/** The union of types that each fit on one line; `unknown` when one spans lines or is `unknown`. */
function unionIfInline(types: readonly TypeText[], context: RenderContext): TypeText {
  const [first] = types;
  if (types.length === 1 && first !== undefined) return first;
  const isInline = types.every((type) => !type.text.includes("\n") && type.text !== "unknown");
  return isInline ? union(types, context) : atom("unknown");
}

function renderArray(schema: Record<string, unknown>, context: RenderContext): TypeText {
  const elementContext: RenderContext = { ...context, unguarded: new Set() };
  // 2020-12 spells a tuple `prefixItems` + `items`; draft-07 spells it `items: [...]` + `additionalItems`.
  if (Array.isArray(schema.prefixItems)) return renderTuple(schema.prefixItems, schema.items, elementContext);
  if (Array.isArray(schema.items)) return renderTuple(schema.items, schema.additionalItems, elementContext);
  const items = schema.items;
  if (items === undefined || items === true) return atom(`${context.state.unconstrained}[]`);
  if (items === false) return atom("[]");
  const doc = schemaDocLines(items);
  if (doc.length === 0) {
    const element = render(items, elementContext);
    return atom(element.binding === "atom" ? `${element.text}[]` : `${parenthesize(element, context.indent)}[]`);
  }
  // A documented element type gets `Array<...>`, the one form with room for a comment.
  const elementIndent = context.indent + context.state.indentUnit;
  const element = render(items, { ...elementContext, indent: elementIndent });
  return atom(`Array<\n${member(doc, element.text, elementIndent)}\n${context.indent}>`);
}

function renderTuple(elements: readonly unknown[], rest: unknown, context: RenderContext): TypeText {
  const elementIndent = context.indent + context.state.indentUnit;
  const elementContext: RenderContext = { ...context, indent: elementIndent };
  const texts = elements.map((element) => ({
    doc: schemaDocLines(element),
    type: render(element, elementContext),
  }));
  if (rest !== false) {
    const restType = rest === undefined || rest === true ? atom("unknown") : render(rest, elementContext);
    const spread = `...${restType.binding === "atom" ? restType.text : parenthesize(restType, elementIndent)}[]`;
    texts.push({ doc: [], type: atom(spread) });
  }
  const multiline = texts.some(({ doc, type }) => doc.length > 0 || type.text.includes("\n"));
  if (!multiline) return atom(`[${texts.map(({ type }) => type.text).join(", ")}]`);
  const lines = texts.map(({ doc, type }) => member(doc, `${type.text},`, elementIndent));
  return atom(`[\n${lines.join("\n")}\n${context.indent}]`);
}

function renderRef(ref: string, context: RenderContext): TypeText {
  const { state } = context;
  if (!ref.startsWith("#")) return unknownBecause(`external $ref ${ref} is not resolved`);
  const key = normalizeRef(ref);
  const target = key === undefined ? undefined : resolvePointer(state.root, key);
  if (key === undefined || target === undefined) return unknownBecause(`$ref ${ref} does not resolve`);
  if (context.unguarded.has(key)) return unknownBecause(`$ref ${ref} refers to itself`);
  const existing = state.refNames.get(key);
  if (existing !== undefined) return atom(existing);

  const name = allocateName(state.takenNames, state.rootName + toTypeName(...refNameParts(key)));
  state.refNames.set(key, name);
  const slot = state.declarations.push("") - 1;
  const unguarded = new Set(context.unguarded).add(key);
  const rendered = render(target, { state, depth: context.depth, indent: "", unguarded });
  state.declarations[slot] = declareType(name, target, rendered);
  return atom(name);
}

/** `#`, or `#/...` with percent-decoding undone; undefined when it is not a JSON Pointer. */
function normalizeRef(ref: string): string | undefined {
  let pointer: string;
  try {
    pointer = decodeURIComponent(ref.slice(1));
  } catch {
    return undefined;
  }
  if (pointer === "") return "#";
  return pointer.startsWith("/") ? `#${pointer}` : undefined;
}

function resolvePointer(root: JsonSchema, key: string): unknown {
  if (key === "#") return root;
  let node: unknown = root;
  for (const segment of pointerSegments(key)) {
    if (Array.isArray(node) && /^(0|[1-9][0-9]*)$/.test(segment)) node = node[Number(segment)];
    else if (isRecord(node) && Object.hasOwn(node, segment)) node = node[segment];
    else return undefined;
  }
  return typeof node === "boolean" || isRecord(node) ? node : undefined;
}

function pointerSegments(key: string): string[] {
  return key
    .slice(2)
    .split("/")
    .map((segment) => segment.replace(/~1/g, "/").replace(/~0/g, "~"));
}

/** The words a `$ref`'s type is named after: the def's name, or the whole path otherwise. */
function refNameParts(key: string): string[] {
  const segments = pointerSegments(key);
  const [container, name] = segments;
  const isDef = segments.length === 2 && (container === "$defs" || container === "definitions");
  return isDef && name !== undefined ? [name] : segments;
}

function declareType(name: string, schema: unknown, type: TypeText): string {
  const doc = formatJsDoc(schemaDocLines(schema), "");
  const isObjectLiteral = type.binding === "atom" && type.text.startsWith("{") && type.text.endsWith("}");
  const body = isObjectLiteral ? `interface ${name} ${type.text}` : `${annotate(`type ${name} =`, type)};`;
  return doc === "" ? body : `${doc}\n${body}`;
}

function allocateName(taken: Set<string>, wanted: string): string {
  const base = toIdentifier(wanted) || "Type";
  let name = base;
  for (let suffix = 2; taken.has(name); suffix += 1) name = `${base}${suffix}`;
  taken.add(name);
  return name;
}

/** A line at `indent` with its JSDoc above; a multi-line union keeps its own indentation. */
function member(doc: readonly string[], line: string, indent: string): string {
  const comment = formatJsDoc(doc, indent);
  const placed = line.startsWith("\n") ? line.slice(1) : `${indent}${line}`;
  return comment === "" ? placed : `${comment}\n${placed}`;
}

/** `prefix type`, or `prefix` directly followed by a union laid out one member per line. */
function annotate(prefix: string, type: TypeText): string {
  return type.text.startsWith("\n") ? `${prefix}${type.text}` : `${prefix} ${type.text}`;
}

/** Parentheses around a type; a multi-line union closes on its own line at `indent`. */
function parenthesize(type: TypeText, indent: string): string {
  return type.text.startsWith("\n") ? `(${type.text}\n${indent})` : `(${type.text})`;
}

function withInlineDoc(schema: unknown, type: TypeText): TypeText {
  const doc = schemaDocLines(schema);
  return doc.length === 0 ? type : { ...type, text: `${inlineJsDoc(doc)} ${type.text}` };
}

function propertyKey(key: string): string {
  return IDENTIFIER.test(key) ? key : (jsonLiteral(key) ?? '""');
}

function literal(value: unknown): TypeText {
  if (typeof value === "number") {
    if (!Number.isFinite(value)) return atom("number");
    // A negative literal cannot take `[]` directly: `-1[]` does not parse.
    return { text: String(value), binding: value < 0 ? "intersection" : "atom" };
  }
  const text = jsonLiteral(value);
  return text === undefined ? unknownBecause("value is not JSON") : atom(text);
}

/**
 * JSON text is valid TypeScript type syntax (literals, tuples, type literals) for any JSON value.
 * Hidden characters (HIDDEN_CHARACTERS: bidi, zero-width, tags, U+2028/2029, which JSON leaves raw) are written
 * as `\uXXXX`: a key or literal reads in the declaration as the characters it holds.
 */
function jsonLiteral(value: unknown): string | undefined {
  try {
    return JSON.stringify(value)?.replace(HIDDEN_CHARACTERS, unicodeEscape);
  } catch {
    return undefined;
  }
}

/** `\uXXXX` per UTF-16 unit: a character outside the BMP (the tags block) becomes its surrogate pair. */
function unicodeEscape(character: string): string {
  let escaped = "";
  for (let index = 0; index < character.length; index++) {
    escaped += `\\u${character.charCodeAt(index).toString(16).padStart(4, "0")}`;
  }
  return escaped;
}

/**
 * Joins members with `|`: on one line when they fit, else one per line after a line break,
 * like `\n  | A\n  | B`. Members that span lines must be rendered two levels deeper than
 * `context.indent`, the indentation of the line the union starts on.
 */
function union(members: readonly TypeText[], context: RenderContext): TypeText {
  const unique = [...new Map(members.map((member) => [member.text, member])).values()];
  const [first] = unique;
  if (first === undefined) return atom("never");
  if (unique.length === 1) return first;
  const memberIndent = context.indent + context.state.indentUnit.repeat(2);
  const texts = unique.map((member) =>
    member.text.startsWith("\n") ? parenthesize(member, memberIndent) : member.text,
  );
  const inline = texts.join(" | ");
  if (!inline.includes("\n") && inline.length <= MAX_INLINE_UNION_LENGTH) return { text: inline, binding: "union" };
  const pipeIndent = context.indent + context.state.indentUnit;
  return { text: texts.map((text) => `\n${pipeIndent}| ${text}`).join(""), binding: "union" };
}

function intersection(members: readonly TypeText[], context: RenderContext): TypeText {
  const [first] = members;
  if (members.length === 1 && first !== undefined) return first;
  const texts = members.map((member) =>
    member.binding === "union" ? parenthesize(member, context.indent) : member.text,
  );
  return { text: texts.join(" & "), binding: "intersection" };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isString(value: unknown): value is string {
  return typeof value === "string";
}
