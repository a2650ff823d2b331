import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { SwitchyardError } from "../../src/errors.js";
import { loadToolModule } from "../../src/sources/load-tool-module.js";

const folder = mkdtempSync(join(tmpdir(), "switchyard-modules-"));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

const TOOL = `{ name: "demo.echo", description: "Echo.", inputSchema: { type: "object" }, execute: (input) => input }`;

describe("loadToolModule", () => {
  it("loads a path written without ./ and a function export, resolved against cwd", async () => {
    writeFileSync(join(folder, "tools-fn.mjs"), `export function tools() { return [${TOOL}]; }\n`);
    const tools = await loadToolModule("tools-fn.mjs", folder);
    expect(tools.map((tool) => tool.name)).toEqual(["demo.echo"]);
  });

  it("loads a default-exported array", async () => {
    writeFileSync(join(folder, "tools-default.mjs"), `export default [${TOOL}];\n`);
    expect((await loadToolModule("./tools-default.mjs", folder)).map((tool) => tool.effect)).toEqual(["write"]);
  });

  it("refuses a module without tools, naming it", async () => {
    writeFileSync(join(folder, "empty.mjs"), "export const nothing = 1;\n");
    await expect(loadToolModule("empty.mjs", folder)).rejects.toThrow(SwitchyardError);
    await expect(loadToolModule("empty.mjs", folder)).rejects.toThrow(/empty\.mjs/);
  });

  it("reports a module that does not exist as CONFIG_INVALID", async () => {
    await expect(loadToolModule("missing-tools.ts", folder)).rejects.toMatchObject({ code: "CONFIG_INVALID" });
  });
});
