// run_program's per-call `outputSchema`, through the real gateway (an MCP client over the SDK's
// InMemoryTransport): checked before the run as the program's return type, validated after it,
// combined with the gateway's own contract, and refused with a structured error when hostile.

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";
import type { JsonSchema } from "../../src/contract.js";
import { createGatewayServer, type GatewayServerOptions } from "../../src/gateway/gateway-server.js";
import { answerModelToolCall } from "../../src/model-tools/answer-model-tool-call.js";
import { defineTool } from "../../src/registry/define-tool.js";
import { Switchyard } from "../../src/switchyard.js";

// Untyped, like a text-only MCP tool: the program's output is only known when it has run.
const teams = defineTool({
  name: "helpdesk.teams",
  description: "Open ticket counts per team.",
  effect: "read",
  inputSchema: { type: "object", properties: {}, additionalProperties: false },
  execute: () =>
    Object.fromEntries(Array.from({ length: 40 }, (_, index) => [`team-${index}`, { urgent: "3", open: 2 }])),
});

const opened: { client: Client; close: () => Promise<void> }[] = [];
afterEach(async () => {
  for (const session of opened.splice(0)) await session.close();
});

async function connect(options: GatewayServerOptions = {}): Promise<{ client: Client; yard: Switchyard }> {
  const yard = new Switchyard({ tools: [teams], observedTypes: false });
  const gateway = createGatewayServer(yard, options);
  const client = new Client({ name: "test", version: "1.0.0" });
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  await gateway.server.connect(serverTransport);
  await client.connect(clientTransport);
  opened.push({
    client,
    close: async () => {
      await client.close();
      await gateway.close();
      await yard.close();
    },
  });
  return { client, yard };
}

async function runProgram(client: Client, code: string, outputSchema?: unknown): Promise<CallToolResult> {
  return (await client.callTool({
    name: "run_program",
    arguments: outputSchema === undefined ? { code } : { code, outputSchema },
  })) as CallToolResult;
}

function textOf(result: CallToolResult): string {
  return result.content.map((part) => (part.type === "text" ? part.text : "")).join("\n");
}

const COUNTS_SCHEMA = {
  type: "object",
  properties: {
    total: { type: "number" },
    counts: {
      type: "object",
      additionalProperties: {
        type: "object",
        properties: { urgent: { type: "integer" }, open: { type: "integer" } },
        required: ["urgent", "open"],
      },
    },
  },
  required: ["total", "counts"],
  additionalProperties: false,
};

describe("run_program's per-call outputSchema through the gateway", () => {
  it("is advertised in run_program's input schema", async () => {
    const { client } = await connect();
    const tool = (await client.listTools()).tools.find((listed) => listed.name === "run_program");
    expect(Object.keys(tool?.inputSchema.properties ?? {})).toEqual(["code", "input", "outputSchema"]);
  });

  it("refuses a wrong return shape before anything runs (TYPE_ERROR at the return)", async () => {
    const { client, yard } = await connect();
    let calls = 0;
    yard.trace.subscribe((event) => {
      if (event.type === "tool-call-start") calls += 1;
    });
    const result = await runProgram(
      client,
      `const counts = await tools.helpdesk.teams({});
return { total: "all", counts };`,
      COUNTS_SCHEMA,
    );
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain("TYPE_ERROR");
    expect(textOf(result)).toContain("line 2");
    expect(calls).toBe(0);
  });

  it("validates the returned value at the end: OUTPUT_INVALID groups the 40 alike errors and names the distinct one first", async () => {
    const { client } = await connect();
    const result = await runProgram(
      client,
      `const counts = await tools.helpdesk.teams({});
const output: any = { total: Object.keys(counts).length, counts, note: "extra" };
return output;`,
      COUNTS_SCHEMA,
    );
    expect(result.isError).toBe(true);
    const text = textOf(result);
    expect(text).toContain("OUTPUT_INVALID");
    expect(text).toContain(
      "(41 errors at 2 places, distinct ones first):\n" +
        '- /note: expected no such property (not in the schema; check the spelling), received "extra"\n' +
        '- /counts/*/urgent ×40: expected type integer, received string "3" (first at /counts/team-0/urgent)',
    );
  });

  it("passes a program whose output matches", async () => {
    const { client } = await connect();
    const result = await runProgram(
      client,
      `const counts = await tools.helpdesk.teams({});
const fixed = Object.fromEntries(Object.entries(counts).map(([team, c]) => [team, { urgent: Number(c.urgent), open: c.open }]));
return { total: Object.keys(fixed).length, counts: fixed };`,
      COUNTS_SCHEMA,
    );
    expect(result.isError, textOf(result)).not.toBe(true);
  });

  it("holds the output to both the gateway's contract and the model's", async () => {
    const { client } = await connect({
      outputSchema: { type: "object", properties: { total: { type: "number" } }, required: ["total"] },
    });
    const missingModelField = await runProgram(client, "return { total: 1 };", {
      type: "object",
      properties: { complete: { type: "boolean" } },
      required: ["complete"],
    });
    expect(missingModelField.isError).toBe(true);
    expect(textOf(missingModelField)).toContain("complete");
    const both = await runProgram(client, "return { total: 1, complete: true };", {
      type: "object",
      properties: { complete: { type: "boolean" } },
      required: ["complete"],
    });
    expect(both.isError, textOf(both)).not.toBe(true);
  });

  it("accepts a recursive schema through local $ref", async () => {
    const { client } = await connect();
    const tree = {
      $defs: {
        node: {
          type: "object",
          properties: { name: { type: "string" }, children: { type: "array", items: { $ref: "#/$defs/node" } } },
          required: ["name"],
        },
      },
      $ref: "#/$defs/node",
    };
    const result = await runProgram(client, `return { name: "a", children: [{ name: "b", children: [] }] };`, tree);
    expect(result.isError, textOf(result)).not.toBe(true);
    const wrong = await runProgram(client, `return { name: "a", children: [{ name: 2 }] } as any;`, tree);
    expect(textOf(wrong)).toContain("/children/0/name");
  });
});

describe("a hostile per-call outputSchema is refused with a structured error, and nothing runs", () => {
  const yard = new Switchyard({ tools: [teams], observedTypes: false });
  afterEach(() => {});
  const refusalOf = async (outputSchema: unknown) => {
    const answer = await answerModelToolCall(yard, {
      name: "run_program",
      input: { code: "return await tools.helpdesk.teams({});", outputSchema },
    });
    if (answer.tool !== "refused") throw new Error(`not refused: ${JSON.stringify(answer).slice(0, 300)}`);
    return answer.error;
  };

  let nested: Record<string, unknown> = { type: "string" };
  for (let depth = 0; depth < 40; depth++) nested = { type: "object", properties: { a: nested } };
  let abysmal: unknown = {};
  for (let depth = 0; depth < 100_000; depth++) abysmal = { not: abysmal };

  const cases: [string, unknown, string][] = [
    ["larger than 32 KB", { enum: Array.from({ length: 5_000 }, (_, index) => `value-${index}`) }, "/outputSchema"],
    ["nested 40 levels deep", nested, "/outputSchema/properties/a"],
    ["nested 100,000 levels deep", abysmal, "/outputSchema"],
    ["a $ref to a remote schema", { $ref: "https://evil.example/schema.json" }, "/outputSchema/$ref"],
    ["a $ref to a file", { properties: { a: { $ref: "file:///etc/passwd" } } }, "/outputSchema/properties/a/$ref"],
    ["an $id that would register a schema", { $id: "https://x.example/s", type: "object" }, "/outputSchema/$id"],
    ["a pattern (a regular expression on the host)", { type: "string", pattern: "^(a+)+$" }, "/outputSchema/pattern"],
    [
      "a pattern under a property named `properties`",
      { properties: { properties: { type: "string", pattern: "^(a|a)*$" } } },
      "/outputSchema/properties/properties/pattern",
    ],
    ["patternProperties", { patternProperties: { "^(a+)+$": { type: "string" } } }, "/outputSchema/patternProperties"],
    [
      "a pattern under draft-07 `dependencies`",
      { dependencies: { a: { properties: { b: { type: "string", pattern: "^(a+)+$" } } } } },
      "/outputSchema/dependencies/a/properties/b/pattern",
    ],
    [
      "a $ref into data, where ajv would compile a pattern",
      { properties: { b: { $ref: "#/default" } }, default: { type: "string", pattern: "^(a+)+$" } },
      "/outputSchema/properties/b/$ref",
    ],
    [
      "a $ref into an unknown keyword",
      { properties: { b: { $ref: "#/x-hidden" } }, "x-hidden": { type: "string", pattern: "^(a+)+$" } },
      "/outputSchema/properties/b/$ref",
    ],
    [
      "a $ref past a definition into its data",
      { $defs: { a: { default: { pattern: "^(a+)+$" } } }, properties: { b: { $ref: "#/$defs/a/default" } } },
      "/outputSchema/properties/b/$ref",
    ],
    [
      "a $ref past a definition, percent-encoded",
      { $defs: { a: { default: { pattern: "^(a+)+$" } } }, properties: { b: { $ref: "#/$defs/a%2Fdefault" } } },
      "/outputSchema/properties/b/$ref",
    ],
    ["a schema ajv cannot compile", { type: "nonsense" }, "/outputSchema"],
    ["a $ref to a missing definition", { $ref: "#/$defs/missing" }, "/outputSchema"],
    ["not a schema at all", "return anything", "/outputSchema"],
  ];
  for (const [name, schema, path] of cases) {
    it(`refuses ${name}`, async () => {
      const error = await refusalOf(schema);
      expect(error.code).toBe("INPUT_INVALID");
      expect(error.message.length).toBeLessThan(2_000);
      expect(JSON.stringify(error.details)).toContain(`"${path}`);
    });
  }

  it("accepts a property merely named `pattern` or `$id`, and a pattern in enum data", async () => {
    const answer = await answerModelToolCall(yard, {
      name: "run_program",
      input: {
        code: 'return { pattern: "x", $id: "y", kind: "pattern" };',
        outputSchema: {
          type: "object",
          properties: { pattern: { type: "string" }, $id: { type: "string" }, kind: { enum: ["pattern", "$ref"] } },
        } satisfies JsonSchema,
      },
    });
    expect(answer.tool).toBe("run_program");
    if (answer.tool === "run_program") expect(answer.run.error).toBeUndefined();
  });
});
