import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { CONFIG_SCHEMA } from "../../src/config/config-schema.js";
import { loadConfig, resolveConfig } from "../../src/config/load-config.js";
import { SwitchyardError } from "../../src/errors.js";
import { tempFolder } from "../helpers/mcp-servers.js";

const temp = tempFolder("config");
afterAll(() => temp.remove());

function writeConfig(name: string, value: unknown): string {
  const path = join(temp.path, name);
  writeFileSync(path, typeof value === "string" ? value : JSON.stringify(value, null, 2));
  return path;
}

async function configError(value: unknown): Promise<SwitchyardError> {
  const error = await loadConfig(writeConfig(`bad-${Math.random().toString(36).slice(2)}.json`, value)).then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(SwitchyardError);
  expect((error as SwitchyardError).code).toBe("CONFIG_INVALID");
  return error as SwitchyardError;
}

describe("loadConfig", () => {
  it("loads a valid config and resolves its paths against the config file's folder", async () => {
    mkdirSync(join(temp.path, "project"), { recursive: true });
    const path = writeConfig("project/switchyard.config.json", {
      $schema: "../switchyard.config.schema.json",
      tools: ["./tools/orders.ts", "tools/more.js", "some-package"],
      mcpServers: {
        memory: { command: "node", args: ["server.js"], env: { MEMORY_FILE_PATH: "/tmp/x" } },
        remote: { url: "http://127.0.0.1:9/mcp", headers: { authorization: "Bearer t" }, callTimeoutMs: 5000 },
      },
      limits: { wallTimeMs: 5000, maxToolCalls: 50 },
      permissions: { default: "ask", rules: [{ tools: ["memory.*"], decision: "allow", reason: "local graph" }] },
      workspace: "work",
      shell: { enabled: true, timeoutMs: 2000, network: "host", readOnlyPaths: ["tools"], limits: { cpuSeconds: 5 } },
      http: { enabled: true, allowHosts: ["api.example.com"] },
      spill: ".switchyard/spill",
      typeCheck: "warn",
      discovery: { defer: "auto", alwaysLoaded: ["memory.*"] },
    });
    const config = await loadConfig(path);
    const base = join(temp.path, "project");
    expect(config.baseDir).toBe(base);
    expect(config.configPath).toBe(path);
    expect(config.tools).toEqual([join(base, "tools/orders.ts"), join(base, "tools/more.js"), "some-package"]);
    expect(config.workspace).toBe(join(base, "work"));
    expect(config.spill).toBe(join(base, ".switchyard/spill"));
    expect(config.shell).toEqual({
      enabled: true,
      timeoutMs: 2000,
      network: "host",
      readOnlyPaths: [join(base, "tools")],
      limits: { cpuSeconds: 5 },
    });
    expect(config.mcpServers?.["memory"]).toMatchObject({ command: "node", cwd: base });
    expect(config.mcpServers?.["remote"]).toEqual({
      url: "http://127.0.0.1:9/mcp",
      headers: { authorization: "Bearer t" },
      callTimeoutMs: 5000,
    });
    expect(config.limits).toEqual({ wallTimeMs: 5000, maxToolCalls: 50 });
  });

  it("points at the bad key: a wrong type inside an MCP server entry", async () => {
    const error = await configError({ mcpServers: { memory: { command: 3 } } });
    expect(error.message).toContain("/mcpServers/memory/command: expected type string, received number 3");
    expect(error.message).not.toMatch(/must match "(then|else)"/);
  });

  it("points at a misspelled key, a missing command, a bad URL entry and a bad decision", async () => {
    const error = await configError({
      mcpServers: { fs: { comand: "node" }, remote: { url: 42 } },
      permissions: { rules: [{ tools: "shell.run", decision: "maybe" }] },
      limits: { wallTimeMs: -1, speed: 3 },
    });
    expect(error.message).toContain('/mcpServers/fs/comand: unknown key; did you mean "command"?');
    expect(error.message).toContain("/mcpServers/fs/command: expected a required property, received missing");
    expect(error.message).toContain("/mcpServers/remote/url: expected type string");
    expect(error.message).toContain(
      '/permissions/rules/0/decision: expected one of "allow", "ask", "deny", received "maybe"',
    );
    expect(error.message).toContain("/limits/wallTimeMs");
    expect(error.message).toContain("/limits/speed: unknown key; the keys here are");
    expect(error.message).not.toContain("\n");
  });

  it("refuses a namespace a program could not call, the shell without a workspace, and http without hosts", async () => {
    expect((await configError({ mcpServers: { "my server": { command: "x" } } })).message).toContain("/mcpServers");
    expect((await configError({ shell: { enabled: true } })).message).toContain("/shell/enabled");
    expect((await configError({ http: { enabled: true } })).message).toContain("/http/allowHosts");
  });

  it("reports a missing file and a file that is not JSON", async () => {
    await expect(loadConfig(join(temp.path, "nope.json"))).rejects.toMatchObject({
      code: "CONFIG_INVALID",
      message: expect.stringMatching(/Could not read/),
    });
    expect((await configError("{ not json")).message).toMatch(/not valid JSON: .* at line 1, column 3\.$/);
    expect((await configError('{\n  "tools": [\n')).message).toMatch(/not valid JSON: .* at line 3, column 1\.$/);
  });

  it("validates config objects built in code the same way", () => {
    expect(() => resolveConfig({ typeCheck: "sometimes" }, { baseDir: temp.path })).toThrow(
      /\/typeCheck: expected one of "error", "warn", "off"/,
    );
    expect(resolveConfig({}, { baseDir: temp.path })).toMatchObject({ baseDir: temp.path, configPath: undefined });
  });

  it("resolves observedTypes.file against the config's folder, and takes false", () => {
    const base = join(temp.path, "observed");
    expect(
      resolveConfig({ observedTypes: { file: ".switchyard/types.json" } }, { baseDir: base }).observedTypes,
    ).toEqual({ file: join(base, ".switchyard/types.json") });
    expect(resolveConfig({ observedTypes: false }, { baseDir: base }).observedTypes).toBe(false);
    expect(() => resolveConfig({ observedTypes: { file: 3 } }, { baseDir: base })).toThrow(/observedTypes/);
    expect(() => resolveConfig({ observedTypes: true }, { baseDir: base })).toThrow(/observedTypes/);
  });

  it("publishes exactly CONFIG_SCHEMA as switchyard.config.schema.json at the repository root", () => {
    const published = JSON.parse(
      readFileSync(fileURLToPath(new URL("../../switchyard.config.schema.json", import.meta.url)), "utf8"),
    ) as unknown;
    // Regenerate with: node --import tsx -e 'import("./src/config/config-schema.ts").then(({ CONFIG_SCHEMA }) => require("node:fs").writeFileSync("switchyard.config.schema.json", JSON.stringify(CONFIG_SCHEMA, null, 2) + "\n"))'
    expect(published).toEqual(CONFIG_SCHEMA);
    expect(CONFIG_SCHEMA.$schema).toBe("https://json-schema.org/draft/2020-12/schema");
  });
});

describe("placeholders in MCP server settings", () => {
  it("expands ${configDir} and ${env:NAME} in commands, args, env, urls and headers", () => {
    process.env["SWITCHYARD_TEST_TOKEN"] = "secret-token";
    const config = resolveConfig(
      {
        mcpServers: {
          local: {
            command: "${configDir}/bin/server",
            args: ["--data", "${configDir}/data"],
            env: { TOKEN: "${env:SWITCHYARD_TEST_TOKEN}" },
          },
          remote: {
            url: "https://example.test/${env:SWITCHYARD_TEST_TOKEN}",
            headers: { Authorization: "Bearer ${env:SWITCHYARD_TEST_TOKEN}" },
          },
        },
      },
      { baseDir: "/srv/app" },
    );
    expect(config.mcpServers!["local"]).toMatchObject({
      command: "/srv/app/bin/server",
      args: ["--data", "/srv/app/data"],
      env: { TOKEN: "secret-token" },
    });
    expect(config.mcpServers!["remote"]).toMatchObject({
      url: "https://example.test/secret-token",
      headers: { Authorization: "Bearer secret-token" },
    });
  });

  it("refuses an unset variable, naming the key", () => {
    delete process.env["SWITCHYARD_TEST_MISSING"];
    expect(() =>
      resolveConfig(
        { mcpServers: { local: { command: "node", env: { KEY: "${env:SWITCHYARD_TEST_MISSING}" } } } },
        { baseDir: "/srv/app" },
      ),
    ).toThrow(/\/mcpServers\/local\/env\/KEY: the environment variable SWITCHYARD_TEST_MISSING is not set/);
  });
});
