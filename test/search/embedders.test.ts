// The embedder adapters: OpenAI's client against the scripted server's embeddings endpoint (a
// real HTTP server on 127.0.0.1), and the transformers.js loader's refusals (no model is ever
// downloaded; the optional package is not installed in this repository).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { SwitchyardError } from "../../src/errors.js";
import { defineTool } from "../../src/registry/define-tool.js";
import { createOpenAIEmbedder } from "../../src/search/openai-embedder.js";
import { createTransformersEmbedder } from "../../src/search/transformers-embedder.js";
import { Switchyard } from "../../src/switchyard.js";
import { type ScriptedModelServer, startScriptedModelServer } from "../../src/testing/scripted-model-server.js";

// Vectors exactly representable in float32, so the base64 round trip is exact.
const vectorOf = (text: string): number[] => [text.length, text.includes("tariff") ? 1 : 0, 0.5];

let server: ScriptedModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe("createOpenAIEmbedder", () => {
  it("embeds through the openai client in batches, in input order, with the model and dimensions asked", async () => {
    server = await startScriptedModelServer({
      script: [],
      apiKey: "sk-test",
      embed: (inputs) => inputs.map(vectorOf),
    });
    const embed = createOpenAIEmbedder({
      baseURL: server.openaiBaseURL,
      apiKey: "sk-test",
      model: "text-embedding-3-large",
      dimensions: 3,
      batchSize: 2,
    });
    const texts = ["a", "tariff bb", "ccc", "dddd", "e"];
    expect(await embed(texts)).toEqual(texts.map(vectorOf));
    const requests = server.requests.filter((request) => request.endpoint === "embeddings");
    expect(requests.map((request) => request.body.input)).toEqual([["a", "tariff bb"], ["ccc", "dddd"], ["e"]]);
    expect(requests[0]?.body).toMatchObject({ model: "text-embedding-3-large", dimensions: 3 });
    expect(requests[0]?.headers.authorization).toBe("Bearer sk-test");
    expect(server.turnRequests).toHaveLength(0);
  });

  it("rejects a short answer, and a session then falls back to the lexical ranking", async () => {
    server = await startScriptedModelServer({ script: [], embed: (inputs) => inputs.slice(1).map(vectorOf) });
    const embed = createOpenAIEmbedder({ baseURL: server.openaiBaseURL, apiKey: "sk-test", maxRetries: 0 });
    await expect(embed(["one", "two"])).rejects.toThrow(/answered 1 vectors for 2 inputs/);
    const yard = new Switchyard({
      tools: [
        defineTool({
          name: "trade.getTariff",
          description: "Get a tariff.",
          effect: "read",
          inputSchema: { type: "object" },
          execute: () => 1,
        }),
      ],
      discovery: { embed },
    });
    expect(await yard.discovery.find("tariff")).toEqual(yard.searchTools("tariff"));
    expect(yard.discovery.lastEmbeddingError?.message).toMatch(/vectors for/);
    await yard.close();
  });

  it("serves a session's hybrid search end to end", async () => {
    server = await startScriptedModelServer({ script: [], embed: (inputs) => inputs.map(vectorOf) });
    const yard = new Switchyard({
      tools: ["getTariff", "listPorts", "createQuote"].map((name) =>
        defineTool({
          name: `trade.${name}`,
          description: name === "getTariff" ? "Look up the tariff of a product." : `The ${name} tool.`,
          effect: "read",
          inputSchema: { type: "object" },
          execute: () => name,
        }),
      ),
      discovery: { embed: createOpenAIEmbedder({ baseURL: server.openaiBaseURL, apiKey: "sk-test" }) },
    });
    const found = await yard.discovery.find("tariff", { limit: 2 });
    expect(found.ok && found.references[0]?.name).toBe("trade.getTariff");
    expect(yard.discovery.lastEmbeddingError).toBeUndefined();
    await yard.close();
  });
});

describe("createTransformersEmbedder", () => {
  it("refuses a model folder that does not exist", async () => {
    const error = await createTransformersEmbedder({ modelPath: "/no/such/model" }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(SwitchyardError);
    expect((error as SwitchyardError).code).toBe("OPTION_INVALID");
  });

  it("names the missing optional package and its install command", async () => {
    const folder = mkdtempSync(join(tmpdir(), "switchyard-model-"));
    try {
      const error = await createTransformersEmbedder({ modelPath: folder }).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(SwitchyardError);
      expect((error as SwitchyardError).code).toBe("OPTIONAL_DEPENDENCY_MISSING");
      expect((error as SwitchyardError).message).toContain("npm install @huggingface/transformers");
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
