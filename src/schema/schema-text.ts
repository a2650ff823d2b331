// The JSON text of a schema, as a key for what depends on the schema's content alone (a check's
// verdict, a compiled validator). Only plain JSON data gets one: a value JSON.stringify would
// change or drop (toJSON, undefined, functions, NaN, class instances, cycles) could make two
// different schemas share a text, so it gets none.

/** Longest text kept as a key, in characters; a larger schema is checked on its own. */
export const MAX_SCHEMA_TEXT_LENGTH = 256 * 1024;

/**
 * The JSON text of `schema` when it is plain JSON data (objects with the plain prototype, arrays,
 * strings, finite numbers, booleans, null) of at most 256 KiB of text; else undefined. Never throws.
 */
export function schemaText(schema: unknown): string | undefined {
  let plain = true;
  let text: string;
  try {
    text = JSON.stringify(schema, function (this: unknown, key: string, value: unknown) {
      // JSON.stringify applied toJSON before calling here if the holder's value differs.
      const original = (this as Record<string, unknown>)[key];
      if (original !== value || !isPlainValue(value)) plain = false;
      return plain ? value : undefined;
    });
  } catch {
    // A cycle, or nesting deeper than the stack.
    return undefined;
  }
  return plain && text.length <= MAX_SCHEMA_TEXT_LENGTH ? text : undefined;
}

function isPlainValue(value: unknown): boolean {
  switch (typeof value) {
    case "string":
    case "boolean":
      return true;
    case "number":
      return Number.isFinite(value);
    case "object": {
      if (value === null || Array.isArray(value)) return true;
      const prototype = Object.getPrototypeOf(value);
      return prototype === Object.prototype || prototype === null;
    }
    default:
      return false;
  }
}
