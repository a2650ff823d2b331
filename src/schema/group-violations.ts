// Groups schema violations by place, so a message about a large value names each distinct
// mistake once: alike errors (same expectation) at paths that differ only in array indices or
// in the keys of a map-like object become one place with a count (`/counts/*/urgent ×40`).
// Distinct places come first, so one top-level mistake is not hidden behind many repeated ones.

/** What grouping reads of a violation (schema-validator's SchemaViolation has this shape). */
export interface PlacedViolation {
  /** JSON Pointer into the value, `""` for the root. */
  readonly path: string;
  readonly expected: string;
  readonly received: string;
}

/** Lines (places) a message lists; the rest are counted. */
export const MAX_VIOLATION_LINES = 20;

/**
 * Keys of one object that, failing alike below them, are read as a map's keys and shown as `*`;
 * as the last segment (the failing values themselves), more are needed, since a fixed-shape
 * object's properties often fail alike too (`/name`, `/email`, `/phone`: type string).
 */
const MIN_KEYS_FOR_WILDCARD = 3;
const MIN_LEAF_KEYS_FOR_WILDCARD = 10;

/** Alike violations at one path pattern. */
export interface ViolationGroup {
  /** The JSON Pointer, with `*` for array indices and for keys of a map-like object. */
  readonly pattern: string;
  readonly expected: string;
  /** What the first violation of the group received. */
  readonly received: string;
  /** The path of the first violation of the group. */
  readonly firstPath: string;
  readonly count: number;
}

/** The groups of `violations`: the smallest groups first, then in order of first occurrence. */
export function groupViolations(violations: readonly PlacedViolation[]): ViolationGroup[] {
  const segments = violations.map((violation) =>
    violation.path === "" ? [] : violation.path.slice(1).split("/").map(indexAsWildcard),
  );
  const depth = segments.reduce((deepest, path) => Math.max(deepest, path.length), 0);
  // A path's segments before and after a position, as interned ids: a key per path and position
  // is then short, so grouping stays linear in the paths' total length (a whole path as the key
  // made it quadratic in depth: seconds for 10,000 violations 100 levels down).
  const ids = new Map<string, number>();
  const idOf = (key: string): number => {
    let id = ids.get(key);
    if (id === undefined) ids.set(key, (id = ids.size));
    return id;
  };
  // suffixes[index][position]: the segments after `position`, untouched until the loop reaches them.
  const suffixes = segments.map((path) => {
    const after = new Array<number>(path.length).fill(-1);
    for (let position = path.length - 2; position >= 0; position--) {
      after[position] = idOf(`s${after[position + 1]!}/${path[position + 1]!}`);
    }
    return after;
  });
  // prefixes[index]: the segments before the current position, wildcards already applied.
  const prefixes = segments.map(() => -1);
  // Left to right, so `/a/x/b/y` and `/a/z/b/w` first collapse at the outer map, then the inner.
  for (let position = 0; position < depth; position++) {
    const keysByRest = new Map<string, Set<string>>();
    const restKey = (index: number): string =>
      `${segments[index]!.length}|${prefixes[index]!}|${suffixes[index]![position]!}|${violations[index]!.expected}`;
    segments.forEach((path, index) => {
      if (path.length <= position) return;
      const key = restKey(index);
      let keys = keysByRest.get(key);
      if (keys === undefined) keysByRest.set(key, (keys = new Set()));
      if (keys.size < MIN_LEAF_KEYS_FOR_WILDCARD) keys.add(path[position]!);
    });
    segments.forEach((path, index) => {
      if (path.length <= position) return;
      const needed = position === path.length - 1 ? MIN_LEAF_KEYS_FOR_WILDCARD : MIN_KEYS_FOR_WILDCARD;
      if ((keysByRest.get(restKey(index))?.size ?? 0) >= needed) path[position] = "*";
      prefixes[index] = idOf(`p${prefixes[index]!}/${path[position]!}`);
    });
  }
  const groups = new Map<string, { group: ViolationGroup; order: number }>();
  violations.forEach((violation, index) => {
    const pattern = segments[index]!.length === 0 ? "" : `/${segments[index]!.join("/")}`;
    const key = `${pattern}\u0000${violation.expected}`;
    const known = groups.get(key);
    if (known !== undefined) {
      known.group = { ...known.group, count: known.group.count + 1 };
      return;
    }
    groups.set(key, {
      order: index,
      group: {
        pattern,
        expected: violation.expected,
        received: violation.received,
        firstPath: violation.path,
        count: 1,
      },
    });
  });
  return [...groups.values()]
    .sort((a, b) => a.group.count - b.group.count || a.order - b.order)
    .map((entry) => entry.group);
}

function indexAsWildcard(segment: string): string {
  return /^(0|[1-9]\d*)$/.test(segment) ? "*" : segment;
}
