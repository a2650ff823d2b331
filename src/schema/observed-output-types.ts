// The output types a session has observed for tools that declare no outputSchema: one merged
// shape and a count of results per tool, bounded in tools, schema size and key length, optionally
// kept in a JSON file so the next session starts typed. Keys the session's redactor would redact
// are never recorded (in memory, in the file, in declarations). It never throws for a result; a
// file that cannot be read or written is reported, not fatal to runs.

import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { mkdir, rename, rm, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { SwitchyardError, messageOf } from "../errors.js";
import {
  countBand,
  findMismatch,
  fitsWithoutChange,
  inferSchema,
  mergeSchemas,
  normalizeObservedSchema,
  type ObservedKeyFilter,
  type ObservedSchema,
  sameSchema,
} from "./observed-schema.js";

/** Options of the observed types of a session (`SwitchyardOptions.observedTypes`). */
export interface ObservedTypesOptions {
  /**
   * A JSON file the observed types are read from when the session starts and written to after
   * runs and direct calls that changed them (atomically; the last writer wins when several
   * sessions share one). Default: none, the types live as long as the session.
   */
  readonly file?: string;
}

/** What a session knows of one tool's results. Immutable: a change makes a new object. */
export interface ObservedType {
  readonly schema: ObservedSchema;
  /** Results merged into `schema`. */
  readonly results: number;
  /** Rises whenever the rendered type would read differently (the schema, or the count's band). */
  readonly revision: number;
}

/** Tools whose observed types are kept; the least recently observed is dropped past it. */
export const MAX_OBSERVED_TOOLS = 1_000;

const FILE_FORMAT = 1;

/** One session's observed types; see the module comment. */
export class ObservedOutputTypes {
  // Replaced, never edited, when a rendered type changes: a run keeps the map it was checked against.
  #types = new Map<string, ObservedType>();
  /** The tool `#record` put last in `#types`' order, while it is still last. */
  #lastRecorded: string | undefined;
  #revision = 0;
  #dirty = false;
  #saving: Promise<void> | undefined;
  readonly #file: string | undefined;
  readonly #showKey: ObservedKeyFilter | undefined;
  /** The last failure to write the file; observed types stay in memory. */
  lastSaveError: Error | undefined;

  /**
   * Reads `options.file` when it exists. Throws SwitchyardError `CONFIG_INVALID` when it exists
   * but is not an observed-types file (it is written atomically, so a torn write cannot cause it).
   * `showKey` refuses keys to record (a session passes "holds no secret"); an object with such a
   * key is observed as a record of its values, in results and in the file alike.
   */
  constructor(options: ObservedTypesOptions = {}, showKey?: ObservedKeyFilter) {
    this.#file = options.file;
    this.#showKey = showKey;
    if (this.#file !== undefined) this.#load(this.#file);
  }

  /** Rises whenever any rendered observed type changes; declaration caches key on it. */
  get revision(): number {
    return this.#revision;
  }

  /** The observed types now, by tool name; the map is never changed afterwards. */
  snapshot(): ReadonlyMap<string, ObservedType> {
    return this.#types;
  }

  /**
   * Merges the shape of `value`, one result of `tool`, and says where it breaks `expected` (the
   * type a program was checked against), or undefined when it fits. A value too large to read
   * within the bounds changes nothing and is taken to fit.
   */
  observe(tool: string, value: unknown, expected?: ObservedType): string | undefined {
    const known = this.#types.get(tool);
    // The usual case once a type has settled: nothing to learn, nothing to build.
    if (
      known !== undefined &&
      (expected === undefined || expected.schema === known.schema) &&
      fitsWithoutChange(known.schema, value)
    ) {
      this.#record(tool, known, known.schema);
      return undefined;
    }
    const shape = inferSchema(value, this.#showKey);
    if (shape === undefined) return undefined;
    this.#record(tool, known, known === undefined ? shape : mergeSchemas(known.schema, shape));
    return expected === undefined ? undefined : findMismatch(expected.schema, shape);
  }

  #record(tool: string, known: ObservedType | undefined, schema: ObservedSchema): void {
    const results = (known?.results ?? 0) + 1;
    const changed =
      known === undefined || !sameSchema(known.schema, schema) || countBand(known.results) !== countBand(results);
    if (changed) {
      this.#types = new Map(this.#types);
      this.#revision += 1;
    }
    // Refreshed at the end of the map's order, so the least recently observed is first to go. A
    // tool already last (a program calling one tool in a loop) is updated in place: deleting and
    // setting again would leave a hole in the map for every call until it is rehashed.
    if (tool !== this.#lastRecorded) this.#types.delete(tool);
    this.#lastRecorded = tool;
    this.#types.set(tool, {
      schema: changed ? schema : known.schema,
      results,
      revision: changed ? this.#revision : known.revision,
    });
    if (this.#types.size > MAX_OBSERVED_TOOLS) {
      const [oldest] = this.#types.keys();
      if (oldest !== undefined) this.#types.delete(oldest);
    }
    this.#dirty = true;
  }

  /**
   * Writes the file if anything changed since the last write; one write at a time, a change
   * during it written after. Resolves, never rejects: a failure is kept in `lastSaveError`.
   */
  save(): Promise<void> {
    if (this.#file === undefined || !this.#dirty) return this.#saving ?? Promise.resolve();
    const file = this.#file;
    const previous = this.#saving ?? Promise.resolve();
    const saving = previous.then(async () => {
      if (!this.#dirty) return;
      this.#dirty = false;
      try {
        await writeAtomically(file, this.#serialize());
        this.lastSaveError = undefined;
      } catch (error) {
        this.lastSaveError = error instanceof Error ? error : new Error(messageOf(error));
      }
    });
    this.#saving = saving;
    return saving.finally(() => {
      if (this.#saving === saving) this.#saving = undefined;
    });
  }

  #serialize(): string {
    const tools: Record<string, { results: number; schema: ObservedSchema }> = {};
    for (const [name, type] of this.#types) tools[name] = { results: type.results, schema: type.schema };
    return `${JSON.stringify({ switchyardObservedTypes: FILE_FORMAT, tools }, null, 2)}\n`;
  }

  #load(file: string): void {
    let text: string;
    try {
      text = readFileSync(file, "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return;
      throw new SwitchyardError("CONFIG_INVALID", `observedTypes.file ${file} cannot be read: ${messageOf(error)}`);
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (error) {
      throw new SwitchyardError(
        "CONFIG_INVALID",
        `observedTypes.file ${file} is not JSON (${messageOf(error)}); delete it to start again.`,
      );
    }
    const { switchyardObservedTypes: format, tools } = (parsed ?? {}) as Record<string, unknown>;
    if (format !== FILE_FORMAT || typeof tools !== "object" || tools === null) {
      throw new SwitchyardError(
        "CONFIG_INVALID",
        `observedTypes.file ${file} is not an observed-types file (format ${FILE_FORMAT}); delete it to start again.`,
      );
    }
    for (const [name, entry] of Object.entries(tools as Record<string, unknown>).slice(-MAX_OBSERVED_TOOLS)) {
      const { schema, results } = (entry ?? {}) as Record<string, unknown>;
      const normalized = normalizeObservedSchema(schema, 0, this.#showKey);
      if (normalized === undefined || name === "__proto__") continue;
      const count = typeof results === "number" && Number.isSafeInteger(results) && results > 0 ? results : 1;
      this.#types.set(name, { schema: normalized, results: count, revision: 0 });
    }
  }
}

async function writeAtomically(file: string, text: string): Promise<void> {
  await mkdir(dirname(file), { recursive: true });
  const temporary = `${file}.${process.pid}-${randomUUID().slice(0, 8)}.tmp`;
  try {
    await writeFile(temporary, text);
    await rename(temporary, file);
  } catch (error) {
    // A full disk leaves part of the temporary file; every later save would leave another.
    await rm(temporary, { force: true });
    throw error;
  }
}
