// Builds a session from a config: tool modules, built-in tools, the spill store, permissions,
// and the MCP servers (started in parallel, registered in config order). Either everything
// starts or nothing is left running: a failed server closes the ones that did start.

import { createHttpFetchTool } from "../builtins/http-fetch-tool.js";
import { createShellTool, shellPermissionRules } from "../builtins/shell-tool.js";
import { createWorkspaceTools } from "../builtins/workspace-tools.js";
import { SwitchyardError, messageOf } from "../errors.js";
import type { PermissionOptions, PermissionRule } from "../permissions/permission-gate.js";
import type { RedactionOptions } from "../redaction/redactor.js";
import type { ToolDefinition } from "../registry/define-tool.js";
import { loadToolModule } from "../sources/load-tool-module.js";
import {
  connectMcpSource,
  type McpSource,
  type McpSourceEvent,
  type McpSourceOptions,
} from "../sources/mcp/mcp-source.js";
import { SpillStore } from "../results/spill-store.js";
import { Switchyard, type SwitchyardOptions } from "../switchyard.js";
import { resolveConfig, type LoadedConfig, type McpServerConfig, type SwitchyardConfig } from "./load-config.js";

export interface CreateFromConfigOptions {
  /** Answers `ask` permission decisions; without it, `ask` means no. */
  readonly approve?: PermissionOptions["approve"];
  /** Folder for relative paths of a config object built in code. Default: the process's cwd. */
  readonly baseDir?: string;
  /** Extra tools registered after the config's modules (e.g. from a `--tools` flag). */
  readonly tools?: readonly ToolDefinition[];
  /** Lifecycle events of the MCP sources. */
  readonly onMcpEvent?: (event: McpSourceEvent) => void;
  /**
   * Session options laid over the config's (a fleet worker passes its Redis rate limiter here as
   * `scheduler.rateLimiter`; `scheduler` is merged with the config's `rateLimits`).
   */
  readonly sessionOptions?: Omit<SwitchyardOptions, "tools">;
  /**
   * Which of the config's MCP servers to start, by namespace; default all. A session made only to
   * check a program starts the servers the program names (`namespacesToStart`), not the others.
   */
  readonly startMcpServer?: ((namespace: string) => boolean) | undefined;
}

/** A session built from a config, and what it started. */
export interface ConfiguredSwitchyard {
  readonly yard: Switchyard;
  readonly config: LoadedConfig;
  /** MCP sources by namespace, in config order. */
  readonly sources: ReadonlyMap<string, McpSource>;
  /** Closes every MCP source (their child processes exit), then the session; safe to call twice. */
  close(): Promise<void>;
}

/**
 * Builds the session a config describes. Throws SwitchyardError: `CONFIG_INVALID` for a bad
 * config or tool module, `SANDBOX_UNAVAILABLE` when the shell is enabled where no sandbox can
 * be made (and `shell.unsandboxed` is not true), `SOURCE_START_FAILED` when an MCP server does
 * not start (naming each one that failed), `NAMESPACE_CONFLICT` when a server's namespace is
 * taken by a tool.
 */
export async function createSwitchyardFromConfig(
  config: SwitchyardConfig | LoadedConfig,
  options: CreateFromConfigOptions = {},
): Promise<ConfiguredSwitchyard> {
  const loaded = "baseDir" in config ? config : resolveConfig(config, { baseDir: options.baseDir ?? process.cwd() });
  const tools: ToolDefinition[] = [];
  for (const module of loaded.tools ?? []) tools.push(...(await loadToolModule(module, loaded.baseDir)));
  tools.push(...(options.tools ?? []));
  if (loaded.workspace !== undefined) {
    tools.push(...createWorkspaceTools({ root: loaded.workspace, ...loaded.workspaceQuota }));
  }
  if (loaded.shell?.enabled === true && loaded.workspace !== undefined) {
    const { enabled: _enabled, ...shell } = loaded.shell;
    tools.push(createShellTool({ workspace: loaded.workspace, ...shell }));
  }
  if (loaded.http?.enabled === true) {
    tools.push(
      createHttpFetchTool({
        allowHosts: loaded.http.allowHosts ?? [],
        ...(loaded.http.allowPrivateAddresses === undefined
          ? {}
          : { allowPrivateAddresses: loaded.http.allowPrivateAddresses }),
      }),
    );
  }
  // The session registers `results.read` for its spill store itself, this one or its default.
  const spill = loaded.spill === undefined ? undefined : new SpillStore(loaded.spill);

  let yardOptions: SwitchyardOptions = {
    tools,
    permissions: permissionsOf(loaded, options.approve),
    ...(loaded.limits === undefined ? {} : { limits: loaded.limits }),
    ...(loaded.workers === undefined ? {} : { workers: loaded.workers }),
    ...(loaded.runQueue === undefined ? {} : { runQueue: loaded.runQueue }),
    ...(loaded.typeCheck === undefined ? {} : { typeCheck: loaded.typeCheck }),
    ...(loaded.observedTypes === undefined ? {} : { observedTypes: loaded.observedTypes }),
    ...(loaded.discovery === undefined ? {} : { discovery: loaded.discovery }),
    ...(spill === undefined ? {} : { results: { spill } }),
    redaction: redactionOf(loaded),
    ...options.sessionOptions,
  };
  const scheduler = {
    ...(loaded.rateLimits === undefined ? {} : { rateLimits: loaded.rateLimits }),
    ...options.sessionOptions?.scheduler,
  };
  if (Object.keys(scheduler).length > 0) yardOptions = { ...yardOptions, scheduler };
  const yard = new Switchyard(yardOptions);

  const entries = Object.entries(loaded.mcpServers ?? {}).filter(
    ([namespace]) => options.startMcpServer?.(namespace) ?? true,
  );
  const settled = await Promise.allSettled(
    entries.map(([namespace, server]) =>
      connectMcpSource(yard.registry, mcpSourceOptions(namespace, server, options.onMcpEvent)),
    ),
  );
  const sources = new Map<string, McpSource>();
  const failures: unknown[] = [];
  settled.forEach((result, index) => {
    if (result.status === "fulfilled") sources.set(entries[index]![0], result.value);
    else failures.push(result.reason);
  });
  // The config built the session, so closing it closes the servers and then the session.
  // A source that fails to close must not keep the session (and its spill folder) open.
  const close = async (): Promise<void> => {
    const closed = await Promise.allSettled([...sources.values()].map((source) => source.close()));
    await yard.close();
    const failed = closed.find((result) => result.status === "rejected");
    if (failed !== undefined) throw failed.reason;
  };
  if (failures.length > 0) {
    await close();
    if (failures.length === 1) throw failures[0];
    const messages = failures.map(messageOf);
    throw new SwitchyardError(
      "SOURCE_START_FAILED",
      `${failures.length} MCP servers failed to start:\n${messages.join("\n")}`,
    );
  }
  registerInConfigOrder(yard, [...sources.values()]);
  return { yard, config: loaded, sources, close };
}

/**
 * Servers answer in any order, and each registered its tools as it came up: re-registers
 * them so the catalog follows the config. Sources already in place keep their registration,
 * since each re-registration recompiles the source's schemas and moves the catalog version.
 */
function registerInConfigOrder(yard: Switchyard, sources: readonly McpSource[]): void {
  const wanted = sources.filter((source) => source.tools.length > 0);
  const wantedNames = new Set(wanted.map((source) => source.sourceName));
  const registered = [...new Set(yard.registry.snapshot().tools.map((tool) => tool.definition.source))].filter((name) =>
    wantedNames.has(name),
  );
  let inPlace = 0;
  while (inPlace < wanted.length && registered[inPlace] === wanted[inPlace]!.sourceName) inPlace += 1;
  for (const source of wanted.slice(inPlace)) yard.registry.replaceSource(source.sourceName, source.tools);
}

function mcpSourceOptions(
  namespace: string,
  server: McpServerConfig,
  onEvent: CreateFromConfigOptions["onMcpEvent"],
): McpSourceOptions {
  const common = {
    namespace,
    ...(server.callTimeoutMs === undefined ? {} : { callTimeoutMs: server.callTimeoutMs }),
    ...(server.startTimeoutMs === undefined ? {} : { startTimeoutMs: server.startTimeoutMs }),
    ...(server.restart === undefined ? {} : { restart: server.restart }),
    ...(onEvent === undefined ? {} : { onEvent }),
  };
  if ("url" in server) {
    return {
      ...common,
      transport: {
        kind: "http",
        url: server.url,
        ...(server.headers === undefined ? {} : { headers: server.headers }),
      },
    };
  }
  return {
    ...common,
    transport: {
      kind: "stdio",
      command: server.command,
      ...(server.args === undefined ? {} : { args: server.args }),
      ...(server.env === undefined ? {} : { env: server.env }),
      ...(server.cwd === undefined ? {} : { cwd: server.cwd }),
    },
  };
}

/**
 * The session's redaction: the config's `redaction` key, plus every `${env:NAME}` value the
 * config used (the tokens it keeps out of the file), each of kind `env:NAME`.
 */
function redactionOf(config: LoadedConfig): RedactionOptions | false {
  if (config.redaction === false) return false;
  const fromEnvironment = config.environmentSecrets.map(({ name, value }) => ({ value, kind: `env:${name}` }));
  return {
    ...(config.redaction?.patterns === undefined ? {} : { patterns: config.redaction.patterns }),
    ...(config.redaction?.credentialFormats === undefined
      ? {}
      : { credentialFormats: config.redaction.credentialFormats }),
    // Environment values first: a value listed both ways is named after its variable.
    secrets: [...fromEnvironment, ...(config.redaction?.secrets ?? [])],
  };
}

/**
 * The config's rules, with the shell command classifier around them when the shell is on: its
 * deny and ask rules come first (config rules cannot loosen them), its allow rule for
 * read-only commands last (config rules may still deny the shell outright).
 */
function permissionsOf(config: LoadedConfig, approve: PermissionOptions["approve"]): PermissionOptions {
  const rules: PermissionRule[] = (config.permissions?.rules ?? []).map((rule) => ({
    tools: rule.tools,
    decision: rule.decision,
    ...(rule.reason === undefined ? {} : { reason: rule.reason }),
  }));
  const shell = config.shell?.enabled === true ? shellPermissionRules() : [];
  return {
    rules: [
      ...shell.filter((rule) => rule.decision !== "allow"),
      ...rules,
      ...shell.filter((rule) => rule.decision === "allow"),
    ],
    ...(config.permissions?.default === undefined ? {} : { default: config.permissions.default }),
    ...(approve === undefined ? {} : { approve }),
  };
}
