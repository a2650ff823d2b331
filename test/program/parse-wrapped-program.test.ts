import { describe, expect, it } from "vitest";
import { findToolReferences } from "../../src/program/find-tool-references.js";
import { lintProgram } from "../../src/program/lint-program.js";
import { parseWrappedProgram } from "../../src/program/parse-wrapped-program.js";

describe("parseWrappedProgram", () => {
  it("hands the same tree to passes that read the same program, and a new one for another source or form", () => {
    const source = "const a = await tools.orders.get({ id: 'a' });\nreturn a;";
    const tree = parseWrappedProgram(source, "body");
    expect(parseWrappedProgram(source, "body")).toBe(tree);
    expect(parseWrappedProgram(source, "expression")).not.toBe(tree);
    expect(parseWrappedProgram(`${source}\n// next`, "body")).not.toBe(tree);
  });

  it("leaves the tree as it was: references and lint of one program agree whichever reads it first", () => {
    const source =
      "for (const id of ['a', 'b']) {\n  await tools.orders.get({ id });\n}\ntools.orders.get({ id: 'c' });";
    const references = findToolReferences(source, "body", () => false);
    const warnings = lintProgram(source, "body");
    expect(findToolReferences(source, "body", () => false)).toEqual(references);
    expect(lintProgram(source, "body")).toEqual(warnings);
    expect(references.members).toEqual([["orders", "get"]]);
    expect(warnings.map((warning) => warning.code)).toEqual(["serial-await-in-loop", "floating-tool-call"]);
  });
});
