import { Ajv2020 } from "ajv/dist/2020.js";
import { describe, expect, it, vi } from "vitest";
import type { JsonSchema } from "../../src/contract.js";
import { compileSchema, formatViolations, violationsToJson } from "../../src/schema/schema-validator.js";
import { configErrorOf } from "../helpers/config-error.js";

describe("compileSchema", () => {
  it("validates draft 2020-12 schemas, including prefixItems and $defs", () => {
    const validate = compileSchema(
      {
        $schema: "https://json-schema.org/draft/2020-12/schema",
        type: "object",
        properties: {
          pair: { type: "array", prefixItems: [{ type: "string" }, { $ref: "#/$defs/count" }], items: false },
        },
        $defs: { count: { type: "integer", minimum: 0 } },
      },
      "test",
    );
    expect(validate({ pair: ["a", 1] })).toEqual([]);
    expect(validate({ pair: ["a", -1] })).toEqual([{ path: "/pair/1", expected: "a number >= 0", received: "-1" }]);
    expect(validate({ pair: ["a", 1, "extra"] }).map((violation) => violation.path)).toEqual(["/pair"]);
  });

  it("validates draft-07 schemas declared by $schema, including tuple items and definitions", () => {
    const validate = compileSchema(
      {
        $schema: "http://json-schema.org/draft-07/schema#",
        type: "object",
        properties: {
          pair: { type: "array", items: [{ type: "string" }, { $ref: "#/definitions/count" }], additionalItems: false },
        },
        definitions: { count: { type: "integer" } },
        required: ["pair"],
      },
      "test",
    );
    expect(validate({ pair: ["a", 2] })).toEqual([]);
    expect(validate({ pair: ["a", "b"] })).toEqual([
      { path: "/pair/1", expected: "type integer", received: 'string "b"' },
    ]);
    expect(validate({})).toEqual([{ path: "/pair", expected: "a required property", received: "missing" }]);
  });

  it.each([
    ["2020-12", undefined],
    ["draft-07", "http://json-schema.org/draft-07/schema#"],
  ])("checks the date-time and email formats under %s", (_draft, declared) => {
    const validate = compileSchema(
      {
        ...(declared === undefined ? {} : { $schema: declared }),
        type: "object",
        properties: { at: { type: "string", format: "date-time" }, contact: { type: "string", format: "email" } },
      },
      "test",
    );
    expect(validate({ at: "2026-03-01T12:00:00Z", contact: "ops@example.com" })).toEqual([]);
    expect(validate({ at: "yesterday", contact: "not an address" })).toEqual([
      { path: "/at", expected: 'a string in format "date-time"', received: '"yesterday"' },
      { path: "/contact", expected: 'a string in format "email"', received: '"not an address"' },
    ]);
  });

  it("reports every failing path with what was expected and what was received", () => {
    const validate = compileSchema(
      {
        type: "object",
        properties: {
          name: { type: "string" },
          size: { type: "integer", maximum: 10 },
          kind: { enum: ["a", "b"] },
          fixed: { const: 1 },
          tags: { type: "array", items: { type: "string" } },
        },
        required: ["name"],
        additionalProperties: false,
      },
      "test",
    );
    const violations = validate({ size: 11, kind: "c", fixed: 2, tags: ["x", 3], extra: { deep: true } });
    expect(violations).toEqual(
      expect.arrayContaining([
        { path: "/name", expected: "a required property", received: "missing" },
        { path: "/extra", expected: expect.stringContaining("no such property"), received: '{"deep":true}' },
        { path: "/size", expected: "a number <= 10", received: "11" },
        { path: "/kind", expected: 'one of "a", "b"', received: '"c"' },
        { path: "/fixed", expected: "exactly 1", received: "2" },
        { path: "/tags/1", expected: "type string", received: "number 3" },
      ]),
    );
    expect(violations).toHaveLength(6);
  });

  it("escapes property names holding `/` or `~` in the paths it reports, as JSON Pointer requires", () => {
    const validate = compileSchema(
      {
        type: "object",
        properties: { "a/b": { type: "string" } },
        required: ["a/b", "c~d"],
        additionalProperties: false,
      },
      "test",
    );
    expect(validate({ "x/y": 5, "a/b": 1 })).toEqual(
      expect.arrayContaining([
        { path: "/a~1b", expected: "type string", received: "number 1" },
        { path: "/c~0d", expected: "a required property", received: "missing" },
        { path: "/x~1y", expected: expect.stringContaining("no such property"), received: "5" },
      ]),
    );
  });

  it("describes a wrong root type and shortens long received values", () => {
    const validate = compileSchema({ type: "object" }, "test");
    expect(validate(null)).toEqual([{ path: "", expected: "type object", received: "null" }]);
    expect(validate([1])).toEqual([{ path: "", expected: "type object", received: "an array" }]);
    const long = compileSchema({ type: "string", maxLength: 3 }, "test")("y".repeat(500));
    expect(long[0]?.received.length).toBeLessThanOrEqual(80);
  });

  it("keeps every violation of a large value, up to 10,000, for formatViolations to count and group", () => {
    const validate = compileSchema({ type: "array", items: { type: "string" } }, "test");
    expect(validate(Array.from({ length: 100 }, (_, index) => index))).toHaveLength(100);
    expect(validate(Array.from({ length: 20_000 }, (_, index) => index))).toHaveLength(10_000);
  });

  it("words every keyword plainly: never ajv's bare 'must ...'", () => {
    const cases: [JsonSchema, unknown, string][] = [
      [{ type: "string", pattern: "^T-\\d+$" }, "X-1", "a string matching the pattern /^T-\\d+$/"],
      [{ type: "string", minLength: 2 }, "a", "a string of at least 2 characters"],
      [{ type: "string", maxLength: 1 }, "ab", "a string of at most 1 character"],
      [{ type: "number", minimum: 1 }, 0, "a number >= 1"],
      [{ type: "number", exclusiveMaximum: 1 }, 1, "a number < 1"],
      [{ type: "number", multipleOf: 5 }, 7, "a multiple of 5"],
      [{ type: "array", minItems: 2 }, [1], "an array of at least 2 items"],
      [{ type: "array", maxItems: 1 }, [1, 2], "an array of at most 1 item"],
      [{ type: "array", uniqueItems: true }, [1, 1], "no duplicate items (items 0 and 1 are equal)"],
      [{ type: "object", minProperties: 2 }, { a: 1 }, "an object with at least 2 properties"],
      [{ type: "object", maxProperties: 1 }, { a: 1, b: 2 }, "an object with at most 1 property"],
      [
        { type: "array", contains: { const: 1 } },
        [2],
        'an array with at least 1 item(s) matching its "contains" schema',
      ],
      [
        { anyOf: [{ type: "string" }, { type: "number" }] },
        true,
        "a value matching at least one of the allowed shapes (anyOf)",
      ],
      [
        { oneOf: [{ type: "number" }, { type: "integer" }] },
        1,
        "a value matching exactly one of the allowed shapes (oneOf), not several",
      ],
      [{ not: { type: "string" } }, "s", 'a value the schema excludes ("not")'],
      [
        { if: { type: "number" }, then: { minimum: 5 } },
        1,
        'a value matching the "then" schema that applies to it (if/then/else)',
      ],
      [false, 1, "nothing: the schema allows no value here"],
    ];
    for (const [schema, value, expected] of cases) {
      const violations = compileSchema(schema, "test")(value);
      expect(
        violations.map((violation) => violation.expected),
        JSON.stringify(schema),
      ).toContain(expected);
      for (const violation of violations) expect(violation.expected).not.toMatch(/^must /);
    }
    const dependent = compileSchema({ type: "object", dependentRequired: { to: ["from"] } }, "test")({ to: 1 });
    expect(dependent).toEqual([
      { path: "/from", expected: 'a required property (required when "to" is present)', received: "missing" },
    ]);
  });

  it("lets two tools compile one schema object that carries an $id", () => {
    const schema = { $id: "https://example.com/shared", type: "object" };
    expect(() => {
      compileSchema(schema, "first");
      compileSchema(schema, "second");
    }).not.toThrow();
  });

  it("compiles one schema once, by object or by equal JSON text, and a recursive schema still validates after", () => {
    const compile = vi.spyOn(Ajv2020.prototype, "compile");
    try {
      const schema = { type: "object", properties: { child: { $ref: "#" }, n: { type: "integer" } } };
      const first = compileSchema(schema, "first");
      const second = compileSchema(schema, "second");
      expect(compile).toHaveBeenCalledTimes(1);
      expect(second({ child: { child: { n: 1.5 } } })).toEqual([
        { path: "/child/child/n", expected: "type integer", received: "number 1.5" },
      ]);
      expect(first({ child: { n: 2 } })).toEqual([]);
      // Another object with the same JSON text shares the validator; another text compiles.
      expect(compileSchema(structuredClone(schema), "a different object")({ n: "x" })).toHaveLength(1);
      expect(compile).toHaveBeenCalledTimes(1);
      compileSchema({ ...schema, title: "another text" }, "another text");
      expect(compile).toHaveBeenCalledTimes(2);
    } finally {
      compile.mockRestore();
    }
  });

  it("throws SCHEMA_INVALID naming the label for a schema that does not compile", () => {
    for (const schema of [{ type: "nonsense" }, { $ref: "#/$defs/missing" }, { minimum: "ten" }]) {
      const thrown = configErrorOf(() => compileSchema(schema, 'Tool "x.y" inputSchema'));
      expect(thrown.code).toBe("SCHEMA_INVALID");
      expect(thrown.message).toContain('Tool "x.y" inputSchema');
    }
  });

  it("accepts boolean schemas", () => {
    expect(compileSchema(true, "test")({ anything: 1 })).toEqual([]);
    expect(compileSchema(false, "test")(1)).toHaveLength(1);
  });
});

describe("formatViolations", () => {
  it("renders one line per violation with path, expected and received, and names the root", () => {
    const text = formatViolations("Invalid input for a.b", [
      { path: "", expected: "type object", received: "null" },
      { path: "/x", expected: "type string", received: "number 1" },
    ]);
    expect(text).toBe(
      "Invalid input for a.b:\n- (root): expected type object, received null\n- /x: expected type string, received number 1",
    );
  });

  it("groups alike errors by path pattern, lists the distinct ones first, and counts what it left out", () => {
    const validate = compileSchema(
      {
        type: "object",
        properties: {
          total: { type: "number" },
          counts: {
            type: "object",
            additionalProperties: {
              type: "object",
              properties: {
                urgent: { type: "integer" },
                open: { type: "integer" },
                code: { type: "string", pattern: "^[A-Z]+$" },
              },
            },
          },
        },
        required: ["total", "counts"],
      },
      "test",
    );
    const counts = Object.fromEntries(
      Array.from({ length: 40 }, (_, index) => [`team-${index}`, { urgent: "3", open: "1", code: "abc" }]),
    );
    const violations = validate({ total: "12", counts });
    expect(violations).toHaveLength(121);
    const text = formatViolations("The output does not match", violations);
    expect(text).toBe(
      [
        "The output does not match (121 errors at 4 places, distinct ones first):",
        '- /total: expected type number, received string "12"',
        '- /counts/*/urgent ×40: expected type integer, received string "3" (first at /counts/team-0/urgent)',
        '- /counts/*/open ×40: expected type integer, received string "1" (first at /counts/team-0/open)',
        '- /counts/*/code ×40: expected a string matching the pattern /^[A-Z]+$/, received "abc" (first at /counts/team-0/code)',
      ].join("\n"),
    );
    expect(violationsToJson(violations)).toEqual([
      { path: "/total", expected: "type number", received: 'string "12"' },
      expect.objectContaining({ path: "/counts/*/urgent", count: 40, firstPath: "/counts/team-0/urgent" }),
      expect.objectContaining({ path: "/counts/*/open", count: 40 }),
      expect.objectContaining({ path: "/counts/*/code", count: 40 }),
    ]);
  });

  it("keeps two keys that fail alike apart (a record needs three to read as a map) and array indices grouped", () => {
    const text = formatViolations("Invalid", [
      { path: "/a/x", expected: "type string", received: "number 1" },
      { path: "/b/x", expected: "type string", received: "number 1" },
      { path: "/rows/0/id", expected: "type string", received: "number 1" },
      { path: "/rows/7/id", expected: "type string", received: "number 2" },
    ]);
    expect(text).toBe(
      [
        "Invalid (4 errors at 3 places, distinct ones first):",
        "- /a/x: expected type string, received number 1",
        "- /b/x: expected type string, received number 1",
        "- /rows/*/id ×2: expected type string, received number 1 (first at /rows/0/id)",
      ].join("\n"),
    );
  });

  it("lists at most 20 places and says how many errors at how many places it left out", () => {
    const violations = Array.from({ length: 30 }, (_, index) => ({
      path: `/field${index}`,
      expected: `exactly ${index}`,
      received: "number 1",
    }));
    const lines = formatViolations("Invalid", violations).split("\n");
    expect(lines[0]).toBe("Invalid (30 errors at 30 places, distinct ones first):");
    expect(lines).toHaveLength(22);
    expect(lines.at(-1)).toBe("- and 10 more errors at 10 more places");
  });

  it("reads many alike failing values of one object as a map (`/scores/* ×12`), a few as fixed properties", () => {
    const many = Array.from({ length: 12 }, (_, index) => ({
      path: `/scores/p${index}`,
      expected: "type number",
      received: "null",
    }));
    expect(formatViolations("Invalid", many)).toBe(
      "Invalid (12 errors at 1 place, distinct ones first):\n- /scores/* ×12: expected type number, received null (first at /scores/p0)",
    );
    const few = ["name", "email", "phone"].map((key) => ({
      path: `/${key}`,
      expected: "type string",
      received: "null",
    }));
    expect(formatViolations("Invalid", few).split("\n")).toHaveLength(4);
  });

  it("turns violations into plain JSON data", () => {
    expect(violationsToJson([{ path: "/x", expected: "e", received: "r" }])).toEqual([
      { path: "/x", expected: "e", received: "r" },
    ]);
  });
});
