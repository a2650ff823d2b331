import { describe, expect, it } from "vitest";
import { Switchyard } from "../../src/switchyard.js";
import { defineTool } from "../../src/registry/define-tool.js";

const bigTool = defineTool({
  name: "logs.dump",
  description: "Returns 50 KB of log lines.",
  effect: "read",
  inputSchema: { type: "object" },
  execute: () => Array.from({ length: 2_000 }, (_, index) => `line ${index}: ok`),
});

describe("a session's default spill store", () => {
  it("turns a large direct result into a preview that results.read pages back whole", async () => {
    const yard = new Switchyard({ tools: [bigTool] });
    const preview = await yard.callTool("logs.dump", {});
    expect(preview).toMatchObject({
      status: "ok",
      value: { spilled: true, handle: expect.stringMatching(/^result-/) },
    });
    const handle = (preview as { value: { handle: string } }).value.handle;
    let text = "";
    for (let offset = 0; ; offset += 16_384) {
      const slice = await yard.callTool("results.read", { handle, offset, length: 16_384 });
      const value = (slice as { value: { text: string; done: boolean } }).value;
      text += value.text;
      if (value.done) break;
    }
    expect(JSON.parse(text)).toHaveLength(2_000);
  });

  it("keeps results.read out of the program declarations, and programs get results whole", async () => {
    const yard = new Switchyard({ tools: [bigTool], typeCheck: "off" });
    expect(yard.declarations()).not.toContain("results");
    const result = await yard.run("return (await tools.logs.dump({})).length;");
    expect(result.output).toBe(2_000);
  });

  it("refuses a bare tool named `results` saying why and what to do, and takes it with spilling off", async () => {
    const results = defineTool({
      name: "results",
      description: "The season's results.",
      inputSchema: { type: "object" },
      execute: () => [],
    });
    expect(() => new Switchyard({ tools: [results] })).toThrow(
      expect.objectContaining({
        code: "TOOL_NAME_COLLISION",
        message: expect.stringContaining("rename the tool, give it a namespace (`x.results`), or turn spilling off"),
      }),
    );
    const yard = new Switchyard({ tools: [results], results: { spill: false } });
    expect((await yard.callTool("results", {})).status).toBe("ok");
    await yard.close();
  });

  it("refuses oversized direct results instead when spilling is off", async () => {
    const yard = new Switchyard({ tools: [bigTool], results: { spill: false } });
    expect(await yard.callTool("logs.dump", {})).toMatchObject({
      status: "error",
      error: { code: "RESULT_TOO_LARGE" },
    });
    expect(yard.registry.snapshot().get("results.read")).toBeUndefined();
  });
});

describe("closing a session", () => {
  it("removes the default spill folder and its results", async () => {
    const yard = new Switchyard({ tools: [bigTool] });
    const preview = await yard.callTool("logs.dump", {});
    const handle = (preview as { value: { handle: string } }).value.handle;
    expect(await yard.callTool("results.read", { handle })).toMatchObject({ status: "ok" });
    await yard.close();
    expect(await yard.callTool("results.read", { handle })).toMatchObject({
      status: "error",
      error: { code: "RESULT_NOT_FOUND" },
    });
  });
});
