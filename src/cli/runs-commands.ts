// `switchyard runs list|show|approve|deny|resume|prune`: durable runs on the command line, in a
// folder (the library's default store) or, with `--redis`, a fleet's runs in its Redis. Parsing and
// printing only: the stores, the decisions (checked and journaled under the run's lock) and the
// resume live in the library, so `resume` (here or from `yard.resume`) finds what was decided.

import { existsSync } from "node:fs";
import type { Command } from "commander";
import type { RunResult } from "../contract.js";
import { FileRunJournal } from "../durable/file-run-journal.js";
import { summarizeJournal } from "../durable/summarize-journal.js";
import { JournalError } from "../durable/journal-error.js";
import { checkRunId } from "../durable/run-id.js";
import type { ResumedRunRecord, RunJournal, RunSummary, StoredJournal } from "../durable/run-journal.js";
import { decideRun } from "../durable/decide-run.js";
import { defaultRunsFolder } from "../durable/start-durable-run.js";
import { SwitchyardError, messageOf } from "../errors.js";
import type { Switchyard } from "../switchyard.js";
import type { SwitchyardOptions } from "../switchyard-options.js";
import { EXIT_CODES } from "./cli-error.js";
import { formatRunResult } from "./format-run-result.js";

/** Flags naming a session's tools, as `run` takes them. */
export interface RunsSessionFlags {
  readonly config?: string;
  readonly tools?: string[];
}

/** Session options a command sets beside its flags' (`runs resume`: no checker warm-up). */
export type SessionTuning = Pick<SwitchyardOptions, "warmUpTypeChecker">;

/** Runs `work` in the session of `--config`/`--tools` (main.ts's `withSession`) and `tuning`, with no approver. */
export type WithSession = (
  flags: RunsSessionFlags,
  tuning: SessionTuning,
  work: (yard: Switchyard) => Promise<void>,
) => Promise<void>;

interface StoreFlags {
  readonly dir?: string;
  /** A URL, or true for `--redis` without one. */
  readonly redis?: string | true;
  readonly queue?: string;
  readonly json?: boolean;
}

const DIR_HELP = "the folder of the journals (default: $SWITCHYARD_RUNS_DIR, else .switchyard/runs)";
const REDIS_HELP =
  "a fleet's runs, in its Redis instead of a folder (without a URL: $SWITCHYARD_REDIS, else redis://127.0.0.1:6379)";
const DEFAULT_REDIS = "redis://127.0.0.1:6379";

/** A command that reads a store: `--dir`, or `--redis` and `--queue` for a fleet's runs. */
function withStoreFlags(command: Command): Command {
  return command
    .option("--dir <folder>", DIR_HELP)
    .option("--redis [url]", REDIS_HELP)
    .option("--queue <name>", "with --redis: the fleet's queue, whose workers journaled the runs", "switchyard");
}

/** Adds the `runs` commands to the program. */
export function registerRunsCommands(program: Command, withSession: WithSession): void {
  const runs = program.command("runs").description("durable runs: list, show, approve or deny paused calls, resume");
  withStoreFlags(runs.command("list").description("list durable runs: id, state, calls, pending decisions"))
    .option("--json", "print the list as JSON")
    .action((flags: StoreFlags) =>
      withStore(flags, async ({ store }) => {
        const listed = await guard(() => store.list());
        if (flags.json === true) return print(JSON.stringify(listed, null, 2));
        if (listed.length === 0) return print("no durable runs");
        print(listed.map(formatSummary).join("\n"));
      }),
    );
  withStoreFlags(
    runs
      .command("show")
      .description("show one durable run: state, program hash, calls live and replayed, what it waits for, last error")
      .argument("<id>", "the run id"),
  )
    .option("--json", "print the journal's records (header and entries) as JSON")
    .action((id: string, flags: StoreFlags) =>
      withStore(flags, async (opened) => {
        const journal = await journalOf(opened, id);
        if (flags.json === true)
          return print(JSON.stringify({ header: journal.header, entries: journal.entries }, null, 2));
        print(formatDetails(summarizeJournal(journal)));
      }),
    );
  for (const approved of [true, false]) {
    withStoreFlags(
      runs
        .command(approved ? "approve" : "deny")
        .description(`${approved ? "approve" : "deny"} a call a paused run waits for (then \`runs resume\`)`)
        .argument("<id>", "the run id")
        .argument("<position>", "the call's position, as `runs show` lists it")
        .option("--reason <text>", "shown to the program with the decision (at most 1,000 characters are kept)"),
    ).action((id: string, positionText: string, flags: StoreFlags & { reason?: string }) => {
      checkRunId(id);
      // Digits only: Number() would also take "1e0", " 4" and "0x2" for a position.
      const position = /^[1-9][0-9]*$/.test(positionText) ? Number(positionText) : Number.NaN;
      if (!Number.isSafeInteger(position))
        throw usage(`the position ${JSON.stringify(positionText.slice(0, 40))} is not a call's position (1, 2, ...).`);
      return withStore(flags, async ({ store }) => {
        const refused = await decideRun(store, id, { position, approved, reason: flags.reason });
        if (refused !== undefined) throw usage(refused.message);
        print(
          `run ${id}: call ${position} ${approved ? "approved" : "denied"}; resume it with \`switchyard runs resume ${id}\``,
        );
      });
    });
  }
  withStoreFlags(
    runs
      .command("resume")
      .description("resume a paused or interrupted run with the tools of a config file and/or modules")
      .argument("<id>", "the run id")
      .option("--config <file>", "switchyard.config.json: the tools the run was started with")
      .option("--tools <module...>", "module(s) exporting the tools the run was started with"),
  )
    .option("--json", "print the RunResult as JSON")
    .action((id: string, flags: StoreFlags & RunsSessionFlags) => {
      checkRunId(id);
      // The store first: an unreachable Redis is told before any tool server starts.
      return withStore(flags, ({ store }) =>
        // The checker is not warmed up: a resume takes its check from the journal when the run's
        // program, tools and checker are what it was first checked against, and then never starts it.
        withSession(flags, { warmUpTypeChecker: false }, async (yard) => {
          // A fleet job's run: the store writes its result into the job's batch; said on stderr,
          // after the result, so `--json` keeps stdout one JSON document.
          let recorded: ResumedRunRecord | undefined;
          const result: RunResult = await yard.resume(id, { store, onRecorded: (record) => (recorded = record) });
          print(flags.json === true ? JSON.stringify(result, null, 2) : formatRunResult(result));
          process.exitCode = result.ok ? EXIT_CODES.ok : EXIT_CODES.failed;
          if (recorded !== undefined) process.stderr.write(`${describeRecord(recorded)}\n`);
        }),
      );
    });
  withStoreFlags(runs.command("prune").description("delete the journals of runs past their expiry")).action(
    (flags: StoreFlags) =>
      withStore(flags, async ({ store }) => {
        const pruned = await guard(() => store.prune());
        print(pruned.length === 0 ? "nothing to prune" : `pruned ${pruned.length}: ${pruned.join(", ")}`);
      }),
  );
}

/** The store the flags name, and where it is, for messages. */
interface OpenedStore {
  readonly store: RunJournal;
  readonly where: string;
}

/**
 * Runs `work` with the store of the flags: the folder of `--dir` (default the library's), or a
 * fleet's runs in the Redis of `--redis` under `--queue`'s prefix (the worker's), its connection
 * closed after. A malformed or unreachable Redis is one line (OPTION_INVALID, FLEET_UNAVAILABLE).
 */
async function withStore(flags: StoreFlags, work: (opened: OpenedStore) => Promise<void>): Promise<void> {
  if (flags.redis === undefined) {
    // A --dir given that is not there is a mistyped path, not a folder without runs.
    if (flags.dir !== undefined && !existsSync(flags.dir)) {
      throw usage(`the folder ${JSON.stringify(flags.dir)} (--dir) does not exist; check the path.`);
    }
    const store = new FileRunJournal({ folder: flags.dir ?? defaultRunsFolder() });
    return work({ store, where: store.folder });
  }
  if (flags.dir !== undefined) throw usage("give --dir or --redis, not both: a run's journal lives in one store.");
  const url = flags.redis === true ? (process.env["SWITCHYARD_REDIS"] ?? DEFAULT_REDIS) : flags.redis;
  const fleet = { redis: url, ...(flags.queue === undefined ? {} : { queue: flags.queue }) };
  const { connectRedis, queueNameOf, redactUrl, redisStoppedAnswering } = await import("../fleet/redis-connection.js");
  const { fleetRunJournal } = await import("../fleet/fleet-run-journal.js");
  const queue = queueNameOf(fleet);
  // A command that waited through a Redis outage would leave the person at a frozen prompt.
  const client = await connectRedis(url, { whenRedisGoesAway: "fail" });
  try {
    await work({
      store: fleetRunJournal(client, queue),
      where: `the Redis at ${redactUrl(url)} (queue ${queue})`,
    });
  } catch (error) {
    if (SwitchyardError.isInstance(error) || !redisStoppedAnswering(error, client)) throw error;
    throw new SwitchyardError(
      "FLEET_UNAVAILABLE",
      `Redis at ${redactUrl(url)} stopped answering during the command (${messageOf(error)}); it may not have finished: see \`switchyard runs show\` once Redis is back.`,
      { redis: redactUrl(url) },
    );
  } finally {
    client.disconnect();
  }
}

async function journalOf({ store, where }: OpenedStore, id: string): Promise<StoredJournal> {
  checkRunId(id);
  const journal = await guard(() => store.read(id));
  if (journal === undefined) throw usage(`no durable run ${id} in ${where}.`);
  return journal;
}

/** A store's refusal (a damaged journal, a busy run) as a message, not a stack trace. */
async function guard<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (JournalError.isInstance(error)) throw usage(`${error.message} (${error.code})`);
    throw error;
  }
}

/** One line on what the batch of a resumed fleet job now holds for its input. */
function describeRecord(record: ResumedRunRecord): string {
  const input = `input ${JSON.stringify(record.key.slice(0, 80))} of batch ${record.batchId}`;
  if (record.outcome === "replaced") return `${input}: its PAUSED result is replaced by this run's.`;
  if (record.outcome === "kept") return `${input}: kept the result it has (not PAUSED: written since the pause).`;
  return `${input}: has no result to replace (the batch's results were deleted).`;
}

function usage(message: string): SwitchyardError {
  return new SwitchyardError("OPTION_INVALID", message);
}

function formatSummary(summary: RunSummary): string {
  if (summary.state === "damaged") return `${summary.id}  damaged  ${oneLine(summary.message ?? "unreadable")}`;
  const state =
    summary.state === "ended"
      ? summary.ok === true
        ? "ended ok"
        : `ended ${oneLine(summary.code ?? "failed")}`
      : summary.state;
  const pending =
    summary.pending.length === 0 ? "" : `, waits for call(s) ${summary.pending.map((p) => p.position).join(", ")}`;
  return `${summary.id}  ${state}  ${summary.calls} calls  ${new Date(summary.createdAt).toISOString()}${pending}`;
}

/** `runs show`: the summary line, then one line per fact a person deciding on the run needs. */
function formatDetails(summary: RunSummary): string {
  const lines = [formatSummary(summary)];
  lines.push(`  program: ${summary.programHash}`);
  const replayed =
    summary.resumes === 0
      ? "none replayed"
      : `${summary.replayedCalls} answered from the journal over ${summary.resumes} resume(s)`;
  lines.push(`  calls: ${summary.calls} made live, ${replayed}`);
  lines.push(`  expires: ${new Date(summary.expiresAt).toISOString()}; journal ${summary.bytes} bytes`);
  for (const pending of summary.pending) {
    const input = JSON.stringify(pending.input ?? null).slice(0, 200);
    lines.push(
      `  call ${pending.position}: ${oneLine(pending.tool)} ${input}${pending.reason === undefined ? "" : ` (${oneLine(pending.reason)})`}`,
    );
  }
  if (summary.ok === false)
    lines.push(`  last error: ${oneLine(summary.code ?? "failed")}: ${oneLine(summary.message ?? "")}`);
  return lines.join("\n");
}

/**
 * Journaled text on one line, cut: a message is the program's text, and a tool name, reason or
 * code is whatever the store holds (a Redis anyone on the network reaches): it may hold anything.
 */
function oneLine(text: string): string {
  const flat = text.replace(/[\u0000-\u001f\u007f-\u009f]+/g, " ");
  return flat.length > 300 ? `${flat.slice(0, 300)}…` : flat;
}

function print(text: string): void {
  process.stdout.write(`${text}\n`);
}
