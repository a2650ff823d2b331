// No false positives on ordinary tool results: over a corpus of code, prose (npm's docs and
// package READMEs), JSON API answers and logs, more than 1 MB in all, the redactor with every
// credential rule on replaces nothing. A redaction that is right to make (a real credential in
// an installed file) would be listed here with its reason; today there are none.

import { describe, expect, it } from "vitest";
import { buildRedactionCorpus } from "../../bench/redaction-corpus.js";
import { Redactor } from "../../src/redaction/redactor.js";

/** Redactions in the corpus that are right, as `<document>: <kind>` with the reason. None so far. */
const JUSTIFIED: Readonly<Record<string, string>> = {};

describe("redaction of ordinary tool results", () => {
  const corpus = buildRedactionCorpus();

  it("covers more than 1 MB of code, prose, JSON API answers and logs", () => {
    const bytes: Record<string, number> = {};
    for (const document of corpus) bytes[document.category] = (bytes[document.category] ?? 0) + document.text.length;
    expect(Object.keys(bytes).sort()).toEqual(["code", "json", "logs", "prose"]);
    for (const [category, count] of Object.entries(bytes)) expect(count, category).toBeGreaterThan(250_000);
    expect(Object.values(bytes).reduce((sum, count) => sum + count, 0)).toBeGreaterThan(1024 * 1024);
  });

  it("replaces nothing but the redactions listed as justified", () => {
    const redactor = new Redactor();
    const found: string[] = [];
    for (const document of corpus) {
      const { text, kinds } = redactor.redactText(document.text);
      kinds.forEach((kind, index) => {
        const marker = `[REDACTED:${kind}]`;
        let at = -1;
        for (let skip = 0; skip <= index; skip++) at = text.indexOf(marker, at + 1);
        found.push(`${document.name}: ${kind} in ${JSON.stringify(text.slice(Math.max(0, at - 60), at + 60))}`);
      });
    }
    const unexplained = found.filter((entry) => !Object.keys(JUSTIFIED).some((key) => entry.startsWith(key)));
    expect(unexplained).toEqual([]);
  });

  it("replaces nothing in the JSON documents taken as values, keys included", () => {
    const redactor = new Redactor();
    for (const document of corpus.filter((candidate) => candidate.category === "json")) {
      expect(redactor.redactJson(JSON.stringify(JSON.parse(document.text))), document.name).toBeUndefined();
    }
  });
});
