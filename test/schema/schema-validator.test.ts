import { Ajv2020 } from "ajv/dist/2020.js";
import { describe, expect, it, vi } from "vitest";
import { SwitchyardError } from "../../src/errors.js";
import { compileSchema, formatViolations, violationsToJson } from "../../src/schema/schema-validator.js";

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
    expect(validate({ pair: ["a", -1] })).toEqual([{ path: "/pair/1", expected: "must be >= 0", received: "-1" }]);
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
        { path: "/size", expected: "must be <= 10", received: "11" },
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

  it("caps the number of violations it reports", () => {
    const validate = compileSchema({ type: "array", items: { type: "string" } }, "test");
    expect(validate(Array.from({ length: 100 }, (_, index) => index))).toHaveLength(20);
  });

  it("lets two tools compile one schema object that carries an $id", () => {
    const schema = { $id: "https://example.com/shared", type: "object" };
    expect(() => {
      compileSchema(schema, "first");
      compileSchema(schema, "second");
    }).not.toThrow();
  });

  it("compiles one schema object once, and a recursive schema still validates after the cache lets go", () => {
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
      compileSchema({ ...schema }, "a different object");
      expect(compile).toHaveBeenCalledTimes(2);
    } finally {
      compile.mockRestore();
    }
  });

  it("throws SCHEMA_INVALID naming the label for a schema that does not compile", () => {
    for (const schema of [{ type: "nonsense" }, { $ref: "#/$defs/missing" }, { minimum: "ten" }]) {
      let thrown: unknown;
      try {
        compileSchema(schema, 'Tool "x.y" inputSchema');
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(SwitchyardError);
      expect((thrown as SwitchyardError).code).toBe("SCHEMA_INVALID");
      expect((thrown as SwitchyardError).message).toContain('Tool "x.y" inputSchema');
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

  it("turns violations into plain JSON data", () => {
    expect(violationsToJson([{ path: "/x", expected: "e", received: "r" }])).toEqual([
      { path: "/x", expected: "e", received: "r" },
    ]);
  });
});
