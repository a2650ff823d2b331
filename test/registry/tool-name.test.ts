import { describe, expect, it } from "vitest";
import { parseToolName } from "../../src/registry/tool-name.js";
import { toIdentifier } from "../../src/schema/to-identifier.js";
import { configErrorCode } from "../helpers/config-error.js";

describe("parseToolName", () => {
  it("splits at the first dot into namespace and local name", () => {
    expect(parseToolName("orders.search")).toEqual({
      namespace: "orders",
      localName: "search",
      namespaceIdentifier: "orders",
      localIdentifier: "search",
      identifierPath: "orders.search",
    });
    expect(parseToolName("fs.read.file")).toMatchObject({
      namespace: "fs",
      localName: "read.file",
      identifierPath: "fs.read_file",
    });
  });

  it("keeps a bare name without a namespace", () => {
    expect(parseToolName("echo")).toEqual({
      namespace: undefined,
      localName: "echo",
      namespaceIdentifier: undefined,
      localIdentifier: "echo",
      identifierPath: "echo",
    });
  });

  it("maps MCP-style names to identifiers: dashes, leading digits and reserved words", () => {
    expect(parseToolName("get-weather").identifierPath).toBe("get_weather");
    expect(parseToolName("3d.render").identifierPath).toBe("_3d.render");
    expect(parseToolName("flow.then").identifierPath).toBe("flow.then_");
    expect(parseToolName("delete").identifierPath).toBe("delete_");
    expect(toIdentifier("__proto__")).toBe("__proto___");
  });

  it.each([
    ["empty", ""],
    ["spaces", "get weather"],
    ["a double dot", "a..b"],
    ["a trailing dot", "orders."],
    ["a leading dot", ".orders"],
    ["200 characters", "a".repeat(200)],
    ["a bare $search", "$search"],
    ["a bare $describe", "$describe"],
    // The runtime answers tools.$budget() and tools.$timer itself: such a tool would be declared, never called.
    ["a bare $budget", "$budget"],
    ["the namespace $budget", "$budget.report"],
    ["a bare $timer", "$timer"],
    ["a slash", "fs/read"],
    ["a non-string", 42 as unknown as string],
  ])("rejects a name with %s as TOOL_NAME_INVALID", (_label, name) => {
    expect(configErrorCode(() => parseToolName(name))).toBe("TOOL_NAME_INVALID");
  });

  it("says which names the runtime keeps, and what to do", () => {
    expect(() => parseToolName("$budget.report")).toThrow(
      'Tool name "$budget.report" is reserved by the runtime (tools.$search, tools.$describe, tools.$budget, tools.$timer are its own); rename the tool or its namespace.',
    );
  });

  it("accepts a name of exactly 128 characters and `$search` inside a namespace", () => {
    expect(configErrorCode(() => parseToolName("a".repeat(128)))).toBeUndefined();
    expect(configErrorCode(() => parseToolName("x.$search"))).toBeUndefined();
  });
});
