// Recursive tool schemas: a `$ref` cycle that never descends into the value overflowed the stack
// at the first validation (a RangeError out of the host), so it is refused at registration; a
// cycle through properties or items works, and a hostile value nested deeper than the limit is
// refused before ajv recurses. The declaration generator renders both without looping.

import { describe, expect, it } from "vitest";
import type { JsonSchema } from "../../src/contract.js";
import { SwitchyardError } from "../../src/errors.js";
import { MAX_VALIDATED_DEPTH } from "../../src/json-limits.js";
import { defineTool } from "../../src/registry/define-tool.js";
import { generateDeclarations } from "../../src/schema/generate-declarations.js";
import { analyzeRecursion } from "../../src/schema/schema-recursion.js";
import { compileSchema, prepareSchema } from "../../src/schema/schema-validator.js";
import { Switchyard } from "../../src/switchyard.js";

/** Schemas whose every validation would recurse on the same value forever. */
const UNGUARDED: Record<string, JsonSchema> = {
  "a bare $ref to the root": { $ref: "#" },
  "a $ref to the root under allOf": { type: "object", allOf: [{ $ref: "#" }] },
  "two $defs that refer to each other": {
    $defs: { a: { $ref: "#/$defs/b" }, b: { anyOf: [{ type: "string" }, { $ref: "#/$defs/a" }] } },
    $ref: "#/$defs/a",
  },
  "a cycle through an anchor and not": { $defs: { n: { $anchor: "node", not: { $ref: "#node" } } }, $ref: "#node" },
  "a draft-07 cycle through definitions and oneOf": {
    $schema: "http://json-schema.org/draft-07/schema#",
    definitions: { a: { oneOf: [{ $ref: "#/definitions/a" }, { type: "null" }] } },
    properties: { x: { $ref: "#/definitions/a" } },
  },
};

/** A tree: the recursion passes through properties and items, so each turn goes one level into the value. */
const TREE: JsonSchema = {
  type: "object",
  properties: { label: { type: "string" }, children: { type: "array", items: { $ref: "#/$defs/node" } } },
  $defs: {
    node: {
      type: "object",
      properties: { label: { type: "string" }, children: { type: "array", items: { $ref: "#/$defs/node" } } },
      required: ["label"],
    },
  },
};

function nested(depth: number): unknown {
  let value: unknown = { label: "leaf" };
  for (let level = 0; level < depth; level++) value = { label: `l${level}`, children: [value] };
  return value;
}

describe("recursive schemas at registration", () => {
  for (const [name, schema] of Object.entries(UNGUARDED)) {
    it(`refuses ${name} with SCHEMA_INVALID, naming the cycle, and never throws RangeError`, () => {
      const register = () =>
        new Switchyard({
          tools: [defineTool({ name: "loop.tool", description: "d", inputSchema: schema, execute: () => 1 })],
        });
      let thrown: unknown;
      try {
        register();
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(SwitchyardError);
      expect((thrown as SwitchyardError).code).toBe("SCHEMA_INVALID");
      expect((thrown as Error).message).toMatch(/refers to itself without descending into the value \(.*\$ref/);
      // Both entry points: the lazy one registration uses and the eager one.
      expect(() => prepareSchema(schema, "t")).toThrow(/without descending/);
      expect(() => compileSchema(schema, "t")).toThrow(/without descending/);
    });
  }

  it("refuses a $ref cycle a getter grows after registration vouched for the schema, at its first validation", () => {
    let reads = 0;
    // Plain while registration reads it (its size walk, then isPlainSchema); a cycle from then on.
    const schema = {
      type: "object",
      get allOf() {
        reads += 1;
        return reads <= 2 ? [{ type: "object" }] : [{ $ref: "#" }];
      },
    } as unknown as JsonSchema;
    const validate = prepareSchema(schema, "t");
    expect(reads).toBe(2);
    expect(() => validate({})).toThrow(/refers to itself without descending/);
  });

  it("accepts recursion through properties and items (mutual, too), and finds no cycle in it", () => {
    const mutual: JsonSchema = {
      $defs: {
        a: { type: "object", properties: { b: { $ref: "#/$defs/b" } } },
        b: { type: "array", items: { $ref: "#/$defs/a" } },
      },
      $ref: "#/$defs/a",
    };
    expect(analyzeRecursion(TREE)).toEqual({ refers: true, unguardedCycle: undefined });
    expect(analyzeRecursion(mutual)).toEqual({ refers: true, unguardedCycle: undefined });
    expect(compileSchema(mutual, "t")({ b: [{ b: [{}] }] })).toEqual([]);
    expect(compileSchema(mutual, "t")({ b: [{ b: [1] }] })[0]?.path).toBe("/b/0/b/0");
  });
});

describe("recursive schemas at validation", () => {
  const validate = compileSchema(TREE, "tree");

  it(`validates a tree nested up to ${MAX_VALIDATED_DEPTH} levels and finds errors deep in it`, () => {
    expect(validate(nested(MAX_VALIDATED_DEPTH / 2 - 2))).toEqual([]);
    const broken = nested(50) as { children: { children: unknown[] }[] };
    (broken.children[0] as { children: unknown[] }).children[0] = { label: 5 };
    expect(validate(broken)[0]?.path).toBe("/children/0/children/0/label");
  });

  it("refuses a hostile value nested 100,000 levels as a violation, before ajv recurses", () => {
    const violations = validate(nested(100_000));
    expect(violations).toEqual([
      expect.objectContaining({ path: "", received: `a value nested deeper than ${MAX_VALIDATED_DEPTH} levels` }),
    ]);
  });

  it("ends on a cyclic object given as a value (an in-process tool's result), counting it too deep", () => {
    const cyclic: { label: string; children: unknown[] } = { label: "a", children: [] };
    cyclic.children.push(cyclic);
    expect(validate(cyclic)[0]?.received).toMatch(/deeper than/);
  });

  it("answers a direct call with a 100,000-level argument INPUT_INVALID, and the tool never runs", async () => {
    let ran = false;
    const yard = new Switchyard({
      tools: [
        defineTool({
          name: "tree.count",
          description: "Counts nodes.",
          inputSchema: TREE,
          execute: () => {
            ran = true;
            return 1;
          },
        }),
      ],
    });
    const outcome = await yard.callTool("tree.count", nested(100_000) as Record<string, unknown>);
    expect(outcome.status).toBe("invalid");
    expect(JSON.stringify(outcome)).toMatch(/INPUT_INVALID.*nested deeper than 256 levels/);
    expect(ran).toBe(false);
    expect((await yard.callTool("tree.count", nested(3) as Record<string, unknown>)).status).toBe("ok");
    await yard.close();
  });
});

describe("declarations of recursive schemas", () => {
  it("renders self, mutual and wide recursion as named types, quickly and small", () => {
    // 40 $defs that each refer to the next two: expanded inline this would be 2^40 types.
    const defs = Object.fromEntries(
      Array.from({ length: 40 }, (_, index) => [
        `d${index}`,
        {
          type: "object",
          properties: {
            left: { $ref: `#/$defs/d${(index + 1) % 40}` },
            right: { $ref: `#/$defs/d${(index + 2) % 40}` },
          },
        },
      ]),
    );
    const schemas: Record<string, JsonSchema> = {
      self: { type: "object", properties: { me: { $ref: "#" } } },
      wide: { $defs: defs, $ref: "#/$defs/d0" },
      bare: { $ref: "#" },
    };
    const tools = Object.entries(schemas).map(([name, inputSchema]) => ({
      name: `${name}.tool`,
      namespaceIdentifier: name,
      localIdentifier: "tool",
      description: "d",
      inputSchema,
    }));
    const startedAt = performance.now();
    const text = generateDeclarations(tools);
    expect(performance.now() - startedAt).toBeLessThan(1_000);
    expect(text.length).toBeLessThan(20_000);
    expect(text).toMatch(/me\?: SelfToolInput;/);
    expect(text).toMatch(/refers to itself/);
  });
});
