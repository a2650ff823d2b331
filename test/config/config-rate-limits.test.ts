// `rateLimits` in a config holds in one process, without Redis: a program's parallel calls to a
// limited tool start no faster than the limit, and the waits show as queued time on the records.

import { describe, expect, it } from "vitest";
import { createSwitchyardFromConfig } from "../../src/config/create-switchyard-from-config.js";
import { resolveConfig } from "../../src/config/load-config.js";
import { defineTool } from "../../src/registry/define-tool.js";

function stampedTool(starts: number[]) {
  return defineTool({
    name: "api.ping",
    description: "Records when it started.",
    effect: "read",
    inputSchema: { type: "object", properties: { n: { type: "number" } } },
    execute: () => {
      starts.push(Date.now());
      return "pong";
    },
  });
}

describe("rateLimits in a config", () => {
  it("spaces a program's parallel calls to the limit, with the waits as queued time", async () => {
    const starts: number[] = [];
    const config = resolveConfig(
      { rateLimits: [{ tools: "api.*", limit: 2, windowMs: 300 }], typeCheck: "off" },
      {
        baseDir: process.cwd(),
      },
    );
    const { yard, close } = await createSwitchyardFromConfig(config, { tools: [stampedTool(starts)] });
    try {
      const result = await yard.run("return await Promise.all([1, 2, 3, 4, 5, 6].map((n) => tools.api.ping({ n })));");
      expect(result.ok).toBe(true);
      expect(starts).toHaveLength(6);
      const sorted = [...starts].sort((a, b) => a - b);
      // Any two starts two apart in order are a window apart, so no window holds three. Slots are
      // exact; a tool starts a few ms after its slot when the event loop is busy, hence the slack.
      for (let index = 2; index < sorted.length; index++) {
        expect(sorted[index]! - sorted[index - 2]!).toBeGreaterThanOrEqual(300 - 25);
      }
      expect(sorted.at(-1)! - sorted[0]!).toBeGreaterThanOrEqual(600 - 25);
      const queued = result.calls.filter((call) => (call.queuedMs ?? 0) >= 250);
      expect(queued.length).toBeGreaterThanOrEqual(4);
    } finally {
      await close();
    }
  });

  it("refuses a rule without a limit, naming the key", () => {
    expect(() => resolveConfig({ rateLimits: [{ tools: "api.*" }] }, { baseDir: process.cwd() })).toThrow(
      /\/rateLimits\/0.*limit/,
    );
    expect(() => resolveConfig({ rateLimits: [{ tools: "api.*", limit: 0 }] }, { baseDir: process.cwd() })).toThrow(
      /\/rateLimits\/0\/limit/,
    );
  });
});
