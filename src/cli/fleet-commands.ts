// `switchyard worker` and `switchyard batch submit|status|results|cancel`: argument parsing and
// printing only; switchyard-runtime/fleet does the work (loaded when one of them runs). A mistake
// (a missing file, an input line that is not JSON, an unknown batch, no Redis) is one line.

import { createWriteStream } from "node:fs";
import { finished } from "node:stream/promises";
import { type Command, Option } from "commander";
import type { JsonSchema, JsonValue } from "../contract.js";
import { SwitchyardError } from "../errors.js";
import type { LoadedConfig } from "../config/load-config.js";
import { findReferencedNamespaces } from "../permissions/referenced-tools.js";
import type { SubmittedBatch } from "../fleet/submit-batch.js";
import type { BatchStatus } from "../fleet/watch-batch.js";
import { assertWritableFile, EXIT_CODES } from "./cli-error.js";
import { formatBatchSummary, startBatchProgress } from "./batch-progress.js";
import { formatRunError, formatWarnings } from "./format-run-result.js";
import { processInterrupts } from "./process-interrupts.js";

const DEFAULT_REDIS = "redis://127.0.0.1:6379";

interface FleetFlags {
  readonly redis: string;
  readonly queue?: string;
}

interface WorkerFlags extends FleetFlags {
  readonly config: string;
  readonly concurrency: string;
  readonly workers?: string;
  readonly graceMs: string;
  readonly lockMs: string;
  /** commander sets false for `--no-durable`. */
  readonly durable: boolean;
}

function fleetOf(flags: FleetFlags): { redis: string; queue?: string } {
  return { redis: flags.redis, ...(flags.queue === undefined ? {} : { queue: flags.queue }) };
}

function withFleetFlags(command: Command): Command {
  return command
    .option("--redis <url>", "the fleet's Redis", process.env["SWITCHYARD_REDIS"] ?? DEFAULT_REDIS)
    .option("--queue <name>", "the queue of program jobs", "switchyard");
}

/** Registers `worker` and `batch` on `program`. */
export function registerFleetCommands(program: Command): void {
  withFleetFlags(
    program
      .command("worker")
      .description("run program jobs from the fleet's queue with the session of a config, until SIGTERM")
      .requiredOption("--config <file>", "switchyard.config.json: tools, MCP servers, limits, permissions, rateLimits"),
  )
    .option("--concurrency <n>", "jobs run at once", "4")
    .option(
      "--workers <n>",
      "worker processes for the jobs' programs (a crash fails only its runs); default: the config's, else 0",
    )
    .option("--grace-ms <ms>", "on SIGTERM, time to finish the jobs in hand before handing them back", "10000")
    .option(
      "--lock-ms <ms>",
      "a job's lock; a worker that dies has its jobs run elsewhere after about this long",
      "30000",
    )
    .option("--no-durable", "run jobs without a journal: a retried job makes every call again (at least once)")
    .action(async (options: WorkerFlags) => {
      const stop = processInterrupts().claim();
      const workers = options.workers === undefined ? undefined : nonNegativeInteger(options.workers, "--workers");
      // Read now: a --grace-ms read only at SIGTERM refused the signal's own shutdown.
      const graceMs = nonNegativeInteger(options.graceMs, "--grace-ms");
      const { startFleetWorker } = await import("../fleet/fleet-worker.js");
      const config = await loadConfig(options.config);
      const log = (line: string): void => void process.stderr.write(`switchyard worker: ${line}\n`);
      const worker = await startFleetWorker({
        ...fleetOf(options),
        config,
        concurrency: positiveInteger(options.concurrency, "--concurrency"),
        lockDurationMs: positiveInteger(options.lockMs, "--lock-ms"),
        durable: options.durable,
        ...(workers === undefined ? {} : { configOptions: { sessionOptions: { workers } } }),
        log,
      });
      const processes = workers ?? config.workers ?? 0;
      log(
        `${worker.name} taking jobs from queue ${options.queue ?? "switchyard"} (concurrency ${options.concurrency}, ` +
          `${processes === 0 ? "programs in this process" : `programs in ${processes} worker processes`})`,
      );
      await new Promise<void>((resolve) => {
        if (stop.aborted) resolve();
        stop.addEventListener("abort", () => resolve(), { once: true });
      });
      log(`stopping: finishing ${worker.running} job(s) for up to ${options.graceMs} ms, then handing the rest back`);
      await worker.close({ graceMs });
      log(`stopped after writing ${worker.completed} result(s)`);
      // Worker threads (the type checker) must not keep a stopped worker alive.
      process.exit(processInterrupts().exitCode ?? EXIT_CODES.ok);
    });

  const batch = program.command("batch").description("submit a batch of program runs to the fleet and follow it");

  withFleetFlags(
    batch
      .command("submit")
      .description("enqueue one job per line of a JSONL file (the program reads it as `input`); prints the batch id")
      .requiredOption("--program <file>", "the TypeScript program every input runs through")
      .requiredOption("--inputs <file>", "JSONL: one JSON value per line, the program's `input`"),
  )
    .option(
      "--config <file>",
      "the workers' switchyard.config.json: the program is type-checked against its tools first, and nothing " +
        "is enqueued when it fails (exit 1); without it, only the workers check the program, once per input",
    )
    .option("--batch <id>", "the batch id (default: derived from the program and the inputs, so a rerun resumes)")
    .option("--key <field>", "the idempotency key of an input: this field of it (default: a hash of the input)")
    .option("--input-schema <file>", "JSON Schema every input must match (the program's `input` is typed from it)")
    .option("--attempts <n>", "runs per input at most, for transient failures", "3")
    .option("--backoff-ms <ms>", "delay before the first retry, doubled per retry", "1000")
    .option("--retry-failed", "run again the inputs whose result is a failure")
    .option("--wait", "follow the batch until it is finished (a progress bar on a terminal)")
    .action(
      async (
        options: FleetFlags & {
          config?: string;
          program: string;
          inputs: string;
          batch?: string;
          key?: string;
          inputSchema?: string;
          attempts: string;
          backoffMs: string;
          retryFailed?: boolean;
          wait?: boolean;
        },
      ) => {
        const program = await readTextFile(options.program, "the program file (--program)");
        const inputs = parseInputs(await readTextFile(options.inputs, "the inputs file (--inputs)"), options.inputs);
        const inputSchema =
          options.inputSchema === undefined
            ? undefined
            : await readJsonSchemaFile(options.inputSchema, "the input schema (--input-schema)");
        const attempts = positiveInteger(options.attempts, "--attempts");
        const backoffMs = nonNegativeInteger(options.backoffMs, "--backoff-ms");
        const { programErrorOf, submitBatch } = await import("../fleet/submit-batch.js");
        // The workers' session (their tools, MCP servers and type-check mode), for the check only:
        // its programs never run here, so it starts no sandbox worker processes.
        const session =
          options.config === undefined
            ? undefined
            : await (await import("../fleet/fleet-session.js")).createFleetSession(await loadConfig(options.config), {
                sessionOptions: { workers: 0 },
                // Only the servers the program names: a check must not wait for every server's start.
                startMcpServer: startOnlyReferenced(program),
              });
        let submitted: SubmittedBatch;
        try {
          submitted = await submitBatch({
            ...fleetOf(options),
            program,
            inputs,
            ...(options.batch === undefined ? {} : { batchId: options.batch }),
            ...(options.key === undefined ? {} : { keyOf: keyField(options.key, options.inputs) }),
            ...(inputSchema === undefined ? {} : { inputSchema }),
            ...(session === undefined ? {} : { checkWith: session.yard }),
            attempts,
            backoffMs,
            retryFailed: options.retryFailed === true,
          });
        } catch (error) {
          const refused = programErrorOf(error);
          if (refused === undefined) throw error;
          // Printed as `switchyard run` prints the error; the program failed, so exit 1, not 2.
          process.stderr.write(
            `switchyard: the program ${options.program} fails its check against ${options.config}; ` +
              "nothing was enqueued.\n" +
              `${formatRunError(refused).join("\n")}\n`,
          );
          process.exitCode = EXIT_CODES.failed;
          return;
        } finally {
          await session?.close();
        }
        for (const line of formatWarnings(submitted.warnings)) process.stderr.write(`${line}\n`);
        process.stderr.write(
          `switchyard: batch ${submitted.batchId}: ${submitted.total} inputs, ${submitted.queued} queued, ` +
            `${submitted.skipped} already done` +
            `${submitted.repeated > 0 ? `, ${submitted.repeated} repeated lines run once` : ""}\n`,
        );
        process.stdout.write(`${submitted.batchId}\n`);
        if (options.wait === true) await follow(options, submitted.batchId);
      },
    );

  withFleetFlags(batch.command("status").description("print where a batch stands").argument("<id>", "the batch id"))
    .option("--watch", "follow it until it is finished (a progress bar on a terminal)")
    .action(async (batchId: string, options: FleetFlags & { watch?: boolean }) => {
      if (options.watch === true) {
        await follow(options, batchId);
        return;
      }
      const { getBatchStatus } = await import("../fleet/watch-batch.js");
      const status = await getBatchStatus({ ...fleetOf(options), batchId });
      process.stdout.write(`${formatBatchSummary(status)}\n`);
    });

  withFleetFlags(
    batch
      .command("results")
      .description("write the results as JSONL (input, ok, output, error, calls summary), in input order")
      .argument("<id>", "the batch id"),
  )
    .addOption(new Option("--out <file>", "write to this file instead of stdout"))
    .action(async (batchId: string, options: FleetFlags & { out?: string }) => {
      if (options.out !== undefined) await assertWritableFile(options.out, "the results file (--out)");
      const { readBatchResults } = await import("../fleet/batch-results.js");
      const file = options.out === undefined ? undefined : createWriteStream(options.out);
      const output: NodeJS.WritableStream = file ?? process.stdout;
      let count = 0;
      for await (const result of readBatchResults({ ...fleetOf(options), batchId })) {
        if (!output.write(`${JSON.stringify(result)}\n`))
          await new Promise<void>((resolve) => output.once("drain", () => resolve()));
        count += 1;
      }
      if (file !== undefined) {
        file.end();
        await finished(file);
        process.stderr.write(`switchyard: ${count} results written to ${options.out}\n`);
      }
    });

  withFleetFlags(
    batch
      .command("cancel")
      .description("cancel a batch: queued jobs removed, running ones stopped; results kept")
      .argument("<id>", "the batch id"),
  ).action(async (batchId: string, options: FleetFlags) => {
    const { cancelBatch } = await import("../fleet/cancel-batch.js");
    const cancelled = await cancelBatch({ ...fleetOf(options), batchId });
    process.stdout.write(
      `batch ${batchId} cancelled: ${cancelled.removed} queued jobs removed, ${cancelled.stopped} running stopped\n`,
    );
  });
}

/** Follows a batch to its end: the bar on a terminal, then the summary; exit 1 when inputs failed. */
async function follow(flags: FleetFlags, batchId: string): Promise<void> {
  const signal = processInterrupts().claim();
  const { watchBatch } = await import("../fleet/watch-batch.js");
  const bar = startBatchProgress(process.stderr);
  let last: BatchStatus | undefined;
  try {
    for await (const progress of watchBatch({ ...fleetOf(flags), batchId, signal })) {
      bar.draw(progress);
      last = progress;
    }
  } finally {
    bar.end();
  }
  if (last === undefined) return;
  process.stdout.write(`${formatBatchSummary(last)}\n`);
  if (last.failed > 0 || last.cancelled || !last.finished) process.exitCode = EXIT_CODES.failed;
}

function parseInputs(text: string, path: string): JsonValue[] {
  const inputs: JsonValue[] = [];
  text.split("\n").forEach((line, index) => {
    if (line.trim() === "") return;
    inputs.push(parseJson(line, `${path} line ${index + 1}`));
  });
  return inputs;
}

function parseJson(text: string, where: string): JsonValue {
  try {
    return JSON.parse(text) as JsonValue;
  } catch (error) {
    throw new SwitchyardError("OPTION_INVALID", `${where} is not JSON (${(error as Error).message}); fix it.`);
  }
}

function keyField(field: string, path: string): (input: JsonValue, index: number) => string {
  return (input, index) => {
    const value = input !== null && typeof input === "object" && !Array.isArray(input) ? input[field] : undefined;
    if (typeof value !== "string" && typeof value !== "number") {
      throw new SwitchyardError(
        "OPTION_INVALID",
        `input ${index + 1} of ${path} has no string or number field ${JSON.stringify(field)} for --key.`,
      );
    }
    return String(value);
  };
}

function positiveInteger(value: string, flag: string): number {
  const number = Number(value);
  if (!Number.isInteger(number) || number < 1)
    throw new SwitchyardError("OPTION_INVALID", `${flag} needs a positive integer, got ${JSON.stringify(value)}.`);
  return number;
}

function nonNegativeInteger(value: string, flag: string): number {
  const number = Number(value);
  if (!Number.isInteger(number) || number < 0)
    throw new SwitchyardError("OPTION_INVALID", `${flag} needs an integer >= 0, got ${JSON.stringify(value)}.`);
  return number;
}

/** The MCP servers a check of `program` needs: those it names, or all when it may reach others. */
function startOnlyReferenced(program: string): ((namespace: string) => boolean) | undefined {
  const namespaces = findReferencedNamespaces(program);
  return namespaces === undefined ? undefined : (namespace) => namespaces.includes(namespace);
}

// The config loader and the JSON readers bring ajv: loaded when a command runs, so `--help` stays light.
async function loadConfig(path: string): Promise<LoadedConfig> {
  return (await import("../config/load-config.js")).loadConfig(path);
}

async function readTextFile(path: string, what: string): Promise<string> {
  return (await import("./read-json-file.js")).readTextFile(path, what);
}

async function readJsonSchemaFile(path: string, what: string): Promise<JsonSchema> {
  return (await import("./read-json-file.js")).readJsonSchemaFile(path, what);
}
