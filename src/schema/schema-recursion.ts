// Recursion in a JSON Schema, seen before ajv compiles it: a `$ref` cycle that applies the same
// value again without descending into it (`{ $ref: "#" }`, `allOf: [{ $ref: "#" }]`, two `$defs`
// that refer to each other) makes every validation recurse until the stack overflows, so it is
// refused at registration. A cycle through `properties`, `items` and the like descends into the
// value at each turn: it is bounded by the value's depth, which the validator caps (json-limits.ts).

/** What `analyzeRecursion` finds in a schema. */
export interface SchemaRecursion {
  /** Whether the schema holds any `$ref`, `$dynamicRef` or `$recursiveRef`: it may be recursive. */
  readonly refers: boolean;
  /** A reference cycle that validates the same value again, as the keywords followed; undefined when there is none. */
  readonly unguardedCycle: readonly string[] | undefined;
}

const REF_KEYWORDS = ["$ref", "$dynamicRef", "$recursiveRef"] as const;
// Keywords whose subschemas apply to the value itself rather than to a part of it.
const IN_PLACE_LISTS = ["allOf", "anyOf", "oneOf"] as const;
const IN_PLACE_SINGLES = ["not", "if", "then", "else"] as const;
const IN_PLACE_MAPS = ["dependentSchemas", "dependencies"] as const;

type SchemaObject = Record<string, unknown>;
interface Edge {
  readonly target: SchemaObject;
  readonly via: string;
}

/**
 * Walks `root` once (iteratively, so any depth and any shared or cyclic object graph ends) and
 * looks for a cycle among the references and in-place keywords (allOf, anyOf, oneOf, not, if,
 * then, else, dependentSchemas, draft-07 dependencies). Local pointers (`#`, `#/$defs/a`) and
 * plain-name anchors (`#node` with `$anchor` or `$dynamicAnchor`) are followed; other references
 * are not (ajv resolves them, and the validator's stack guard still holds).
 */
export function analyzeRecursion(root: unknown): SchemaRecursion {
  if (!isSchemaObject(root)) return { refers: false, unguardedCycle: undefined };
  const nodes = schemaObjectsIn(root);
  const anchors = new Map<string, SchemaObject>();
  let refers = false;
  for (const record of nodes) {
    for (const keyword of ["$anchor", "$dynamicAnchor"]) {
      const name = record[keyword];
      if (typeof name === "string" && !anchors.has(name)) anchors.set(name, record);
    }
    if (REF_KEYWORDS.some((keyword) => typeof record[keyword] === "string")) refers = true;
  }
  if (!refers) return { refers, unguardedCycle: undefined };
  return { refers, unguardedCycle: findCycle(nodes, (node) => inPlaceEdges(root, anchors, node)) };
}

/**
 * Every object (arrays excepted) reachable from `root`, `root` first, each once however often it
 * is shared: found iteratively, so any depth and any cyclic object graph ends. Walks values that
 * are data too (`const`, `default`).
 */
export function schemaObjectsIn(root: unknown): SchemaObject[] {
  const objects: SchemaObject[] = [];
  const pending: unknown[] = [root];
  const seen = new Set<object>();
  while (pending.length > 0) {
    const node = pending.pop();
    if (node === null || typeof node !== "object" || seen.has(node)) continue;
    seen.add(node);
    if (Array.isArray(node)) {
      pending.push(...node);
      continue;
    }
    objects.push(node as SchemaObject);
    for (const value of Object.values(node)) if (value !== null && typeof value === "object") pending.push(value);
  }
  return objects;
}

/**
 * The value a local reference points at: `#` is the root, `#/a/b` a JSON Pointer (RFC 6901,
 * percent-decoded as a URI fragment), `#name` an anchor of `anchors`. Undefined when it points nowhere.
 */
export function resolveLocalRef(root: unknown, ref: string, anchors?: ReadonlyMap<string, unknown>): unknown {
  if (ref === "#") return root;
  if (!ref.startsWith("#")) return undefined;
  if (!ref.startsWith("#/")) return anchors?.get(ref.slice(1));
  let segments: string[];
  try {
    segments = decodeURIComponent(ref.slice(2)).split("/");
  } catch {
    return undefined;
  }
  let current: unknown = root;
  for (const raw of segments) {
    const key = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    if (current === null || typeof current !== "object" || !Object.hasOwn(current, key)) return undefined;
    current = (current as SchemaObject)[key];
  }
  return current;
}

function inPlaceEdges(root: SchemaObject, anchors: ReadonlyMap<string, unknown>, node: SchemaObject): Edge[] {
  const edges: Edge[] = [];
  const add = (target: unknown, via: string): void => {
    if (isSchemaObject(target)) edges.push({ target, via });
  };
  for (const keyword of REF_KEYWORDS) {
    const ref = node[keyword];
    if (typeof ref === "string") add(resolveLocalRef(root, ref, anchors), `${keyword} ${ref}`);
  }
  for (const keyword of IN_PLACE_LISTS) {
    const list = node[keyword];
    if (!Array.isArray(list)) continue;
    for (const [index, schema] of list.entries()) add(schema, `${keyword}/${index}`);
  }
  for (const keyword of IN_PLACE_SINGLES) add(node[keyword], keyword);
  for (const keyword of IN_PLACE_MAPS) {
    const map = node[keyword];
    if (isSchemaObject(map)) for (const [name, schema] of Object.entries(map)) add(schema, `${keyword}/${name}`);
  }
  return edges;
}

/** A cycle in the graph over `nodes` as the `via` labels of its edges, by an iterative depth-first search. */
function findCycle(nodes: readonly SchemaObject[], edgesOf: (node: SchemaObject) => Edge[]): string[] | undefined {
  const state = new Map<SchemaObject, "open" | "done">();
  for (const start of nodes) {
    if (state.has(start)) continue;
    state.set(start, "open");
    const stack = [{ node: start, edges: edgesOf(start), next: 0, via: "" }];
    while (stack.length > 0) {
      const top = stack[stack.length - 1] as (typeof stack)[number];
      const edge = top.edges[top.next++];
      if (edge === undefined) {
        state.set(top.node, "done");
        stack.pop();
        continue;
      }
      const seen = state.get(edge.target);
      if (seen === "open") {
        const from = stack.findIndex((frame) => frame.node === edge.target);
        return [...stack.slice(from + 1).map((frame) => frame.via), edge.via];
      }
      if (seen === "done") continue;
      state.set(edge.target, "open");
      stack.push({ node: edge.target, edges: edgesOf(edge.target), next: 0, via: edge.via });
    }
  }
  return undefined;
}

function isSchemaObject(value: unknown): value is SchemaObject {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}
