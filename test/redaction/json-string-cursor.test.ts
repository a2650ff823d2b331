import { describe, expect, it } from "vitest";
import { JsonStringCursor } from "../../src/redaction/json-string-cursor.js";

describe("JsonStringCursor", () => {
  const value = { 'k"ey': ['a\\"b\ncd\u0001ef\ud800gh', "plain"], tail: "x" };
  const json = JSON.stringify(value);
  const decoded = value['k"ey'][0]!;

  it("gives the decoded string around a position and the position's index in it", () => {
    const cursor = new JsonStringCursor(json);
    const c = cursor.locate(json.indexOf("cd"))!;
    expect(c).toEqual({ text: decoded, at: decoded.indexOf("cd"), first: true, isKey: false });
    const e = cursor.locate(json.indexOf("ef"))!;
    expect(e).toEqual({ text: decoded, at: decoded.indexOf("ef"), first: false, isKey: false });
    expect(cursor.locate(json.indexOf("gh"))!.at).toBe(decoded.indexOf("gh"));
    expect(cursor.locate(json.indexOf("lain"))).toEqual({ text: "plain", at: 1, first: true, isKey: false });
  });

  it("reads keys, whose quotes are escaped inside, as strings too", () => {
    expect(new JsonStringCursor(json).locate(json.indexOf("ey"))).toEqual({
      text: 'k"ey',
      at: 2,
      first: true,
      isKey: true,
    });
  });

  it("refuses a position inside an escape sequence, and goes on after it", () => {
    const cursor = new JsonStringCursor(json);
    expect(cursor.locate(json.indexOf("\\n") + 1)).toBeUndefined();
    expect(cursor.locate(json.indexOf("\\u0001") + 3)).toBeUndefined();
    const e = cursor.locate(json.indexOf("ef"))!;
    expect(e).toEqual({ text: decoded, at: decoded.indexOf("ef"), first: true, isKey: false });
  });
});
