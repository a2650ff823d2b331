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

// Control and bidirectional-override characters could hide text from a human reviewer.
const HIDING_CHARACTERS = /[\u0000-\u0008\u000b-\u001f\u007f\u202a-\u202e\u2066-\u2069]/g;

/**
 * Characters that change how text around them reads or that show as nothing: controls, bidi
 * marks, embeddings, overrides and isolates, zero-width and invisible format characters, line
 * and paragraph separators. A string literal in a declaration writes them as `\uXXXX` escapes.
 */
export const HIDDEN_CHARACTERS =
  /[\u0000-\u001f\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff\ufff9-\ufffb]/g;

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
 * multi-line form otherwise. Returns "" for no lines. Escapes `*\/`; control and
 * bidi-override characters become U+FFFD.
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
  return text.replace(/\*\//g, "*\\/").replace(HIDING_CHARACTERS, "\ufffd");
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
