// Steps 2 and 6 of the pipeline (numbered in execute-tool-call.ts): JSON Schema validation
// with ajv, compiled once per schema (eagerly with compileSchema, on first use with
// prepareSchema). A schema that cannot compile is a configuration error (thrown at registration);
// a value that does not match is data: every failing path, what was expected and what was given.

import { createRequire } from "node:module";
import type { Ajv, ErrorObject, ValidateFunction } from "ajv";
import type { Ajv2020 } from "ajv/dist/2020.js";
import type { JsonSchema, JsonValue } from "../contract.js";
import { SwitchyardError, messageOf } from "../errors.js";
import { isRunnablePattern, loadPatternEngine, schemaPatternEngine } from "./schema-pattern.js";
import { wordCut } from "../../runtime/wire.js";
import { exceedsValueDepth, MAX_VALIDATED_DEPTH } from "../json-limits.js";
import { groupViolations, MAX_VIOLATION_LINES, type ViolationGroup } from "./group-violations.js";
import { isPlainSchema } from "./plain-schema.js";
import { analyzeRecursion, resolveLocalRef, schemaObjectsIn } from "./schema-recursion.js";
import { schemaSizeProblem } from "./schema-size.js";
import { schemaText } from "./schema-text.js";

/** One reason a value does not match its schema. */
export interface SchemaViolation {
  /** JSON Pointer into the value, `""` for the root (e.g. `/pageSize`). */
  readonly path: string;
  /** What the schema expected, in words. */
  readonly expected: string;
  /** A short rendering of what was given (or "missing"). */
  readonly received: string;
}

/** A compiled validator: returns the violations, empty when the value is valid. */
export type CompiledValidator = (value: unknown) => readonly SchemaViolation[];

const DRAFT_07 = "http://json-schema.org/draft-07/schema";
// Violations kept per validation: enough to count and group what a large output got wrong
// (formatViolations shows a few lines of them), bounded because a value may be megabytes.
const MAX_VIOLATIONS = 10_000;

// ajv is CommonJS: required on the first compile rather than imported, so importing Switchyard
// neither loads it nor scans it for named exports (about 100 ms of CPU at start-up).
const require = createRequire(import.meta.url);

function createAjv(kind: "2020" | "07", checksSchemas = true): Ajv {
  // Patterns run on schemaPatternEngine: linear time, or refused (schema-pattern.ts).
  const options = {
    allErrors: true,
    strict: false,
    validateFormats: true,
    validateSchema: checksSchemas,
    code: { regExp: schemaPatternEngine },
  } as const;
  const ajv =
    kind === "2020"
      ? new (require("ajv/dist/2020.js") as { Ajv2020: typeof Ajv2020 }).Ajv2020(options)
      : new (require("ajv") as { Ajv: typeof Ajv }).Ajv(options);
  // ajv-formats is CommonJS with its function as `default`.
  (require("ajv-formats") as { default: (ajv: Ajv) => Ajv }).default(ajv);
  return ajv;
}

let ajv2020: Ajv | undefined;
let ajv07: Ajv | undefined;
// Compiles plain 2020-12 schemas (isPlainSchema) without ajv's meta-schema check, which cannot fail
// on them: compiling the meta-schema is most of a process's first compile (tens of ms, measured),
// paid by a session's first live call, a resumed run's above all. The validators are the same.
let ajvPlain: Ajv | undefined;

function ajvFor(schema: JsonSchema, plain = false): Ajv {
  const declared = typeof schema === "object" ? schema["$schema"] : undefined;
  if (typeof declared === "string" && declared.startsWith(DRAFT_07)) return (ajv07 ??= createAjv("07"));
  if (plain) return (ajvPlain ??= createAjv("2020", false));
  return (ajv2020 ??= createAjv("2020"));
}

// ajv's modules in order of what they pull in, each about a sixth of loading it, and the parts of
// the 2020-12 meta-schema every compile checks a schema against, each compiled on its own.
const AJV_MODULES = [
  "ajv/dist/compile/codegen/index.js",
  "ajv/dist/compile/validate/index.js",
  "ajv/dist/core.js",
  "ajv/dist/vocabularies/applicator/index.js",
  "ajv/dist/vocabularies/validation/index.js",
  "ajv/dist/2020.js",
  "ajv-formats",
];
const META_2020 = "https://json-schema.org/draft/2020-12/";
// The whole ("schema") last: it compiles what is left (format-annotation, content) and itself.
const META_2020_PARTS = [
  "meta/core",
  "meta/applicator",
  "meta/validation",
  "meta/unevaluated",
  "meta/meta-data",
  "schema",
];

/**
 * Steps that load ajv and make the instance plain schemas compile with (about 100 ms of CPU in
 * all, paid otherwise by the first call of a session), for a caller to run one per turn of the
 * event loop so none blocks it long. Each step may throw (a changed ajv layout); skipping one only
 * leaves its work to the first compile. See `metaSchemaWarmUpSteps` for the other schemas.
 */
export function validationWarmUpSteps(): (() => void)[] {
  return [
    ...AJV_MODULES.map((id) => () => void require(id)),
    () => void (ajvPlain ??= createAjv("2020", false)),
    () => void loadPatternEngine(),
  ];
}

/**
 * Steps that compile ajv's draft 2020-12 meta-schema a part at a time (100-200 ms of CPU in all),
 * which the first schema that is not plain needs (its check or its compile), one per turn as above.
 * Draft-07 schemas still load their ajv on first use.
 */
export function metaSchemaWarmUpSteps(): (() => void)[] {
  const ajv = (): Ajv => (ajv2020 ??= createAjv("2020"));
  return [() => void ajv(), ...META_2020_PARTS.map((part) => () => void ajv().getSchema(`${META_2020}${part}`))];
}

/**
 * Compiles a schema once (draft 2020-12 unless `$schema` names draft-07; formats checked).
 * Throws `SwitchyardError("SCHEMA_INVALID")` naming `label` when ajv cannot compile it, when it
 * is over 1 MiB of JSON or 256 levels deep (schema-size.ts), or when a `$ref` cycle applies the
 * same value again without descending into it (see schema-recursion.ts).
 * A schema with references validates values nested at most MAX_VALIDATED_DEPTH levels: a deeper
 * one is a violation at the root, found before ajv recurses (never a RangeError).
 */
export function compileSchema(schema: JsonSchema, label: string): CompiledValidator {
  const validate =
    typeof schema === "object" ? (compiled.get(schema) ?? compileObject(schema, label)) : compileWith(schema, label);
  const bounded = typeof schema === "object" && recursive.has(schema);
  return (value) => validateBounded(validate, value, bounded);
}

// An MCP source compiles a tool's schema to vet it and the registry compiles the same object
// again; ajv compiles take milliseconds, so a schema object is compiled once.
const compiled = new WeakMap<object, ValidateFunction>();
// Schema objects with references (checked by checkStructure): their validators bound the value's depth.
const recursive = new WeakSet<object>();

const TOO_DEEP: readonly SchemaViolation[] = Object.freeze([
  Object.freeze({
    path: "",
    expected: `a value nested at most ${MAX_VALIDATED_DEPTH} levels deep (the schema is recursive)`,
    received: `a value nested deeper than ${MAX_VALIDATED_DEPTH} levels`,
  }),
]);

function validateBounded(validate: ValidateFunction, value: unknown, bounded: boolean): readonly SchemaViolation[] {
  if (bounded && exceedsValueDepth(value, MAX_VALIDATED_DEPTH)) return TOO_DEEP;
  try {
    return validate(value) ? [] : describeErrors(validate.errors ?? [], value);
  } catch (error) {
    // A recursion checkStructure could not follow (a remote or `$id`-scoped reference): refused, never thrown.
    if (error instanceof RangeError) return TOO_DEEP;
    throw error;
  }
}

/**
 * Throws SCHEMA_INVALID for a schema over the size limits (schema-size.ts) or with a reference
 * cycle that never descends; notes schemas that refer at all. Before ajv sees the schema.
 */
function checkStructure(schema: { [keyword: string]: unknown }, label: string): void {
  checkSize(schema, label);
  checkRecursion(schema, label);
}

function checkSize(schema: { [keyword: string]: unknown }, label: string): void {
  const tooLarge = schemaSizeProblem(schema);
  if (tooLarge !== undefined) {
    throw new SwitchyardError(
      "SCHEMA_INVALID",
      `${label}: the JSON Schema is refused: ${tooLarge}. Describe the shape more compactly (shared parts as $defs referred to with $ref).`,
    );
  }
}

function checkRecursion(schema: { [keyword: string]: unknown }, label: string): void {
  const { refers, unguardedCycle } = analyzeRecursion(schema);
  if (unguardedCycle !== undefined) {
    throw new SwitchyardError(
      "SCHEMA_INVALID",
      `${label}: the JSON Schema refers to itself without descending into the value (${unguardedCycle.join(" -> ")}), so validating any value would never end. Put the $ref under properties, items or another keyword that applies to a part of the value.`,
      { cycle: [...unguardedCycle] },
    );
  }
  if (refers) recursive.add(schema);
}

function compileObject(schema: { [keyword: string]: unknown }, label: string): ValidateFunction {
  checkStructure(schema, label);
  // Compile a copy without $id so two tools may reuse one schema object or id.
  const copy = { ...schema };
  delete copy["$id"];
  const text = schemaText(copy);
  let validate = text === undefined ? undefined : compiledText.get(text)?.deref();
  if (validate === undefined) {
    const plain = isPlainSchema(copy);
    validate = compileWith(copy, label, plain);
    // Ajv would otherwise keep every copy for the life of the process; the function is self-contained.
    ajvFor(copy, plain).removeSchema(copy);
    if (text !== undefined) {
      compiledText.set(text, new WeakRef(validate));
      forgetText.register(validate, text);
    }
  }
  compiled.set(schema, validate);
  return validate;
}

// Validators by the JSON text they were compiled from: identical schemas in separate objects (one
// shape in a thousand tools) compile once. Held weakly: a validator no tool holds is collected.
const compiledText = new Map<string, WeakRef<ValidateFunction>>();
const forgetText = new FinalizationRegistry<string>((text) => {
  if (compiledText.get(text)?.deref() === undefined) compiledText.delete(text);
});

let compiles = 0;

function compileWith(schema: JsonSchema, label: string, plain = false): ValidateFunction {
  compiles += 1;
  try {
    return ajvFor(schema, plain).compile(schema);
  } catch (error) {
    throw schemaInvalid(label, error);
  }
}

function schemaInvalid(label: string, error: unknown): SwitchyardError {
  return new SwitchyardError("SCHEMA_INVALID", `${label}: the JSON Schema does not compile: ${messageOf(error)}`);
}

/** How many ajv compiles this process has run; lets a test prove that registration compiled nothing. */
export function schemaCompileCount(): number {
  return compiles;
}

/**
 * Checks a schema now and compiles it on the validator's first call (ajv compiles cost about
 * 2 ms each; a catalog of thousands of tools would block the event loop for seconds).
 * The check is ajv's own meta-schema validation, the first step of every compile, so the same
 * schemas throw `SwitchyardError("SCHEMA_INVALID")` naming `label` with the same text; what the
 * meta-schema cannot see (a `$ref` that resolves nowhere, a `pattern` that is not a regular
 * expression, an embedded `$id` or anchor) makes it compile now, so no invalid schema reaches a call.
 * The returned validator throws that `SCHEMA_INVALID` if the compile on its first call still fails
 * (the code generator's own limits); the call pipeline answers the call with it.
 * Two shortcuts keep it near a microsecond a tool: a schema of plain keywords (`isPlainSchema`)
 * needs no ajv check, and a schema whose JSON text already passed the check is not checked again.
 */
export function prepareSchema(schema: JsonSchema, label: string): CompiledValidator {
  if (typeof schema !== "object" || compiled.has(schema)) return compileSchema(schema, label);
  if (!checked.has(schema)) {
    checkSize(schema, label);
    // A plain schema holds no reference and no object cycle, so no reference cycle: the recursion
    // walk (the costliest of registration's) waits for its compile, as `refers` only matters there.
    if (!isPlainSchema(schema)) {
      checkRecursion(schema, label);
      checkWithAjv(schema, label);
    }
    // A schema ajv's compile must vouch for was compiled by checkWithAjv: it is in `compiled` now.
    if (compiled.has(schema)) return compileSchema(schema, label);
  }
  checked.add(schema);
  let validator: CompiledValidator | undefined;
  // What the check vouches for nearly always compiles; ajv's code generator can still give up on a
  // schema the check passed (a chain of hundreds of `$ref`s overflows its stack). That failure is
  // kept: every later call throws it again at once, rather than paying the failing compile again.
  let failure: SwitchyardError | undefined;
  return (value) => {
    if (validator === undefined) {
      if (failure !== undefined) throw failure;
      try {
        validator = compileSchema(schema, label);
      } catch (error) {
        failure = SwitchyardError.isInstance(error) ? error : schemaInvalid(label, error);
        throw failure;
      }
    }
    return validator(value);
  };
}

// ajv's meta-schema check, skipped for a JSON text that passed it before; what the meta-schema
// cannot vouch for (see metaSchemaIsEnough) is compiled now.
function checkWithAjv(schema: { [keyword: string]: unknown }, label: string): void {
  const copy = { ...schema };
  delete copy["$id"];
  const text = schemaText(copy);
  if (text !== undefined && passedText.has(text)) return;
  checks += 1;
  try {
    ajvFor(copy).validateSchema(copy, true);
  } catch (error) {
    throw schemaInvalid(label, error);
  }
  if (!metaSchemaIsEnough(copy)) {
    compileSchema(schema, label);
    return;
  }
  if (text !== undefined) rememberPassed(text);
}

// Schema objects that passed prepareSchema's check (their compile is the first call's).
const checked = new WeakSet<object>();

// JSON texts of schemas that passed ajv's check: tools of one server share shapes (a pagination
// object, an id parameter), and the verdict depends on the text alone. Bounded; oldest go first.
const passedText = new Set<string>();
const MAX_PASSED_TEXTS = 10_000;

function rememberPassed(text: string): void {
  if (passedText.size >= MAX_PASSED_TEXTS) passedText.delete(passedText.values().next().value as string);
  passedText.add(text);
}

let checks = 0;

/**
 * How many schemas this process has checked with ajv's meta-schema validation; lets a test prove
 * that plain schemas, and a shape seen before, were vouched for without one.
 */
export function schemaCheckCount(): number {
  return checks;
}

// References ajv resolves at compile time, and keywords that open a new resolution scope.
const REF_KEYWORDS = ["$ref", "$dynamicRef", "$recursiveRef"];
const SCOPE_KEYWORDS = ["$id", "id", "$anchor", "$dynamicAnchor", "$recursiveAnchor"];

/**
 * True when compiling `root` cannot fail once its meta-schema validation passed: every `$ref`
 * is a local JSON Pointer that resolves, every pattern is a regular expression, and no nested
 * `$id` or anchor changes how references resolve. It walks values that are data too (`const`,
 * `default`); a false alarm there costs only an eager compile.
 */
function metaSchemaIsEnough(root: { [keyword: string]: unknown }): boolean {
  for (const record of schemaObjectsIn(root)) {
    if (record !== root && SCOPE_KEYWORDS.some((keyword) => typeof record[keyword] === "string")) return false;
    for (const keyword of REF_KEYWORDS) {
      const ref = record[keyword];
      if (ref !== undefined && (typeof ref !== "string" || !resolvesLocally(root, ref))) return false;
    }
    // ajv refuses an empty enum when it compiles; draft-07's meta-schema allows one.
    if (Array.isArray(record["enum"]) && record["enum"].length === 0) return false;
    if (typeof record["pattern"] === "string" && !isRunnablePattern(record["pattern"])) return false;
    const patterns = record["patternProperties"];
    if (patterns !== null && typeof patterns === "object" && !Object.keys(patterns).every(isRunnablePattern))
      return false;
  }
  return true;
}

/**
 * Whether `#` or `#/a/b` (RFC 6901, percent-decoded as a URI fragment) resolves inside `root` to
 * a schema that is not itself a reference.
 */
function resolvesLocally(root: unknown, ref: string): boolean {
  if (ref === "#") return true;
  if (!ref.startsWith("#/")) return false;
  const current = resolveLocalRef(root, ref);
  if (typeof current === "boolean") return true;
  if (current === null || typeof current !== "object" || Array.isArray(current)) return false;
  // A reference to a bare reference may close a cycle that overflows ajv's compile: compile now.
  return !REF_KEYWORDS.some((keyword) => keyword in current);
}

// Every caller renders one validation's violations twice, as a message and as details: group them once.
const grouped = new WeakMap<readonly SchemaViolation[], readonly ViolationGroup[]>();

function groupsOf(violations: readonly SchemaViolation[]): readonly ViolationGroup[] {
  let groups = grouped.get(violations);
  if (groups === undefined) grouped.set(violations, (groups = groupViolations(violations)));
  return groups;
}

/**
 * Renders violations as one message a model can act on, e.g. for `INPUT_INVALID`: one line per
 * place, where alike errors at a path pattern are one line (`/rows/*\/id ×40`), the distinct ones
 * first, at most 20 lines, then how many errors and places were left out.
 */
export function formatViolations(subject: string, violations: readonly SchemaViolation[]): string {
  const groups = groupsOf(violations);
  const shown = groups.slice(0, MAX_VIOLATION_LINES);
  const lines = shown.map((group) => {
    const first = group.firstPath === "" ? "(root)" : group.firstPath;
    if (group.count === 1) return `- ${first}: expected ${group.expected}, received ${group.received}`;
    return `- ${group.pattern} ×${group.count}: expected ${group.expected}, received ${group.received} (first at ${first})`;
  });
  const left = groups.slice(MAX_VIOLATION_LINES);
  if (left.length > 0) {
    const errors = left.reduce((sum, group) => sum + group.count, 0);
    lines.push(
      `- and ${errors} more ${errors === 1 ? "error" : "errors"} at ${left.length} more ${left.length === 1 ? "place" : "places"}`,
    );
  }
  const total = violations.length >= MAX_VIOLATIONS ? `${MAX_VIOLATIONS} or more` : String(violations.length);
  const summary =
    groups.length === violations.length && left.length === 0
      ? ""
      : ` (${total} errors at ${groups.length} ${groups.length === 1 ? "place" : "places"}, distinct ones first)`;
  return `${subject}${summary}:\n${lines.join("\n")}`;
}

/**
 * Violations as JSON data for outcome details: the places `formatViolations` lists, each
 * `{ path, expected, received }`, with `count` and `firstPath` where alike errors were grouped.
 */
export function violationsToJson(violations: readonly SchemaViolation[]): JsonValue {
  return groupsOf(violations)
    .slice(0, MAX_VIOLATION_LINES)
    .map((group) =>
      group.count === 1
        ? { path: group.firstPath, expected: group.expected, received: group.received }
        : {
            path: group.pattern,
            expected: group.expected,
            received: group.received,
            count: group.count,
            firstPath: group.firstPath,
          },
    );
}

function describeErrors(errors: readonly ErrorObject[], root: unknown): SchemaViolation[] {
  const violations: SchemaViolation[] = [];
  const seen = new Set<string>();
  for (const error of errors) {
    // Branch errors of anyOf/oneOf repeat below the summary error; the summary is enough.
    const violation = describeError(error, root);
    const key = `${violation.path}|${violation.expected}`;
    if (seen.has(key)) continue;
    seen.add(key);
    violations.push(violation);
    if (violations.length >= MAX_VIOLATIONS) break;
  }
  return violations;
}

function describeError(error: ErrorObject, root: unknown): SchemaViolation {
  const params = error.params as Record<string, unknown>;
  const given = valueAt(root, error.instancePath);
  switch (error.keyword) {
    case "required": {
      const property = String(params["missingProperty"]);
      return {
        path: `${error.instancePath}/${escapePointer(property)}`,
        expected: "a required property",
        received: "missing",
      };
    }
    case "additionalProperties": {
      const property = String(params["additionalProperty"]);
      return {
        path: `${error.instancePath}/${escapePointer(property)}`,
        expected: "no such property (not in the schema; check the spelling)",
        received: preview(valueAt(given, `/${escapePointer(property)}`)),
      };
    }
    case "type":
      return { path: error.instancePath, expected: `type ${String(params["type"])}`, received: describeValue(given) };
    case "enum":
      return {
        path: error.instancePath,
        expected: `one of ${(params["allowedValues"] as unknown[]).map((value) => JSON.stringify(value)).join(", ")}`,
        received: preview(given),
      };
    case "const":
      return {
        path: error.instancePath,
        expected: `exactly ${JSON.stringify(params["allowedValue"])}`,
        received: preview(given),
      };
    case "format":
      return {
        path: error.instancePath,
        expected: `a string in format "${String(params["format"])}"`,
        received: preview(given),
      };
    case "dependentRequired":
    case "dependencies": {
      const property = String(params["missingProperty"]);
      return {
        path: `${error.instancePath}/${escapePointer(property)}`,
        expected: `a required property (required when "${String(params["property"])}" is present)`,
        received: "missing",
      };
    }
    case "unevaluatedProperties": {
      const property = String(params["unevaluatedProperty"]);
      return {
        path: `${error.instancePath}/${escapePointer(property)}`,
        expected: "no such property (not in the schema; check the spelling)",
        received: preview(valueAt(given, `/${escapePointer(property)}`)),
      };
    }
    case "propertyNames":
      return {
        path: `${error.instancePath}/${escapePointer(String(params["propertyName"]))}`,
        expected: "a property name the schema allows (propertyNames)",
        received: "this property",
      };
    default:
      return { path: error.instancePath, expected: expectedInWords(error), received: preview(given) };
  }
}

/** What a keyword expected, in words a model reads without knowing JSON Schema or ajv. */
function expectedInWords(error: ErrorObject): string {
  const params = error.params as Record<string, unknown>;
  const limit = params["limit"];
  const count = (noun: string): string => `${String(limit)} ${noun}${limit === 1 ? "" : "s"}`;
  switch (error.keyword) {
    case "pattern":
      return `a string matching the pattern /${String(params["pattern"])}/`;
    case "minLength":
      return `a string of at least ${count("character")}`;
    case "maxLength":
      return `a string of at most ${count("character")}`;
    case "minimum":
      return `a number >= ${String(limit)}`;
    case "maximum":
      return `a number <= ${String(limit)}`;
    case "exclusiveMinimum":
      return `a number > ${String(limit)}`;
    case "exclusiveMaximum":
      return `a number < ${String(limit)}`;
    case "multipleOf":
      return `a multiple of ${String(params["multipleOf"])}`;
    case "minItems":
      return `an array of at least ${count("item")}`;
    case "maxItems":
    case "additionalItems":
    case "unevaluatedItems":
      return `an array of at most ${count("item")}`;
    case "uniqueItems":
      return `no duplicate items (items ${String(params["j"])} and ${String(params["i"])} are equal)`;
    case "minProperties":
      return `an object with at least ${count("property")}`.replace("propertys", "properties");
    case "maxProperties":
      return `an object with at most ${count("property")}`.replace("propertys", "properties");
    case "contains":
    case "minContains":
      return `an array with at least ${String(params["minContains"] ?? 1)} item(s) matching its "contains" schema`;
    case "maxContains":
      return `an array with at most ${String(params["maxContains"])} item(s) matching its "contains" schema`;
    case "anyOf":
      return "a value matching at least one of the allowed shapes (anyOf)";
    case "oneOf":
      return Array.isArray(params["passingSchemas"])
        ? "a value matching exactly one of the allowed shapes (oneOf), not several"
        : "a value matching one of the allowed shapes (oneOf)";
    case "not":
      return 'a value the schema excludes ("not")';
    case "if":
      return `a value matching the "${String(params["failingKeyword"])}" schema that applies to it (if/then/else)`;
    case "false schema":
      return "nothing: the schema allows no value here";
    case "discriminator":
      return `an object whose "${String(params["tag"] ?? "tag")}" names one of the allowed shapes`;
    default:
      // A keyword not listed above (a custom one): ajv's message without its "must".
      return `a value satisfying "${error.keyword}"${error.message === undefined ? "" : ` (${error.message})`}`;
  }
}

/** Escapes a property name as one JSON Pointer segment (RFC 6901): `~` → `~0`, `/` → `~1`. */
function escapePointer(segment: string): string {
  return segment.replace(/~/g, "~0").replace(/\//g, "~1");
}

function valueAt(root: unknown, pointer: string): unknown {
  if (pointer === "") return root;
  let current: unknown = root;
  for (const raw of pointer.slice(1).split("/")) {
    const key = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    if (current === null || typeof current !== "object" || !Object.hasOwn(current, key)) return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

function describeValue(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return `${typeof value} ${preview(value)}`;
}

function preview(value: unknown): string {
  if (value === undefined) return "missing";
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  // Cut at a word's start: a message quotes the value, and a secret's head would pass every redaction rule.
  return text.length > 80 ? `${text.slice(0, wordCut(text, 77))}...` : text;
}
