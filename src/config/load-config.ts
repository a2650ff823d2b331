// Reads `switchyard.config.json`, validates it against CONFIG_SCHEMA, and resolves its paths
// against the config file's folder. Every problem is a SwitchyardError("CONFIG_INVALID") whose
// message points at the bad key (`/mcpServers/memory/command: expected type string, ...`).
// It starts nothing: `createSwitchyardFromConfig` does that.

import { readFile } from "node:fs/promises";
import { dirname, isAbsolute, resolve } from "node:path";
import type { JsonSchema } from "../contract.js";
import { SwitchyardError, messageOf } from "../errors.js";
import type { PermissionDecision } from "../permissions/permission-gate.js";
import type { McpRestartOptions } from "../sources/mcp/mcp-source.js";
import type { ShellLimits, ShellNetwork } from "../builtins/shell-sandbox.js";
import type { RunLimits } from "../sandbox/run-program.js";
import type { RateLimitRule } from "../scheduler/rate-limiter.js";
import type { RunQueueOptions } from "../sandbox/run-queue.js";
import { compileSchema, type CompiledValidator } from "../schema/schema-validator.js";
import type { TypeCheckMode } from "../execute-program.js";
import { CONFIG_SCHEMA } from "./config-schema.js";
import { describeConfigViolations } from "./describe-config-violations.js";
import { jsonSyntaxProblem } from "./json-syntax-problem.js";

interface McpServerCommon {
  readonly callTimeoutMs?: number;
  readonly startTimeoutMs?: number;
  readonly restart?: McpRestartOptions;
}

/** An MCP server started as a child process and spoken to over stdio. */
export interface StdioServerConfig extends McpServerCommon {
  readonly command: string;
  readonly args?: readonly string[];
  readonly env?: Readonly<Record<string, string>>;
  /** Working folder of the server; default the config file's folder. */
  readonly cwd?: string;
}

/** An MCP server reached over streamable HTTP. */
export interface HttpServerConfig extends McpServerCommon {
  readonly url: string;
  readonly headers?: Readonly<Record<string, string>>;
}

export type McpServerConfig = StdioServerConfig | HttpServerConfig;

/** The content of `switchyard.config.json`; CONFIG_SCHEMA documents each key. */
export interface SwitchyardConfig {
  readonly tools?: readonly string[];
  readonly mcpServers?: Readonly<Record<string, McpServerConfig>>;
  readonly limits?: Partial<RunLimits>;
  readonly workers?: number;
  readonly runQueue?: RunQueueOptions;
  readonly permissions?: {
    readonly default?: PermissionDecision;
    readonly rules?: readonly {
      readonly tools: string | readonly string[];
      readonly decision: PermissionDecision;
      readonly reason?: string;
    }[];
  };
  readonly rateLimits?: readonly RateLimitRule[];
  readonly workspace?: string;
  readonly workspaceQuota?: { readonly maxWriteBytesPerRun?: number; readonly maxFilesWrittenPerRun?: number };
  readonly shell?: {
    readonly enabled?: boolean;
    readonly timeoutMs?: number;
    readonly network?: ShellNetwork;
    readonly unsandboxed?: boolean;
    readonly readOnlyPaths?: readonly string[];
    readonly limits?: ShellLimits;
  };
  readonly http?: {
    readonly enabled?: boolean;
    readonly allowHosts?: readonly string[];
    readonly allowPrivateAddresses?: boolean;
  };
  readonly spill?: string;
  readonly typeCheck?: TypeCheckMode;
  readonly observedTypes?: false | { readonly file?: string };
  readonly discovery?: { readonly defer?: "auto" | boolean; readonly alwaysLoaded?: readonly string[] };
  readonly redaction?: false | RedactionConfig;
}

/** The `redaction` key: see CONFIG_SCHEMA. */
export interface RedactionConfig {
  readonly secrets?: readonly string[];
  readonly patterns?: readonly (
    | string
    | { readonly pattern: string; readonly flags?: string; readonly kind?: string }
  )[];
  readonly credentialFormats?: boolean;
}

/** Values of `${env:NAME}` placeholders shorter than this are not treated as secrets (`PORT`, `DEBUG=1`). */
export const MIN_ENVIRONMENT_SECRET_LENGTH = 8;

/** A validated config whose paths (tool modules, workspace, spill, observed types, server cwd) are absolute. */
export interface LoadedConfig extends SwitchyardConfig {
  /** The config file, or undefined for a config object built in code. */
  readonly configPath: string | undefined;
  /** The folder relative paths were resolved against. */
  readonly baseDir: string;
  /**
   * The values `${env:NAME}` placeholders resolved to (at least 8 characters), by variable:
   * tokens kept out of the file, redacted from everything a model sees as `env:NAME`.
   */
  readonly environmentSecrets: readonly { readonly name: string; readonly value: string }[];
}

/**
 * Reads, validates and resolves a config file. Throws SwitchyardError("CONFIG_INVALID") when
 * the file cannot be read, is not JSON, or does not match the schema (one line per bad key).
 */
export async function loadConfig(path: string): Promise<LoadedConfig> {
  const configPath = resolve(path);
  let text: string;
  try {
    text = await readFile(configPath, "utf8");
  } catch (error) {
    throw new SwitchyardError("CONFIG_INVALID", `Could not read the config file ${configPath}: ${messageOf(error)}`);
  }
  // A byte order mark is not JSON, but editors write one.
  const json = text.replace(/^\uFEFF/, "");
  const problem = jsonSyntaxProblem(json);
  if (problem !== undefined) {
    throw new SwitchyardError("CONFIG_INVALID", `The config file ${configPath} is not valid JSON: ${problem}.`);
  }
  return resolveConfig(JSON.parse(json) as unknown, { baseDir: dirname(configPath), configPath });
}

/**
 * Validates a config value (from a file or built in code) and resolves its relative paths
 * against `baseDir`. Throws like `loadConfig`.
 */
export function resolveConfig(
  value: unknown,
  options: { readonly baseDir: string; readonly configPath?: string },
): LoadedConfig {
  const label = options.configPath ?? "The config";
  const violations = validator()(value).filter(
    (violation) => !/^must match "(then|else)" schema$/.test(violation.expected),
  );
  if (violations.length > 0) {
    throw new SwitchyardError("CONFIG_INVALID", describeConfigViolations(label, violations), {
      violations: violations.map((violation) => ({ ...violation })),
    });
  }
  const config = value as SwitchyardConfig;
  if (config.shell?.enabled === true && config.workspace === undefined) {
    throw new SwitchyardError(
      "CONFIG_INVALID",
      `${label}: /shell/enabled: the shell tool runs commands in the workspace; set "workspace" too.`,
    );
  }
  if (config.http?.enabled === true && (config.http.allowHosts ?? []).length === 0) {
    throw new SwitchyardError(
      "CONFIG_INVALID",
      `${label}: /http/allowHosts: the http tool needs at least one allowed host.`,
    );
  }
  const baseDir = resolve(options.baseDir);
  const at = (path: string): string => resolve(baseDir, path);
  const environment = new Map<string, string>();
  const expand = (text: string, key: string): string =>
    expandPlaceholders(text, baseDir, `${label}: ${key}`, (name, value) => {
      if (value.length >= MIN_ENVIRONMENT_SECRET_LENGTH && !environment.has(name)) environment.set(name, value);
    });
  const mcpServers =
    config.mcpServers === undefined
      ? undefined
      : mapValues(config.mcpServers, (server, namespace) =>
          resolveServer(server, `/mcpServers/${namespace}`, expand, at),
        );
  const redaction = config.redaction === undefined ? undefined : resolveRedaction(config.redaction, expand, label);
  return {
    ...config,
    ...(redaction === undefined ? {} : { redaction }),
    ...(config.tools === undefined ? {} : { tools: config.tools.map((module) => modulePath(module, baseDir)) }),
    ...(mcpServers === undefined ? {} : { mcpServers }),
    ...(config.workspace === undefined ? {} : { workspace: at(config.workspace) }),
    ...(config.spill === undefined ? {} : { spill: at(config.spill) }),
    ...(config.observedTypes === undefined || config.observedTypes === false || config.observedTypes.file === undefined
      ? {}
      : { observedTypes: { ...config.observedTypes, file: at(config.observedTypes.file) } }),
    ...(config.shell?.readOnlyPaths === undefined
      ? {}
      : { shell: { ...config.shell, readOnlyPaths: config.shell.readOnlyPaths.map(at) } }),
    configPath: options.configPath,
    baseDir,
    environmentSecrets: [...environment].map(([name, value]) => ({ name, value })),
  };
}

/** The `redaction` key with its secrets' placeholders expanded; a secret that expands to under 4 characters is refused. */
function resolveRedaction(
  redaction: false | RedactionConfig,
  expand: (text: string, key: string) => string,
  label: string,
): false | RedactionConfig {
  if (redaction === false || redaction.secrets === undefined) return redaction;
  const secrets = redaction.secrets.map((secret, index) => {
    const value = expand(secret, `/redaction/secrets/${index}`);
    if (value.length < 4) {
      throw new SwitchyardError(
        "CONFIG_INVALID",
        `${label}: /redaction/secrets/${index}: a secret must be at least 4 characters once expanded.`,
      );
    }
    return value;
  });
  return { ...redaction, secrets };
}

/** One server entry with its placeholders expanded; a stdio server's cwd is made absolute (default: the base folder). */
function resolveServer(
  server: McpServerConfig,
  key: string,
  expand: (text: string, key: string) => string,
  at: (path: string) => string,
): McpServerConfig {
  if ("url" in server) {
    const headers =
      server.headers === undefined
        ? undefined
        : mapValues(server.headers, (value, name) => expand(value, `${key}/headers/${name}`));
    return { ...server, url: expand(server.url, `${key}/url`), ...(headers === undefined ? {} : { headers }) };
  }
  const env =
    server.env === undefined ? undefined : mapValues(server.env, (value, name) => expand(value, `${key}/env/${name}`));
  return {
    ...server,
    command: expand(server.command, `${key}/command`),
    ...(server.args === undefined
      ? {}
      : { args: server.args.map((arg, index) => expand(arg, `${key}/args/${index}`)) }),
    ...(env === undefined ? {} : { env }),
    cwd: at(expand(server.cwd ?? ".", `${key}/cwd`)),
  };
}

const PLACEHOLDER = /\$\{(configDir|env:([A-Za-z_][A-Za-z0-9_]*))\}/g;

/**
 * Expands `${configDir}` (the config file's folder) and `${env:NAME}` (an environment
 * variable) in MCP server commands, arguments, env values, urls and headers and in
 * `redaction.secrets`, so secrets stay out of the file and paths can be absolute; each env value
 * goes to `onEnvironment`. An unset variable is a CONFIG_INVALID naming the key.
 */
function expandPlaceholders(
  text: string,
  configDir: string,
  where: string,
  onEnvironment: (name: string, value: string) => void,
): string {
  return text.replace(PLACEHOLDER, (_match, _whole: string, variable: string | undefined) => {
    if (variable === undefined) return configDir;
    const value = process.env[variable];
    if (value === undefined) {
      throw new SwitchyardError("CONFIG_INVALID", `${where}: the environment variable ${variable} is not set.`);
    }
    onEnvironment(variable, value);
    return value;
  });
}

function mapValues<In, Out>(
  record: Readonly<Record<string, In>>,
  map: (value: In, key: string) => Out,
): Record<string, Out> {
  return Object.fromEntries(Object.entries(record).map(([key, value]) => [key, map(value, key)]));
}

let compiled: CompiledValidator | undefined;

function validator(): CompiledValidator {
  return (compiled ??= compileSchema(CONFIG_SCHEMA as unknown as JsonSchema, "switchyard.config.schema.json"));
}

/** A module entry that names a file becomes an absolute path; a package name stays as it is. */
function modulePath(module: string, baseDir: string): string {
  if (isAbsolute(module)) return module;
  if (module.startsWith(".") || /\.(c|m)?(j|t)s$/.test(module)) return resolve(baseDir, module);
  return module;
}
