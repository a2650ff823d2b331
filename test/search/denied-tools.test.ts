import { afterAll, describe, expect, it } from "vitest";
import { answerModelToolCall } from "../../src/model-tools/answer-model-tool-call.js";
import { defineTool } from "../../src/registry/define-tool.js";
import { Switchyard } from "../../src/switchyard.js";

const tool = (name: string, description: string) =>
  defineTool({ name, description, inputSchema: { type: "object" }, effect: "write", execute: () => name });

const yard = new Switchyard({
  tools: [tool("files.delete_file", "Delete a file."), tool("files.read_file", "Read a file.")],
  permissions: { rules: [{ tools: "files.delete_*", decision: "deny", reason: "no deletions here" }] },
  discovery: { defer: true },
});
afterAll(() => yard.close());

describe("a tool every call to which is denied", () => {
  it("is absent from search_tools answers, with its declaration", async () => {
    const answer = await answerModelToolCall(yard, { name: "search_tools", input: { query: "delete a file" } });
    if (answer.tool !== "search_tools") throw new Error(`unexpected ${answer.tool}`);
    expect(answer.search.references.map((reference) => reference.name)).not.toContain("files.delete_file");
    expect(answer.search.declarations).not.toContain("delete_file");
  });

  it("is unknown to describe_tools", async () => {
    const answer = await answerModelToolCall(yard, {
      name: "describe_tools",
      input: { names: ["files.delete_file", "files.read_file"] },
    });
    if (answer.tool !== "describe_tools") throw new Error(`unexpected ${answer.tool}`);
    expect(answer.describe.found).toEqual(["files.read_file"]);
    expect(answer.describe.unknown.map((unknown) => unknown.name)).toEqual(["files.delete_file"]);
  });

  it("is absent from tools.$search and unknown to tools.$describe inside programs, and from the deferred names", async () => {
    const result = await yard.run(`
      const found = await tools.$search("delete file", { limit: 10 });
      let described = "";
      try { described = await tools.$describe("files.delete_file"); } catch (error) { described = (error as { code: string }).code; }
      return { names: found.map((reference) => reference.name), described };`);
    expect(result.output).toEqual({ names: ["files.read_file"], described: "TOOL_NOT_FOUND" });
    expect(yard.programTool().description).not.toContain("delete_file");
  });

  it("still answers a direct call with the denial and its reason", async () => {
    const outcome = await yard.callTool("files.delete_file", {});
    expect(outcome).toMatchObject({
      status: "denied",
      error: { message: expect.stringContaining("no deletions here") },
    });
  });
});
