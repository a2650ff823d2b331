// Hybrid retrieval with an embedder made here: a bag of concepts, one dimension per concept
// (no collisions), where a few words the lexical search cannot relate share a concept. Deterministic, nothing
// downloaded; it counts every text it is asked to embed.
import { describe, expect, it } from "vitest";
import { defineTool, type ToolDefinition } from "../../src/registry/define-tool.js";
import { EmbeddingIndex, fuseByReciprocalRank } from "../../src/search/embedding-index.js";
import { splitWords } from "../../src/search/tokenize.js";
import { Switchyard } from "../../src/switchyard.js";

// Words the vocabulary table does not relate, so only the embedder can connect them.
const CONCEPTS: Record<string, string> = { zorp: "tariff", tariff: "tariff", quux: "tariff" };

function conceptEmbedder(): { embed: (texts: readonly string[]) => Promise<number[][]>; texts: string[] } {
  const texts: string[] = [];
  const dimensions = new Map<string, number>();
  return {
    texts,
    embed: async (batch) => {
      texts.push(...batch);
      return batch.map((text) => {
        const vector = new Array<number>(512).fill(0);
        for (const word of splitWords(text)) {
          const concept = CONCEPTS[word] ?? word;
          if (!dimensions.has(concept)) dimensions.set(concept, dimensions.size % 512);
          const dimension = dimensions.get(concept) as number;
          vector[dimension] = (vector[dimension] ?? 0) + 1;
        }
        return vector;
      });
    },
  };
}

function tool(name: string, description: string): ToolDefinition {
  return defineTool({
    name,
    description,
    effect: "read",
    inputSchema: { type: "object", properties: {} },
    execute: () => name,
  });
}

function catalog(): ToolDefinition[] {
  const tools = [
    tool("trade.getTariff", "Get the tariff for a product code."),
    tool("trade.listPorts", "List the ports of a country."),
    tool("crm.createContact", "Create a contact."),
  ];
  for (let index = 0; index < 20; index++) tools.push(tool(`filler.tool${index}`, `Filler number ${index}.`));
  return tools;
}

const names = (references: readonly { name: string }[]): string[] => references.map((reference) => reference.name);

describe("reciprocal rank fusion", () => {
  it("adds 1 / (k + rank) over the lists and keeps first-seen order on ties", () => {
    const fused = fuseByReciprocalRank(
      [
        ["a", "b", "c"],
        ["c", "a"],
      ],
      60,
    );
    expect(fused.map((entry) => entry.name)).toEqual(["a", "c", "b"]);
    expect(fused[0]?.score).toBeCloseTo(1 / 61 + 1 / 62);
    expect(fuseByReciprocalRank([["x"], ["y"]]).map((entry) => entry.name)).toEqual(["x", "y"]);
  });
});

describe("hybrid search in a session", () => {
  it("finds through the embedder what the words alone miss, and keeps what they find", async () => {
    const { embed } = conceptEmbedder();
    const yard = new Switchyard({ tools: catalog(), discovery: { embed, defer: true } });
    const hybrid = await yard.discovery.find("zorp", { limit: 3 });
    expect(hybrid.ok && names(hybrid.references)[0]).toBe("trade.getTariff");
    expect(yard.searchTools("zorp").ok && yard.searchTools("zorp")).toEqual({ ok: true, references: [] });
    expect(await yard.discovery.find("   ")).toEqual({ ok: true, references: [] });
    const both = await yard.discovery.find("create contact", { limit: 3 });
    expect(both.ok && names(both.references)[0]).toBe("crm.createContact");
    await yard.close();
  });

  it("embeds each tool once, each new query once, and after a catalog change only the changed tool", async () => {
    const embedder = conceptEmbedder();
    const yard = new Switchyard({ tools: catalog(), discovery: { embed: embedder.embed, defer: true } });
    const toolCount = yard.catalogStats().tools;
    await yard.discovery.find("zorp");
    expect(embedder.texts).toHaveLength(toolCount + 1);
    await yard.discovery.find("quux");
    await yard.discovery.find("zorp");
    expect(embedder.texts).toHaveLength(toolCount + 2);

    yard.registry.replaceSource("mcp:trade", [
      defineTool({ ...tool("trade2.getQuote", "Quote a tariff for a shipment."), source: "mcp:trade" }),
    ]);
    const found = await yard.discovery.find("zorp", { limit: 2 });
    expect(embedder.texts).toHaveLength(toolCount + 3);
    expect(embedder.texts.at(-1)).toContain("trade2.getQuote");
    expect(found.ok && names(found.references)).toContain("trade2.getQuote");
    await yard.close();
  });

  it("answers with the lexical ranking when the embedder fails or answers malformed vectors", async () => {
    let calls = 0;
    const failing = new Switchyard({
      tools: catalog(),
      discovery: {
        embed: async () => {
          calls += 1;
          throw new Error("embedding service down");
        },
      },
    });
    const lexical = failing.searchTools("list ports", { limit: 2 });
    expect(await failing.discovery.find("list ports", { limit: 2 })).toEqual(lexical);
    expect(failing.discovery.lastEmbeddingError?.message).toBe("embedding service down");
    // A failed request is not cached: the next search asks again.
    await failing.discovery.find("list ports", { limit: 2 });
    expect(calls).toBeGreaterThanOrEqual(2);

    const malformed = new Switchyard({ tools: catalog(), discovery: { embed: async () => [[1, 2, 3]] } });
    expect(await malformed.discovery.find("list ports", { limit: 2 })).toEqual(
      malformed.searchTools("list ports", { limit: 2 }),
    );
    expect(malformed.discovery.lastEmbeddingError?.message).toMatch(/vectors for/);
    await Promise.all([failing.close(), malformed.close()]);
  });

  it("serves tools.$search in a program and search_tools through the fused ranking", async () => {
    const { embed } = conceptEmbedder();
    const yard = new Switchyard({ tools: catalog(), discovery: { embed, defer: true } });
    const result = await yard.run(`const found = await tools.$search("zorp", { limit: 1 }); return found[0]!.name;`);
    expect(result.output).toBe("trade.getTariff");
    const answer = await yard.findAndLoad("zorp", { limit: 1 });
    expect(answer.declarations).toContain("getTariff(");
    expect(yard.discovery.loadedTools()).toContain("trade.getTariff");
    await yard.close();
  });
});

describe("EmbeddingIndex", () => {
  it("shares one embedder call between concurrent searches of a new catalog version", async () => {
    const embedder = conceptEmbedder();
    const index = new EmbeddingIndex(embedder.embed);
    const tools = [
      { name: "a.one", text: "tariff of goods" },
      { name: "a.two", text: "ports of call" },
    ];
    const [first, second] = await Promise.all([
      index.rank("zorp", () => tools, 1, 2),
      index.rank("quux", () => tools, 1, 2),
    ]);
    expect(first[0]?.name).toBe("a.one");
    expect(second[0]?.name).toBe("a.one");
    expect(embedder.texts.filter((text) => text === "tariff of goods")).toHaveLength(1);
  });
});
