import { execFile } from "node:child_process";
import { fileURLToPath, pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const HIDE = fileURLToPath(new URL("./fixtures/hide-frameworks.mjs", import.meta.url));
// The install command names the framework major for the Node line the test runs on.
const NODE_22 = Number(process.versions.node.split(".")[0]) >= 22;

/** Imports `module` in a fresh Node where the frameworks are not installed; reports what happened. */
async function importWithoutFrameworks(module: string, then = ""): Promise<Record<string, unknown>> {
  const url = pathToFileURL(fileURLToPath(new URL(`../../${module}`, import.meta.url))).href;
  const script = `
    try {
      const loaded = await import(${JSON.stringify(url)});
      ${then}
      console.log(JSON.stringify({ loaded: true, exports: Object.keys(loaded).sort() }));
    } catch (error) {
      console.log(JSON.stringify({ loaded: false, name: error.name, code: error.code, message: error.message }));
    }`;
  const { stdout } = await run(
    process.execPath,
    ["--no-node-snapshot", "--import", "tsx", "--import", HIDE, "--input-type=module", "-e", script],
    { cwd: ROOT, timeout: 60_000 },
  );
  return JSON.parse(stdout.trim().split("\n").at(-1)!) as Record<string, unknown>;
}

describe("optional framework peers", () => {
  it("the core loads and runs a program when no framework is installed", async () => {
    const outcome = await importWithoutFrameworks(
      "src/index.ts",
      `const yard = new loaded.Switchyard({ typeCheck: "off" });
       const result = await yard.run("return 6 * 7;");
       await yard.close();
       if (result.output !== 42) throw new Error("the run failed: " + JSON.stringify(result));`,
    );
    expect(outcome).toMatchObject({ loaded: true });
    expect(outcome.exports).toContain("Switchyard");
    expect(outcome.exports).not.toContain("toolsFromAiSdk");
  });

  it.each([
    ["src/integrations/ai-sdk.ts", "switchyard-runtime/ai-sdk", NODE_22 ? "npm install ai@7" : "npm install ai@6"],
    [
      "src/integrations/openai-agents.ts",
      "switchyard-runtime/openai-agents",
      NODE_22 ? "npm install @openai/agents@0.20" : "npm install @openai/agents@0.14",
    ],
    ["src/integrations/langchain.ts", "switchyard-runtime/langchain", "npm install @langchain/core@1"],
  ])("%s fails to load with OPTIONAL_DEPENDENCY_MISSING and the install command", async (module, subpath, command) => {
    const outcome = await importWithoutFrameworks(module);
    expect(outcome).toMatchObject({ loaded: false, name: "SwitchyardError", code: "OPTIONAL_DEPENDENCY_MISSING" });
    expect(outcome.message).toContain(subpath);
    expect(outcome.message).toContain(`Install it with: ${command}`);
  });

  it("switchyard-runtime/fleet loads without BullMQ, and its functions name the install command", async () => {
    const outcome = await importWithoutFrameworks(
      "src/fleet/index.ts",
      `await loaded.submitBatch({ redis: "redis://127.0.0.1:1", program: "return 1;", inputs: [1] });`,
    );
    expect(outcome).toMatchObject({ loaded: false, name: "SwitchyardError", code: "OPTIONAL_DEPENDENCY_MISSING" });
    expect(outcome.message).toContain("switchyard-runtime/fleet");
    expect(outcome.message).toContain("Install it with: npm install bullmq@6 ioredis@5");
  });

  it("the hook really hides a framework: a plain import of it fails as a missing package", async () => {
    const { stdout } = await run(
      process.execPath,
      [
        "--import",
        HIDE,
        "--input-type=module",
        "-e",
        `import("ai").then(() => console.log("found"), (error) => console.log(error.code))`,
      ],
      { cwd: ROOT, timeout: 30_000 },
    );
    expect(stdout.trim()).toBe("ERR_MODULE_NOT_FOUND");
  });
});
