// Throughput benchmark: runs per second, latency and peak resident memory of many runs on one
// machine, in process (`workers: 0`) and in 1, 2 and 4 worker processes, for an I/O-bound
// program (20 sequential calls to a 2 ms tool) and a CPU-bound one (about 20 ms of compute),
// each against the bare floor at the same concurrency: the same program on bare isolated-vm, a
// fresh isolate per run (bench/bare-floor.ts). Writes bench/results/throughput.json.
// Then two rows that pick defaults: tools run inside a worker that loads them itself (a
// prototype beside the host pipeline), and 24 concurrent 128 MB runs under the memory budget.
// Clients are closed loops (each sends its next run when the last ends); variants are
// interleaved in rounds so the shared machine's load falls on all of them alike. "cores" is the
// CPU time of this process and its workers (every thread) over the wall time: what a variant
// got out of the machine, and why a second worker cannot double what one worker already spreads
// over both cores (isolated-vm runs each process's isolates on a pool of its own threads).
// Run: npm run bench:throughput   (compiled with tsc into dist-bench/ first, as bench:runtime)

import { fork } from "node:child_process";
import { readFileSync } from "node:fs";
import { availableParallelism, loadavg } from "node:os";
import { fileURLToPath } from "node:url";
import type { RunResult } from "../src/contract.js";
import { defineTool } from "../src/registry/define-tool.js";
import { WorkerPool } from "../src/sandbox/worker-pool.js";
import { Switchyard } from "../src/switchyard.js";
import { BareIsolateRunner, type BareTool } from "./bare-floor.js";
import { benchConditions, currentLoad, writeBenchResult } from "./bench-result.js";
import { IO_BOUND_PROGRAM, ioTools } from "./throughput-tools.js";
import { percentile } from "./stats.js";

const WORKER_COUNTS = [0, 1, 2, 4] as const;
const RUNS = Number(process.env["THROUGHPUT_RUNS"] ?? 1_000);
const ROUNDS = 4;
/** Clients sending runs at once; 32 runs of 32 MB fit the default 1 GB budget. */
const CLIENTS = 32;
const MEMORY_LIMIT_MB = 32;
const CPU_TARGET_MS = 20;

interface Variant {
  readonly label: string;
  readonly workers: number;
  /** Sends one run; resolves when its result is back. */
  readonly run: (source: string) => Promise<{ ok: boolean }>;
  /** Process ids whose resident memory counts (this process's own is always counted). */
  readonly pids: () => readonly number[];
  readonly close: () => Promise<void>;
}

interface Tally {
  readonly latenciesMs: number[];
  wallMs: number;
  /** CPU time of this process and of the variant's workers, all threads. */
  cpuMs: number;
  runs: number;
  failed: number;
  peakRssMb: number;
}

function tally(): Tally {
  return { latenciesMs: [], wallMs: 0, cpuMs: 0, runs: 0, failed: 0, peakRssMb: 0 };
}

/** Linux's USER_HZ: /proc reports CPU times in these ticks on every architecture Node runs on. */
const TICKS_PER_SECOND = 100;

/** A file of /proc/<pid>, or undefined when the process ended between listing and reading. */
function procFile(pid: number, name: "stat" | "status"): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/${name}`, "utf8");
  } catch {
    return undefined;
  }
}

/** CPU time, in ms, used so far by this process and by `pids` (a pid already gone is left out). */
function cpuMsUsed(pids: readonly number[]): Map<number, number> {
  const own = process.cpuUsage();
  const used = new Map([[process.pid, (own.user + own.system) / 1_000]]);
  for (const pid of pids) {
    // Fields after the command's closing parenthesis: utime and stime are the 12th and 13th.
    const fields = procFile(pid, "stat")?.split(") ")[1]?.split(" ");
    if (fields !== undefined) used.set(pid, ((Number(fields[11]) + Number(fields[12])) * 1_000) / TICKS_PER_SECOND);
  }
  return used;
}

/** CPU ms used between two readings; a process first seen in `after` counts from its start. */
function cpuMsBetween(before: Map<number, number>, after: Map<number, number>): number {
  let total = 0;
  for (const [pid, ms] of after) total += ms - (before.get(pid) ?? 0);
  return total;
}

/** Resident memory of this process and of `pids`, in MB (Linux /proc; 0 for a pid already gone). */
function residentMb(pids: readonly number[]): number {
  let bytes = process.memoryUsage.rss();
  for (const pid of pids) {
    const match = /VmRSS:\s+(\d+) kB/.exec(procFile(pid, "status") ?? "");
    bytes += Number(match?.[1] ?? 0) * 1024;
  }
  return bytes / 1e6;
}

/** Runs `count` runs of `source` through `variant` from CLIENTS closed-loop clients, into `into`. */
async function drive(variant: Variant, source: string, count: number, into: Tally): Promise<void> {
  let sent = 0;
  const sampler = setInterval(() => {
    into.peakRssMb = Math.max(into.peakRssMb, residentMb(variant.pids()));
  }, 10);
  const started = performance.now();
  const cpuBefore = cpuMsUsed(variant.pids());
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      while (sent < count) {
        sent++;
        const begin = performance.now();
        const result = await variant.run(source);
        into.latenciesMs.push(performance.now() - begin);
        if (!result.ok) into.failed++;
      }
    }),
  );
  into.wallMs += performance.now() - started;
  into.cpuMs += cpuMsBetween(cpuBefore, cpuMsUsed(variant.pids()));
  into.runs += count;
  clearInterval(sampler);
}

function runsPerSecond(figures: Tally): number {
  return (figures.runs / figures.wallMs) * 1_000;
}

/** A session per variant: in process, or on a pool of its own (so its workers' memory can be read). */
function sessionVariant(workers: number): Variant {
  const pool = workers === 0 ? undefined : new WorkerPool({ size: workers });
  pool?.warmUp();
  const yard = new Switchyard({
    tools: ioTools(),
    typeCheck: "off",
    limits: { memoryLimitMb: MEMORY_LIMIT_MB },
    workers: pool ?? 0,
  });
  return {
    label: workers === 0 ? "in process" : `${workers} worker${workers === 1 ? "" : "s"}`,
    workers,
    run: (source) => yard.run(source),
    pids: () => pool?.pids() ?? [],
    close: async () => {
      await yard.close();
      await pool?.close();
    },
  };
}

/** The bare floor: each run of a program in a fresh bare isolate, its calls one `Reference.apply` each. */
const BARE_LABEL = "bare isolated-vm (floor)";

function bareVariant(): Variant {
  const tools = new Map<string, BareTool>(
    ioTools().map((tool) => [tool.name, (input: unknown) => tool.execute(input as never, undefined as never)]),
  );
  const runners = new Map<string, BareIsolateRunner>();
  return {
    label: BARE_LABEL,
    workers: 0,
    run: async (source) => {
      let runner = runners.get(source);
      if (runner === undefined) runners.set(source, (runner = new BareIsolateRunner(source, tools, MEMORY_LIMIT_MB)));
      try {
        return { ok: (await runner.run()) !== undefined };
      } catch {
        return { ok: false };
      }
    },
    pids: () => [],
    close: async () => {},
  };
}

/**
 * The prototype of tools run in the worker: each child process holds a whole session of its
 * own with the tool module loaded there (bench/throughput-local-worker.ts), so a call never
 * leaves the child. Runs go to the children in turn.
 */
function localToolsVariant(children: number): Variant {
  const entry = fileURLToPath(new URL("./throughput-local-worker.js", import.meta.url));
  const processes = Array.from({ length: children }, () =>
    fork(entry, [], { execArgv: ["--no-node-snapshot"], stdio: ["ignore", "inherit", "inherit", "ipc"] }),
  );
  const pending = new Map<number, (ok: boolean) => void>();
  for (const child of processes) {
    child.on("message", (message: { id: number; ok: boolean }) => {
      pending.get(message.id)?.(message.ok);
      pending.delete(message.id);
    });
  }
  let nextId = 0;
  return {
    label: `${children} workers, tools in the worker (prototype)`,
    workers: children,
    run: (source) =>
      new Promise((resolve) => {
        const id = nextId++;
        pending.set(id, (ok) => resolve({ ok }));
        processes[id % processes.length]!.send({ id, source, memoryLimitMb: MEMORY_LIMIT_MB });
      }),
    pids: () => processes.flatMap((child) => (child.pid === undefined ? [] : [child.pid])),
    close: async () => {
      await Promise.all(
        processes.map(
          (child) =>
            new Promise<void>((resolve) => {
              child.once("exit", () => resolve());
              child.disconnect();
            }),
        ),
      );
    },
  };
}

/**
 * A CPU-bound program whose loop takes about CPU_TARGET_MS of CPU here. Measured with the
 * process's own CPU time, less that of a trivial run: isolated-vm's `cpuTime` also counts time
 * its thread is descheduled, which on a loaded machine is most of it.
 */
async function calibrateCpuProgram(): Promise<string> {
  const yard = new Switchyard({ typeCheck: "off" });
  const program = (iterations: number) =>
    `let x = 0; for (let i = 0; i < ${iterations}; i++) x += Math.sqrt(i) * Math.sin(i); return x > 0;`;
  const cpuMsOf = async (source: string): Promise<number> => {
    const samples: number[] = [];
    for (let round = 0; round < 7; round++) {
      const before = process.cpuUsage();
      await yard.run(source);
      const used = process.cpuUsage(before);
      samples.push((used.user + used.system) / 1_000);
    }
    return percentile(samples, 0.5);
  };
  const probe = 2_000_000;
  const perIteration = ((await cpuMsOf(program(probe))) - (await cpuMsOf("return true;"))) / probe;
  await yard.close();
  const iterations = Math.round(CPU_TARGET_MS / perIteration);
  console.log(
    `CPU-bound program: ${iterations.toLocaleString("en-US")} iterations of sqrt × sin, calibrated here to ${CPU_TARGET_MS} ms of process CPU time (medians of 7 runs).`,
  );
  return program(iterations);
}

function row(label: string, figures: Tally): string {
  const failed = figures.failed > 0 ? ` (${figures.failed} failed)` : "";
  const cores = figures.cpuMs / figures.wallMs;
  return `| ${label.padEnd(42)} | ${runsPerSecond(figures).toFixed(1).padStart(7)} | ${percentile(figures.latenciesMs, 0.5).toFixed(1).padStart(7)} | ${percentile(figures.latenciesMs, 0.99).toFixed(1).padStart(7)} | ${figures.peakRssMb.toFixed(0).padStart(11)} | ${cores.toFixed(2).padStart(5)} | ${(figures.cpuMs / figures.runs).toFixed(1).padStart(10)}${failed} |`;
}

function header(title: string): string {
  return `\n${title}\n| ${"variant".padEnd(42)} | runs/s  | p50 ms  | p99 ms  | peak RSS MB | cores | CPU ms/run |\n| ${"-".repeat(42)} | ------- | ------- | ------- | ----------- | ----- | ---------- |`;
}

/** Runs every variant for `RUNS` runs of `source`, interleaved in ROUNDS rounds; returns the tallies by label. */
async function measure(variants: readonly Variant[], source: string): Promise<Map<string, Tally>> {
  const tallies = new Map(variants.map((variant) => [variant.label, tally()]));
  // Warm-up: workers started, code paths compiled; not counted.
  for (const variant of variants) await drive(variant, source, CLIENTS * 2, tally());
  for (let round = 0; round < ROUNDS; round++) {
    // Rotate the order, so no variant always runs first in a round.
    const order = variants.map((_, index) => variants[(index + round) % variants.length]!);
    for (const variant of order) await drive(variant, source, RUNS / ROUNDS, tallies.get(variant.label)!);
  }
  return tallies;
}

/** 24 concurrent runs that each fill about 90 MB of a 128 MB isolate and hold it across a call. */
async function memoryBurst(): Promise<string[]> {
  const program = `
    const blocks: number[][] = [];
    for (let i = 0; i < 90; i++) blocks.push(new Array(128 * 1024).fill(i));
    await tools.hold.wait({});
    return blocks.length;`;
  const hold = defineTool({
    name: "hold.wait",
    description: "Answers after 300 ms.",
    effect: "read",
    inputSchema: { type: "object" },
    execute: () => new Promise((resolve) => setTimeout(() => resolve(true), 300)),
  });
  const lines: string[] = [];
  const cases = [
    { label: "in process, default budget (1 GB: 8 runs at once)", workers: 0, budget: undefined },
    { label: "in process, budget 3 GB (all 24 at once, as before)", workers: 0, budget: 3_072 },
    { label: "2 workers, default budget", workers: 2, budget: undefined },
  ];
  for (const { label, workers, budget } of cases) {
    const pool = workers === 0 ? undefined : new WorkerPool({ size: workers });
    pool?.warmUp();
    const yard = new Switchyard({
      tools: [hold],
      typeCheck: "off",
      workers: pool ?? 0,
      ...(budget === undefined ? {} : { runQueue: { memoryBudgetMb: budget } }),
    });
    await yard.run("return 0;");
    const pids = () => pool?.pids() ?? [];
    const before = residentMb(pids());
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, residentMb(pids()))), 5);
    const started = performance.now();
    const results: RunResult[] = await Promise.all(Array.from({ length: 24 }, () => yard.run(program)));
    const wallMs = performance.now() - started;
    clearInterval(sampler);
    const ok = results.filter((result) => result.output === 90).length;
    const failures = new Map<string, number>();
    for (const result of results) {
      if (result.error !== undefined) failures.set(result.error.code, (failures.get(result.error.code) ?? 0) + 1);
    }
    const failed = [...failures].map(([code, count]) => `${count} ${code}`).join(", ");
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const after = residentMb(pids());
    lines.push(
      `| ${label.padEnd(52)} | ${before.toFixed(0).padStart(6)} | ${peak.toFixed(0).padStart(5)} | ${after.toFixed(0).padStart(9)} | ${(wallMs / 1000).toFixed(1).padStart(6)} | ${String(ok).padStart(2)} | ${failed.padEnd(6)} |`,
    );
    await yard.close();
    await pool?.close();
  }
  return lines;
}

/** One run at a time, in process and in one worker, alternating: what a crossing to a worker costs. */
async function oneAtATime(): Promise<string[]> {
  const programs = [
    { label: "the I/O-bound program (20 calls of 2 ms)", source: IO_BOUND_PROGRAM },
    {
      label: "200 sequential no-op calls",
      source: "for (let i = 0; i < 200; i++) await tools.api.noop({}); return 1;",
    },
    {
      label: "Promise.all of 2,000 no-op calls",
      source: "return (await Promise.all(Array.from({ length: 2000 }, () => tools.api.noop({})))).length;",
    },
    { label: "`return 1`", source: "return 1;" },
  ];
  const pool = new WorkerPool({ size: 1 });
  pool.warmUp();
  const options = { tools: ioTools(), typeCheck: "off" as const, limits: { maxToolCalls: 5_000 } };
  const inProcess = new Switchyard(options);
  const inWorker = new Switchyard({ ...options, workers: pool });
  const lines: string[] = [];
  for (const { label, source } of programs) {
    const times = { inProcess: [] as number[], inWorker: [] as number[] };
    for (let round = 0; round < 40; round++) {
      for (const [key, yard] of [
        ["inProcess", inProcess],
        ["inWorker", inWorker],
      ] as const) {
        const begin = performance.now();
        await yard.run(source);
        if (round >= 5) times[key].push(performance.now() - begin);
      }
    }
    const inProcessMs = percentile(times.inProcess, 0.5);
    const inWorkerMs = percentile(times.inWorker, 0.5);
    lines.push(
      `| ${label.padEnd(42)} | ${inProcessMs.toFixed(2).padStart(10)} | ${inWorkerMs.toFixed(2).padStart(8)} | ${(inWorkerMs / inProcessMs).toFixed(2).padStart(5)}× |`,
    );
  }
  await inProcess.close();
  await inWorker.close();
  await pool.close();
  return lines;
}

const load = () =>
  loadavg()
    .map((value) => value.toFixed(1))
    .join(" ");

const startLoad = currentLoad();
const output: string[] = [];
/** Prints a line and keeps it for the result file's summary. */
const say = (line: string): void => {
  console.log(line);
  output.push(line);
};

say(
  `Node ${process.version}, ${availableParallelism()} cores; ${RUNS} runs per variant and workload in ${ROUNDS} interleaved rounds, ${CLIENTS} closed-loop clients, memoryLimitMb ${MEMORY_LIMIT_MB}, typeCheck off. Load average at start: ${load()}.`,
);
const cpuProgram = await calibrateCpuProgram();

const bare = bareVariant();
const sessions = WORKER_COUNTS.map(sessionVariant);
const local = localToolsVariant(2);
const io = await measure([bare, ...sessions, local], IO_BOUND_PROGRAM);
say(header("I/O-bound: 20 sequential calls to a 2 ms tool"));
for (const [label, figures] of io) say(row(label, figures));
say(`\nLoad average: ${load()}.`);
await local.close();

const cpu = await measure([bare, ...sessions], cpuProgram);
say(header(`CPU-bound: about ${CPU_TARGET_MS} ms of compute, no calls`));
for (const [label, figures] of cpu) say(row(label, figures));
say(`\nLoad average: ${load()}.`);
for (const variant of sessions) await variant.close();

say(
  "\n24 concurrent runs at memoryLimitMb 128, each holding ~90 MB across a 300 ms call (RSS: this process + its workers, MB)",
);
say(
  `| ${"case".padEnd(52)} | before |  peak | 1 s after | wall s | ok | failed |\n| ${"-".repeat(52)} | ------ | ----- | --------- | ------ | -- | ------ |`,
);
for (const line of await memoryBurst()) say(line);
say(`\nLoad average at the end: ${load()}.`);

say("\nOne run at a time, in process and in 1 worker alternating (p50 of 35 runs, ms)");
say(
  `| ${"program".padEnd(42)} | in process | 1 worker | ratio  |\n| ${"-".repeat(42)} | ---------- | -------- | ------ |`,
);
for (const line of await oneAtATime()) say(line);

// Against the bare floor at the same concurrency: isolated-vm already spreads one process's isolates
// over every core, so "2 workers against 1" measured the wrong thing (issue 31).
const ratio = (figures: Map<string, Tally>, label: string, of: (tally: Tally) => number) =>
  of(figures.get(label)!) / of(figures.get(BARE_LABEL)!);
const cpuPerRun = (figures: Tally): number => figures.cpuMs / figures.runs;
const summary =
  `throughput at ${CLIENTS} concurrent runs, in process against bare isolated-vm: ` +
  `io-bound ${ratio(io, "in process", runsPerSecond).toFixed(2)}× runs/s, ${ratio(io, "in process", cpuPerRun).toFixed(2)}× CPU/run; ` +
  `cpu-bound ${ratio(cpu, "in process", runsPerSecond).toFixed(2)}× runs/s, ${ratio(cpu, "in process", cpuPerRun).toFixed(2)}× CPU/run`;
say(`\n${summary}`);
writeBenchResult(
  "throughput",
  benchConditions(startLoad),
  {
    summary: `\n\`npm run bench:throughput\`, as it printed (every variant against the bare floor at the same concurrency):\n\n${output.join("\n")}\n`,
    line: summary,
  },
  [
    `${RUNS} runs per variant and workload (THROUGHPUT_RUNS), ${CLIENTS} closed-loop clients; the bare floor is the same program on bare isolated-vm, a fresh isolate per run (bench/bare-floor.ts).`,
  ],
);
