import { describe, expect, it } from "vitest";
import type { Diagnostic } from "../../src/contract.js";
import { NO_CONTRACT } from "../../src/program/contract-declarations.js";
import { type CheckContent, TypeCheckCache } from "../../src/program/type-check-cache.js";

const BASE: CheckContent = {
  source: "return 1;",
  declarations: "declare const tools: {};",
  form: "body",
  lint: true,
  contract: NO_CONTRACT,
};

const diagnostic = (line: number): Diagnostic => ({ line, column: 1, code: 2322, message: "m", severity: "error" });

describe("TypeCheckCache", () => {
  it("gives one key for equal content and another when any part differs", () => {
    const cache = new TypeCheckCache();
    const key = cache.keyOf(BASE);
    expect(cache.keyOf({ ...BASE, declarations: `${BASE.declarations}` })).toBe(key);
    const variants: CheckContent[] = [
      { ...BASE, source: "return 2;" },
      { ...BASE, declarations: "declare const tools: { a: {} };" },
      { ...BASE, form: "expression" },
      { ...BASE, lint: false },
      { ...BASE, contract: { declarations: "declare const input: any;" } },
    ];
    const keys = variants.map((variant) => cache.keyOf(variant));
    expect(new Set([key, ...keys]).size).toBe(variants.length + 1);
  });

  it("keeps parts from running together: moving text between contract and source changes the key", () => {
    const cache = new TypeCheckCache();
    const a = cache.keyOf({ ...BASE, contract: { declarations: "x" }, source: "y" });
    const b = cache.keyOf({ ...BASE, contract: { declarations: "" }, source: "x\0y" });
    const c = cache.keyOf({ ...BASE, contract: { declarations: "x\0" }, source: "y" });
    expect(new Set([a, b, c]).size).toBe(3);
  });

  it("returns a copy: changing what it gave changes nothing stored", () => {
    const cache = new TypeCheckCache();
    cache.set("k", [diagnostic(1)]);
    const first = cache.get("k")!;
    first.push(diagnostic(2));
    expect(() => {
      (first[0] as { line: number }).line = 9;
    }).toThrow(TypeError);
    expect(cache.get("k")).toEqual([diagnostic(1)]);
  });

  it("evicts the least recently used entry beyond maxEntries; a read counts as a use", () => {
    const cache = new TypeCheckCache(2);
    cache.set("a", [diagnostic(1)]);
    cache.set("b", [diagnostic(2)]);
    expect(cache.get("a")).toBeDefined();
    cache.set("c", [diagnostic(3)]);
    expect(cache.size).toBe(2);
    expect(cache.get("b")).toBeUndefined();
    expect(cache.get("a")).toEqual([diagnostic(1)]);
    expect(cache.get("c")).toEqual([diagnostic(3)]);
  });

  it("keeps nothing with maxEntries 0", () => {
    const cache = new TypeCheckCache(0);
    cache.set("a", []);
    expect(cache.get("a")).toBeUndefined();
    expect(cache.size).toBe(0);
  });
});
