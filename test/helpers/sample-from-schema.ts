// Builds a value that satisfies a JSON Schema, for tests that need a valid call to every tool
// of a real server: required properties only, first enum member, minimum lengths and bounds.

type Schema = Record<string, unknown>;

/** A valid value for the practical subset of JSON Schema; `undefined` when it cannot build one. */
export function sampleFromSchema(schema: unknown, root: unknown = schema, depth = 0): unknown {
  if (depth > 12 || schema === null || typeof schema !== "object") return undefined;
  const node = schema as Schema;
  if (typeof node["$ref"] === "string") return sampleFromSchema(resolveRef(root, node["$ref"]), root, depth + 1);
  if ("const" in node) return node["const"];
  if (Array.isArray(node["enum"])) return node["enum"][0];
  if ("default" in node) return node["default"];
  for (const key of ["anyOf", "oneOf", "allOf"]) {
    if (Array.isArray(node[key])) return sampleFromSchema((node[key] as unknown[])[0], root, depth + 1);
  }
  const type = Array.isArray(node["type"])
    ? (node["type"] as string[]).find((entry) => entry !== "null")
    : node["type"];
  switch (type) {
    case "object":
    case undefined: {
      const properties = (node["properties"] ?? {}) as Record<string, unknown>;
      const required = Array.isArray(node["required"]) ? (node["required"] as string[]) : [];
      const value: Record<string, unknown> = {};
      for (const name of required) value[name] = sampleFromSchema(properties[name] ?? {}, root, depth + 1) ?? "x";
      return value;
    }
    case "array": {
      const minItems = typeof node["minItems"] === "number" ? node["minItems"] : 0;
      return Array.from({ length: minItems }, () => sampleFromSchema(node["items"] ?? {}, root, depth + 1));
    }
    case "string": {
      if (node["format"] === "uri") return "https://example.com/x";
      if (node["format"] === "date-time") return "2026-01-01T00:00:00Z";
      const minLength = typeof node["minLength"] === "number" ? node["minLength"] : 1;
      return "x".repeat(Math.max(1, minLength));
    }
    case "integer":
    case "number":
      return typeof node["minimum"] === "number" ? node["minimum"] : 1;
    case "boolean":
      return true;
    default:
      return undefined;
  }
}

function resolveRef(root: unknown, ref: string): unknown {
  if (!ref.startsWith("#/")) return {};
  let current = root;
  for (const part of ref.slice(2).split("/")) current = (current as Record<string, unknown> | undefined)?.[part];
  return current ?? {};
}
