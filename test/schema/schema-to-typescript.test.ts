// schemaToTypeScript against the named corpus: one reviewed `.d.ts` snapshot per schema, each
// compiled on its own with the real es2022 lib, plus the hazards (hostile text, depth, size).

import { readFileSync } from "node:fs";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import type { JsonSchema } from "../../src/contract.js";
import { MAX_SCHEMA_DEPTH, schemaToTypeScript, toTypeName } from "../../src/schema/schema-to-typescript.js";
import { toIdentifier } from "../../src/schema/to-identifier.js";
import { compileTypeScript, formatDiagnostics } from "../helpers/compile-typescript.js";
import { corpus } from "./corpus.js";

function renderText(schema: JsonSchema, rootName: string): string {
  return `${schemaToTypeScript(schema, { rootName }).declarations.join("\n\n")}\n`;
}

function snapshotPath(name: string): string {
  return `./__snapshots__/${name}.d.ts`;
}

describe("schemaToTypeScript corpus", () => {
  it("has at least 40 uniquely named schemas", () => {
    expect(corpus.length).toBeGreaterThanOrEqual(40);
    expect(new Set(corpus.map(({ name }) => name)).size).toBe(corpus.length);
  });

  for (const { name, schema } of corpus) {
    it(`renders ${name} as in its snapshot`, async () => {
      await expect(renderText(schema, toTypeName(name))).toMatchFileSnapshot(snapshotPath(name));
    });
  }

  // Each snapshot is checked in its own program, so names in different files never clash.
  for (const { name } of corpus) {
    it(`snapshot ${name} compiles under strict and under the project's stricter flags`, () => {
      const text = readFileSync(new URL(snapshotPath(name), import.meta.url), "utf8");
      expect(formatDiagnostics(compileTypeScript({ "/snapshot.ts": text }))).toBe("");
      const stricter = { exactOptionalPropertyTypes: true, noUncheckedIndexedAccess: true };
      expect(formatDiagnostics(compileTypeScript({ "/snapshot.ts": text }, stricter))).toBe("");
    });
  }
});

describe("schemaToTypeScript", () => {
  it("keeps a hostile description inside its comment: the text declares only the generated types", () => {
    const { schema } = corpus.find(({ name }) => name === "hostile-descriptions") ?? { schema: {} };
    const result = schemaToTypeScript(schema, { rootName: "Hostile" });
    const source = ts.createSourceFile("/hostile.ts", result.declarations.join("\n\n"), ts.ScriptTarget.ES2022);
    expect(source.statements).toHaveLength(result.declarations.length);
    expect(source.text).toContain("declare const pwned: number;"); // still there, but inside the comment
  });

  it("turns a 1000-level schema into a finite type that stops at the depth limit", () => {
    let schema: JsonSchema = { type: "string" };
    for (let level = 0; level < 1000; level += 1) schema = { type: "array", items: schema };
    const { type } = schemaToTypeScript(schema, { rootName: "Deep" });
    expect(type).toContain(`nested deeper than ${MAX_SCHEMA_DEPTH} levels`);
    expect(type.split("[]").length - 1).toBeLessThanOrEqual(MAX_SCHEMA_DEPTH + 1);
  });

  it("does not recurse forever on a JavaScript object cycle that bypasses $ref", () => {
    const schema: { type: string; properties: Record<string, unknown> } = { type: "object", properties: {} };
    schema.properties.self = schema;
    expect(schemaToTypeScript(schema, { rootName: "Cyclic" }).type).toContain("nested deeper than");
  });

  it("stops rendering a schema whose shared subtrees would expand exponentially", () => {
    let schema: JsonSchema = { type: "string" };
    for (let level = 0; level < 40; level += 1) schema = { anyOf: [schema, { type: "array", items: schema }] };
    const started = Date.now();
    const { type } = schemaToTypeScript(schema, { rootName: "Exploding" });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(type).toContain("schema too large to render");
  });

  it("renders 10,000 properties, and the result compiles", () => {
    const properties = Object.fromEntries(
      Array.from({ length: 10_000 }, (_, index) => [`p${index}`, { type: "integer" }]),
    );
    const result = schemaToTypeScript({ type: "object", properties }, { rootName: "Wide" });
    expect(result.type.split("\n")).toHaveLength(10_002);
    expect(formatDiagnostics(compileTypeScript({ "/wide.ts": result.declarations.join("\n") }))).toBe("");
  });

  it("never throws for values that are not schemas", () => {
    const values = [null, 0, "string", [], [{ type: "string" }], { type: null }, { properties: null }, { items: 5 }];
    for (const value of values) {
      expect(() => schemaToTypeScript(value as JsonSchema, { rootName: "Odd" })).not.toThrow();
    }
  });

  it("declares each $ref target once, under a name derived from the root and def names", () => {
    const result = schemaToTypeScript(
      {
        $defs: { "line-item": { type: "object", properties: { sku: { type: "string" } } } },
        type: "array",
        items: { $ref: "#/$defs/line-item" },
        prefixItems: [{ $ref: "#/$defs/line-item" }],
      },
      { rootName: "Order" },
    );
    expect(result.declarations).toHaveLength(2);
    expect(result.declarations[1]).toMatch(/^interface OrderLineItem \{/);
  });

  it("adds a numeric suffix instead of reusing a name another schema already declared", () => {
    const takenNames = new Set(["Order", "OrderAddress"]);
    const result = schemaToTypeScript(
      { $defs: { address: { type: "string" } }, $ref: "#/$defs/address" },
      { rootName: "Order", takenNames },
    );
    expect(result.name).toBe("Order2");
    expect(result.declarations[1]).toBe("type Order2Address = string;");
    expect([...takenNames]).toEqual(["Order", "OrderAddress", "Order2", "Order2Address"]);
  });

  it("uses the given indentation", () => {
    const result = schemaToTypeScript(
      { type: "object", properties: { a: { type: "string" } } },
      { rootName: "A", indent: "\t" },
    );
    expect(result.type).toBe("{\n\ta?: string;\n}");
  });
});

describe("toTypeName", () => {
  it("joins words in PascalCase and yields a valid identifier", () => {
    expect(toTypeName("orders", "search_all")).toBe("OrdersSearchAll");
    expect(toTypeName("get-weather")).toBe("GetWeather");
    expect(toTypeName("3d", "model")).toBe("_3dModel");
    expect(toTypeName("日本")).toBe("");
  });

  it("names exactly as splitting on non-alphanumerics does, for any characters", () => {
    // The definition the one-pass version must keep: names are compared across catalogs and texts.
    const bySplitting = (...parts: string[]) =>
      toIdentifier(
        parts
          .flatMap((part) => part.split(/[^A-Za-z0-9]+/))
          .filter((word) => word !== "")
          .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
          .join(""),
      );
    const alphabet = [
      "a",
      "z",
      "A",
      "Z",
      "0",
      "9",
      "_",
      "-",
      ".",
      " ",
      "$",
      "é",
      "ß",
      "日",
      "\u{1F600}",
      "\u0000",
      "`",
    ];
    let seed = 7;
    const next = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return seed;
    };
    for (let round = 0; round < 5_000; round++) {
      const parts = Array.from({ length: 1 + (next() % 3) }, () =>
        Array.from({ length: next() % 9 }, () => alphabet[next() % alphabet.length]).join(""),
      );
      expect(toTypeName(...parts), JSON.stringify(parts)).toBe(bySplitting(...parts));
    }
    for (const word of ["constructor", "__proto__", "then", "delete", "class"]) {
      expect(toTypeName(word)).toBe(bySplitting(word));
    }
  });
});
