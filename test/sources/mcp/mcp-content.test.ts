import { describe, expect, it } from "vitest";
import {
  errorTextOfToolResult,
  MAX_INLINE_BINARY_BYTES,
  valueOfToolResult,
} from "../../../src/sources/mcp/mcp-content.js";

const base64Of = (bytes: number): string => Buffer.alloc(bytes, 7).toString("base64");

describe("valueOfToolResult", () => {
  it("prefers structuredContent over the content blocks", () => {
    expect(valueOfToolResult({ content: [{ type: "text", text: "ignored" }], structuredContent: { sum: 3 } })).toEqual({
      sum: 3,
    });
  });

  it("parses a single text block holding a JSON object or array", () => {
    expect(valueOfToolResult({ content: [{ type: "text", text: ' {"a": [1, 2]} ' }] })).toEqual({ a: [1, 2] });
    expect(valueOfToolResult({ content: [{ type: "text", text: "[1,2]" }] })).toEqual([1, 2]);
  });

  it("keeps prose, bare JSON scalars and broken JSON as text blocks", () => {
    expect(valueOfToolResult({ content: [{ type: "text", text: "42" }] })).toEqual([{ type: "text", text: "42" }]);
    expect(valueOfToolResult({ content: [{ type: "text", text: "{not json" }] })).toEqual([
      { type: "text", text: "{not json" },
    ]);
  });

  it("keeps the base64 data of a small image and drops it from a large one, always giving the size", () => {
    const small = valueOfToolResult({ content: [{ type: "image", mimeType: "image/png", data: base64Of(100) }] });
    expect(small).toEqual([{ type: "image", mimeType: "image/png", bytes: 100, data: base64Of(100) }]);
    const large = valueOfToolResult({
      content: [{ type: "audio", mimeType: "audio/wav", data: base64Of(MAX_INLINE_BINARY_BYTES + 1) }],
    });
    expect(large).toEqual([{ type: "audio", mimeType: "audio/wav", bytes: MAX_INLINE_BINARY_BYTES + 1 }]);
  });

  it("maps embedded resources and resource links, and keeps only the type of unknown blocks", () => {
    const value = valueOfToolResult({
      content: [
        { type: "text", text: "two blocks" },
        { type: "resource", resource: { uri: "file:///a.txt", mimeType: "text/plain", text: "hello" } },
        { type: "resource_link", uri: "file:///b.bin", name: "b.bin" },
        { type: "hologram", payload: "x" },
      ],
    });
    expect(value).toEqual([
      { type: "text", text: "two blocks" },
      { type: "resource", uri: "file:///a.txt", mimeType: "text/plain", text: "hello" },
      { type: "resource_link", uri: "file:///b.bin", name: "b.bin" },
      { type: "hologram" },
    ]);
  });
});

describe("errorTextOfToolResult", () => {
  it("joins the text blocks, and says so when there is no text", () => {
    expect(
      errorTextOfToolResult({
        isError: true,
        content: [
          { type: "text", text: "a" },
          { type: "text", text: "b" },
        ],
      }),
    ).toBe("a\nb");
    expect(errorTextOfToolResult({ isError: true, content: [] })).toMatch(/without a message/);
  });
});
