// Checks that a JSON Schema describes every property it declares, for tests of tool schemas:
// a model reads those descriptions, so a property without one is a gap in the tool's manual.

/**
 * Paths such as `/results/items/path` of every property declared under `properties`, at any
 * depth and inside array `items`, whose `description` is not a string. Empty when every
 * property is described.
 */
export function undescribedProperties(schema: unknown, path = ""): string[] {
  if (typeof schema !== "object" || schema === null) return [];
  const node = schema as { properties?: Record<string, unknown>; items?: unknown };
  const missing: string[] = [];
  for (const [key, property] of Object.entries(node.properties ?? {})) {
    if (typeof (property as { description?: unknown }).description !== "string") missing.push(`${path}/${key}`);
    missing.push(...undescribedProperties(property, `${path}/${key}`));
  }
  if (node.items !== undefined) missing.push(...undescribedProperties(node.items, `${path}/items`));
  return missing;
}
