// The census: every string a model can receive from a session, walked after tools returned and
// threw canaries in every place a tool can put them (keys and values, nested, a ToolError's
// message and details, an error long enough to be cut), as credential formats the default rules
// know and as known secrets registered with the redactor (also base64 wrapped at 76 columns and
// URL-encoded with lower-case hex). Surfaces: RunResult (output, logs, error, warnings,
// diagnostics, calls), check(), declarations(), run_program, the gateway's tools/list,
// describe_tools, run_program and call_tool answers, an agent's request bodies to the scripted
// model server, the observed-types file, the trace and the timeline page. Nothing passes.

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runAgent } from "../../src/agent/run-agent.js";
import { ToolError } from "../../src/errors.js";
import { createGatewayServer } from "../../src/gateway/gateway-server.js";
import { defineTool } from "../../src/registry/define-tool.js";
import { Switchyard } from "../../src/switchyard.js";
import { buildTimeline } from "../../src/timeline/build-timeline.js";
import { renderTimelinePage } from "../../src/timeline/render-timeline-page.js";
import type { TraceEvent } from "../../src/trace/trace-events.js";
import { adapterFor, startServer } from "../agent/agent-fixtures.js";
import { tempFolder } from "../helpers/mcp-servers.js";
import { createCanaries } from "./canaries.js";

const canaries = createCanaries(31);
/** Canaries a format gives away alone: they may stand anywhere, as keys too. */
const standalone = canaries.filter((canary) => canary.standalone && canary.kind !== "private-key");
/** Known secrets of the session: registered with the redactor, no format of their own. */
const KNOWN = ["census-Known/Value+2026=ok?", "plain known secret 9f8e7d6c5b4a"];
const LONG_TOKEN = standalone.find((canary) => canary.kind === "github-token")!.secret;

/** Every value whose characters must not reach a model (the private key by its body lines). */
const forbidden: string[] = [
  ...canaries.filter((canary) => canary.kind !== "private-key").map((canary) => canary.secret),
  ...canaries
    .filter((canary) => canary.kind === "private-key")
    .flatMap((canary) => canary.secret.split("\n").filter((line) => line !== "" && !line.startsWith("-----"))),
  ...KNOWN,
];

/**
 * What of the forbidden values occurs in `text`: each whole, and each 14-character window of its
 * random part (past a fixed prefix such as `sk-proj-`), so the head of a token cut in two counts.
 */
function leaks(text: string): string[] {
  const found: string[] = [];
  for (const secret of forbidden) {
    if (text.includes(secret)) {
      found.push(secret);
      continue;
    }
    // The Slack webhook's first 33 characters are the service's URL, and a known secret's words are plain text.
    if (secret.startsWith("https://") || KNOWN.includes(secret)) continue;
    for (let start = 12; start + 14 <= secret.length; start++) {
      if (text.includes(secret.slice(start, start + 14))) {
        found.push(`${secret} (characters ${start}-${start + 14})`);
        break;
      }
    }
  }
  return found;
}

/** Known secrets in the forms a transport writes them, which the README promises are found. */
function knownForms(value: string): string[] {
  const wrapped = Buffer.from(`user=alice;token=${value};scope=all`.repeat(3))
    .toString("base64")
    .match(/.{1,76}/g)!
    .join("\n");
  const lowerUrl = encodeURIComponent(value).replace(/%[0-9A-F]{2}/g, (hex) => hex.toLowerCase());
  return [value, wrapped, `https://api.example.net/v1?token=${lowerUrl}&page=2`];
}

/** A result with canaries in every place: keys and values, nested, in arrays; `round` 2 changes the key types. */
function vaultResult(round: number): Record<string, unknown> {
  const keyed = (value: unknown) =>
    Object.fromEntries([...standalone.map((canary) => canary.secret), ...KNOWN].map((key) => [key, value]));
  return {
    lines: canaries.map((canary) => canary.text),
    known: KNOWN.flatMap(knownForms),
    byToken: keyed(round === 1 ? "a" : 5),
    [KNOWN[0]!]: { [standalone[0]!.secret]: { deeper: [{ [KNOWN[1]!]: standalone[1]!.secret }] } },
    nested: { level: { list: [{ token: standalone[2]!.secret, note: canaries.at(-1)!.text }] } },
  };
}

const failMessage = (): string =>
  `login refused: ${canaries.map((canary) => canary.text).join("; ")}; ${KNOWN.join(" ")}`;

function vaultTools() {
  return [
    defineTool({
      name: "vault.dump",
      description: "Dumps the vault.",
      effect: "read",
      inputSchema: { type: "object", properties: { round: { type: "number" } }, required: ["round"] },
      execute: (input: { round: number }) => vaultResult(input.round),
    }),
    defineTool({
      name: "vault.fail",
      description: "Fails, quoting credentials.",
      effect: "read",
      inputSchema: { type: "object", properties: { how: { type: "string" } }, required: ["how"] },
      execute: (input: { how: string }) => {
        if (input.how === "long")
          throw new Error(`${"request failed, retrying. ".repeat(75)}token ${LONG_TOKEN} ${"x".repeat(200)}`);
        if (input.how === "plain") throw new Error(failMessage());
        throw new ToolError(failMessage(), {
          code: "VAULT_LOCKED",
          details: { [standalone[3]!.secret]: KNOWN, lines: canaries.map((canary) => canary.text) },
        });
      },
    }),
  ];
}

/** A program that moves every canary to where a model reads it: output, logs, errors, key names. */
const PROGRAM = `
  const first: any = await tools.vault.dump({ round: 1 });
  const second = await tools.vault.dump({ round: 2 });
  for (const line of first.lines) console.log(line);
  console.log(JSON.stringify(first).slice(0, 3000));
  const errors: unknown[] = [];
  for (const how of ["typed", "plain", "long"]) {
    try { await tools.vault.fail({ how }); } catch (error) { errors.push(error instanceof Error ? error.message : error); }
  }
  try { await tools.vault.fail({ how: "typed" }); } catch (error) { errors.push((error as { details?: unknown }).details); }
  return { first, second, keys: Object.keys(first.byToken), errors };
`;

describe("redaction census: no canary reaches any string a model can receive", () => {
  const folder = tempFolder("redaction-census");
  const observedFile = join(folder.path, "observed.json");
  const events: TraceEvent[] = [];
  let yard: Switchyard;
  /** Every model-facing text collected, by surface. */
  const surfaces = new Map<string, string>();
  const collect = (surface: string, value: unknown): void => {
    const text = typeof value === "string" ? value : JSON.stringify(value);
    surfaces.set(surface, `${surfaces.get(surface) ?? ""}\n${text}`);
  };

  beforeAll(async () => {
    yard = new Switchyard({
      tools: vaultTools(),
      observedTypes: { file: observedFile },
      redaction: { secrets: KNOWN.map((value, index) => ({ value, kind: `env:KNOWN_${index}` })) },
    });
    yard.trace.subscribe((event) => events.push(event));

    // Runs: one that teaches the observed type, one that moves everything (its second result drifts),
    // one that fails uncaught with a long error, one refused by the type check.
    collect("RunResult", await yard.run("await tools.vault.dump({ round: 1 }); return 0;"));
    const moved = await yard.run(PROGRAM);
    expect(moved.ok, JSON.stringify(moved.error)).toBe(true);
    expect(moved.warnings.some((warning) => warning.code === "output-drift")).toBe(true);
    collect("RunResult", moved);
    const uncaught = await yard.run('await tools.vault.fail({ how: "long" }); return 1;');
    expect(uncaught.error?.code).toBe("RUNTIME_ERROR");
    collect("RunResult", uncaught);
    const uncaughtTyped = await yard.run('await tools.vault.fail({ how: "typed" }); return 1;');
    collect("RunResult", uncaughtTyped);
    const misuse = "const r = await tools.vault.dump({ round: 1 }); const n: number = r.byToken; return n;";
    const refused = await yard.run(misuse);
    expect(refused.error?.code).toBe("TYPE_ERROR");
    collect("RunResult", refused);
    const checked = await yard.check(misuse);
    expect(checked.error?.diagnostics?.length).toBeGreaterThan(0);
    collect("check()", checked);
    const warned = new Switchyard({
      tools: vaultTools(),
      typeCheck: "warn",
      redaction: { secrets: KNOWN },
    });
    try {
      await warned.run("return await tools.vault.dump({ round: 1 });");
      const warning = await warned.run(misuse);
      expect(warning.warnings.length).toBeGreaterThan(0);
      collect("RunResult", warning);
      collect("check()", await warned.check(misuse));
    } finally {
      await warned.close();
    }

    // Direct calls, as a model's tool calls.
    for (const input of [{ round: 1 }, { round: 2 }]) collect("callTool", await yard.callTool("vault.dump", input));
    for (const how of ["typed", "plain", "long"]) collect("callTool", await yard.callTool("vault.fail", { how }));

    collect("declarations()", yard.declarations());
    collect("run_program", yard.programTool());
    await yard.observedTypes?.save();
    collect("observed-types file", readFileSync(observedFile, "utf8"));
  }, 120_000);

  afterAll(async () => {
    await yard?.close();
    folder.remove();
  });

  it("answers the gateway's tools/list, describe_tools, run_program and call_tool without a canary", async () => {
    const gateway = createGatewayServer(yard, { enableCallTool: true });
    const client = new Client({ name: "census", version: "1.0.0" });
    const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
    await gateway.server.connect(serverTransport);
    await client.connect(clientTransport);
    try {
      const listed = await client.listTools();
      expect(listed.tools.map((tool) => tool.name)).toContain("describe_tools");
      collect("gateway tools/list", listed);
      const described = await client.callTool({ name: "describe_tools", arguments: { names: ["vault.dump"] } });
      expect(JSON.stringify(described)).toContain("VaultDumpObserved");
      collect("gateway describe_tools", described);
      collect("gateway run_program", await client.callTool({ name: "run_program", arguments: { code: PROGRAM } }));
      for (const how of ["typed", "long"]) {
        collect(
          "gateway call_tool",
          await client.callTool({ name: "call_tool", arguments: { name: "vault.fail", input: { how } } }),
        );
      }
      collect(
        "gateway call_tool",
        await client.callTool({ name: "call_tool", arguments: { name: "vault.dump", input: { round: 1 } } }),
      );
    } finally {
      await client.close();
      await gateway.close();
    }
    expect(leaks(surfaces.get("gateway tools/list")!)).toEqual([]);
    expect(leaks(surfaces.get("gateway describe_tools")!)).toEqual([]);
    expect(leaks(surfaces.get("gateway run_program")!)).toEqual([]);
    expect(leaks(surfaces.get("gateway call_tool")!)).toEqual([]);
  });

  it("sends an agent's model no canary, in programmatic and direct mode", async () => {
    for (const mode of ["programmatic", "direct"] as const) {
      const server = await startServer({
        script:
          mode === "programmatic"
            ? [
                { content: [{ type: "tool_use", id: "call_run", name: "run_program", input: { code: PROGRAM } }] },
                { content: [{ type: "text", text: "Done." }], stopReason: "end_turn" },
              ]
            : [
                {
                  content: [
                    { type: "tool_use", id: "call_dump", name: "vault__dump", input: { round: 2 } },
                    { type: "tool_use", id: "call_fail", name: "vault__fail", input: { how: "long" } },
                  ],
                },
                { content: [{ type: "text", text: "Done." }], stopReason: "end_turn" },
              ],
      });
      const result = await runAgent({ yard, model: adapterFor(server, "anthropic"), task: "Read the vault.", mode });
      expect(result.status).toBe("completed");
      expect(server.requests.length).toBeGreaterThanOrEqual(2);
      collect(
        `agent request bodies (${mode})`,
        server.requests.map((request) => request.body),
      );
      expect(leaks(surfaces.get(`agent request bodies (${mode})`)!)).toEqual([]);
    }
  });

  it("leaves no canary in RunResult, check(), direct results, declarations, run_program or the observed-types file", () => {
    for (const surface of [
      "RunResult",
      "check()",
      "callTool",
      "declarations()",
      "run_program",
      "observed-types file",
    ]) {
      const text = surfaces.get(surface)!;
      expect(leaks(text), surface).toEqual([]);
    }
    // Where values travel they are replaced; where only shapes travel, the shape is there without the keys.
    expect(surfaces.get("RunResult")).toContain("[REDACTED:");
    expect(surfaces.get("callTool")).toContain("[REDACTED:");
    for (const surface of ["declarations()", "run_program", "observed-types file"]) {
      expect(surfaces.get(surface), surface).toMatch(/VaultDumpObserved|"vault\.dump"/);
    }
    // The redactions are real: every kind of canary was replaced somewhere.
    const all = [...surfaces.values()].join("\n");
    for (const kind of new Set(canaries.map((canary) => canary.kind))) expect(all).toContain(`[REDACTED:${kind}]`);
    expect(all).toContain("[REDACTED:env:KNOWN_0]");
    expect(all).toContain("[REDACTED:env:KNOWN_1]");
  });

  it("leaves no canary in the trace or the timeline page built from it", async () => {
    expect(events.some((event) => event.type === "redaction")).toBe(true);
    expect(leaks(JSON.stringify(events))).toEqual([]);
    const data = buildTimeline(events);
    expect(leaks(JSON.stringify(data))).toEqual([]);
    const page = await renderTimelinePage(data);
    expect(leaks(page)).toEqual([]);
  });
});
