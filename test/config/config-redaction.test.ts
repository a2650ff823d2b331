import { afterEach, describe, expect, it } from "vitest";
import { createSwitchyardFromConfig } from "../../src/config/create-switchyard-from-config.js";
import { resolveConfig } from "../../src/config/load-config.js";
import { SwitchyardError } from "../../src/errors.js";
import { defineTool } from "../../src/registry/define-tool.js";

const TOKEN = "crm-token-5f2c9e81";

afterEach(() => {
  delete process.env["SWITCHYARD_TEST_CRM_TOKEN"];
  delete process.env["SWITCHYARD_TEST_PORT"];
  delete process.env["SWITCHYARD_TEST_DB_PASSWORD"];
});

/** A tool that tells what the CRM server was started with: the very leak the redaction is for. */
const leaky = defineTool({
  name: "crm.whoami",
  description: "Echoes the CRM connection.",
  effect: "read",
  inputSchema: { type: "object", properties: {}, additionalProperties: false },
  execute: () => ({
    header: `x-crm: ${TOKEN}`,
    query: `?token=${encodeURIComponent(TOKEN)}`,
    db: "hunter2-db-pass",
  }),
});

function configWithToken(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    mcpServers: {
      crm: {
        url: "https://crm.example.test/mcp",
        headers: { Authorization: "Bearer ${env:SWITCHYARD_TEST_CRM_TOKEN}", "X-Port": "${env:SWITCHYARD_TEST_PORT}" },
      },
    },
    ...extra,
  };
}

describe("redaction in the config", () => {
  it("collects the values of ${env:NAME} placeholders of 8 characters and more, by name", () => {
    process.env["SWITCHYARD_TEST_CRM_TOKEN"] = TOKEN;
    process.env["SWITCHYARD_TEST_PORT"] = "8080";
    const config = resolveConfig(configWithToken(), { baseDir: "/srv/app" });
    expect(config.environmentSecrets).toEqual([{ name: "SWITCHYARD_TEST_CRM_TOKEN", value: TOKEN }]);
  });

  it("expands placeholders in redaction.secrets and refuses one that is too short once expanded", () => {
    process.env["SWITCHYARD_TEST_DB_PASSWORD"] = "hunter2-db-pass";
    const config = resolveConfig(
      { redaction: { secrets: ["${env:SWITCHYARD_TEST_DB_PASSWORD}", "literal-secret"] } },
      { baseDir: "/srv/app" },
    );
    expect(config.redaction).toEqual({ secrets: ["hunter2-db-pass", "literal-secret"] });
    process.env["SWITCHYARD_TEST_PORT"] = "80";
    expect(() =>
      resolveConfig({ redaction: { secrets: ["${env:SWITCHYARD_TEST_PORT}"] } }, { baseDir: "/srv/app" }),
    ).toThrow(/\/redaction\/secrets\/0: a secret must be at least 4 characters/);
  });

  it("validates the redaction key against the schema", () => {
    for (const bad of [
      { redaction: true },
      { redaction: { secrets: ["abc"] } },
      { redaction: { patterns: [{ pattern: "x", kind: "no spaces" }] } },
      { redaction: { unknown: 1 } },
    ]) {
      expect(() => resolveConfig(bad, { baseDir: "/srv/app" }), JSON.stringify(bad)).toThrow(SwitchyardError);
    }
    expect(resolveConfig({ redaction: false }, { baseDir: "/srv/app" }).redaction).toBe(false);
  });

  it("builds a session that redacts the config's env values (as env:NAME) and its listed secrets", async () => {
    process.env["SWITCHYARD_TEST_CRM_TOKEN"] = TOKEN;
    // Placeholders in redaction.secrets count as the config's env values too; no server needs starting.
    const config = resolveConfig(
      { redaction: { secrets: ["${env:SWITCHYARD_TEST_CRM_TOKEN}", "hunter2-db-pass"] } },
      { baseDir: "/srv/app" },
    );
    const session = await createSwitchyardFromConfig(config, { tools: [leaky] });
    try {
      const outcome = await session.yard.callTool("crm.whoami", {});
      expect(outcome).toMatchObject({
        status: "ok",
        value: {
          header: "x-crm: [REDACTED:env:SWITCHYARD_TEST_CRM_TOKEN]",
          query: "?token=[REDACTED:env:SWITCHYARD_TEST_CRM_TOKEN]",
          db: "[REDACTED:secret]",
        },
        redactions: { "env:SWITCHYARD_TEST_CRM_TOKEN": 2, secret: 1 },
      });
    } finally {
      await session.close();
    }
  });

  it("builds a session without redaction for redaction: false", async () => {
    const config = resolveConfig({ redaction: false }, { baseDir: "/srv/app" });
    const session = await createSwitchyardFromConfig(
      { ...config, environmentSecrets: [{ name: "SWITCHYARD_TEST_CRM_TOKEN", value: TOKEN }] },
      { tools: [leaky] },
    );
    try {
      const outcome = await session.yard.callTool("crm.whoami", {});
      expect(JSON.stringify(outcome)).toContain(TOKEN);
      expect(outcome.redactions).toBeUndefined();
    } finally {
      await session.close();
    }
  });
});
