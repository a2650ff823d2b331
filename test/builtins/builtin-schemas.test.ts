import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHttpFetchTool } from "../../src/builtins/http-fetch-tool.js";
import { createShellTool } from "../../src/builtins/shell-tool.js";
import { createWorkspaceTools } from "../../src/builtins/workspace-tools.js";
import type { JsonSchema } from "../../src/contract.js";
import type { ToolDefinition } from "../../src/registry/define-tool.js";
import { undescribedProperties } from "../helpers/schema-descriptions.js";

// ajv-formats is CommonJS: under NodeNext its default import may be the module object.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (
  ajv: Ajv2020,
) => Ajv2020;

let root: string;
let tools: ToolDefinition[];

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "switchyard-schemas-"));
  tools = [
    ...createWorkspaceTools({ root }),
    createShellTool({ workspace: root }),
    createHttpFetchTool({ allowHosts: ["api.example.com"] }),
    createHttpFetchTool({ allowHosts: ["*.example.com"], methods: ["GET", "POST"] }),
  ];
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe("builtin tool schemas", () => {
  it("are checked by a description finder that does report gaps, nested and in items", () => {
    const schema = {
      properties: { a: { type: "string" }, b: { description: "b", type: "array", items: { properties: { c: {} } } } },
    };
    expect(undescribedProperties(schema)).toEqual(["/a", "/b/items/c"]);
  });

  it("compile in ajv's strict mode, describe every property and accept their own examples", () => {
    const ajv = addFormats(new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true }));
    for (const tool of tools) {
      expect(tool.source).toBe("builtin");
      expect(tool.description.length, tool.name).toBeGreaterThan(100);
      for (const schema of [tool.inputSchema, tool.outputSchema] as JsonSchema[]) {
        expect(() => ajv.compile(schema), tool.name).not.toThrow();
        expect(undescribedProperties(schema), tool.name).toEqual([]);
      }
      const validate = ajv.compile(tool.inputSchema as object);
      expect(tool.inputExamples?.length, tool.name).toBeGreaterThan(0);
      for (const example of tool.inputExamples ?? [])
        expect(validate(example), `${tool.name} ${JSON.stringify(example)}`).toBe(true);
    }
  });
});
