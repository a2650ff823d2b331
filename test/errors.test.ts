// Errors recognised by brand (Symbol.for), not by class: a tool module may import a second
// copy of the package (the built package beside a checkout, or two installed versions), and
// its ToolError must keep its code through the pipeline all the same.

import { describe, expect, it } from "vitest";
import { SwitchyardError, ToolError } from "../src/errors.js";
import { defineTool } from "../src/registry/define-tool.js";
import { Switchyard } from "../src/switchyard.js";

type ErrorsModule = typeof import("../src/errors.js");

/** A second, separately evaluated copy of src/errors.ts (a distinct module id, so distinct classes). */
async function secondCopy(): Promise<ErrorsModule> {
  const specifier = `${new URL("../src/errors.ts", import.meta.url).href}?copy=second`;
  return (await import(/* @vite-ignore */ specifier)) as ErrorsModule;
}

describe("ToolError and SwitchyardError across copies of the package", () => {
  it("loads a second copy whose classes differ from this one's", async () => {
    const other = await secondCopy();
    expect(other.ToolError).not.toBe(ToolError);
    expect(new other.ToolError("x") instanceof ToolError).toBe(false);
  });

  it("recognises a ToolError and a SwitchyardError of the other copy by brand", async () => {
    const other = await secondCopy();
    expect(ToolError.isInstance(new other.ToolError("slow down", { code: "RATE_LIMITED" }))).toBe(true);
    expect(SwitchyardError.isInstance(new other.SwitchyardError("CONFIG_INVALID", "bad"))).toBe(true);
    expect(other.ToolError.isInstance(new ToolError("x"))).toBe(true);
  });

  it("refuses lookalikes: an Error with a code, a plain object, the other class's brand", () => {
    expect(ToolError.isInstance(Object.assign(new Error("x"), { code: "RATE_LIMITED", name: "ToolError" }))).toBe(
      false,
    );
    expect(ToolError.isInstance({ code: "RATE_LIMITED", message: "x" })).toBe(false);
    expect(ToolError.isInstance(null)).toBe(false);
    expect(ToolError.isInstance(new SwitchyardError("CONFIG_INVALID", "x"))).toBe(false);
    expect(SwitchyardError.isInstance(new ToolError("x"))).toBe(false);
  });

  it("keeps the code of a ToolError thrown from the other copy, so the program's retry branch runs", async () => {
    const other = await secondCopy();
    let attempts = 0;
    const flaky = defineTool({
      name: "api.fetch",
      description: "Fails with RATE_LIMITED on the first call.",
      effect: "read",
      inputSchema: { type: "object" },
      execute: () => {
        attempts += 1;
        if (attempts === 1) throw new other.ToolError("slow down", { code: "RATE_LIMITED", details: { retryMs: 1 } });
        return "ok";
      },
    });
    const yard = new Switchyard({ tools: [flaky] });
    try {
      const result = await yard.run(`
        try {
          return await tools.api.fetch({});
        } catch (error) {
          if (error.code !== "RATE_LIMITED") return "lost: " + error.code;
          return "retried: " + (await tools.api.fetch({}));
        }
      `);
      expect(result.output).toBe("retried: ok");
      expect(result.calls.map((call) => call.code ?? call.status)).toEqual(["RATE_LIMITED", "ok"]);
    } finally {
      await yard.close();
    }
  });

  it("keeps the brand out of what is copied or serialized", () => {
    const error = new ToolError("x", { code: "RATE_LIMITED" });
    expect(Object.getOwnPropertySymbols(error)).toHaveLength(1);
    expect(Object.getOwnPropertySymbols({ ...error })).toEqual([]);
    expect(JSON.stringify(error)).toBe('{"name":"ToolError","code":"RATE_LIMITED"}');
  });
});
