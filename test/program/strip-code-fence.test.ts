import { describe, expect, it } from "vitest";
import { compileProgram, stripCodeFence } from "../../src/program/compile-program.js";

describe("stripCodeFence", () => {
  it.each([
    ["```ts\nreturn 1;\n```", "return 1;"],
    ["  ```typescript\nconst a = 1;\nreturn a;\n```\n\n", "const a = 1;\nreturn a;"],
    ["~~~\nreturn 2;\n~~~", "return 2;"],
    ["```\nreturn 3;```", "return 3;"],
    ["````ts\nconst s = '```';\n````", "const s = '```';"],
    ["```ts\n```", ""],
  ])("removes the fence around %j", (input, expected) => {
    expect(stripCodeFence(input)).toBe(expected);
  });

  it.each([
    "return 1;",
    "```ts\nreturn 1;",
    "return 1;\n```",
    "```ts\nreturn 1;\n````",
    "````ts\nreturn 1;\n```",
    "```",
  ])("leaves %j alone: it is not one fenced block", (input) => {
    expect(stripCodeFence(input)).toBe(input);
  });

  it("handles hostile whitespace after an opening fence in linear time (a backtracking pattern took seconds on 40 KB)", () => {
    const hostile = `\`\`\`\n${" ".repeat(4_000_000)}x`;
    expect(stripCodeFence(hostile)).toBe(hostile);
  });
});

describe("compileProgram: size before anything else", () => {
  it("refuses a 4 MB source as SOURCE_TOO_LARGE before stripping or compiling it", async () => {
    const result = await compileProgram(`\`\`\`\n${" \t".repeat(2_000_000)}`, { maxSourceBytes: 100 * 1024 });
    expect(result).toMatchObject({ ok: false, error: { code: "SOURCE_TOO_LARGE" } });
  });

  it("still accepts a fenced program whose body is at the limit", async () => {
    const body = `return "${"a".repeat(1000)}";`;
    const result = await compileProgram(`\`\`\`ts\n${body}\n\`\`\``, { maxSourceBytes: Buffer.byteLength(body) });
    expect(result.ok).toBe(true);
  });
});
