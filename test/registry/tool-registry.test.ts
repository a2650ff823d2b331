import { describe, expect, it, vi } from "vitest";
import type { JsonSchema } from "../../src/contract.js";
import { SwitchyardError } from "../../src/errors.js";
import { defineTool, type ToolDefinition } from "../../src/registry/define-tool.js";
import { ToolRegistry } from "../../src/registry/tool-registry.js";
import { configErrorCode } from "../helpers/config-error.js";

function tool(
  name: string,
  extra: { inputSchema?: JsonSchema; source?: string; inputExamples?: unknown[] } = {},
): ToolDefinition {
  return defineTool({
    name,
    description: `${name} for tests.`,
    inputSchema: extra.inputSchema ?? { type: "object" },
    ...(extra.source === undefined ? {} : { source: extra.source }),
    ...(extra.inputExamples === undefined ? {} : { inputExamples: extra.inputExamples as never }),
    execute: () => null,
  });
}

const names = (registry: ToolRegistry) => registry.snapshot().tools.map((registered) => registered.definition.name);

describe("ToolRegistry registration", () => {
  it("keeps tools in registration order across batches", () => {
    const registry = new ToolRegistry([tool("b.second"), tool("a.first")]);
    registry.addAll([tool("c.third"), tool("a.zero")]);
    expect(names(registry)).toEqual(["b.second", "a.first", "c.third", "a.zero"]);
  });

  it.each([
    ["empty", ""],
    ["spaces", "get weather"],
    ["a double dot", "a..b"],
    ["200 characters", "x".repeat(200)],
    ["a bare $search", "$search"],
  ])("throws TOOL_NAME_INVALID for a name with %s and registers nothing of the batch", (_label, name) => {
    const registry = new ToolRegistry([tool("keep.me")]);
    const version = registry.version;
    // A plain spec (not passed through defineTool) must be checked by the registry too.
    const spec = {
      name,
      description: "",
      inputSchema: { type: "object" },
      execute: () => null,
    } as unknown as ToolDefinition;
    expect(configErrorCode(() => registry.addAll([tool("fresh.one"), spec]))).toBe("TOOL_NAME_INVALID");
    expect(names(registry)).toEqual(["keep.me"]);
    expect(registry.version).toBe(version);
  });

  it("throws TOOL_NAME_DUPLICATE for a name registered twice, within a batch or across batches", () => {
    expect(configErrorCode(() => new ToolRegistry([tool("a.x"), tool("a.x")]))).toBe("TOOL_NAME_DUPLICATE");
    const registry = new ToolRegistry([tool("a.x")]);
    expect(configErrorCode(() => registry.addAll([tool("a.y"), tool("a.x")]))).toBe("TOOL_NAME_DUPLICATE");
    expect(names(registry)).toEqual(["a.x"]);
  });

  it("throws TOOL_NAME_COLLISION for two names that map to one identifier", () => {
    const registry = new ToolRegistry([tool("get-weather")]);
    expect(configErrorCode(() => registry.addAll([tool("get_weather")]))).toBe("TOOL_NAME_COLLISION");
    expect(configErrorCode(() => new ToolRegistry([tool("my-ns.read"), tool("my_ns.read")]))).toBe(
      "TOOL_NAME_COLLISION",
    );
    expect(names(registry)).toEqual(["get-weather"]);
  });

  it("throws TOOL_NAME_COLLISION for a bare tool named like a namespace, in either order", () => {
    expect(configErrorCode(() => new ToolRegistry([tool("orders"), tool("orders.search")]))).toBe(
      "TOOL_NAME_COLLISION",
    );
    expect(configErrorCode(() => new ToolRegistry([tool("orders.search"), tool("orders")]))).toBe(
      "TOOL_NAME_COLLISION",
    );
  });

  it("throws SCHEMA_INVALID for a schema ajv cannot compile, naming the tool", () => {
    const registry = new ToolRegistry([tool("keep.me")]);
    let thrown: unknown;
    try {
      registry.addAll([tool("bad.schema", { inputSchema: { type: "nonsense" } })]);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(SwitchyardError);
    expect((thrown as SwitchyardError).code).toBe("SCHEMA_INVALID");
    expect((thrown as SwitchyardError).message).toContain("bad.schema");
    expect(names(registry)).toEqual(["keep.me"]);
  });

  it("throws EXAMPLE_INVALID for an inputExample that does not validate, naming its index and path", () => {
    const inputSchema = { type: "object", properties: { id: { type: "string" } }, required: ["id"] };
    let thrown: unknown;
    try {
      new ToolRegistry([tool("a.x", { inputSchema, inputExamples: [{ id: "ok" }, { id: 7 }] })]);
    } catch (error) {
      thrown = error;
    }
    expect((thrown as SwitchyardError).code).toBe("EXAMPLE_INVALID");
    expect((thrown as SwitchyardError).message).toContain("inputExamples[1]");
    expect((thrown as SwitchyardError).message).toContain("/id");
    expect(
      configErrorCode(() => new ToolRegistry([tool("a.y", { inputSchema, inputExamples: [{ id: "fine" }] })])),
    ).toBeUndefined();
  });

  it("finds a tool by name and by identifier path, and nothing else", () => {
    const snapshot = new ToolRegistry([tool("get-weather"), tool("fs.read.file")]).snapshot();
    expect(snapshot.get("get-weather")?.definition.name).toBe("get-weather");
    expect(snapshot.get("get_weather")?.definition.name).toBe("get-weather");
    expect(snapshot.get("fs.read_file")?.definition.name).toBe("fs.read.file");
    expect(snapshot.get("toString")).toBeUndefined();
    expect(snapshot.get("__proto__")).toBeUndefined();
  });
});

describe("ToolRegistry changes", () => {
  it("replaces every tool of a source in one step and bumps the version once", () => {
    const registry = new ToolRegistry([
      tool("mcp.a", { source: "mcp:s" }),
      tool("local.x"),
      tool("mcp.b", { source: "mcp:s" }),
    ]);
    const listener = vi.fn();
    registry.onChange(listener);
    const before = registry.version;
    registry.replaceSource("mcp:s", [tool("mcp.c", { source: "mcp:s" })]);
    expect(registry.version).toBe(before + 1);
    expect(names(registry)).toEqual(["local.x", "mcp.c"]);
    expect(listener).toHaveBeenCalledTimes(1);
    expect(listener).toHaveBeenCalledWith(registry.snapshot());
  });

  it("leaves the catalog and version unchanged when a replacement fails", () => {
    const registry = new ToolRegistry([tool("mcp.a", { source: "mcp:s" }), tool("local.x")]);
    const before = registry.snapshot();
    expect(
      configErrorCode(() =>
        registry.replaceSource("mcp:s", [tool("mcp.c", { source: "mcp:s" }), tool("local.x", { source: "mcp:s" })]),
      ),
    ).toBe("TOOL_NAME_DUPLICATE");
    expect(registry.snapshot()).toBe(before);
    expect(registry.version).toBe(before.version);
  });

  it("keeps a snapshot taken before a change exactly as it was", () => {
    const registry = new ToolRegistry([tool("mcp.a", { source: "mcp:s" })]);
    const before = registry.snapshot();
    registry.replaceSource("mcp:s", [tool("mcp.b", { source: "mcp:s" })]);
    registry.addAll([tool("more.x")]);
    expect(before.tools.map((registered) => registered.definition.name)).toEqual(["mcp.a"]);
    expect(before.get("mcp.a")).toBeDefined();
    expect(before.get("mcp.b")).toBeUndefined();
    expect(Object.isFrozen(before.tools)).toBe(true);
    expect(registry.snapshot().version).toBeGreaterThan(before.version);
  });

  it("shares one snapshot between changes and stops notifying after unsubscribe", () => {
    const registry = new ToolRegistry([tool("a.x")]);
    expect(registry.snapshot()).toBe(registry.snapshot());
    const listener = vi.fn();
    const unsubscribe = registry.onChange(listener);
    unsubscribe();
    registry.addAll([tool("a.y")]);
    expect(listener).not.toHaveBeenCalled();
  });
});
