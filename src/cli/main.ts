// The `switchyard` command: argument parsing and printing only; every behaviour lives in the
// library. Run through bin/switchyard.js, which makes sure Node has --no-node-snapshot.
// Every failure leaves through one path (cli-error.ts): one message, one exit code.

import { Command, CommanderError, Option } from "commander";
import type { RunResult } from "../contract.js";
import { SwitchyardError } from "../errors.js";
import type { Switchyard } from "../switchyard.js";
import type { ApprovalAnswer, Approver, PermissionRequest } from "../permissions/permission-gate.js";
import type { TraceEvent } from "../trace/trace-events.js";
import { assertWritableFile, EXIT_CODES, reportOf } from "./cli-error.js";
import { processInterrupts } from "./process-interrupts.js";
import type { RunStatusLine } from "./run-status-line.js";
import { registerAgentCommand } from "./agent-command.js";
import { registerServeCommand } from "./serve-command.js";
import { registerBenchCommand } from "./bench-command.js";
import { registerTraceCommand } from "./trace-command.js";
import { registerFleetCommands } from "./fleet-commands.js";
import { registerRunsCommands, type SessionTuning } from "./runs-commands.js";
import { packageVersion } from "../package-version.js";

// Only commander and the command definitions load up front, so `--help` and `--version` answer
// without loading the core (TypeScript, esbuild, ajv, isolated-vm): each action imports what it uses.

// Installed first, so a signal during start-up (MCP servers starting) already counts.
const interrupts = processInterrupts();
endQuietlyOnClosedPipe(process.stdout);
endQuietlyOnClosedPipe(process.stderr);

const program = new Command("switchyard")
  .description("Run model-written TypeScript against typed, validated, permissioned tools in an isolated V8 sandbox.")
  .version(packageVersion(), "-V, --version", "print the version")
  // Commander's mistakes join the one error path: thrown, not exited, and printed our way.
  .exitOverride()
  .configureOutput({
    outputError: (text, write) => write(`switchyard: ${text.replace(/^error: /, "").trimEnd()} (see --help)\n`),
  });

program
  .command("run")
  .description("run a program (a file, or - for stdin) against the tools of a config file and/or modules")
  .argument(
    "<file>",
    "TypeScript program: the body of an async function, or one function expression (async () => {...}); `-` reads stdin",
  )
  .option("--config <file>", "switchyard.config.json: tool modules, MCP servers, built-ins, limits, permissions")
  .option(
    "--tools <module...>",
    "module(s) exporting tools (default export or `tools`: an array, or a function returning one)",
  )
  .option("--json", "print the RunResult as JSON")
  .option("--input <file>", "a JSON file whose value the program reads as the constant `input`")
  .option(
    "--output-schema <file>",
    "a JSON Schema file the program's return value must match (its return type in the check; OUTPUT_INVALID after)",
  )
  .option("--trace <file>", "append trace events to a JSONL file")
  .option("--report <file>", "write the run's timeline page (one self-contained HTML file)")
  .option("--durable <id>", "journal the run under this id; an id already journaled is replayed and resumed")
  .addOption(
    new Option("--type-check <mode>", "type-check before running (default: the config's, else error)").choices([
      "error",
      "warn",
      "off",
    ]),
  )
  .action(
    async (
      file: string,
      options: SessionFlags & {
        json?: boolean;
        input?: string;
        outputSchema?: string;
        trace?: string;
        report?: string;
        typeCheck?: "error" | "warn" | "off";
        durable?: string;
      },
    ) => {
      // Claimed first: a signal while MCP servers start ends the run CANCELLED as soon as it begins.
      interrupts.claim();
      const { readJsonFile, readJsonSchemaFile } = await import("./read-json-file.js");
      const { approveOnTerminal } = await import("./terminal-approver.js");
      const { startRunStatusLine } = await import("./run-status-line.js");
      const { JsonlTraceWriter } = await import("../trace/jsonl-trace-writer.js");
      const source = await readProgram(file);
      const input =
        options.input === undefined ? undefined : await readJsonFile(options.input, "the input file (--input)");
      const outputSchema =
        options.outputSchema === undefined
          ? undefined
          : await readJsonSchemaFile(options.outputSchema, "the output schema (--output-schema)");
      // Before any server starts: a trace that cannot be written is a mistake to fix first.
      if (options.trace !== undefined) await assertWritableFile(options.trace, "the trace file (--trace)");
      if (options.report !== undefined) await assertWritableFile(options.report, "the timeline page (--report)");
      let status: RunStatusLine | undefined;
      // A question on the terminal must not be drawn over by the status line.
      const approve = async (request: PermissionRequest): Promise<ApprovalAnswer> => {
        // With nobody at a terminal, a durable run pauses for `switchyard runs approve|deny`.
        if (options.durable !== undefined && !(process.stdin.isTTY && process.stderr.isTTY)) return "later";
        status?.pause();
        try {
          return await approveOnTerminal(request);
        } finally {
          status?.resume();
        }
      };
      await withSession(options, approve, async (yard) => {
        const writer = options.trace === undefined ? undefined : new JsonlTraceWriter(yard.trace, options.trace);
        const events: TraceEvent[] = [];
        const stopRecording =
          options.report === undefined ? undefined : yard.trace.subscribe((event) => events.push(event));
        status = options.json === true ? undefined : startRunStatusLine(process.stderr, yard.trace);
        let result: RunResult;
        try {
          result = await yard.run(source, {
            signal: interrupts.claim(),
            ...(input === undefined ? {} : { input }),
            ...(outputSchema === undefined ? {} : { outputSchema }),
            ...(options.typeCheck === undefined ? {} : { typeCheck: options.typeCheck }),
            ...(options.durable === undefined ? {} : { durable: { id: options.durable } }),
          });
        } finally {
          status?.stop();
          stopRecording?.();
        }
        await writer?.close();
        if (options.report !== undefined) {
          // Loaded only when asked for: most runs never draw a page.
          const { buildTimeline } = await import("../timeline/build-timeline.js");
          const { writeTimelinePage } = await import("../timeline/render-timeline-page.js");
          const title = `Switchyard run: ${file === "-" ? "stdin" : file}`;
          await writeTimelinePage(options.report, buildTimeline(events, { title, sources: source }));
          process.stderr.write(`timeline: ${options.report}\n`);
        }
        await printResult(result, options.json === true);
        process.exitCode = result.ok ? EXIT_CODES.ok : EXIT_CODES.failed;
      });
    },
  );

program
  .command("types")
  .description("print the TypeScript declarations a program is checked against")
  .option("--config <file>", "switchyard.config.json")
  .option("--tools <module...>", "module(s) exporting tools")
  .option("--runtime", "include the runtime declarations (console, $search, $describe)")
  .action(async (options: SessionFlags & { runtime?: boolean }) => {
    const { RUNTIME_DECLARATIONS } = await import("../schema/generate-declarations.js");
    await withSession(options, undefined, async (yard) => {
      process.stdout.write(`${options.runtime === true ? `${RUNTIME_DECLARATIONS}\n` : ""}${yard.declarations()}`);
    });
  });

program
  .command("tools")
  .description("list the catalog: namespace, name, effect, source and the first line of each description")
  .option("--config <file>", "switchyard.config.json")
  .option("--tools <module...>", "module(s) exporting tools")
  .option("--json", "print the listing as JSON")
  .action(async (options: SessionFlags & { json?: boolean }) => {
    const { catalogRows, formatCatalog } = await import("./format-catalog.js");
    await withSession(options, undefined, async (yard) => {
      const rows = catalogRows(yard);
      process.stdout.write(options.json === true ? `${JSON.stringify(rows, null, 2)}\n` : formatCatalog(rows));
    });
  });

program
  .command("demo")
  .description("run the duplicate-charge sweep over the built-in orders service")
  .option("--json", "print the RunResult as JSON")
  .option("--show-program", "print the program the model wrote")
  .action(async (options: { json?: boolean; showProgram?: boolean }) => {
    const { runOrdersDemo } = await import("../../examples/orders/run-demo.js");
    const { formatDemoSummary } = await import("./format-demo-summary.js");
    const { result, truth, program: source } = await runOrdersDemo();
    if (options.showProgram === true) process.stdout.write(`${source}\n\n`);
    if (options.json === true) await printResult(result, true);
    else process.stdout.write(formatDemoSummary(result, truth));
    process.exitCode = result.ok ? 0 : 1;
  });

interface SessionFlags {
  readonly config?: string;
  readonly tools?: string[];
}

/**
 * The session of `--config` and/or `--tools`; at least one is required. `approve` answers `ask`
 * decisions (a prompt on the terminal for `run`); without it, the session's default applies.
 */
async function openSession(
  flags: SessionFlags,
  approver: Approver | undefined,
  sessionOptions: SessionTuning = {},
): Promise<{ yard: Switchyard; close: () => Promise<void> }> {
  if (flags.config === undefined && (flags.tools ?? []).length === 0) {
    throw new SwitchyardError("OPTION_INVALID", "give --config <file> or --tools <module...> (or both).");
  }
  const { loadToolModule } = await import("../sources/load-tool-module.js");
  const tools = [];
  for (const module of flags.tools ?? []) tools.push(...(await loadToolModule(module)));
  const approve = approver === undefined ? {} : { approve: approver };
  if (flags.config === undefined) {
    const { Switchyard } = await import("../switchyard.js");
    const yard = new Switchyard({ ...sessionOptions, tools, permissions: approve });
    return { yard, close: () => yard.close() };
  }
  const { loadConfig } = await import("../config/load-config.js");
  const { createSwitchyardFromConfig } = await import("../config/create-switchyard-from-config.js");
  const config = await loadConfig(flags.config);
  const configured = await createSwitchyardFromConfig(config, { tools, ...approve, sessionOptions });
  return { yard: configured.yard, close: configured.close };
}

/** Runs `work` with the session of the flags, and always closes it (servers, spare isolate, spill folder). */
async function withSession(
  flags: SessionFlags,
  approver: Approver | undefined,
  work: (yard: Switchyard) => Promise<void>,
  sessionOptions?: SessionTuning,
): Promise<void> {
  const session = await openSession(flags, approver, sessionOptions);
  try {
    await work(session.yard);
  } finally {
    await session.close();
  }
}

/** The program's text: a file, or stdin for `-`. A path that cannot be read is a usage error. */
async function readProgram(file: string): Promise<string> {
  if (file === "-") return await readStdin();
  const { readTextFile } = await import("./read-json-file.js");
  return await readTextFile(file, "the program file");
}

/**
 * `switchyard demo | head`: once the reader is gone there is nobody to tell, so the command
 * ends at once, without the EPIPE stack trace Node would print.
 */
function endQuietlyOnClosedPipe(stream: NodeJS.WriteStream): void {
  stream.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code !== "EPIPE") throw error;
    process.exit(process.exitCode ?? EXIT_CODES.ok);
  });
}

async function printResult(result: RunResult, json: boolean): Promise<void> {
  const { formatRunResult } = await import("./format-run-result.js");
  process.stdout.write(json ? `${JSON.stringify(result, null, 2)}\n` : `${formatRunResult(result)}\n`);
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

registerAgentCommand(program);
registerServeCommand(program);
registerBenchCommand(program);
registerTraceCommand(program);
registerFleetCommands(program);
registerRunsCommands(program, (flags, tuning, work) => withSession(flags, undefined, work, tuning));

try {
  await program.parseAsync(process.argv);
} catch (error) {
  if (error instanceof CommanderError) {
    // Commander printed its message (or the help) already.
    process.exitCode = error.exitCode === 0 ? EXIT_CODES.ok : EXIT_CODES.usage;
  } else {
    const report = reportOf(error);
    process.stderr.write(`${report.message}\n`);
    process.exitCode = report.exitCode;
  }
}
// Interrupted: the exit code says so, whatever the command made of its cancelled work.
if (interrupts.exitCode !== undefined) process.exitCode = interrupts.exitCode;
