// runAgent through the real SDK clients against the local scripted model server: whatever the
// tools return, print or throw, no canary secret appears in any request body the model
// provider would receive, in direct and in programmatic mode; the tools still got whole values.

import { describe, expect, it } from "vitest";
import { runAgent } from "../../src/agent/run-agent.js";
import { defineTool } from "../../src/registry/define-tool.js";
import { Switchyard } from "../../src/switchyard.js";
import { createCanaries, leakedSecrets } from "../redaction/canaries.js";
import { adapterFor, startServer, type ProviderKind } from "./agent-fixtures.js";

const canaries = createCanaries();

function vaultYard(): { yard: Switchyard; checked: string[] } {
  const checked: string[] = [];
  const yard = new Switchyard({
    typeCheck: "off",
    tools: [
      defineTool({
        name: "vault.read",
        description: "Reads the credentials file.",
        effect: "read",
        inputSchema: { type: "object", properties: {}, additionalProperties: false },
        execute: () => ({
          lines: canaries.map((canary) => canary.text),
          secrets: canaries.filter((canary) => canary.standalone).map((canary) => canary.secret),
        }),
      }),
      defineTool({
        name: "vault.check",
        description: "Checks a credential.",
        effect: "read",
        inputSchema: {
          type: "object",
          properties: { value: { type: "string" } },
          required: ["value"],
          additionalProperties: false,
        },
        execute: (input: { value: string }) => {
          checked.push(input.value);
          if (!canaries.some((canary) => canary.secret === input.value)) throw new Error("not a known credential");
          return { whole: true };
        },
      }),
      defineTool({
        name: "vault.login",
        description: "Logs in; fails with the credentials in its message.",
        effect: "read",
        inputSchema: { type: "object", properties: {}, additionalProperties: false },
        execute: () => {
          throw new Error(`login refused for ${canaries.map((canary) => canary.text).join("; ")}`);
        },
      }),
    ],
  });
  return { yard, checked };
}

const PROGRAM = `
  const { lines, secrets } = await tools.vault.read({});
  let whole = 0;
  for (const value of secrets) if ((await tools.vault.check({ value })).whole) whole++;
  for (const line of lines) console.log(line);
  let refused = "";
  try { await tools.vault.login({}); } catch (error) { refused = error.message; }
  if (whole === 0) throw new Error("nothing arrived whole: " + lines.join(" "));
  return { whole, lines, refused };
`;

describe.each<ProviderKind>(["anthropic", "openai"])("runAgent redaction (%s)", (provider) => {
  it("direct mode: results and errors of tool calls reach the model redacted", async () => {
    const server = await startServer({
      script: [
        {
          content: [
            { type: "tool_use", id: "call_read", name: "vault__read", input: {} },
            { type: "tool_use", id: "call_login", name: "vault__login", input: {} },
          ],
        },
        { content: [{ type: "text", text: "Done." }], stopReason: "end_turn" },
      ],
    });
    const { yard } = vaultYard();
    try {
      const result = await runAgent({
        yard,
        model: adapterFor(server, provider),
        task: "Read the vault.",
        mode: "direct",
      });
      expect(result.status).toBe("completed");
      const bodies = JSON.stringify(server.requests.map((request) => request.body));
      expect(bodies).toContain("[REDACTED:github-token]");
      expect(bodies).toContain("[REDACTED:aws-secret-access-key]");
      expect(leakedSecrets(bodies, canaries)).toEqual([]);
    } finally {
      await yard.close();
    }
  });

  it("programmatic mode: the program's output, logs and caught errors reach the model redacted, its calls got whole values", async () => {
    const server = await startServer({
      script: [
        { content: [{ type: "tool_use", id: "call_run", name: "run_program", input: { code: PROGRAM } }] },
        { content: [{ type: "text", text: "Done." }], stopReason: "end_turn" },
      ],
    });
    const { yard, checked } = vaultYard();
    try {
      const result = await runAgent({
        yard,
        model: adapterFor(server, provider, true),
        task: "Check the vault.",
        mode: "programmatic",
      });
      expect(result.status).toBe("completed");
      expect(result.runs[0]?.ok, result.runs[0]?.error?.message).toBe(true);
      const standalone = canaries.filter((canary) => canary.standalone).map((canary) => canary.secret);
      expect(checked).toEqual(standalone);
      expect(result.runs[0]?.output).toMatchObject({ whole: standalone.length });
      const bodies = JSON.stringify(server.requests.map((request) => request.body));
      expect(bodies).toContain("[REDACTED:private-key]");
      expect(leakedSecrets(bodies, canaries)).toEqual([]);
      expect(leakedSecrets(JSON.stringify(result.messages), canaries)).toEqual([]);
    } finally {
      await yard.close();
    }
  });
});
