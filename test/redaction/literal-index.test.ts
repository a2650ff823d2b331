import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type IndexedText, LiteralIndex } from "../../src/redaction/literal-index.js";

/** The hits `forEachHit` must report, found the slow way: every position, longest text first. */
function naiveHits(texts: readonly IndexedText<string>[], text: string, jsonText = false): [number, string][] {
  const sorted = [...texts].sort((a, b) => b.text.length - a.text.length);
  const hits: [number, string][] = [];
  for (let at = 0; at < text.length; at++) {
    const before = at === 0 ? "" : text[at - 1]!;
    const escaped = jsonText && (/\\[bfnrt]$/.test(text.slice(0, at)) || /\\u[0-9a-f]{4}$/.test(text.slice(0, at)));
    const wordStart = !/^[A-Za-z]$/.test(before) || escaped;
    const entry = sorted.find(
      (candidate) => (wordStart || !candidate.wordStart) && text.startsWith(candidate.text, at),
    );
    if (entry !== undefined) hits.push([at, entry.value]);
  }
  return hits;
}

function hitsOf(index: LiteralIndex<string>, text: string, jsonText = false): [number, string][] {
  const hits: [number, string][] = [];
  index.forEachHit(text, jsonText, (at, entry) => {
    hits.push([at, entry.value]);
    return true;
  });
  return hits;
}

const entry = (text: string, wordStart = /^[a-z]/.test(text)): IndexedText<string> => ({
  text,
  wordStart,
  value: text,
});

describe("LiteralIndex", () => {
  const texts = ["://", "password", "passwd", "Password", "ghp_", "hf_", "eyJ", "abc", "abcd", "é€x"].map((text) =>
    entry(text),
  );
  const index = new LiteralIndex(texts);

  it("reports every position where a text occurs, the longest one there, overlapping ones too", () => {
    expect(hitsOf(index, "x https://a://b abcdz abc")).toEqual([
      [7, "://"],
      [11, "://"],
      [16, "abcd"],
      [22, "abc"],
    ]);
  });

  it("counts a text that starts with a lowercase letter at the start of a word only", () => {
    expect(hitsOf(index, "password dbpassword db_password 9password Password xPassword")).toEqual([
      [0, "password"],
      [23, "password"],
      [33, "password"],
      [42, "Password"],
      [52, "Password"],
    ]);
  });

  it("in JSON text, also after an escape's last letter", () => {
    const json = JSON.stringify("a\nghp_x\tpassword\u001bhf_yxeyJ").slice(1, -1);
    expect(hitsOf(index, json, true).map(([, text]) => text)).toEqual(["ghp_", "password", "hf_"]);
    expect(hitsOf(index, json, false)).toEqual([]);
  });

  it("compares every code unit, not only the low bytes its table is keyed by", () => {
    // "é€x" shares its first two low bytes with "\u01e9\u21acx"; only the real one is reported.
    expect(hitsOf(index, "\u01e9\u21acx é€x")).toEqual([[4, "é€x"]]);
  });

  it("scans a text longer than the buffers it keeps between calls, then a short one again", () => {
    const long = `${"x ".repeat(2_600_000)}ghp_`;
    expect(hitsOf(index, long)).toEqual([[long.length - 4, "ghp_"]]);
    expect(hitsOf(index, "a hf_")).toEqual([[2, "hf_"]]);
  });

  it("stops when the visitor says so", () => {
    let calls = 0;
    index.forEachHit("abc abc abc", false, () => ++calls < 2);
    expect(calls).toBe(2);
  });

  it("finds what a naive search finds, on texts made of its texts' pieces", () => {
    const pieces = ["pass", "word", "Pass", "wd", "://", ":", "/", "gh", "p_", "h", "f_", "ey", "J", "a", "b", "cd"];
    const noise = [" ", "x", "_", "9", "\\", "n", "u00e9", "\\n", "\\u0001", "é", "€", "😀", "\u01e9"];
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...pieces, ...noise), { maxLength: 30 }), fc.boolean(), (parts, json) => {
        const text = parts.join("");
        expect(hitsOf(index, text, json)).toEqual(naiveHits(texts, text, json));
      }),
      { numRuns: 2_000 },
    );
  });

  it("refuses a text shorter than three code units", () => {
    expect(() => new LiteralIndex([entry("ab")])).toThrow(/shorter than 3/);
  });
});
