// What the type check costs a user, side by side in one run, for the 37-line paginated sweep of
// 180 instant calls (sweep-workload.ts): the bare isolated-vm floor, `yard.run` with the check off,
// a cached program, a new program (back to back, and one model turn after the last run), and the
// first run in a fresh process (a child process per sample), each as a ratio of the floor. Rounds
// interleave the back-to-back rows, so load hits all alike.
// Run through bench/type-check.ts (npm run bench:type-check).

import { execFile, spawn } from "node:child_process";
import { createRequire } from "node:module";
import { fileURLToPath, pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { loadIsolatedVm } from "../src/sandbox/load-isolated-vm.js";
import { Switchyard } from "../src/switchyard.js";
import { median } from "./stats.js";
import { answerBareCall, bareSweepScript, SWEEP_CALLS, SWEEP_PROGRAM, sweepTools } from "./sweep-workload.js";

const ROUNDS = 15;
const FRESH_SAMPLES = 5;
/** New programs run each one model turn after the last run (the session's checker idle meanwhile). */
const TURN_SAMPLES = 5;
/** The pause between a session's start and its first program: a model turn, short end. */
const MODEL_TURN_MS = 1_500;

/** Medians in ms, and each row's ratio to the bare floor. */
export interface SweepMeasurement {
  readonly calls: number;
  readonly programLines: number;
  readonly bareMs: number;
  readonly offMs: number;
  readonly cachedMs: number;
  readonly newProgramMs: number;
  /** A new program run one model turn (1.5 s) after the session's last run, as an agent loop runs them. */
  readonly newProgramAfterTurnMs: number;
  /** Fresh process: the run issued right after `new Switchyard` (it waits for the warm-up). */
  readonly firstRunAtStartMs: number;
  /** Fresh process: the run issued one model turn (1.5 s) after `new Switchyard`. */
  readonly firstRunAfterTurnMs: number;
  /** Fresh process: spawn to first result, process start and imports included (run at start). */
  readonly firstRunWholeProcessMs: number;
  /** Spawning a child process that answers one IPC message: the floor of any checker process. */
  readonly spawnMs: number;
}

async function timeMs(run: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await run();
  return performance.now() - started;
}

async function timeBareRun(script: string): Promise<{ ms: number; output: string }> {
  const ivm = loadIsolatedVm();
  let output = "";
  const ms = await timeMs(async () => {
    const isolate = new ivm.Isolate({ memoryLimit: 128 });
    const host = new ivm.Reference(async (path: string, inputJson: string) => answerBareCall(path, inputJson));
    try {
      const context = await isolate.createContext();
      await context.global.set("hostCall", host);
      const compiled = await isolate.compileScript(script);
      output = (await compiled.run(context, { promise: true, copy: true })) as string;
    } finally {
      isolate.dispose();
      host.release();
    }
  });
  return { ms, output };
}

async function timeYardRun(yard: Switchyard, source: string, typeCheck: "off" | "error", expected: string) {
  let output = "";
  const ms = await timeMs(async () => {
    const result = await yard.run(source, { typeCheck });
    if (!result.ok) throw new Error(`sweep failed: ${result.error?.code} ${result.error?.message}`);
    output = JSON.stringify(result.output);
  });
  if (output !== expected) throw new Error(`sweep returned ${output}, expected ${expected}`);
  return ms;
}

const execFileAsync = promisify(execFile);

/** One fresh process: imports, a session, one run of a program it never saw; times in ms. */
async function runFreshProcess(idleMs: number): Promise<{ runMs: number; wholeMs: number }> {
  const tsxLoader = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;
  const started = performance.now();
  const { stdout } = await execFileAsync(
    process.execPath,
    ["--no-node-snapshot", "--import", tsxLoader, fileURLToPath(import.meta.url), "--sweep-child", String(idleMs)],
    { maxBuffer: 1024 * 1024 },
  );
  const wholeMs = performance.now() - started;
  const reported = JSON.parse(stdout.trim().split("\n").at(-1) ?? "{}") as { runMs: number; resultAtMs: number };
  // Spawn to result, without the time the process spent exiting or the model turn it waited.
  return { runMs: reported.runMs, wholeMs: Math.min(wholeMs, reported.resultAtMs) - idleMs };
}

/** Inside the fresh child: the first run, issued `idleMs` after the session starts. */
async function sweepChild(idleMs: number): Promise<void> {
  const yard = new Switchyard({ tools: sweepTools() });
  if (idleMs > 0) await new Promise((resolve) => setTimeout(resolve, idleMs));
  const started = performance.now();
  const result = await yard.run(`${SWEEP_PROGRAM}\n// fresh ${process.pid}`);
  const runMs = performance.now() - started;
  if (!result.ok) throw new Error(`sweep failed: ${result.error?.code} ${result.error?.message}`);
  await yard.close();
  // performance.now() counts from this process's start: the result's time since spawn.
  console.log(JSON.stringify({ runMs, resultAtMs: started + runMs }));
}

async function measureSpawn(): Promise<number> {
  const samples: number[] = [];
  for (let sample = 0; sample < FRESH_SAMPLES; sample++) {
    samples.push(
      await timeMs(async () => {
        const child = spawn(process.execPath, ["-e", "process.send('ready')"], {
          stdio: ["ignore", "ignore", "ignore", "ipc"],
        });
        await new Promise((resolve) => child.once("message", resolve));
        child.disconnect();
      }),
    );
  }
  return median(samples);
}

/** Runs every row; takes about a minute. */
export async function measureSweep(): Promise<SweepMeasurement> {
  const script = await bareSweepScript();
  const { output: expected } = await timeBareRun(script);
  const yard = new Switchyard({ tools: sweepTools() });
  const rows = {
    bare: [] as number[],
    off: [] as number[],
    cached: [] as number[],
    fresh: [] as number[],
    afterTurn: [] as number[],
  };
  try {
    // Untimed: the checker's start-up, and the cached program's first check.
    await timeYardRun(yard, SWEEP_PROGRAM, "error", expected);
    await timeYardRun(yard, SWEEP_PROGRAM, "off", expected);
    for (let round = 0; round < ROUNDS; round++) {
      rows.bare.push((await timeBareRun(script)).ms);
      rows.off.push(await timeYardRun(yard, SWEEP_PROGRAM, "off", expected));
      rows.cached.push(await timeYardRun(yard, SWEEP_PROGRAM, "error", expected));
      // A comment makes a program the check cache has never seen, as a model's next turn is.
      rows.fresh.push(await timeYardRun(yard, `${SWEEP_PROGRAM}\n// round ${round}`, "error", expected));
    }
    // After the back-to-back rounds: what the checker does with a model's turn of idle time shows here.
    for (let turn = 0; turn < TURN_SAMPLES; turn++) {
      await new Promise((resolve) => setTimeout(resolve, MODEL_TURN_MS));
      rows.afterTurn.push(await timeYardRun(yard, `${SWEEP_PROGRAM}\n// turn ${turn}`, "error", expected));
    }
  } finally {
    await yard.close();
  }
  const atStart: { runMs: number; wholeMs: number }[] = [];
  const afterTurn: number[] = [];
  for (let sample = 0; sample < FRESH_SAMPLES; sample++) {
    atStart.push(await runFreshProcess(0));
    afterTurn.push((await runFreshProcess(MODEL_TURN_MS)).runMs);
  }
  return {
    calls: SWEEP_CALLS,
    programLines: SWEEP_PROGRAM.split("\n").length,
    bareMs: median(rows.bare),
    offMs: median(rows.off),
    cachedMs: median(rows.cached),
    newProgramMs: median(rows.fresh),
    newProgramAfterTurnMs: median(rows.afterTurn),
    firstRunAtStartMs: median(atStart.map((sample) => sample.runMs)),
    firstRunAfterTurnMs: median(afterTurn),
    firstRunWholeProcessMs: median(atStart.map((sample) => sample.wholeMs)),
    spawnMs: await measureSpawn(),
  };
}

/** The rows as the bench prints them: median ms and the ratio to the bare floor. */
export function formatSweepTable(measurement: SweepMeasurement): string {
  const { bareMs } = measurement;
  const row = (name: string, ms: number, target = ""): string =>
    `${name.padEnd(58)}${ms.toFixed(1).padStart(9)}${`${(ms / bareMs).toFixed(2)}x`.padStart(10)}${target.padStart(10)}`;
  return [
    `${measurement.programLines}-line paginated sweep, ${measurement.calls} instant calls; medians of ${ROUNDS} rounds (after a turn: ${TURN_SAMPLES} runs; fresh process: ${FRESH_SAMPLES} processes)`,
    `${"row".padEnd(58)}${"ms".padStart(9)}${"x bare".padStart(10)}${"target".padStart(10)}`,
    row("bare isolated-vm floor (same JavaScript, hostCall)", bareMs),
    row("yard.run, typeCheck off", measurement.offMs),
    row("yard.run, cached program (default check)", measurement.cachedMs),
    row("yard.run, new program (default check)", measurement.newProgramMs, "<= 3x"),
    row("yard.run, new program one model turn after the last run", measurement.newProgramAfterTurnMs),
    row("fresh process, first run one model turn after new Switchyard", measurement.firstRunAfterTurnMs, "<= 10x"),
    row("fresh process, first run right at new Switchyard", measurement.firstRunAtStartMs),
    row("fresh process, spawn to first result (imports included)", measurement.firstRunWholeProcessMs),
    row("spawn a child process to its first IPC message", measurement.spawnMs),
  ].join("\n");
}

const childIndex = process.argv.indexOf("--sweep-child");
if (childIndex >= 0 && process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await sweepChild(Number(process.argv[childIndex + 1] ?? 0));
}
