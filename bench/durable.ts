// Durable-run benchmark: what a replay costs per call (a 2,000-call sweep answered from its
// journal, and a 2,000-call fan-out), what journaling adds to a live call (the same sweep, durable
// with a fresh id, against the plain run, with a tool that does nothing: the worst case), and how
// long a sweep SIGKILLed half-way takes from the kill to its resumed run's first live call (the
// journal read, 1,000 calls replayed), in a new process started at the kill (the headline: Node's
// start and the library's import counted, as for a user who runs the program again) and in a
// worker already up (a fleet's case). Per-call figures are whole `yard.run` calls as the caller
// times them (a durable run's journal read and close included) minus an empty run's, per call.
// Medians of rounds, back to back; the overhead is the median of the rounds' live/plain ratios.
// Run: npm run bench:durable   (compiled with tsc into dist-bench/ first).

import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { FileRunJournal } from "../src/durable/file-run-journal.js";
import { bundleGuestRuntime } from "../src/sandbox/guest-runtime-source.js";
import { Switchyard } from "../src/switchyard.js";
import { pageTool, SWEEP, SWEEP_CALLS as CALLS } from "./durable-sweep.js";
import { median } from "./stats.js";

const ROUNDS = 7;
const KILL_AT = 1_000;
const LIMITS = { maxToolCalls: 10_000, wallTimeMs: 120_000, cpuTimeMs: 60_000 };
const FAN_OUT = `const pages = await Promise.all(Array.from({ length: ${CALLS} }, (_, cursor) => tools.api.page({ cursor })));
return pages.reduce((sum, page) => sum + page.item, 0);`;
const EMPTY = "let sum = 0; return sum;";

export async function measureDurable(): Promise<string> {
  const folder = mkdtempSync(join(tmpdir(), "bench-durable-"));
  // The guest runtime as an installed package has it, prebuilt (npm run build writes it into
  // dist/): without it a fresh process bundles runtime/ with esbuild, which no user pays.
  const prebuilt = fileURLToPath(new URL("../runtime/guest-runtime.iife.js", import.meta.url));
  mkdirSync(dirname(prebuilt), { recursive: true });
  writeFileSync(prebuilt, await bundleGuestRuntime());
  try {
    const yard = new Switchyard({ tools: [pageTool()], typeCheck: "off", runJournal: new FileRunJournal({ folder }) });
    let ids = 0;
    // Process CPU (every thread: the host's and the isolate's) per call, beside the wall time: on a
    // loaded machine the wall time of a run that never yields its core grows with the load.
    const cpu = { plain: [] as number[], live: [] as number[], replay: [] as number[] };
    // Each sweep row's time from its program's start (`stats.wallMs`): the whole run less opening
    // the journal (a replay's read of it) and closing it (a live run's last fdatasync).
    const fromStart = { plain: [] as number[], live: [] as number[], replay: [] as number[] };
    const wallUsPerCall = async (source: string, durableId?: string, cpuRow?: number[]): Promise<number> => {
      const durable = durableId === undefined ? {} : { durable: { id: durableId } };
      const cpuBefore = process.cpuUsage();
      const started = performance.now();
      const run = await yard.run(source, { limits: LIMITS, ...durable });
      const wallMs = performance.now() - started;
      const cpuRun = process.cpuUsage(cpuBefore);
      const emptyBefore = process.cpuUsage();
      const emptyStarted = performance.now();
      const empty = await yard.run(EMPTY, { limits: LIMITS });
      const emptyMs = performance.now() - emptyStarted;
      const cpuEmpty = process.cpuUsage(emptyBefore);
      if (!run.ok) throw new Error(`${run.error?.code}: ${run.error?.message}`);
      const cpuUs = cpuRun.user + cpuRun.system - (cpuEmpty.user + cpuEmpty.system);
      cpuRow?.push(cpuUs / CALLS);
      const row = cpuRow === cpu.replay ? fromStart.replay : cpuRow === cpu.live ? fromStart.live : fromStart.plain;
      if (cpuRow !== undefined) row.push(((run.stats.wallMs - empty.stats.wallMs) * 1_000) / CALLS);
      return ((wallMs - emptyMs) * 1_000) / CALLS;
    };
    const rows = {
      plain: [] as number[],
      live: [] as number[],
      replay: [] as number[],
      fanLive: [] as number[],
      fanReplay: [] as number[],
    };
    // Warm-up: the JIT, the first isolate.
    await wallUsPerCall(SWEEP);
    await wallUsPerCall(SWEEP, `warm-${++ids}`);
    for (let round = 0; round < ROUNDS; round++) {
      rows.plain.push(await wallUsPerCall(SWEEP, undefined, cpu.plain));
      const id = `sweep-${++ids}`;
      rows.live.push(await wallUsPerCall(SWEEP, id, cpu.live));
      rows.replay.push(await wallUsPerCall(SWEEP, id, cpu.replay));
      const fan = `fan-${++ids}`;
      rows.fanLive.push(await wallUsPerCall(FAN_OUT, fan));
      rows.fanReplay.push(await wallUsPerCall(FAN_OUT, fan));
    }
    await yard.close();
    const resumes: { total: number; inProcess: number }[] = [];
    const coldResumes: { total: number; inProcess: number }[] = [];
    for (let round = 0; round < 3; round++) {
      resumes.push(await resumeAfterKillMs(folder, `standby-${round}`, true));
      coldResumes.push(await resumeAfterKillMs(folder, `killed-${round}`, false));
    }

    const plain = median(rows.plain);
    const live = median(rows.live);
    const replay = median(rows.replay);
    // The median of each round's live/plain ratio: the two runs of a round are back to back, so
    // the machine's load moves both (a ratio of the two rows' medians mixed rounds apart).
    const overhead = (median(rows.live.map((perCall, round) => perCall / rows.plain[round]!)) - 1) * 100;
    const resume = median(coldResumes.map((measured) => measured.total));
    const format = (value: number): string => value.toFixed(1);
    const list = (measured: { total: number; inProcess: number }[], field: "total" | "inProcess"): string =>
      measured.map((one) => one[field].toFixed(0)).join(", ");
    console.log(`durable runs, ${CALLS} calls per run, medians of ${ROUNDS} rounds (load ${loadAverage()})`);
    console.log(
      `  sequential sweep, plain run, per call:               ${format(plain)} µs   (process CPU ${format(median(cpu.plain))} µs)`,
    );
    console.log(
      `  sequential sweep, durable live (journaled), per call: ${format(live)} µs   (process CPU ${format(median(cpu.live))} µs)`,
    );
    console.log(
      `  sequential sweep, replayed from the journal, per call: ${format(replay)} µs   (process CPU ${format(median(cpu.replay))} µs)`,
    );
    console.log(
      `  the same three from the program's start (no journal open or close): plain ${format(median(fromStart.plain))} µs, ` +
        `live ${format(median(fromStart.live))} µs, replayed ${format(median(fromStart.replay))} µs`,
    );
    console.log(`  fan-out of ${CALLS}, durable live, per call:            ${format(median(rows.fanLive))} µs`);
    console.log(`  fan-out of ${CALLS}, replayed, per call:                ${format(median(rows.fanReplay))} µs`);
    console.log(
      `  resume after SIGKILL at call ${KILL_AT} in a new process started at the kill, kill to the resumed run's first live call (Node start and the library's import counted): ${list(coldResumes, "total")} ms`,
    );
    console.log(
      `    of which after the new process's start-up (journal read, ${KILL_AT} calls replayed): ${list(coldResumes, "inProcess")} ms`,
    );
    console.log(`  the same in a worker already up (a fleet's case: no process start): ${list(resumes, "total")} ms`);
    return `durable: replay ${format(replay)} µs per call, journal overhead ${overhead.toFixed(1)}% per live call, resume after kill ${resume.toFixed(0)} ms`;
  } finally {
    rmSync(folder, { recursive: true, force: true });
    // Later benches compiled into dist-bench/ bundle the runtime afresh, as a checkout does.
    rmSync(prebuilt, { force: true });
  }
}

/**
 * Starts the sweep in a child, SIGKILLs it at call KILL_AT, and resumes it: ms from the kill to the
 * resumed run's first live call. `standby`: the resume runs in a second child already started (a
 * fleet worker that is up, its session made), told at the kill; else in a new process started at
 * the kill, whose start-up (Node, the library's import) is counted too.
 */
async function resumeAfterKillMs(
  folder: string,
  runId: string,
  standby: boolean,
): Promise<{ total: number; inProcess: number }> {
  const log = join(folder, `${runId}.log`);
  const resumedLog = standby ? `${log}.2` : log;
  const waiting = standby ? startChild(folder, resumedLog, runId, true) : undefined;
  if (waiting !== undefined) await until(() => existsSync(`${resumedLog}.ready`));
  const first = startChild(folder, log, runId, false);
  const killedAt = await new Promise<number>((resolve) => {
    const poll = setInterval(() => {
      if (lineCount(log) < KILL_AT) return;
      first.kill("SIGKILL");
      clearInterval(poll);
      resolve(Date.now());
    }, 1);
  });
  // The supervisor learns of the death when it reaps the worker (until then the dead pid still
  // holds the run's lock), then hands the job to a worker that is up, or starts a new one.
  await new Promise((resolve) => first.once("exit", resolve));
  const startedAt = Date.now();
  let second: ChildProcess;
  if (waiting !== undefined) {
    waiting.stdin?.write("go\n");
    second = waiting;
  } else {
    second = startChild(folder, log, runId, false);
  }
  const before = standby ? 0 : lineCount(log);
  const firstLive = await new Promise<number>((resolve) => {
    const poll = setInterval(() => {
      const lines = readLines(resumedLog);
      if (lines.length <= before) return;
      clearInterval(poll);
      resolve(Number(lines[before]!.split(" ")[0]));
    }, 1);
  });
  second.kill("SIGKILL");
  await new Promise((resolve) => second.once("exit", resolve));
  const ready = standby ? startedAt : Number(readFileSync(`${log}.ready`, "utf8"));
  return { total: firstLive - killedAt, inProcess: firstLive - ready };
}

function startChild(folder: string, log: string, runId: string, standby: boolean): ChildProcess {
  const child = fileURLToPath(new URL("./durable-child.js", import.meta.url));
  const args = ["--no-node-snapshot", child, folder, log, runId, ...(standby ? ["--standby"] : [])];
  return spawn(process.execPath, args, { stdio: [standby ? "pipe" : "ignore", "ignore", "inherit"] });
}

function until(done: () => boolean): Promise<void> {
  return new Promise((resolve) => {
    const poll = setInterval(() => {
      if (!done()) return;
      clearInterval(poll);
      resolve();
    }, 2);
  });
}

function readLines(file: string): string[] {
  return existsSync(file)
    ? readFileSync(file, "utf8")
        .split("\n")
        .filter((line) => line !== "")
    : [];
}

function lineCount(file: string): number {
  return readLines(file).length;
}

function loadAverage(): string {
  return loadavg()
    .map((value) => value.toFixed(1))
    .join(", ");
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) console.log(await measureDurable());
