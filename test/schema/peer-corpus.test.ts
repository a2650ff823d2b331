// The declarations of real MCP servers' tools, listed over stdio: every tool gets a program
// that calls it with a valid input (which must type-check) and one with a wrong field (which
// must not), so the generator is checked on schemas nobody wrote for it.

import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectMcpSource, type McpSource } from "../../src/sources/mcp/mcp-source.js";
import { ProgramTypeChecker } from "../../src/program/type-check-program.js";
import { RUNTIME_DECLARATIONS } from "../../src/schema/generate-declarations.js";
import { compileSchema } from "../../src/schema/schema-validator.js";
import { Switchyard } from "../../src/switchyard.js";
import { stdioServer, tempFolder } from "../helpers/mcp-servers.js";
import { sampleFromSchema } from "../helpers/sample-from-schema.js";

const scratch = tempFolder("peers");
const yard = new Switchyard({ results: { spill: false } });
const sources: McpSource[] = [];

beforeAll(async () => {
  // Listed over stdio by Switchyard's own MCP source, into one session's registry.
  sources.push(
    ...(await Promise.all([
      connectMcpSource(yard.registry, { namespace: "everything", transport: stdioServer("everything", ["stdio"]) }),
      connectMcpSource(yard.registry, {
        namespace: "filesystem",
        transport: stdioServer("filesystem", [scratch.path]),
      }),
      connectMcpSource(yard.registry, {
        namespace: "memory",
        transport: stdioServer("memory", [], { MEMORY_FILE_PATH: join(scratch.path, "memory.jsonl") }),
      }),
    ])),
  );
}, 60_000);

afterAll(async () => {
  await Promise.all(sources.map((source) => source.close()));
  scratch.remove();
});

describe("declarations for the tools of three real MCP servers", () => {
  it("lists every server's tools and registers them all", () => {
    const tools = yard.registry.snapshot().tools;
    expect(new Set(tools.map((tool) => tool.definition.namespace))).toEqual(
      new Set(["everything", "filesystem", "memory"]),
    );
    expect(tools.length).toBeGreaterThanOrEqual(30);
    expect(sources.flatMap((source) => source.skippedTools)).toEqual([]);
  });

  it("type-checks a valid call to every tool, and refuses a wrong field", () => {
    const declarations = `${RUNTIME_DECLARATIONS}\n${yard.declarations()}`;
    const checker = new ProgramTypeChecker();
    const failures: string[] = [];
    let wrongFieldChecks = 0;
    for (const tool of yard.registry.snapshot().tools) {
      const input = sampleFromSchema(tool.definition.inputSchema) as Record<string, unknown>;
      expect(tool.validateInput(input), `${tool.definition.name}: the sample must be valid`).toEqual([]);
      const path = tool.parsedName.identifierPath;
      const valid = checker.check(
        `const result = await tools.${path}(${JSON.stringify(input)});\nreturn result;`,
        declarations,
      );
      if (valid.length > 0)
        failures.push(`${tool.definition.name} (valid input): ${valid.map((d) => d.message).join("; ")}`);

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
    expect(wrongFieldChecks).toBeGreaterThanOrEqual(Math.floor(yard.registry.snapshot().tools.length * 0.8));
  });

  it("compiles every outputSchema the servers publish", () => {
    const withOutput = yard.registry.snapshot().tools.filter((tool) => tool.definition.outputSchema !== undefined);
    expect(withOutput.length).toBeGreaterThan(0);
    for (const tool of withOutput)
      expect(() => compileSchema(tool.definition.outputSchema!, tool.definition.name)).not.toThrow();
  });
});
