// Reads a file a user named on the command line (a program, `--input`, `--output-schema`). A file that
// cannot be read, is not JSON or (for a schema) does not compile is a usage mistake, reported in
// one line by the command's error path before any server starts.

import { readFile } from "node:fs/promises";
import type { JsonSchema } from "../contract.js";
import { SwitchyardError } from "../errors.js";
import { compileSchema } from "../schema/schema-validator.js";
import { jsonSyntaxProblem } from "../config/json-syntax-problem.js";
import { fileErrorOf } from "./cli-error.js";

/** The text of `path`; one that cannot be read is a usage error naming it as `what`. */
export async function readTextFile(path: string, what: string): Promise<string> {
  try {
    return await readFile(path, "utf8");
  } catch (error) {
    throw fileErrorOf(error, path, what, "read");
  }
}

/** The parsed value of `path`; `what` names the file in messages ("the input file (--input)"). */
export async function readJsonFile(path: string, what: string): Promise<unknown> {
  // A byte order mark is not JSON, but editors write one.
  const text = (await readTextFile(path, what)).replace(/^\uFEFF/, "");
  const problem = jsonSyntaxProblem(text);
  if (problem !== undefined) {
    // One line, even if the parser's message quoted the file, newlines included.
    const reason = problem.replace(/\s+/g, " ").slice(0, 200);
    throw new SwitchyardError(
      "OPTION_INVALID",
      `${what} ${JSON.stringify(path)} is not valid JSON (${reason}); fix it or pass another file.`,
    );
  }
  return JSON.parse(text) as unknown;
}

/** A JSON Schema file: an object or a boolean that ajv compiles (else SCHEMA_INVALID, one line). */
export async function readJsonSchemaFile(path: string, what: string): Promise<JsonSchema> {
  const schema = await readJsonFile(path, what);
  if (typeof schema !== "boolean" && (typeof schema !== "object" || schema === null || Array.isArray(schema))) {
    throw new SwitchyardError("OPTION_INVALID", `${what} ${JSON.stringify(path)} must hold a JSON Schema object.`);
  }
  compileSchema(schema as JsonSchema, `${what} ${JSON.stringify(path)}`);
  return schema as JsonSchema;
}
