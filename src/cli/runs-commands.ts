// `switchyard runs list|show|approve|deny|resume|prune`: durable runs on the command line.
// Parsing and printing only: the journal store, the decisions and the resume live in the library.
// Decisions are appended to the run's journal, so `resume` (here or from `yard.resume`) finds them.

import type { Command } from "commander";
import type { RunResult } from "../contract.js";
import { FileRunJournal } from "../durable/file-run-journal.js";
import { summarizeJournal } from "../durable/summarize-journal.js";
import { JournalError } from "../durable/journal-error.js";
import { checkRunId } from "../durable/run-id.js";
import type { RunSummary, StoredJournal } from "../durable/run-journal.js";
import { defaultRunsFolder } from "../durable/start-durable-run.js";
import { SwitchyardError } from "../errors.js";
import type { Switchyard } from "../switchyard.js";
import { EXIT_CODES } from "./cli-error.js";
import { formatRunResult } from "./format-run-result.js";

/** Flags naming a session's tools, as `run` takes them. */
export interface RunsSessionFlags {
  readonly config?: string;
  readonly tools?: string[];
}

/** Runs `work` in the session of `--config`/`--tools` (main.ts's `withSession`), with no approver. */
export type WithSession = (flags: RunsSessionFlags, work: (yard: Switchyard) => Promise<void>) => Promise<void>;

interface StoreFlags {
  readonly dir?: string;
  readonly json?: boolean;
}

const DIR_HELP = "the folder of the journals (default: $SWITCHYARD_RUNS_DIR, else .switchyard/runs)";

/** Adds the `runs` commands to the program. */
export function registerRunsCommands(program: Command, withSession: WithSession): void {
  const runs = program.command("runs").description("durable runs: list, show, approve or deny paused calls, resume");
  runs
    .command("list")
    .description("list durable runs: id, state, calls, pending decisions")
    .option("--dir <folder>", DIR_HELP)
    .option("--json", "print the list as JSON")
    .action(async (flags: StoreFlags) => {
      const listed = await storeOf(flags).list();
      if (flags.json === true) return print(JSON.stringify(listed, null, 2));
      if (listed.length === 0) return print("no durable runs");
      print(listed.map(formatSummary).join("\n"));
    });
  runs
    .command("show")
    .description("show one durable run: state, program hash, calls live and replayed, what it waits for, last error")
    .argument("<id>", "the run id")
    .option("--dir <folder>", DIR_HELP)
    .option("--json", "print the journal's records (header and entries) as JSON")
    .action(async (id: string, flags: StoreFlags) => {
      const journal = await journalOf(flags, id);
      if (flags.json === true)
        return print(JSON.stringify({ header: journal.header, entries: journal.entries }, null, 2));
      print(formatDetails(summarizeJournal(journal)));
    });
  for (const approved of [true, false]) {
    runs
      .command(approved ? "approve" : "deny")
      .description(`${approved ? "approve" : "deny"} a call a paused run waits for (then \`runs resume\`)`)
      .argument("<id>", "the run id")
      .argument("<position>", "the call's position, as `runs show` lists it")
      .option("--reason <text>", "shown to the program with the decision")
      .option("--dir <folder>", DIR_HELP)
      .action(async (id: string, positionText: string, flags: StoreFlags & { reason?: string }) => {
        const summary = await summaryOf(flags, id);
        const position = Number(positionText);
        if (summary.state !== "paused")
          throw usage(`run ${id} is ${summary.state}, not paused; nothing waits for a decision.`);
        if (!summary.pending.some((pending) => pending.position === position)) {
          const waiting = summary.pending.map((pending) => pending.position).join(", ");
          throw usage(`run ${id} does not wait for call ${positionText}; it waits for call(s) ${waiting}.`);
        }
        await guard(() =>
          storeOf(flags).appendOutside(id, [
            {
              t: "decision",
              at: Date.now(),
              position,
              approved,
              ...(flags.reason === undefined ? {} : { reason: flags.reason }),
            },
          ]),
        );
        print(
          `run ${id}: call ${position} ${approved ? "approved" : "denied"}; resume it with \`switchyard runs resume ${id}\``,
        );
      });
  }
  runs
    .command("resume")
    .description("resume a paused or interrupted run with the tools of a config file and/or modules")
    .argument("<id>", "the run id")
    .option("--config <file>", "switchyard.config.json: the tools the run was started with")
    .option("--tools <module...>", "module(s) exporting the tools the run was started with")
    .option("--dir <folder>", DIR_HELP)
    .option("--json", "print the RunResult as JSON")
    .action(async (id: string, flags: StoreFlags & RunsSessionFlags) => {
      checkRunId(id);
      const store = storeOf(flags);
      await withSession(flags, async (yard) => {
        const result: RunResult = await yard.resume(id, { store });
        print(flags.json === true ? JSON.stringify(result, null, 2) : formatRunResult(result));
        process.exitCode = result.ok ? EXIT_CODES.ok : EXIT_CODES.failed;
      });
    });
  runs
    .command("prune")
    .description("delete the journals of runs past their expiry")
    .option("--dir <folder>", DIR_HELP)
    .action(async (flags: StoreFlags) => {
      const pruned = await storeOf(flags).prune();
      print(pruned.length === 0 ? "nothing to prune" : `pruned ${pruned.length}: ${pruned.join(", ")}`);
    });
}

function storeOf(flags: StoreFlags): FileRunJournal {
  return new FileRunJournal({ folder: flags.dir ?? defaultRunsFolder() });
}

async function journalOf(flags: StoreFlags, id: string): Promise<StoredJournal> {
  checkRunId(id);
  const store = storeOf(flags);
  const journal = await guard(() => store.read(id));
  if (journal === undefined) throw usage(`no durable run ${id} in ${store.folder}.`);
  return journal;
}

async function summaryOf(flags: StoreFlags, id: string): Promise<RunSummary> {
  return summarizeJournal(await journalOf(flags, id));
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

function usage(message: string): SwitchyardError {
  return new SwitchyardError("OPTION_INVALID", message);
}

function formatSummary(summary: RunSummary): string {
  const state =
    summary.state === "ended"
      ? summary.ok === true
        ? "ended ok"
        : `ended ${summary.code ?? "failed"}`
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
      `  call ${pending.position}: ${pending.tool} ${input}${pending.reason === undefined ? "" : ` (${pending.reason})`}`,
    );
  }
  if (summary.ok === false) lines.push(`  last error: ${summary.code ?? "failed"}: ${oneLine(summary.message ?? "")}`);
  return lines.join("\n");
}

/** A journaled message on one line, cut: it is the program's text, and may hold anything. */
function oneLine(text: string): string {
  const flat = text.replace(/[\u0000-\u001f\u007f]+/g, " ");
  return flat.length > 300 ? `${flat.slice(0, 300)}…` : flat;
}

function print(text: string): void {
  process.stdout.write(`${text}\n`);
}
