// The real-MCP-server corpus: server-everything's text-only tools (typed by observation after
// the first program), its structured tool, and server-memory's knowledge graph.

import { expect } from "vitest";
import { Switchyard } from "../../src/switchyard.js";
import { attachMcpServers, CORPUS_VARIABLE } from "./catalogs/mcp-servers.js";
import { describeCorpus } from "./corpus.js";

const sumText = (a: number, b: number): string => `The sum of ${a} and ${b} is ${a + b}.`;

describeCorpus<Record<string, never>>("MCP servers from npm (server-everything, server-memory)", {
  folder: "mcp",
  open: async () => {
    const yard = new Switchyard();
    const detach = await attachMcpServers(yard);
    return {
      yard,
      context: {},
      close: async () => {
        await detach();
        await yard.close();
      },
    };
  },
  entries: {
    "01-probe-text-tools.program.ts": {
      expected: () => ({
        echo: [{ type: "text", text: "Echo: probe" }],
        sum: [{ type: "text", text: sumText(2, 3) }],
        envKind: "object",
      }),
      check: (output, expected) => {
        const { envNames, ...rest } = output as { envNames: string[] };
        expect(rest).toEqual(expected);
        expect(envNames).toContain(CORPUS_VARIABLE.name);
        expect(envNames).toContain("PATH");
      },
    },
    "02-sum-pairs.program.ts": {
      expected: () => ({ totals: [3, 42, 0, 2.75, 3000], unparsed: [] }),
    },
    "03-env-variable.program.ts": {
      expected: () => ({ SWITCHYARD_CORPUS: CORPUS_VARIABLE.value, hasPath: true }),
    },
    "04-warmest-city.program.ts": {
      expected: () => undefined,
      check: (output) => {
        const answer = output as { warmest: string; temperature: number; all: Record<string, number> };
        const temperatures = Object.values(answer.all);
        expect(Object.keys(answer.all)).toEqual(["New York", "Chicago", "Los Angeles"]);
        expect(answer.temperature).toBe(Math.max(...temperatures));
        expect(answer.all[answer.warmest]).toBe(answer.temperature);
      },
    },
    "05-build-service-graph.program.ts": {
      expected: () => ({ created: 5, linked: 5, entities: 5, relations: 5 }),
    },
    "06-who-depends-on-db.program.ts": {
      expected: () => ({ direct: ["api", "auth", "worker"], all: ["api", "auth", "worker"] }),
    },
    "07-add-observations.program.ts": {
      expected: () => ({
        added: [
          { entity: "api", count: 1 },
          { entity: "worker", count: 1 },
          { entity: "db", count: 1 },
        ],
        observations: {
          api: ["owned by platform", "runs on kubernetes"],
          db: ["owned by platform", "backed up nightly"],
          worker: ["owned by platform", "runs on kubernetes"],
        },
      }),
    },
    "08-search-kubernetes.program.ts": {
      expected: () => ({
        services: ["api", "worker"],
        dependencies: { api: ["auth", "db"], worker: ["db", "queue"] },
      }),
    },
    "09-retire-queue.program.ts": {
      expected: () => ({
        deleted: true,
        relationsBefore: 1,
        stillThere: false,
        dangling: 0,
        services: ["api", "auth", "db", "worker"],
      }),
    },
    "10-resource-links.program.ts": {
      expected: () => ({
        links: [
          { name: "Blob Resource 1", mimeType: "text/plain" },
          { name: "Text Resource 2", mimeType: "text/plain" },
          { name: "Blob Resource 3", mimeType: "text/plain" },
          { name: "Text Resource 4", mimeType: "text/plain" },
        ],
        intro: "Here are 4 resource links to resources available in this server:",
      }),
    },
    "11-tiny-image.program.ts": {
      expected: () => ["text", "image", "text"],
      check: (output, blocks) => {
        const answer = output as { blocks: string[]; images: { mimeType: string; bytes: number }[] };
        expect(answer.blocks).toEqual(blocks);
        expect(answer.images).toEqual([{ mimeType: "image/png", bytes: expect.any(Number) }]);
        expect(answer.images[0]!.bytes).toBeGreaterThan(100);
      },
    },
    "12-sums-into-memory.program.ts": {
      expected: () => ({ stored: [sumText(17, 25), sumText(100, 23)], entityType: "note" }),
    },
    "13-annotated-messages.program.ts": {
      expected: () => ({
        error: ["Error: Operation failed"],
        success: ["Operation completed successfully"],
        debug: ["Debug: Cache hit ratio 0.95, latency 150ms"],
      }),
    },
  },
});
