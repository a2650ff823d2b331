// The size of a schema an integrator (or an MCP server) declares: a tool's input and output
// schemas, a run's input and output schemas, the gateway's outputSchema. Each is compiled by ajv
// (code generation in proportion to its size), walked for recursion and rendered into declarations
// every program is checked against, so a huge one costs every call and every run; it is refused
// at registration instead, measured without recursion so no nesting can overflow the stack here.

/** Characters of JSON text a declared schema may take (1 MiB); a larger one is SCHEMA_INVALID. */
export const MAX_SCHEMA_CHARS = 1024 * 1024;

/** Nesting of objects and arrays in a declared schema; a deeper one is SCHEMA_INVALID. */
export const MAX_SCHEMA_NESTING = 256;

/**
 * Why `schema` is too large to declare (over MAX_SCHEMA_CHARS of JSON text, counted as it would
 * be serialized, give or take quoting, or nested over MAX_SCHEMA_NESTING levels), or undefined.
 * Stops as soon as a limit is passed; a shared or cyclic object graph counts every time it is met.
 */
export function schemaSizeProblem(schema: unknown): string | undefined {
  let chars = 0;
  // Two parallel stacks rather than a tuple per node: registration walks every tool's schema, and
  // at thousands of tools the tuples were most of the walk's cost.
  const nodes: unknown[] = [schema];
  const depths: number[] = [1];
  while (nodes.length > 0) {
    const node = nodes.pop();
    const depth = depths.pop() as number;
    if (typeof node === "string") chars += node.length + 2;
    else if (node === null || typeof node !== "object") chars += String(node).length;
    else {
      if (depth > MAX_SCHEMA_NESTING) return `it nests objects and arrays deeper than ${MAX_SCHEMA_NESTING} levels`;
      chars += 2;
      if (Array.isArray(node)) {
        for (const item of node) {
          nodes.push(item);
          depths.push(depth + 1);
        }
        chars += node.length;
      } else {
        for (const key of Object.keys(node)) {
          chars += key.length + 4;
          nodes.push((node as Record<string, unknown>)[key]);
          depths.push(depth + 1);
        }
      }
    }
    if (chars > MAX_SCHEMA_CHARS) return `it is larger than ${MAX_SCHEMA_CHARS} characters of JSON`;
  }
  return undefined;
}
