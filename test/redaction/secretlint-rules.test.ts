import { rules as presetRules } from "@secretlint/secretlint-rule-preset-recommend";
import { describe, expect, it } from "vitest";
import type { Finding } from "../../src/redaction/keyword-rule.js";
import { KeywordScanner } from "../../src/redaction/keyword-scanner.js";
import {
  SECRETLINT_RULE_SPECS,
  SKIPPED_SECRETLINT_RULES,
  secretlintKeywordRules,
  secretlintRuleIds,
} from "../../src/redaction/secretlint-rules.js";
import { createCanaries } from "./canaries.js";

const canaries = createCanaries();

/** Runs one preset rule the way secretlint does, over a whole text, and returns the reported values. */
function reportedByPreset(ruleId: string, text: string, options: Record<string, unknown>, filePath?: string): string[] {
  const creator = (
    presetRules as unknown as { meta: { id: string }; create: (context: unknown, options: unknown) => any }[]
  ).find((rule) => rule.meta.id === `@secretlint/secretlint-rule-${ruleId}`)!;
  const values: string[] = [];
  const handlers = creator.create(
    {
      report: (descriptor: { message: { value?: string; messageId: string } }) => {
        if (descriptor.message.messageId !== "AWSAccountID" && descriptor.message.value !== undefined)
          values.push(descriptor.message.value);
      },
      ignore: () => {},
      createTranslator: () => (messageId: string, props: Record<string, unknown>) => ({
        messageId,
        value: Object.entries(props ?? {}).find(
          ([name, value]) => name !== "typeName" && typeof value === "string",
        )?.[1],
      }),
      sharedOptions: {},
    },
    options,
  );
  handlers.file({ content: text, contentType: "text", ...(filePath === undefined ? {} : { filePath }) });
  return values;
}

describe("the secretlint preset behind the keyword scanner", () => {
  it("runs every rule of the installed preset but the two it leaves out on purpose", () => {
    const specified = new Set(SECRETLINT_RULE_SPECS.map((spec) => spec.id));
    for (const id of secretlintRuleIds()) {
      expect(specified.has(id) || SKIPPED_SECRETLINT_RULES.includes(id), `preset rule ${id} has no spec`).toBe(true);
    }
    // And every spec names a rule the preset still has: a removed rule would silently stop redacting.
    for (const spec of SECRETLINT_RULE_SPECS) expect(secretlintRuleIds()).toContain(spec.id);
    expect(secretlintKeywordRules()).toHaveLength(SECRETLINT_RULE_SPECS.length);
  });

  /** Whether a keyword of `spec` occurs close enough before or around `value` for its window to hold it. */
  function ledTo(spec: (typeof SECRETLINT_RULE_SPECS)[number], text: string, value: string): boolean {
    const at = text.indexOf(value);
    return spec.keywords.some((keyword) => {
      for (let k = text.indexOf(keyword); k !== -1; k = text.indexOf(keyword, k + 1)) {
        if (k - spec.before <= at && at + value.length <= k + spec.after) return true;
      }
      return false;
    });
  }

  it("finds, on windows around keywords, what each rule finds on the whole text", () => {
    // Canaries between kilobytes of other text, so windows must land right, not start at 0.
    const filler = "lorem ipsum dolor sit amet, https://example.com/a?b=c ".repeat(40);
    const text = canaries.map((canary) => `${filler}\n${canary.text}\n`).join("") + filler;
    const rules = secretlintKeywordRules();
    let total = 0;
    SECRETLINT_RULE_SPECS.forEach((spec, index) => {
      const found: Finding[] = [];
      new KeywordScanner([rules[index]!]).scan(text, found);
      const windowed = found.map((finding) => text.slice(finding.start, finding.end)).sort();
      // A rule run under two specs (npm: package.json and .npmrc) answers for each spec's keywords only.
      const whole = reportedByPreset(spec.id, text, spec.options ?? {}, spec.filePath).filter((value) =>
        ledTo(spec, text, value),
      );
      total += whole.length;
      if (spec.narrowToPassword === true) expect(windowed, spec.id).toHaveLength(whole.length);
      else expect(windowed, spec.id).toEqual(whole.sort());
    });
    expect(total).toBeGreaterThanOrEqual(canaries.length - 10);
  });

  it("has keywords that lead to every value the preset reports in the canaries", () => {
    SECRETLINT_RULE_SPECS.forEach((spec) => {
      for (const canary of canaries) {
        const reported = reportedByPreset(spec.id, canary.text, spec.options ?? {}, spec.filePath);
        // The .npmrc spec runs the npm rule's token check too; the package.json spec answers for those.
        if (spec.filePath === ".npmrc") continue;
        for (const value of reported) expect(ledTo(spec, canary.text, value), `${spec.id}: ${canary.kind}`).toBe(true);
      }
    });
  });
});
