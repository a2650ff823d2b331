// The `switchyard serve` command: argument parsing only; serveGateway does the work. On stdio,
// stdout is the MCP protocol, so this command prints nothing to it.

import type { Command } from "commander";
import { SwitchyardError } from "../errors.js";
import { assertWritableFile } from "./cli-error.js";
import { processInterrupts } from "./process-interrupts.js";

interface ServeCommandOptions {
  readonly config: string;
  readonly http?: string;
  readonly enableCallTool?: boolean;
  readonly logFile?: string;
  readonly outputSchema?: string;
  readonly durable?: boolean;
}

/** Registers `serve` on `program`. */
export function registerServeCommand(program: Command): Command {
  return program
    .command("serve")
    .description(
      "run an MCP server (stdio by default) exposing run_program, search_tools and describe_tools over a config's tools",
    )
    .requiredOption("--config <file>", "switchyard.config.json: MCP servers, tool modules, limits, permissions")
    .option(
      "--http <port>",
      "serve streamable HTTP on 127.0.0.1:<port>/mcp instead of stdio (0 picks a free port); with SWITCHYARD_GATEWAY_TOKEN set, requests need it as a Bearer token; with SWITCHYARD_GATEWAY_CLIENTS (a JSON object of client names to tokens), a token per client, each client held to its share of sessions",
    )
    .option("--enable-call-tool", "also expose call_tool, for one direct call")
    .option("--log-file <file>", "append the log to this file instead of stderr")
    .option("--output-schema <file>", "a JSON Schema file every program's return value must match")
    .option(
      "--durable",
      "run every program durably (journals in $SWITCHYARD_RUNS_DIR, else .switchyard/runs): an unanswered ask pauses the run, resume_run resumes it",
    )
    .action(async (options: ServeCommandOptions) => {
      // serveGateway shuts down in order on SIGINT and SIGTERM itself.
      processInterrupts().claim();
      // Loaded here, not at the top: `switchyard --help` must not load the gateway.
      const { serveGateway } = await import("../gateway/serve-gateway.js");
      const { readJsonSchemaFile } = await import("./read-json-file.js");
      // A log that cannot be written would be dropped silently: refuse it before anything starts.
      if (options.logFile !== undefined) await assertWritableFile(options.logFile, "the log file (--log-file)");
      const outputSchema =
        options.outputSchema === undefined
          ? undefined
          : await readJsonSchemaFile(options.outputSchema, "the output schema (--output-schema)");
      // From the environment, never a flag: arguments are visible to every local user.
      const httpToken = process.env["SWITCHYARD_GATEWAY_TOKEN"];
      const httpClients = clientsOf(process.env["SWITCHYARD_GATEWAY_CLIENTS"]);
      const gateway = await serveGateway({
        configPath: options.config,
        ...(options.http === undefined ? {} : { httpPort: portOf(options.http) }),
        ...(httpToken === undefined ? {} : { httpToken }),
        ...(httpClients === undefined ? {} : { httpClients }),
        ...(options.enableCallTool === true ? { enableCallTool: true } : {}),
        ...(options.logFile === undefined ? {} : { logFile: options.logFile }),
        gateway: {
          ...(outputSchema === undefined ? {} : { outputSchema }),
          ...(options.durable === true ? { durable: true } : {}),
        },
      });
      await gateway.closed;
      // Worker threads and spare isolates must not keep a stopped server alive. Stopped by a
      // signal, the exit code says which (130, 143), as for every command.
      process.exit(processInterrupts().exitCode ?? process.exitCode ?? 0);
    });
}

/** SWITCHYARD_GATEWAY_CLIENTS: a JSON object of client names to tokens; a mistake is one clear line. */
function clientsOf(text: string | undefined): Record<string, string> | undefined {
  if (text === undefined || text.trim() === "") return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  if (
    typeof parsed !== "object" ||
    parsed === null ||
    Array.isArray(parsed) ||
    !Object.values(parsed).every((token) => typeof token === "string")
  )
    throw new SwitchyardError(
      "OPTION_INVALID",
      'SWITCHYARD_GATEWAY_CLIENTS must be a JSON object of client names to tokens: {"name": "token"}.',
    );
  return parsed as Record<string, string>;
}

function portOf(value: string): number {
  // Decimal digits only: Number() reads "0x50" as 80, "1e3" as 1000 and "" as 0 (a random port).
  const port = /^[0-9]{1,5}$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new SwitchyardError("OPTION_INVALID", `--http needs a port from 0 to 65535, got ${JSON.stringify(value)}.`);
  }
  return port;
}
