// The declarations of real MCP servers' tools, listed over stdio: every tool gets a program
// that calls it with a valid input (which must type-check) and one with a wrong field (which
// must not), so the generator is checked on schemas nobody wrote for it.

import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defineTool, type ToolDefinition } from "../../src/registry/define-tool.js";
import { ToolRegistry } from "../../src/registry/tool-registry.js";
import { ProgramTypeChecker } from "../../src/sandbox/type-check-program.js";
import { RUNTIME_DECLARATIONS } from "../../src/schema/generate-declarations.js";
import { compileSchema } from "../../src/schema/schema-validator.js";
import { Switchyard } from "../../src/switchyard.js";
import { sampleFromSchema } from "../helpers/sample-from-schema.js";

const PACKAGES = fileURLToPath(new URL("../../node_modules/@modelcontextprotocol/", import.meta.url));

interface ListedTool {
  readonly namespace: string;
  readonly name: string;
  readonly description: string;
  readonly inputSchema: Record<string, unknown>;
  readonly outputSchema: Record<string, unknown> | undefined;
}

let scratch: string;
const listed: ListedTool[] = [];

async function listTools(namespace: string, bin: string, args: string[], env: Record<string, string>): Promise<void> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [join(PACKAGES, bin), ...args],
    env: { PATH: process.env["PATH"] ?? "", ...env },
    stderr: "ignore",
  });
  const client = new Client({ name: "switchyard-peer-corpus", version: "0.1.0" });
  await client.connect(transport);
  try {
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor === undefined ? {} : { cursor });
      for (const tool of page.tools) {
        listed.push({
          namespace,
          name: tool.name,
          description: tool.description ?? "",
          inputSchema: tool.inputSchema as Record<string, unknown>,
          outputSchema: tool.outputSchema as Record<string, unknown> | undefined,
        });
      }
      cursor = page.nextCursor;
    } while (cursor !== undefined);
  } finally {
    await client.close();
  }
}

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), "switchyard-peers-"));
  await Promise.all([
    listTools("everything", "server-everything/dist/index.js", ["stdio"], {}),
    listTools("filesystem", "server-filesystem/dist/index.js", [scratch], {}),
    listTools("memory", "server-memory/dist/index.js", [], { MEMORY_FILE_PATH: join(scratch, "memory.jsonl") }),
  ]);
}, 60_000);

afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

function definitions(): ToolDefinition[] {
  return listed.map((tool) =>
    defineTool({
      name: `${tool.namespace}.${tool.name}`,
      description: tool.description,
      inputSchema: tool.inputSchema,
      ...(tool.outputSchema === undefined ? {} : { outputSchema: tool.outputSchema }),
      execute: () => null,
    }),
  );
}

describe("declarations for the tools of three real MCP servers", () => {
  it("lists every server's tools and registers them all", () => {
    const namespaces = new Set(listed.map((tool) => tool.namespace));
    expect([...namespaces].sort()).toEqual(["everything", "filesystem", "memory"]);
    expect(listed.length).toBeGreaterThanOrEqual(30);
    expect(() => new ToolRegistry(definitions())).not.toThrow();
  });

  it("type-checks a valid call to every tool, and refuses a wrong field", () => {
    const yard = new Switchyard({ tools: definitions(), results: { spill: false } });
    const declarations = `${RUNTIME_DECLARATIONS}\n${yard.declarations()}`;
    const checker = new ProgramTypeChecker();
    const failures: string[] = [];
    let wrongFieldChecks = 0;
    for (const tool of yard.registry.snapshot().tools) {
      const input = sampleFromSchema(tool.definition.inputSchema) as Record<string, unknown>;
      expect(tool.validateInput(input), `${tool.definition.name}: the sample must be valid`).toEqual([]);
      const path = tool.parsedName.identifierPath;
      const valid = checker.check(`const result = await tools.${path}(${JSON.stringify(input)});\nreturn result;`, declarations);
      if (valid.length > 0) failures.push(`${tool.definition.name} (valid input): ${valid.map((d) => d.message).join("; ")}`);

      // A wrong field: a required property under a misspelled name, or else an unknown extra one.
      const required = (tool.definition.inputSchema as { required?: string[] }).required ?? [];
      const closed = Object.keys((tool.definition.inputSchema as { properties?: object }).properties ?? {}).length > 0;
      if (required.length === 0 && !closed) continue;
      const wrong: Record<string, unknown> = { ...input };
      if (required.length > 0) {
        const field = required[0]!;
        wrong[`${field}Wrong`] = wrong[field];
        delete wrong[field];
      } else {
        wrong["notAField"] = 1;
      }
      wrongFieldChecks++;
      const invalid = checker.check(`return await tools.${path}(${JSON.stringify(wrong)});`, declarations);
      if (invalid.length === 0) failures.push(`${tool.definition.name} (wrong field): type-checked`);
    }
    checker.dispose();
    expect(failures).toEqual([]);
    // Tools that take no arguments at all have no field to get wrong (6 of 36 when written).
    expect(wrongFieldChecks).toBeGreaterThanOrEqual(Math.floor(listed.length * 0.8));
  });

  it("compiles every outputSchema the servers publish", () => {
    for (const tool of listed) if (tool.outputSchema !== undefined) expect(() => compileSchema(tool.outputSchema!, tool.name)).not.toThrow();
  });
});
