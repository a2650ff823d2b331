import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  countBand,
  covers,
  describeResultCount,
  fitsWithoutChange,
  findMismatch,
  inferSchema,
  MAX_OBSERVED_DEPTH,
  MAX_OBSERVED_KEY_CHARS,
  MAX_OBSERVED_KEYS,
  MAX_SCHEMA_NODES,
  mergeSchemas,
  normalizeObservedSchema,
  type ObservedSchema,
} from "../../src/schema/observed-schema.js";

const infer = (value: unknown): ObservedSchema => {
  const schema = inferSchema(value);
  if (schema === undefined) throw new Error("not observed");
  return schema;
};
const mergeAll = (...values: unknown[]): ObservedSchema => values.map(infer).reduce(mergeSchemas);

function countNodes(schema: ObservedSchema): number {
  return (
    1 +
    Object.values(schema.properties ?? {}).reduce((sum, child) => sum + countNodes(child), 0) +
    (schema.additionalProperties === undefined ? 0 : countNodes(schema.additionalProperties)) +
    (schema.items === undefined ? 0 : countNodes(schema.items))
  );
}

function depthOf(schema: ObservedSchema): number {
  const children = [
    ...Object.values(schema.properties ?? {}),
    ...(schema.additionalProperties === undefined ? [] : [schema.additionalProperties]),
    ...(schema.items === undefined ? [] : [schema.items]),
  ];
  return 1 + Math.max(0, ...children.map(depthOf));
}

describe("inferSchema", () => {
  it("reads a value as its JSON text would have it", () => {
    const value = {
      id: "o-1",
      total: 12.5,
      paid: true,
      note: null,
      when: new Date(0),
      skipped: undefined,
      method: () => 1,
      ratio: Number.NaN,
      tags: ["a", "b"],
      holes: [undefined, 1],
    };
    expect(JSON.parse(JSON.stringify(infer(value)))).toEqual({
      type: "object",
      properties: {
        id: { type: "string" },
        total: { type: "number" },
        paid: { type: "boolean" },
        note: { type: "null" },
        when: { type: "string" },
        ratio: { type: "null" },
        tags: { type: "array", items: { type: "string" } },
        holes: { type: "array", items: { type: ["null", "number"] } },
      },
      required: ["id", "total", "paid", "note", "when", "ratio", "tags", "holes"],
    });
  });

  it("keeps an empty array without items and an empty object open", () => {
    expect(infer({ list: [], bag: {} })).toMatchObject({
      properties: { list: { type: "array" }, bag: { type: "object", properties: {}, required: [] } },
    });
  });

  it(`reads an object of more than ${MAX_OBSERVED_KEYS} keys as a record of one value type`, () => {
    const many = Object.fromEntries(Array.from({ length: 500 }, (_, index) => [`k${index}`, { n: index }]));
    expect(infer(many)).toEqual({
      type: "object",
      additionalProperties: { type: "object", properties: { n: { type: "number" } }, required: ["n"] },
    });
  });

  it(`cuts nesting below ${MAX_OBSERVED_DEPTH} levels to anything`, () => {
    let deep: unknown = "leaf";
    for (let level = 0; level < 5_000; level++) deep = { next: deep };
    const schema = infer(deep);
    // Six levels of structs, then an open object whose values are anything.
    expect(depthOf(schema)).toBe(MAX_OBSERVED_DEPTH + 2);
  });

  it("reads a million-element array by a sample, first and last included", () => {
    const rows = Array.from({ length: 1_000_000 }, (_, index) => ({ id: index }));
    rows[rows.length - 1] = { id: 1, last: true } as never;
    rows[1] = { id: 1, second: true } as never;
    const schema = infer(rows);
    expect(Object.keys(schema.items?.properties ?? {})).toEqual(["id", "last"]);
    expect(schema.items?.required).toEqual(["id"]);
  });

  it("gives up on a value too large to read in bounds, and on a BigInt or a throwing getter", () => {
    const wide = Array.from({ length: 20 }, () =>
      Array.from({ length: 20 }, () => Array.from({ length: 20 }, () => Array.from({ length: 20 }, () => ({ a: 1 })))),
    );
    expect(inferSchema(wide)).toBeUndefined();
    expect(inferSchema({ n: 1n })).toBeUndefined();
    expect(
      inferSchema({
        get boom() {
          throw new Error("no");
        },
      }),
    ).toBeUndefined();
  });

  it("never gives a __proto__ key a place, nor lets keys named like Object methods misbehave", () => {
    const schema = infer(JSON.parse('{"__proto__": {"x": 1}, "constructor": 1, "toString": "s"}'));
    expect(Object.keys(schema.properties ?? {})).toEqual(["constructor", "toString"]);
    expect(schema.properties?.constructor).toEqual({ type: "number" });
  });
});

describe("mergeSchemas", () => {
  it("makes a key optional when one result lacked it, and unites kinds", () => {
    const merged = mergeAll({ id: "a", total: 1 }, { id: "b", total: null, note: "x" });
    expect(merged).toEqual({
      type: "object",
      properties: { id: { type: "string" }, total: { type: ["null", "number"] }, note: { type: "string" } },
      required: ["id", "total"],
    });
  });

  it("merges array elements, and an empty array with a full one", () => {
    expect(mergeAll([], [1])).toEqual({ type: "array", items: { type: "number" } });
    expect(mergeAll(["a"], [{ id: 1 }])).toMatchObject({ type: "array", items: { type: ["string", "object"] } });
  });

  it(`turns a struct into a record once the merged keys pass ${MAX_OBSERVED_KEYS}`, () => {
    const values = Array.from({ length: 50 }, (_, index) => ({ [`key${index}`]: index }));
    expect(mergeAll(...values)).toEqual({ type: "object", additionalProperties: { type: "number" } });
  });

  it(`keeps a merged schema under ${MAX_SCHEMA_NODES} nodes by cutting levels`, () => {
    const values = Array.from({ length: 30 }, (_, outer) => ({
      [`group${outer}`]: Object.fromEntries(Array.from({ length: 30 }, (_, inner) => [`field${inner}`, { v: inner }])),
    }));
    expect(countNodes(mergeAll(...values))).toBeLessThanOrEqual(MAX_SCHEMA_NODES);
  });

  it("keeps anything as anything", () => {
    expect(mergeSchemas({}, infer({ a: 1 }))).toEqual({});
  });
});

describe("findMismatch", () => {
  const expected = mergeAll({ id: "a", total: 1, items: [{ sku: "x" }] }, { id: "b", total: 2, items: [] });

  it("accepts a result that fits, with keys the type does not list", () => {
    expect(findMismatch(expected, infer({ id: "c", total: 3, items: [{ sku: "y", qty: 1 }], extra: true }))).toBe(
      undefined,
    );
  });

  it.each([
    [{ total: 3, items: [] }, "$.id is missing"],
    [{ id: 7, total: 3, items: [] }, "$.id is number, where the type has string"],
    [{ id: "c", total: 3, items: [{ sku: 1 }] }, "$.items[].sku is number, where the type has string"],
    [null, "$ is null, where the type has object"],
  ])("names where %j breaks the type", (value, message) => {
    expect(findMismatch(expected, infer(value))).toBe(message);
  });

  it("checks a record's values whatever their keys", () => {
    const record: ObservedSchema = { type: "object", additionalProperties: { type: "number" } };
    expect(findMismatch(record, infer({ a: 1, "b c": 2 }))).toBeUndefined();
    expect(findMismatch(record, infer({ a: 1, "b c": "2" }))).toBe('$["b c"] is string, where the type has number');
  });
});

describe("normalizeObservedSchema", () => {
  it("keeps the subset and drops everything else", () => {
    expect(
      normalizeObservedSchema({
        type: ["object", "bogus"],
        properties: { a: { type: "string", pattern: ".*" }, __proto__: { type: "number" } },
        required: ["a", "missing", 3],
        $ref: "#/x",
      }),
    ).toEqual({ type: "object", properties: { a: { type: "string" } }, required: ["a"] });
  });

  it("reads a hostile file entry within bounds", () => {
    let deep: Record<string, unknown> = { type: "string" };
    for (let level = 0; level < 10_000; level++) deep = { type: "object", properties: { next: deep } };
    const schema = normalizeObservedSchema(deep)!;
    expect(depthOf(schema)).toBeLessThanOrEqual(MAX_OBSERVED_DEPTH + 2);
    expect(normalizeObservedSchema("string")).toBeUndefined();
    expect(normalizeObservedSchema({ type: 5 })).toEqual({});
  });
});

describe("describeResultCount", () => {
  it("reads exactly for one result and in five bands after", () => {
    expect([1, 2, 9, 10, 99, 100, 999, 1_000, 50_000].map(describeResultCount)).toEqual([
      "1 result",
      "2+ results",
      "2+ results",
      "10+ results",
      "10+ results",
      "100+ results",
      "100+ results",
      "1,000+ results",
      "1,000+ results",
    ]);
    expect(new Set([1, 2, 5, 10, 50, 100, 500, 1_000, 10_000].map(countBand)).size).toBe(5);
  });
});

describe("fitsWithoutChange and covers", () => {
  // Values near each other in shape, so that many fit a type learned from the others.
  const leaf = fc.oneof(fc.constant(null), fc.boolean(), fc.integer(), fc.constantFrom("a", "b"));
  const value = fc.letrec((tie) => ({
    node: fc.oneof(
      { depthSize: "small" },
      leaf,
      fc.array(tie("node"), { maxLength: 4 }),
      fc.dictionary(fc.constantFrom("id", "name", "tags", "n", "constructor"), tie("node"), { maxKeys: 4 }),
    ),
  })).node;

  it("answers true only where merging the value's shape would change nothing", () => {
    fc.assert(
      fc.property(fc.array(value, { minLength: 1, maxLength: 5 }), value, (learned, next) => {
        const schema = learned.map(infer).reduce(mergeSchemas);
        const shape = infer(next);
        const unchanged = JSON.stringify(mergeSchemas(schema, shape)) === JSON.stringify(schema);
        expect(covers(schema, shape)).toBe(unchanged);
        if (fitsWithoutChange(schema, next)) expect(unchanged).toBe(true);
        if (unchanged) expect(fitsWithoutChange(schema, next)).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  it("agrees with inferring on a sampled array and a record past the key limit", () => {
    const rows = Array.from({ length: 5_000 }, (_, index) => ({ id: index, name: "n" }));
    const schema = infer(rows);
    expect(fitsWithoutChange(schema, rows)).toBe(true);
    const record = Object.fromEntries(Array.from({ length: 300 }, (_, index) => [`k${index}`, index]));
    expect(fitsWithoutChange(infer(record), record)).toBe(true);
    expect(fitsWithoutChange(infer(record), { ...record, k0: "text" })).toBe(false);
    expect(fitsWithoutChange(infer({ a: 1 }), { a: 1, b: 2 })).toBe(false);
    expect(fitsWithoutChange(infer({ a: 1, b: 2 }), { a: 1 })).toBe(false);
  });
});

describe("keys an observed type may not record", () => {
  it("reads an object with a key longer than MAX_OBSERVED_KEY_CHARS as a record of its values", () => {
    const long = "k".repeat(MAX_OBSERVED_KEY_CHARS + 1);
    expect(infer({ id: 1, [long]: "x" })).toEqual({
      type: "object",
      additionalProperties: { type: ["number", "string"] },
    });
    expect(infer({ ["k".repeat(MAX_OBSERVED_KEY_CHARS)]: "x" })).toMatchObject({ required: ["k".repeat(64)] });
    // 40 keys of 50,000 characters: a record of one value type, whatever the keys' size.
    const hostile = Object.fromEntries(Array.from({ length: 40 }, (_, index) => [`${index}${"x".repeat(50_000)}`, 1]));
    const schema = infer({ data: hostile });
    expect(JSON.stringify(schema).length).toBeLessThan(200);
  });

  it("reads an object with a key the filter refuses as a record, and merges it with the struct seen before", () => {
    const secretKey = "ghp_not-a-field";
    const showKey = (key: string): boolean => !key.startsWith("ghp_");
    const first = inferSchema({ data: { [secretKey]: "a" } }, showKey)!;
    expect(JSON.stringify(first)).not.toContain(secretKey);
    expect(first).toEqual({
      type: "object",
      properties: { data: { type: "object", additionalProperties: { type: "string" } } },
      required: ["data"],
    });
    const second = inferSchema({ data: { [secretKey]: 5 } }, showKey)!;
    expect(findMismatch(first, second)).toBe("$.data[*] is number, where the type has string");
  });

  it("turns an object of a stored schema listing a refused or too long key into a record", () => {
    const stored = {
      type: "object",
      properties: { ok: { type: "string" }, ["x".repeat(100)]: { type: "number" } },
      required: ["ok"],
    };
    expect(normalizeObservedSchema(stored)).toEqual({
      type: "object",
      additionalProperties: { type: ["number", "string"] },
    });
    const refused = normalizeObservedSchema(
      { type: "object", properties: { ghp_x: { type: "string" } } },
      0,
      (key) => !key.startsWith("ghp_"),
    );
    expect(refused).toEqual({ type: "object", additionalProperties: { type: "string" } });
  });
});
