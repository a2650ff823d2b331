// Comment rendering for generated declarations: JSDoc blocks from a schema's annotations and
// short inline notes. Text from schemas is untrusted: every comment escapes `*/`, so a
// description cannot close the comment early and smuggle code into the declarations.

import type { JsonSchema } from "../contract.js";

// Validation keywords shown as JSDoc tags named after the keyword, in this order.
const CONSTRAINT_KEYWORDS = [
  "format",
  "minimum",
  "exclusiveMinimum",
  "maximum",
  "exclusiveMaximum",
  "multipleOf",
  "minLength",
  "maxLength",
  "pattern",
  "minItems",
  "maxItems",
  "uniqueItems",
  "minProperties",
  "maxProperties",
] as const;

/**
 * Characters that change how text around them reads or that show as nothing, by Unicode property
 * rather than by a list that ages: controls (Cc), format characters (Cf: bidi marks, embeddings,
 * overrides and isolates, zero-width characters, the tags block U+E0000-E007F that can spell
 * hidden ASCII), line and paragraph separators, and every other default-ignorable code point
 * (variation selectors, fillers). The one definition both comments (U+FFFD) and string literals
 * (`\uXXXX` escapes) use.
 */
export const HIDDEN_CHARACTERS = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Default_Ignorable_Code_Point}]/gu;

const MAX_EXAMPLES = 3;
const MAX_VALUE_LENGTH = 200;

/**
 * Returns the JSDoc lines for a schema's annotations: title, description, constraints
 * (`@format`, `@minimum`, ...), `@default`, up to 3 `@example` values and `@deprecated`.
 * Values longer than 200 characters are cut with "…". Empty when there is nothing to say.
 */
export function schemaDocLines(value: JsonSchema | unknown): string[] {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return [];
  const schema = value as Record<string, unknown>;
  const lines: string[] = [];
  const { title, description } = schema;
  if (typeof title === "string" && title.trim() !== "" && title !== description) lines.push(...splitLines(title));
  if (typeof description === "string") lines.push(...splitLines(description));
  for (const keyword of CONSTRAINT_KEYWORDS) {
    const value = schema[keyword];
    if (value === undefined) continue;
    lines.push(`@${keyword} ${typeof value === "string" ? oneLine(value) : shortJson(value)}`);
  }
  if (schema.default !== undefined) lines.push(`@default ${shortJson(schema.default)}`);
  if (Array.isArray(schema.examples)) {
    for (const example of schema.examples.slice(0, MAX_EXAMPLES)) lines.push(`@example ${shortJson(example)}`);
  }
  if (schema.deprecated === true) lines.push("@deprecated");
  return lines;
}

/**
 * Formats lines as a JSDoc block at `indent`: `/** line *\/` for one short line, the
 * multi-line form otherwise. Returns "" for no lines. Escapes `*\/`; HIDDEN_CHARACTERS other
 * than a tab become U+FFFD.
 */
export function formatJsDoc(lines: readonly string[], indent: string): string {
  const escaped = lines.map(escapeComment);
  if (escaped.length === 0) return "";
  const only = escaped[0];
  if (escaped.length === 1 && only !== undefined && only.length <= 80) return `${indent}/** ${only} */`;
  const body = escaped.map((line) => (line === "" ? `${indent} *` : `${indent} * ${line}`));
  return `${indent}/**\n${body.join("\n")}\n${indent} */`;
}

/** Formats lines as a one-line JSDoc to put before a type inside an expression. */
export function inlineJsDoc(lines: readonly string[]): string {
  return `/** ${escapeComment(lines.filter((line) => line !== "").join(" "))} */`;
}

/** A one-line block comment, e.g. the reason a schema became `unknown`. */
export function blockComment(text: string): string {
  return `/* ${escapeComment(oneLine(text))} */`;
}

/** Splits text into lines on any line terminator, trimming trailing blanks and empty edges. */
export function splitLines(text: string): string[] {
  const lines = text.split(/\r\n|[\r\n\u2028\u2029]/).map((line) => line.trimEnd());
  while (lines.length > 0 && lines[0] === "") lines.shift();
  while (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
  return lines;
}

function escapeComment(text: string): string {
  // `*\/` reads the same to a person, and inside a JSON string it is still a valid escape.
  // A tab reads as the blank it is; every other hidden character becomes visible.
  return text
    .replace(/\*\//g, "*\\/")
    .replace(HIDDEN_CHARACTERS, (character) => (character === "\t" ? "\t" : "\ufffd"));
}

function oneLine(text: string): string {
  return splitLines(text).join(" ");
}

function shortJson(value: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = "(not JSON)";
  }
  return text.length > MAX_VALUE_LENGTH ? `${text.slice(0, MAX_VALUE_LENGTH)}…` : text;
}
