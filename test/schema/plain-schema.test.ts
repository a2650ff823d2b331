import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import type { JsonSchema } from "../../src/contract.js";
import { SwitchyardError } from "../../src/errors.js";
import { defineTool } from "../../src/registry/define-tool.js";
import { ToolRegistry } from "../../src/registry/tool-registry.js";
import { isPlainSchema } from "../../src/schema/plain-schema.js";
import { schemaText } from "../../src/schema/schema-text.js";
import { compileSchema, prepareSchema, schemaCheckCount } from "../../src/schema/schema-validator.js";
import { saasTools } from "../../bench/search/catalog/saas-tools.js";
import { corpus } from "./corpus.js";

const require = createRequire(import.meta.url);
const { Ajv2020 } = require("ajv/dist/2020.js");
const { Ajv } = require("ajv");
const addFormats = require("ajv-formats").default;

// ajv as the validator module configures it, one per draft, to confirm each verdict independently.
const OPTIONS = { allErrors: true, strict: false, validateFormats: true, logger: false };
const ajv2020 = addFormats(new Ajv2020(OPTIONS));
const ajv07 = addFormats(new Ajv(OPTIONS));

function ajvFor(schema: Record<string, unknown>) {
  return typeof schema["$schema"] === "string" && schema["$schema"].includes("draft-07") ? ajv07 : ajv2020;
}

function ajvAccepts(schema: Record<string, unknown>): boolean {
  const { $id: _id, ...copy } = schema;
  try {
    const ajv = ajvFor(copy);
    const accepted = ajv.validateSchema(copy) === true && typeof ajv.compile(copy) === "function";
    ajv.removeSchema(copy);
    return accepted;
  } catch {
    return false;
  }
}

const mcpTools = JSON.parse(
  readFileSync(new URL("../../bench/search/catalog/mcp-tools.json", import.meta.url), "utf8"),
) as { inputSchema: Record<string, unknown> }[];

// Each keyword the fast check knows, with a value ajv's check or compile refuses.
const REFUSED: Record<string, unknown>[] = [
  { type: "nonsense" },
  { type: [] },
  { type: ["string", "string"] },
  { properties: { a: { type: 3 } } },
  { properties: [] },
  { required: "a" },
  { required: ["a", "a"] },
  { required: [1] },
  { enum: [] },
  { enum: "a" },
  { examples: "a" },
  { items: [{ type: "string" }] },
  { additionalProperties: "no" },
  { anyOf: [] },
  { oneOf: {} },
  { allOf: [{ type: "x" }] },
  { not: 1 },
  { pattern: "[unclosed" },
  { patternProperties: { "(": {} } },
  { minimum: "ten" },
  { multipleOf: 0 },
  { minLength: -1 },
  { maxItems: 1.5 },
  { uniqueItems: "yes" },
  { description: 3 },
  { format: 1 },
  { $schema: "http://json-schema.org/draft-04/schema#" },
  { $defs: { a: { type: "x" } } },
];

describe("isPlainSchema", () => {
  it("vouches only for schemas ajv both checks and compiles, over the corpus and real MCP servers' schemas", () => {
    const schemas = [
      ...corpus.map((entry) => entry.schema),
      ...mcpTools.map((tool) => tool.inputSchema),
      ...saasTools.map((tool) => tool.inputSchema),
      ...REFUSED,
    ].filter((schema): schema is Record<string, unknown> => typeof schema === "object");
    let vouched = 0;
    for (const schema of schemas) {
      if (!isPlainSchema(schema)) continue;
      vouched += 1;
      expect(ajvAccepts(schema), JSON.stringify(schema).slice(0, 200)).toBe(true);
    }
    // Most real schemas are plain: the shortcut is the common path, not a curiosity.
    expect(vouched).toBeGreaterThan(0.8 * (mcpTools.length + saasTools.length));
    expect(saasTools.every((tool) => isPlainSchema(tool.inputSchema))).toBe(true);
  });

  it("refuses each known keyword with a value ajv refuses, so ajv's check reports it with its own text", () => {
    for (const schema of REFUSED) {
      expect(isPlainSchema(schema), JSON.stringify(schema)).toBe(false);
      const thrown = (() => {
        try {
          prepareSchema(structuredClone(schema) as JsonSchema, "refused");
        } catch (error) {
          return error;
        }
        return undefined;
      })();
      expect(thrown, JSON.stringify(schema)).toBeInstanceOf(SwitchyardError);
      expect((thrown as SwitchyardError).code).toBe("SCHEMA_INVALID");
    }
  });

  it("refuses references, nested $id, unknown keywords, class instances, cycles and nesting past 32 deep", () => {
    const cyclic: Record<string, unknown> = { type: "object", properties: {} };
    (cyclic["properties"] as Record<string, unknown>)["self"] = cyclic;
    let deep: Record<string, unknown> = { type: "string" };
    for (let depth = 0; depth < 40; depth++) deep = { type: "object", properties: { a: deep } };
    // Sharing one object 2^40 ways would take forever to walk; the node budget stops it.
    let shared: Record<string, unknown> = { type: "string" };
    for (let depth = 0; depth < 30; depth++) shared = { anyOf: [shared, shared] };
    for (const schema of [
      { $ref: "#/$defs/a", $defs: { a: {} } },
      { properties: { a: { $id: "a" } } },
      { nullable: true },
      { if: { type: "string" }, then: {} },
      { properties: { a: new Date() } },
      // ajv takes NaN for a number; the shortcut leaves such a schema to ajv.
      { maximum: Number.NaN },
      cyclic,
      deep,
      shared,
    ]) {
      expect(isPlainSchema(schema)).toBe(false);
    }
    expect(isPlainSchema({ $id: "https://example.com/root", $schema: "http://json-schema.org/draft-07/schema#" })).toBe(
      true,
    );
  });

  it("keeps a __proto__ property name and never walks into the prototype", () => {
    const schema = JSON.parse('{"type":"object","properties":{"__proto__":{"type":"nonsense"}}}');
    expect(isPlainSchema(schema)).toBe(false);
    expect(isPlainSchema(JSON.parse('{"type":"object","properties":{"__proto__":{"type":"string"}}}'))).toBe(true);
  });
});

describe("plain schemas compiled without ajv's meta-schema check", () => {
  // Values of every JSON type, nested and not, with formats and bounds a schema may test.
  const PROBES: unknown[] = [
    null,
    true,
    0,
    -1.5,
    2 ** 40,
    "",
    "x".repeat(300),
    "not-an-email",
    "a@example.com",
    "2026-12-02T07:00:00Z",
    [],
    [1, "a", null],
    {},
    { id: "a", count: 3, tags: ["x"], nested: { a: 1 } },
    { name: 1, path: null, query: "q", limit: -1, format: "json", url: "https://example.com" },
  ];

  it("accepts and refuses every probe as ajv with the check does, over the corpus and real MCP servers' schemas", () => {
    const formats = ["email", "date-time", "uri", "uuid", "ipv4"].map((format) => ({ type: "string", format }));
    const schemas = [
      ...corpus.map((entry) => entry.schema),
      ...mcpTools.map((tool) => tool.inputSchema),
      ...saasTools.map((tool) => tool.inputSchema),
      ...formats,
      { type: "object", properties: { url: { type: "string", format: "uri" } }, required: ["url"] },
    ].filter((schema): schema is Record<string, unknown> => typeof schema === "object" && isPlainSchema(schema));
    expect(schemas.length).toBeGreaterThan(100);
    for (const schema of schemas) {
      const { $id: _id, ...copy } = schema;
      const checked = ajvFor(copy).compile(copy);
      ajvFor(copy).removeSchema(copy);
      const plain = compileSchema(structuredClone(schema) as JsonSchema, "plain");
      for (const probe of PROBES) {
        const label = `${JSON.stringify(schema).slice(0, 120)} on ${JSON.stringify(probe).slice(0, 60)}`;
        expect(plain(probe).length === 0, label).toBe(checked(probe) === true);
      }
    }
  });
});

describe("schemas checked once per shape", () => {
  it("runs ajv's check once for 1,000 tools sharing one shape ajv must check, and none for plain ones", () => {
    const shape = () => ({
      type: "object",
      properties: { id: { $ref: "#/$defs/id" }, note: { type: "string", description: "a note" } },
      $defs: { id: { type: "string", pattern: "^[a-z]+-[0-9]+$" } },
    });
    const before = schemaCheckCount();
    const tool = (index: number, inputSchema: JsonSchema) =>
      defineTool({ name: `svc${index % 10}.op${index}`, description: "d", inputSchema, execute: () => null });
    new ToolRegistry(Array.from({ length: 1_000 }, (_, index) => tool(index, shape())));
    expect(schemaCheckCount()).toBe(before + 1);
    new ToolRegistry(saasTools.map((template, index) => tool(index, structuredClone(template.inputSchema))));
    expect(schemaCheckCount()).toBe(before + 1);
  });

  it("does not let a schema borrow another's verdict through toJSON", () => {
    const valid = { type: "object", properties: { a: { $ref: "#/$defs/a" } }, $defs: { a: { type: "string" } } };
    prepareSchema(structuredClone(valid), "valid");
    const hostile = { $ref: "#/$defs/missing", toJSON: () => valid };
    expect(schemaText(hostile)).toBeUndefined();
    expect(() => prepareSchema(hostile as unknown as JsonSchema, "hostile")).toThrow(/SCHEMA_INVALID|does not compile/);
    expect(schemaText({ minimum: Number.NaN })).toBeUndefined();
    expect(schemaText({ a: undefined })).toBeUndefined();
    expect(schemaText({ a: [1, "b", null, { c: true }] })).toBe('{"a":[1,"b",null,{"c":true}]}');
  });

  it("gives two objects with one JSON text one compiled validator", () => {
    const make = () => ({ type: "object", properties: { n: { type: "integer", title: "compiled once" } } });
    const first = compileSchema(make(), "first");
    const second = compileSchema(make(), "second");
    expect(first({ n: 1.5 })).toEqual(second({ n: 1.5 }));
    expect(second({ n: "x" })).toEqual([{ path: "/n", expected: "type integer", received: 'string "x"' }]);
  });
});
