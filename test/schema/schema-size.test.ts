// Declared schemas are capped: a tool's input and output schemas, a run's schemas and the
// gateway's are compiled, walked and rendered into every program's declarations, so a schema of
// megabytes (or nested past the stack) is refused where it is declared, with a clear error.

import { describe, expect, it } from "vitest";
import type { JsonSchema } from "../../src/contract.js";
import { defineTool } from "../../src/registry/define-tool.js";
import { MAX_SCHEMA_CHARS, MAX_SCHEMA_NESTING } from "../../src/schema/schema-size.js";
import { compileSchema, prepareSchema } from "../../src/schema/schema-validator.js";
import { Switchyard } from "../../src/switchyard.js";
import { configErrorOf } from "../helpers/config-error.js";

/** An object schema of `count` string properties, each with a description of 60 characters. */
function wide(count: number): JsonSchema {
  const properties = Object.fromEntries(
    Array.from({ length: count }, (_, index) => [`field${index}`, { type: "string", description: "d".repeat(60) }]),
  );
  return { type: "object", properties };
}

function deep(levels: number): JsonSchema {
  let schema: JsonSchema = { type: "string" };
  for (let level = 0; level < levels; level++) schema = { type: "object", properties: { next: schema } };
  return schema;
}

const HUGE = wide(20_000);

describe("declared schema size", () => {
  it("refuses a tool's inputSchema over 1 MiB of JSON at registration, saying so", () => {
    expect(JSON.stringify(HUGE).length).toBeGreaterThan(MAX_SCHEMA_CHARS);
    const error = configErrorOf(
      () =>
        new Switchyard({
          tools: [defineTool({ name: "big.in", description: "d", inputSchema: HUGE, execute: () => 1 })],
        }),
    );
    expect(error.code).toBe("SCHEMA_INVALID");
    expect(error.message).toMatch(/Tool "big\.in" inputSchema: .*larger than 1048576 characters of JSON/);
  });

  it("refuses a tool's outputSchema over 1 MiB of JSON at registration", () => {
    const error = configErrorOf(
      () =>
        new Switchyard({
          tools: [
            defineTool({
              name: "big.out",
              description: "d",
              inputSchema: { type: "object" },
              outputSchema: HUGE,
              execute: () => ({}),
            }),
          ],
        }),
    );
    expect(error.code).toBe("SCHEMA_INVALID");
    expect(error.message).toMatch(/outputSchema: .*larger than/);
  });

  it("refuses a run's outputSchema over the cap before anything runs", async () => {
    const yard = new Switchyard({ tools: [] });
    await expect((async () => yard.run("return 1;", { outputSchema: HUGE }))()).rejects.toMatchObject({
      code: "SCHEMA_INVALID",
      message: expect.stringMatching(/The run's outputSchema: .*larger than/),
    });
    await yard.close();
  });

  it(`refuses a schema nested over ${MAX_SCHEMA_NESTING} levels (even 100,000: measured without recursion)`, () => {
    for (const levels of [MAX_SCHEMA_NESTING, 100_000]) {
      expect(configErrorOf(() => prepareSchema(deep(levels), "t")).message).toMatch(/deeper than 256 levels/);
      expect(configErrorOf(() => compileSchema(deep(levels), "t")).message).toMatch(/deeper than 256 levels/);
    }
  });

  it("accepts a large schema under the cap", () => {
    const large = wide(5_000);
    expect(JSON.stringify(large).length).toBeLessThan(MAX_SCHEMA_CHARS);
    // Registration checks it (ajv's compile, at first use, is the integrator's cost to choose).
    expect(() => prepareSchema(large, "t")).not.toThrow();
    expect(prepareSchema(deep(100), "t")({ next: { next: {} } })).toEqual([]);
  });
});
