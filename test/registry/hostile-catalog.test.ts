import { afterEach, describe, expect, it } from "vitest";
import { SwitchyardError } from "../../src/errors.js";
import { defineTool, type ToolDefinition } from "../../src/registry/define-tool.js";
import { ToolRegistry } from "../../src/registry/tool-registry.js";
import { Bm25Index } from "../../src/search/bm25-index.js";
import { Switchyard } from "../../src/switchyard.js";

const sessions: Switchyard[] = [];
afterEach(async () => {
  await Promise.all(sessions.splice(0).map((session) => session.close()));
});

function tool(name: string, description = `${name} does one thing.`): ToolDefinition {
  return defineTool({
    name,
    description,
    effect: "read",
    inputSchema: { type: "object", properties: { id: { type: "string", description: "The record's id." } } },
    execute: () => name,
  });
}

function namesFound(yard: Switchyard, query: string, limit = 5): string[] {
  const answer = yard.searchTools(query, { limit });
  return answer.ok ? answer.references.map((reference) => reference.name) : [];
}

describe("hostile catalogs", () => {
  it("registers 20,000 tools, finds one by its words, and calls it", { timeout: 120_000 }, async () => {
    const tools = Array.from({ length: 20_000 }, (_, index) =>
      tool(`svc${index % 200}.op${index}`, index === 12_345 ? "Rotate the quarterly zebra ledger." : undefined),
    );
    const yard = new Switchyard({ tools, typeCheck: "off" });
    sessions.push(yard);
    expect(yard.registry.snapshot().tools.length).toBeGreaterThanOrEqual(20_000);
    expect(namesFound(yard, "zebra ledger")[0]).toBe("svc145.op12345");
    await expect(yard.callTool("svc145.op12345", { id: "x" })).resolves.toMatchObject({ status: "ok" });
  });

  it("refuses a 100 KB name with TOOL_NAME_INVALID and a message one line long", () => {
    const name = `a${"b".repeat(100_000)}.c`;
    let thrown: unknown;
    try {
      new ToolRegistry([tool("ok.tool"), { ...tool("x.y"), name } as ToolDefinition]);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(SwitchyardError);
    expect((thrown as SwitchyardError).code).toBe("TOOL_NAME_INVALID");
    expect((thrown as SwitchyardError).message.length).toBeLessThan(200);
    expect((thrown as SwitchyardError).message).toContain("100003 characters");
  });

  it("registers and finds tools with 100 KB descriptions and unicode text, and refuses non-ASCII names", () => {
    // The index reads a description's first 32 KB (MAX_INDEXED_DESCRIPTION_CHARS): the needle is in them.
    const long = `Unique needle word xylophonics. ${"Lorem ipsum dolor sit amet ".repeat(4_000)}`;
    const yard = new Switchyard({
      tools: [
        tool("docs.huge", long),
        tool("geo.lookup", "Trouve la rue: Straße, İstanbul, 東京都の住所を検索"),
        tool("misc.other"),
      ],
      typeCheck: "off",
    });
    sessions.push(yard);
    expect(namesFound(yard, "xylophonics")).toEqual(["docs.huge"]);
    expect(namesFound(yard, "straße")).toContain("geo.lookup");
    expect(() => new ToolRegistry([tool("geo.straße")])).toThrow(/may only contain letters, digits/);
  });

  it("keeps __proto__, constructor and toString as plain tool names without touching any prototype", async () => {
    const names = ["__proto__.constructor", "constructor.__proto__", "toString", "hasOwnProperty", "valueOf.then"];
    const yard = new Switchyard({ tools: names.map((name) => tool(name)), typeCheck: "off" });
    sessions.push(yard);
    for (const name of names) expect(yard.registry.snapshot().get(name)?.definition.name).toBe(name);
    expect(namesFound(yard, "proto constructor", 10)).toEqual(expect.arrayContaining(names.slice(0, 2)));
    expect(namesFound(yard, "hasOwnProperty")).toContain("hasOwnProperty");
    await expect(yard.callTool("__proto__.constructor", {})).resolves.toMatchObject({ status: "ok" });
    expect(({} as Record<string, unknown>)["constructor"]).toBe(Object);
    expect(Object.keys(Object.prototype)).toEqual([]);
  });
});

describe("Bm25Index.prepare", () => {
  it("builds scoring data at most N terms a call, and leaves every ranking as it was", () => {
    const index = new Bm25Index();
    const documents = Array.from({ length: 300 }, (_, number) => ({
      id: `t${number}`,
      namespace: `ns${number % 7}`,
      name: `create contact ${number % 11 === 0 ? "invoice" : "record"}`,
      description: `Creates item ${number} with word${number % 40} and word${number % 13}.`,
      parameterNames: "id name",
      parameterDescriptions: "The id.",
    }));
    for (const document of documents) index.add(document);
    const queries = ["create contact", "invoice word7", "word12 record"];
    const before = queries.map((query) => index.search(query, 10));
    const fresh = new Bm25Index();
    for (const document of documents) fresh.add(document);
    let calls = 0;
    while (!fresh.prepare(25)) calls += 1;
    // 300 documents hold more than 50 distinct terms: more than two calls were needed.
    expect(calls).toBeGreaterThan(2);
    expect(queries.map((query) => fresh.search(query, 10))).toEqual(before);
    expect(fresh.prepare(25)).toBe(true);
  });
});
