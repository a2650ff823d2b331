import { describe, expect, it } from "vitest";
import {
  PROVIDER_TOOL_NAME_PATTERN,
  ProviderToolNames,
  toProviderToolName,
} from "../../src/agent/provider-tool-names.js";
import { SwitchyardError } from "../../src/errors.js";

describe("toProviderToolName", () => {
  it("maps the namespace dot to a double underscore and other invalid characters to one", () => {
    expect(toProviderToolName("orders.search")).toBe("orders__search");
    expect(toProviderToolName("fs.read.file")).toBe("fs__read_file");
    expect(toProviderToolName("get-weather")).toBe("get-weather");
    expect(toProviderToolName("$ns.x")).toBe("_ns__x");
  });

  it("keeps every name within ^[a-zA-Z0-9_-]{1,64}$, shortening long names with a hash", () => {
    const long = `ns.${"a".repeat(120)}`;
    const other = `ns.${"a".repeat(119)}b`;
    for (const name of [long, other, "a", "x.y"]) expect(toProviderToolName(name)).toMatch(PROVIDER_TOOL_NAME_PATTERN);
    expect(toProviderToolName(long)).not.toBe(toProviderToolName(other));
  });
});

describe("ProviderToolNames", () => {
  it("decodes exactly what it encoded, and nothing else", () => {
    const names = new ProviderToolNames(["orders.search", "fs.read.file"], ["run_program"]);
    expect(names.toProvider("orders.search")).toBe("orders__search");
    expect(names.fromProvider("orders__search")).toBe("orders.search");
    expect(names.fromProvider("fs__read_file")).toBe("fs.read.file");
    expect(names.fromProvider("run_program")).toBe("run_program");
    expect(names.fromProvider("orders.search")).toBeUndefined();
    expect(names.providerNames()).toEqual(["run_program", "orders__search", "fs__read_file"]);
  });

  it("throws TOOL_NAME_COLLISION when two names share a provider name, or a name takes a reserved one", () => {
    expect(() => new ProviderToolNames(["a.b_c", "a.b.c"])).toThrow(SwitchyardError);
    expect(() => new ProviderToolNames(["a.b_c", "a.b.c"])).toThrow(
      /"a.b_c" and "a.b.c" both map to the provider tool name "a__b_c"/,
    );
    expect(() => new ProviderToolNames(["run_program"], ["run_program"])).toThrow(
      expect.objectContaining({ code: "TOOL_NAME_COLLISION" }),
    );
  });
});
