// findWrappedBase64: base64 lines joined back into one run, and positions mapped back.

import { describe, expect, it } from "vitest";
import { findWrappedBase64, originalIndex } from "../../src/redaction/wrapped-base64.js";

describe("findWrappedBase64", () => {
  it("joins lines wrapped at 76 columns and maps every joined character back to its place", () => {
    const encoded = Buffer.from("x".repeat(200)).toString("base64");
    const wrapped = encoded.match(/.{1,76}/g)!.join("\n");
    const text = `$ base64 file\n${wrapped}\n$ done`;
    const [block] = findWrappedBase64(text, "\n");
    expect(block?.joined).toBe(encoded);
    for (let index = 0; index < encoded.length; index++)
      expect(text[originalIndex(block!, index)]).toBe(encoded[index]);
  });

  it("reads breaks written as JSON escapes, with \\r too", () => {
    const json = JSON.stringify(`${"QUJD".repeat(19)}\r\n${"REVG".repeat(5)}`);
    expect(findWrappedBase64(json, "\\n").map((block) => block.joined)).toEqual([
      `${"QUJD".repeat(19)}${"REVG".repeat(5)}`,
    ]);
  });

  it("finds nothing in prose, short lines or a single long line, and stays linear on many breaks", () => {
    expect(findWrappedBase64("hello\nworld\nshort\nlines", "\n")).toEqual([]);
    expect(findWrappedBase64(`${"A".repeat(500)}\n`, "\n")).toEqual([]);
    const many = "abcdefghijklmnop\n".repeat(100_000);
    const started = performance.now();
    expect(findWrappedBase64(many, "\n")).toHaveLength(1);
    expect(performance.now() - started).toBeLessThan(1_000);
  });
});
