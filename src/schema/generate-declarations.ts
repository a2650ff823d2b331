// The `tools` object a program calls, as TypeScript declarations: named input and output types
// per tool, one nested object per namespace, JSDoc with each description and copyable
// examples. Output depends only on the tools and their order; it compiles together with
// RUNTIME_DECLARATIONS, which holds what every run has (console, $search, $describe). Observed
// output types, which tool results shape, are bounded per tool and per text, with a note
// saying what was left out.

import { MAX_PENDING_TIMERS } from "../../runtime/wire.js";
import type { JsonSchema, JsonValue } from "../contract.js";
import { formatJsDoc, splitLines } from "./jsdoc.js";
import { describeResultCount, MAX_SCHEMA_NODES, type ObservedSchema, observedToJsonSchema } from "./observed-schema.js";
import { schemaToTypeScript, toTypeName } from "./schema-to-typescript.js";

/** What the declarations need to know of one tool. */
export interface DeclarationTool {
  /** The full name, `namespace.name` or a bare name. */
  name: string;
  /** `tools.<namespaceIdentifier>`; undefined for a bare tool at the root of `tools`. */
  namespaceIdentifier: string | undefined;
  /** The method a program calls. */
  localIdentifier: string;
  description: string;
  inputSchema: JsonSchema;
  /**
   * Gives the declared result type. Without it the method resolves to `any`: the shape is not
   * known, so the checker trusts the program's use of the value instead of failing the run for
   * a missing cast; inputs and tool names stay checked either way.
   */
  outputSchema?: JsonSchema;
  /**
   * The shape observed in the tool's results, used when it has no `outputSchema`: rendered as
   * `<Namespace><Name>Observed` with a comment giving the count and saying it is not guaranteed.
   */
  observedOutput?: { readonly schema: ObservedSchema; readonly results: number };
  /** Rendered as `@example` calls. */
  inputExamples?: readonly JsonValue[];
}

/**
 * Declarations every run has, to compile once beside `generateDeclarations(...)`: the
 * `ToolsRuntime` members of `tools` (`$search`, `$describe`, `$budget`), `ToolReference`,
 * `ToolCallError` and its guard `isToolCallError`, `RunBudget`, the timers (`sleep`,
 * `setTimeout`, `clearTimeout`) and `console`, which lib ES2022 does not declare.
 */
export const RUNTIME_DECLARATIONS = `/** A tool found by \`tools.$search\`. */
interface ToolReference {
  /** The tool's full name; pass it to \`tools.$describe\` for its declaration. */
  name: string;
  /** The first sentence of the tool's description. */
  summary: string;
  /** Relevance to the query; higher is better, comparable within one search only. */
  score: number;
}

/** What a failed tool call rejects with. Branch on \`code\`; \`message\` says what to try next. */
interface ToolCallError extends Error {
  readonly name: "ToolCallError";
  /** A stable code: "INPUT_INVALID", "TOOL_NOT_FOUND", "PERMISSION_DENIED", "TOOL_TIMEOUT", ... or the tool's own. */
  readonly code: string;
  /** The full name of the tool that was called. */
  readonly tool: string;
  /** The id of the failed call, as recorded in the run's calls; null if the call was never made. */
  readonly callId: string | null;
  /** Machine-readable specifics, e.g. the failing schema paths of INPUT_INVALID. */
  readonly details?: unknown;
}

/** Whether a caught value is the ToolCallError of a failed call. */
declare function isToolCallError(value: unknown): value is ToolCallError;

/** What \`tools.$budget()\` answers. */
interface RunBudget {
  /** Until the run's time limit ends it (TIMEOUT). */
  timeLeftMs: number;
  /** Tool calls left before TOOL_CALL_LIMIT. */
  callsLeft: number;
  callsMade: number;
}

/** Members of \`tools\` that every run has, besides the tools themselves. */
interface ToolsRuntime {
  /** Finds tools by words ("bm25", the default) or by a regular expression over names and descriptions ("regex"). */
  $search(query: string, options?: { limit?: number; mode?: "bm25" | "regex" }): Promise<ToolReference[]>;
  /** Returns the TypeScript declaration of one tool, by full name. */
  $describe(name: string): Promise<string>;
  /** The time and tool calls left to this run; not itself a tool call. */
  $budget(): Promise<RunBudget>;
}

/** Waits \`ms\` milliseconds, counted against the run's time limit. */
declare function sleep(ms: number): Promise<void>;
/** A timer never fires once the program has returned; at most ${MAX_PENDING_TIMERS} pending. */
declare function setTimeout<A extends unknown[]>(callback: (...args: A) => void, ms?: number, ...args: A): number;
declare function clearTimeout(id: number | undefined): void;

/** Output written here is returned with the run's logs. */
declare const console: {
  log(...args: unknown[]): void;
  info(...args: unknown[]): void;
  warn(...args: unknown[]): void;
  error(...args: unknown[]): void;
};
`;

// Names RUNTIME_DECLARATIONS and the es2022 lib already declare; a tool's types avoid them.
const RESERVED_TYPE_NAMES = [
  "ToolReference",
  "ToolCallError",
  "ToolsRuntime",
  "RunBudget",
  "Promise",
  "Array",
  "Record",
  "Error",
];

/**
 * Characters one tool's observed output type may take: past it, the type keeps fewer nodes and
 * says how many keys it leaves out (`12 more keys not shown`, typed `any`).
 */
export const MAX_OBSERVED_TYPE_CHARS = 4_000;
/**
 * Characters all observed output types of one declaration text may take together: tools past it
 * resolve to `any`, and their doc says why. Declared types are the integrator's and are not cut.
 */
export const MAX_OBSERVED_TYPES_CHARS = 40_000;

const INDENT = "  ";
// Examples longer than this are left out: an @example is for copying, not for reading a dump.
const MAX_EXAMPLE_LENGTH = 1_500;
const COMPACT_EXAMPLE_LENGTH = 72;

/**
 * Renders the declarations of `tools`: each tool's input and output types (named
 * `<Namespace><Name>Input`/`Output`, numbered on collision), then `declare const tools`
 * with namespaces and bare tools in first-seen order. A tool whose input schema requires
 * nothing takes an optional argument. Compile it together with RUNTIME_DECLARATIONS.
 */
export function generateDeclarations(tools: readonly DeclarationTool[]): string {
  return renderDeclarations(tools, "ToolsRuntime & ");
}

/**
 * Renders one tool alone, as `tools.$describe` returns it: its types and its method inside
 * `declare const tools`, with JSDoc. Self-contained: compiles without RUNTIME_DECLARATIONS.
 */
export function generateToolDeclaration(tool: DeclarationTool): string {
  return renderDeclarations([tool], "");
}

/**
 * Renders several tools as `tools.$describe` and search answers return them: their types,
 * then one `declare const tools` holding all their methods by namespace, with JSDoc.
 * Self-contained like `generateToolDeclaration`; an empty list renders an empty string.
 */
export function generateToolDeclarations(tools: readonly DeclarationTool[]): string {
  return tools.length === 0 ? "" : renderDeclarations(tools, "");
}

/** A tool's types and its method inside `declare const tools`, as one declaration text holds them. */
export interface ToolDeclarationMember {
  /** `tools.<namespaceIdentifier>`; undefined for a bare tool. */
  readonly namespaceIdentifier: string | undefined;
  readonly types: readonly string[];
  /** The method with its JSDoc, indented for its place. */
  readonly method: string;
}

/**
 * One tool rendered for a declaration text, in both forms the text's observed-types budget can
 * ask for. Its type names are those `takenNames` left free, so a part depends on the tools
 * rendered before it only through the names they took.
 */
export interface ToolDeclarationPart {
  /** With its observed output type (when it has one). */
  readonly member: ToolDeclarationMember;
  /** Characters its observed output type takes from the budget; 0 when it declares its type or has none. */
  readonly observedChars: number;
  /** Without its observed output type, its doc saying why: set when `observedChars` > 0. */
  readonly withoutObserved: ToolDeclarationMember | undefined;
}

/**
 * Renders one tool's part of a declaration text, taking its type names from `takenNames`
 * (seed a new set with `reservedTypeNames()`). Parts rendered in catalog order into one set,
 * budgeted by `fitObservedTypes` and joined by `assembleDeclarations` make `generateDeclarations`.
 */
export function renderToolPart(tool: DeclarationTool, takenNames: Set<string>): ToolDeclarationPart {
  const baseName = toTypeName(tool.namespaceIdentifier ?? "", tool.localIdentifier);
  const input = schemaToTypeScript(tool.inputSchema, { rootName: `${baseName}Input`, takenNames });
  const output = outputTypeOf(tool, baseName, takenNames);
  const docLines = methodDocLines(tool);
  const indent = tool.namespaceIdentifier === undefined ? INDENT : INDENT + INDENT;
  const parameter = `input${requiresInput(tool.inputSchema) ? "" : "?"}: ${input.name}`;
  const memberWith = (outputName: string, lines: readonly string[], types: readonly string[]) => {
    const signature = `${tool.localIdentifier}(${parameter}): Promise<${outputName}>;`;
    const doc = formatJsDoc(lines, indent);
    const method = doc === "" ? `${indent}${signature}` : `${doc}\n${indent}${signature}`;
    return { namespaceIdentifier: tool.namespaceIdentifier, types, method };
  };
  const member = memberWith(output?.name ?? "any", docLines, [...input.declarations, ...(output?.declarations ?? [])]);
  if (output === undefined || tool.outputSchema !== undefined) {
    return { member, observedChars: 0, withoutObserved: undefined };
  }
  const note = `Its observed result type is not shown: the observed types before it fill this text's ${MAX_OBSERVED_TYPES_CHARS.toLocaleString("en-US")} characters.`;
  return {
    member,
    observedChars: output.declarations.reduce((sum, text) => sum + text.length, 0),
    withoutObserved: memberWith("any", [...docLines, "", note], input.declarations),
  };
}

/** A new set of the names no tool's type may take (RUNTIME_DECLARATIONS' and the lib's). */
export function reservedTypeNames(): Set<string> {
  return new Set(RESERVED_TYPE_NAMES);
}

/**
 * Which parts keep their observed output type within one text's budget
 * (`MAX_OBSERVED_TYPES_CHARS`), in order: true where it is shown.
 */
export function fitObservedTypes(parts: readonly ToolDeclarationPart[]): boolean[] {
  let observedCharsLeft = MAX_OBSERVED_TYPES_CHARS;
  return parts.map((part) => {
    if (part.observedChars === 0) return true;
    if (part.observedChars > observedCharsLeft) return false;
    observedCharsLeft -= part.observedChars;
    return true;
  });
}

type RootEntry = { readonly namespace: string; readonly methods: string[] } | { readonly method: string };

/**
 * Joins members into one declaration text: every member's types, then `declare const tools`
 * with namespaces and bare tools in first-seen order.
 */
export function assembleDeclarations(
  members: readonly ToolDeclarationMember[],
  toolsTypePrefix = "ToolsRuntime & ",
): string {
  const typeDeclarations: string[] = [];
  const root: RootEntry[] = [];
  const namespaces = new Map<string, string[]>();
  for (const member of members) {
    typeDeclarations.push(...member.types);
    if (member.namespaceIdentifier === undefined) {
      root.push({ method: member.method });
      continue;
    }
    let methods = namespaces.get(member.namespaceIdentifier);
    if (methods === undefined) {
      methods = [];
      namespaces.set(member.namespaceIdentifier, methods);
      root.push({ namespace: member.namespaceIdentifier, methods });
    }
    methods.push(member.method);
  }
  const entries = root.map((entry) =>
    "method" in entry ? entry.method : `${INDENT}${entry.namespace}: {\n${entry.methods.join("\n")}\n${INDENT}};`,
  );
  const toolsType = entries.length === 0 ? "{}" : `{\n${entries.join("\n")}\n}`;
  return `${[...typeDeclarations, `declare const tools: ${toolsTypePrefix}${toolsType};`].join("\n\n")}\n`;
}

function renderDeclarations(tools: readonly DeclarationTool[], toolsTypePrefix: string): string {
  const takenNames = reservedTypeNames();
  const parts = tools.map((tool) => renderToolPart(tool, takenNames));
  const shown = fitObservedTypes(parts);
  return assembleDeclarations(
    parts.map((part, index) => (shown[index] === true ? part.member : (part.withoutObserved ?? part.member))),
    toolsTypePrefix,
  );
}

/** The declared output type; else the observed one; else none (the method resolves to `any`). */
function outputTypeOf(tool: DeclarationTool, baseName: string, takenNames: Set<string>) {
  if (tool.outputSchema !== undefined) {
    return schemaToTypeScript(tool.outputSchema, { rootName: `${baseName}Output`, takenNames });
  }
  const observed = tool.observedOutput;
  if (observed === undefined || observed.schema.type === undefined) return undefined;
  const comment =
    `Observed from ${describeResultCount(observed.results)} of this tool, which declares no output schema: ` +
    "likely, not guaranteed. A later result may lack a field listed here or carry one that is not.";
  // Names are taken only by the rendering kept: a smaller one is tried on a copy of the set.
  for (let maxNodes = Infinity; ; maxNodes = maxNodes === Infinity ? MAX_SCHEMA_NODES / 2 : Math.floor(maxNodes / 2)) {
    const names = new Set(takenNames);
    const rendered = schemaToTypeScript(observedToJsonSchema(observed.schema, comment, maxNodes), {
      rootName: `${baseName}Observed`,
      takenNames: names,
      unconstrained: "any",
    });
    const chars = rendered.declarations.reduce((sum, text) => sum + text.length, 0);
    if (chars <= MAX_OBSERVED_TYPE_CHARS || maxNodes <= 1) {
      for (const name of names) takenNames.add(name);
      return rendered;
    }
  }
}

/** True when the input schema requires a property, so a call needs an argument. */
function requiresInput(schema: JsonSchema): boolean {
  return typeof schema === "object" && Array.isArray(schema.required) && schema.required.length > 0;
}

function methodDocLines(tool: DeclarationTool): string[] {
  const path =
    tool.namespaceIdentifier === undefined
      ? tool.localIdentifier
      : `${tool.namespaceIdentifier}.${tool.localIdentifier}`;
  const lines = splitLines(tool.description);
  if (tool.name !== path) lines.push("", `Tool name: ${JSON.stringify(tool.name)}`);
  for (const example of tool.inputExamples ?? []) {
    const call = `await tools.${path}(${formatExample(example)})`;
    if (call.length <= MAX_EXAMPLE_LENGTH) lines.push("", "@example", ...call.split("\n"));
  }
  while (lines[0] === "") lines.shift();
  return lines;
}

/** JSON on one line (`{ "id": 1 }`) when short, indented over several lines otherwise. */
function formatExample(value: JsonValue): string {
  const pretty = (JSON.stringify(value, null, 2) ?? "null").replace(/\u2028/g, "\\u2028").replace(/\u2029/g, "\\u2029");
  // Raw newlines occur only between tokens: JSON escapes them inside strings.
  const compact = pretty.replace(/\n\s*/g, " ");
  return compact.length <= COMPACT_EXAMPLE_LENGTH ? compact : pretty;
}
