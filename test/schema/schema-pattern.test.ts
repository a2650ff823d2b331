// Attack: a tool's schema (from a source nobody here controls) with a pattern that backtracks
// exponentially, and a program that sends the string that triggers it. On JavaScript's engine
// `^(a+)+$` held the event loop 3.9 s for 28 characters; every pattern now runs in linear time
// or is refused at registration, and the patterns real schemas use keep their meaning.

import { afterEach, describe, expect, it } from "vitest";
import type { JsonSchema } from "../../src/contract.js";
import { defineTool } from "../../src/registry/define-tool.js";
import { patternCompileCount } from "../../src/schema/schema-pattern.js";
import { compileSchema, prepareSchema } from "../../src/schema/schema-validator.js";
import { Switchyard } from "../../src/switchyard.js";
import { configErrorOf } from "../helpers/config-error.js";
import { watchEventLoop } from "../helpers/event-loop-gaps.js";

const sessions: Switchyard[] = [];
afterEach(async () => {
  await Promise.all(sessions.splice(0).map((session) => session.close()));
});

function stringWith(pattern: string): JsonSchema {
  return { type: "object", properties: { text: { type: "string", pattern } }, required: ["text"] };
}

describe("schema patterns", () => {
  it("validates a call against an exponential pattern in linear time, in a real run: the host's loop never stalls", async () => {
    const yard = new Switchyard({
      tools: [
        defineTool({
          name: "forms.submit",
          description: "Submits a form.",
          inputSchema: stringWith("^(a+)+$"),
          execute: () => "submitted",
        }),
      ],
      typeCheck: "off",
    });
    sessions.push(yard);
    const loop = watchEventLoop();
    try {
      // 28 characters held the loop 3.9 s on the backtracking engine; 100,000 are linear work here.
      const run = await yard.run(
        `const answers = [];
         for (const text of ["a".repeat(28) + "!", "a".repeat(100000) + "!", "aaaa"]) {
           try { answers.push(await tools.forms.submit({ text })); } catch (error) { answers.push(isToolCallError(error) ? error.code : "other"); }
         }
         return answers;`,
        { limits: { wallTimeMs: 5_000 } },
      );
      expect(run.error).toBeUndefined();
      expect(run.output).toEqual(["INPUT_INVALID", "INPUT_INVALID", "submitted"]);
    } finally {
      loop.stop();
    }
    expect(loop.longestGapMs).toBeLessThan(500);
  });

  it.each([
    ["an anchored class", "^[A-Z]{3}-\\d+$", ["ABC-12"], ["abc-12", "ABC-"]],
    ["a named group", "^(?<year>\\d{4})-(?<month>\\d{2})$", ["2026-12"], ["26-12"]],
    ["a \\u escape", "^caf\\u00e9$", ["café"], ["cafe"]],
    ["an astral code point range", "^[\\u{1F600}-\\u{1F64F}]+$", ["😀😃"], ["a"]],
    ["a Unicode property", "^\\p{Lu}\\p{Ll}+$", ["Élan"], ["élan"]],
    ["an unanchored pattern", "needle", ["haystack with a needle in it"], ["haystack"]],
    ["a lookahead (JavaScript's engine: no nested repetition)", "^(?=.*\\d)[a-z\\d]{8,}$", ["abcdefg1"], ["abcdefgh"]],
    ["a backreference (JavaScript's engine)", "^(\\w+)-\\1$", ["ab-ab"], ["ab-ba"]],
  ])("keeps the meaning of %s", (_label, pattern, matching, failing) => {
    const validate = compileSchema({ type: "string", pattern }, "test");
    for (const text of matching) expect(validate(text), text).toEqual([]);
    for (const text of failing) expect(validate(text).length, text).toBeGreaterThan(0);
  });

  it("tells apart every pattern of one schema (ajv keys them by their text)", () => {
    const validate = compileSchema(
      {
        type: "object",
        properties: { code: { type: "string", pattern: "^[A-Z]{3}$" }, digits: { type: "string", pattern: "^\\d+$" } },
      },
      "test",
    );
    expect(validate({ code: "ABC", digits: "123" })).toEqual([]);
    expect(validate({ code: "123", digits: "ABC" }).map((violation) => violation.path)).toEqual(["/code", "/digits"]);
  });

  it("runs patternProperties on the same engine", () => {
    const validate = compileSchema(
      { type: "object", patternProperties: { "^(x+)+$": { type: "number" } }, additionalProperties: false },
      "test",
    );
    expect(validate({ xxx: 1 })).toEqual([]);
    const started = performance.now();
    expect(validate({ [`${"x".repeat(40)}!`]: 1 }).length).toBeGreaterThan(0);
    expect(performance.now() - started).toBeLessThan(1_000);
  });

  it.each([
    ["a lookahead over a repeated group", "^(?=(a+)+$)"],
    ["a backreference after an alternation repeated", "^(a|aa)*\\1$"],
  ])("refuses at registration, saying why and what to do, %s", (_label, pattern) => {
    const error = configErrorOf(() => prepareSchema(stringWith(pattern), 'Tool "forms.submit" inputSchema'));
    expect(error?.code).toBe("SCHEMA_INVALID");
    expect(error?.message).toContain('Tool "forms.submit" inputSchema');
    expect(error?.message).toContain("can take exponential time on hostile input");
    expect(error?.message).toContain("rewrite it without");
  });

  it("asks RE2 at registration only about patterns that repeat a repeating group; the rest compile on first call", () => {
    const before = patternCompileCount();
    const yard = new Switchyard({
      tools: Array.from({ length: 1_000 }, (_, index) =>
        defineTool({
          name: `codes.check${index}`,
          description: "Checks a code.",
          inputSchema: stringWith(`^[A-Z]{3}-${index}\\d*$`),
          execute: () => "ok",
        }),
      ),
      warmUp: false,
    });
    sessions.push(yard);
    expect(patternCompileCount()).toBe(before);
    // Nested repetition: RE2 decides at registration whether it runs the pattern (it does).
    prepareSchema(stringWith("^(b+)+$"), "label");
    expect(patternCompileCount()).toBe(before + 1);
  });

  it("refuses a pattern that is not a regular expression, as before", () => {
    expect(configErrorOf(() => prepareSchema(stringWith("^(unclosed"), "label"))?.code).toBe("SCHEMA_INVALID");
  });
});
