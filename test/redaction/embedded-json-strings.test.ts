// redactEmbeddedJsonStrings: secrets whose context a JSON string escapes (`PASSWORD=\"...\"`).

import { describe, expect, it } from "vitest";
import { redactEmbeddedJsonStrings } from "../../src/redaction/embedded-json-strings.js";
import { Redactor } from "../../src/redaction/redactor.js";
import { createCanaries } from "./canaries.js";

const redactor = new Redactor();
const redact = (text: string) => redactEmbeddedJsonStrings(redactor, redactor.redactText(text));

describe("redactEmbeddedJsonStrings", () => {
  it("redacts every canary inside JSON text printed by console.log, whose quotes are escaped", () => {
    const canaries = createCanaries(7);
    const printed = `result: ${JSON.stringify({ lines: canaries.map((canary) => canary.text) })} (done)`;
    const redacted = redact(printed);
    for (const canary of canaries) {
      if (canary.kind === "private-key") continue;
      expect(redacted.text, canary.kind).not.toContain(canary.secret);
    }
    expect(redacted.text.startsWith('result: {"lines":["GITHUB_TOKEN=[REDACTED:github-token]"')).toBe(true);
    expect(redacted.text.endsWith('"]} (done)')).toBe(true);
    // Still JSON where it was.
    expect(() => JSON.parse(redacted.text.slice(8, -7))).not.toThrow();
  });

  it("returns the same result for text without escapes, and leaves a literal that does not parse alone", () => {
    const plain = redactor.redactText("no escapes here");
    expect(redactEmbeddedJsonStrings(redactor, plain)).toBe(plain);
    const broken = redactor.redactText('"PASSWORD=\\"Tr0ub4dor&3x\\u12"');
    expect(redactEmbeddedJsonStrings(redactor, broken).text).toContain("\\u12");
  });

  it("reads a line of escaped quotes with no closing quote in linear time (a program's logs and error pass here)", () => {
    // A regex retried from every quote read the rest of the line each time: 2.3 s for this line.
    const hostile = `"${'\\"'.repeat(32_000)}`;
    const started = performance.now();
    const result = redactEmbeddedJsonStrings(redactor, { text: hostile, kinds: [] });
    expect(performance.now() - started).toBeLessThan(200);
    expect(result.text).toBe(hostile);
    // A whole literal after the unterminated run on the next line is still read.
    const next = redactEmbeddedJsonStrings(redactor, {
      text: `${hostile}\n"PASSWORD=\\"Tr0ub4dor&3xQ9Zk\\""`,
      kinds: [],
    });
    expect(next.kinds).toHaveLength(1);
    expect(next.text).not.toContain("Tr0ub4dor");
  });
});
