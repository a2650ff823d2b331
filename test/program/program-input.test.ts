import { describe, expect, it } from "vitest";
import { encodeProgramInput } from "../../src/program/program-input.js";

const LIMITS = { maxInputBytes: 1024 * 1024, maxInputDepth: 64 };

function nested(depth: number): unknown {
  let value: unknown = "leaf";
  for (let level = 0; level < depth; level++) value = { down: value };
  return value;
}

describe("encodeProgramInput", () => {
  it("gives the JSON text JSON.stringify would give for plain data", () => {
    const value = { ids: [1, 2, 3], name: "ünïcode ✓", nested: { ok: true, none: null }, at: new Date(0) };
    expect(encodeProgramInput(value, LIMITS)).toEqual({ ok: true, json: JSON.stringify(value) });
  });

  it("accepts a top-level scalar, null and an empty string", () => {
    for (const value of [0, "", null, false, "text"]) {
      expect(encodeProgramInput(value, LIMITS)).toEqual({ ok: true, json: JSON.stringify(value) });
    }
  });

  it("drops __proto__ keys at any depth, so the parsed input can never carry one", () => {
    const hostile = JSON.parse('{"__proto__": {"polluted": 1}, "a": {"__proto__": {"x": 2}, "b": 3}}') as unknown;
    const encoded = encodeProgramInput(hostile, LIMITS);
    expect(encoded).toEqual({ ok: true, json: '{"a":{"b":3}}' });
    expect(({} as Record<string, unknown>)["polluted"]).toBeUndefined();
  });

  it("refuses a value over maxInputBytes with INPUT_TOO_LARGE, counted in UTF-8 bytes", () => {
    const encoded = encodeProgramInput("é".repeat(600), { ...LIMITS, maxInputBytes: 1_000 });
    expect(encoded.ok).toBe(false);
    if (!encoded.ok) {
      expect(encoded.error.code).toBe("INPUT_TOO_LARGE");
      expect(encoded.error.message).toMatch(/1202 bytes, over the 1000-byte limit/);
    }
  });

  it("stops serializing a huge value soon after the limit instead of building its whole text", () => {
    let read = 0;
    const rows = Array.from({ length: 100_000 }, (_, index) => ({
      get text() {
        read += 1;
        return `row ${index} ${"x".repeat(100)}`;
      },
    }));
    const encoded = encodeProgramInput(rows, LIMITS);
    expect(encoded.ok).toBe(false);
    if (!encoded.ok) expect(encoded.error.code).toBe("INPUT_TOO_LARGE");
    // About 1 MB of 110-byte rows is under 10 000 of them.
    expect(read).toBeLessThan(10_000);
  });

  it("accepts maxInputDepth levels of nesting and refuses one more with INPUT_TOO_LARGE", () => {
    expect(encodeProgramInput(nested(64), LIMITS).ok).toBe(true);
    const deeper = encodeProgramInput(nested(65), LIMITS);
    expect(deeper.ok).toBe(false);
    if (!deeper.ok) expect(deeper.error).toMatchObject({ code: "INPUT_TOO_LARGE" });
    expect(JSON.stringify(deeper)).toContain("nested deeper than 64 levels");
  });

  it("refuses nesting far past any limit without throwing (no stack overflow escapes)", () => {
    const deep = encodeProgramInput(nested(200_000), LIMITS);
    expect(deep.ok).toBe(false);
    if (!deep.ok) expect(deep.error.code).toBe("INPUT_TOO_LARGE");
  });

  it.each([
    ["a function", { run: () => 1 }, /function at "run"/],
    ["a symbol", { tag: Symbol("x") }, /symbol at "tag"/],
    ["a BigInt", { count: 10n }, /BigInt at "count"/],
    ["a top-level function", () => 1, /function at ""/],
    // An --input file's 1e309 parses as Infinity, which became null without a word.
    ["Infinity", JSON.parse('{"limit": 1e309}'), /Infinity at "limit", which JSON cannot carry/],
    ["NaN", [1, Number.NaN], /NaN at "1"/],
  ])("refuses %s with INPUT_INVALID rather than leaving it out", (_name, value, message) => {
    const encoded = encodeProgramInput(value, LIMITS);
    expect(encoded.ok).toBe(false);
    if (!encoded.ok) {
      expect(encoded.error.code).toBe("INPUT_INVALID");
      expect(encoded.error.message).toMatch(message);
    }
  });

  it("refuses a cycle and a getter that throws with INPUT_INVALID, never throwing itself", () => {
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic["self"] = cyclic;
    const trap = {
      get secret(): never {
        throw new Error("no access");
      },
    };
    const cycle = encodeProgramInput(cyclic, LIMITS);
    const getter = encodeProgramInput(trap, LIMITS);
    expect(cycle).toMatchObject({ ok: false, error: { code: "INPUT_INVALID" } });
    expect(JSON.stringify(cycle)).toContain("cycle");
    expect(getter).toMatchObject({ ok: false, error: { code: "INPUT_INVALID" } });
    expect(JSON.stringify(getter)).toContain("no access");
  });
});
