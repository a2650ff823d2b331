import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ToolRegistry } from "../../src/registry/tool-registry.js";
import { ModuleToolSource } from "../../src/sources/module-source.js";
import { Switchyard } from "../../src/switchyard.js";

const folder = mkdtempSync(join(tmpdir(), "switchyard-module-source-"));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

writeFileSync(
  join(folder, "weather.mjs"),
  `export default [{
    name: "forecast",
    description: "Tomorrow's forecast for a city.",
    effect: "read",
    inputSchema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
    execute: ({ city }) => ({ city, sky: "clear" }),
  }];\n`,
);

describe("ModuleToolSource", () => {
  it("puts a module's tools under the namespace it is given and answers calls through the pipeline", async () => {
    const yard = new Switchyard({ typeCheck: "off" });
    const attachment = await yard.registry.attachSource(
      new ModuleToolSource("weather.mjs", { cwd: folder, namespace: "weather" }),
    );
    expect(attachment.tools.map((tool) => [tool.name, tool.source, tool.effect])).toEqual([
      ["weather.forecast", "module:weather.mjs", "read"],
    ]);
    const result = await yard.run(`return await tools.weather.forecast({ city: "Oslo" });`);
    expect(result.output).toEqual({ city: "Oslo", sky: "clear" });
    const invalid = await yard.callTool("weather.forecast", {});
    expect(invalid.status).toBe("invalid");
    await attachment.close();
    expect(yard.registry.snapshot().get("weather.forecast")).toBeUndefined();
    await yard.close();
  });

  it("refuses a namespace another source holds, and frees it when that source closes", async () => {
    const registry = new ToolRegistry();
    const first = await registry.attachSource(new ModuleToolSource("weather.mjs", { cwd: folder, namespace: "sky" }));
    await expect(
      registry.attachSource(new ModuleToolSource("weather.mjs", { cwd: folder, namespace: "sky" })),
    ).rejects.toMatchObject({ code: "NAMESPACE_CONFLICT" });
    await first.close();
    const second = await registry.attachSource(new ModuleToolSource("weather.mjs", { cwd: folder, namespace: "sky" }));
    expect(second.tools).toHaveLength(1);
  });

  it("refuses a tool of another source in a claimed namespace", async () => {
    const registry = new ToolRegistry();
    await registry.attachSource(new ModuleToolSource("weather.mjs", { cwd: folder, namespace: "sky" }));
    expect(() =>
      registry.addAll([
        { name: "sky.rain", description: "", inputSchema: { type: "object" }, execute: () => null } as never,
      ]),
    ).toThrow(/source module:weather\.mjs holds/);
  });
});
