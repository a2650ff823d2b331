// Runtime benchmark: what a tool call and a run cost through Switchyard, side by side with
// the bare isolated-vm floor it is built on, a plain in-process call and the peer a user would
// otherwise pick in Node (@utcp/code-mode, bench/runtime-peer.ts), in one process.
// The machine is shared and noisy: after a warm-up, variants run in rounds with compared
// variants back to back, figures are medians and ratios are medians of per-round ratios.
// Prints PASS/MISS against the targets; always exits 0. `measureRuntime()` is reusable.
// Run: npm run bench:runtime   (compiles src/ and bench/ with tsc into dist-bench/ first, so it
// measures the JavaScript users run; under tsx, whose keepNames helper wraps every closure,
// the in-process pipeline figures read about 1.5x higher).

import { setMaxListeners } from "node:events";
import { pathToFileURL } from "node:url";
import { loadIsolatedVm } from "../src/sandbox/load-isolated-vm.js";
import type { ToolCall } from "../src/contract.js";
import { runToolCall, type PipelineContext } from "../src/execute-tool-call.js";
import { PermissionGate } from "../src/permissions/permission-gate.js";
import { defineTool } from "../src/registry/define-tool.js";
import { ToolBridge } from "../src/sandbox/tool-bridge.js";
import { ToolScheduler } from "../src/scheduler/tool-scheduler.js";
import type { RunLimits } from "../src/sandbox/run-program.js";
import { Switchyard, type TypeCheckMode } from "../src/switchyard.js";
import { TraceBus } from "../src/trace/trace-events.js";
import { decodeCallEnvelope } from "../runtime/wire.js";
import { benchConditions, currentLoad, writeBenchResult } from "./bench-result.js";
import { createPeerHarness, type PeerHarness } from "./runtime-peer.js";
import { median } from "./stats.js";

const ivm = loadIsolatedVm();

export interface RuntimeBenchOptions {
  /** No-op calls per program (and per in-process loop). Default 2 000. */
  readonly calls?: number;
  /** Measured rounds, each running every variant once. Default 9. */
  readonly rounds?: number;
  /** Cold runs per variant per round (type-checked runs: a quarter of that). Default 8. */
  readonly coldRunsPerRound?: number;
  /** Also run bench/type-check.ts when it exists (a few seconds, in child processes). Default true. */
  readonly typeCheck?: boolean;
}

/** Type-check rows, when bench/type-check.ts provides `measureTypeCheck()`; times in ms. */
export interface TypeCheckFigures {
  readonly inProcessColdMs: number;
  readonly inProcessWarmMedianMs: number;
  readonly workerColdMs: number;
  readonly workerWarmMedianMs: number;
}

/**
 * Medians of one benchmark run. Per-call figures in µs, run figures in ms; ratios and shares
 * are medians of per-round ratios (each round's variants ran back to back).
 */
export interface RuntimeMeasurement {
  readonly calls: number;
  readonly rounds: number;
  readonly sequential: {
    /** Bare `Reference.apply` round trip with a JSON payload each way, fixed run cost subtracted. */
    readonly bareUs: number;
    /** `yard.run` per call, fixed run cost (the same program with 0 calls) subtracted. */
    readonly switchyardUs: number;
    readonly switchyardRatio: number;
    /** `await noop({})` in plain Node. */
    readonly directUs: number;
    /** The 0-call programs the per-call figures subtract, whole run. */
    readonly bareFixedMs: number;
    readonly switchyardFixedMs: number;
    /** @utcp/code-mode per call (its host console line per call muted), fixed run cost subtracted; NaN without it. */
    readonly peerUs: number;
    /** Switchyard per call over the peer's, per round. */
    readonly peerRatio: number;
    /** The peer with its per-call console line formatted into a discarding stream. */
    readonly peerLoggedUs: number;
  };
  readonly parallel: {
    readonly bareUs: number;
    /** Default scheduler: 64 reads of one namespace in flight per run. */
    readonly switchyardUs: number;
    readonly switchyardRatio: number;
    /** `scheduler: { maxConcurrentReads: 10_000 }`. */
    readonly switchyardWideUs: number;
    readonly switchyardWideRatio: number;
    readonly directUs: number;
  };
  /** A `console.log` line, per line: the program's loop with the line against the same loop without it. */
  readonly console: {
    /** Bare isolate: the line sent with `Reference.applyIgnored`, the old transport. */
    readonly bareUs: number;
    /** Switchyard: formatted, budgeted and written to the run's shared log buffer. */
    readonly switchyardUs: number;
  };
  /** Switchyard and @utcp/code-mode on the same workloads in the same rounds; undefined without the peer. */
  readonly peer:
    | {
        /** `Promise.all` of 50 calls to a tool that takes 20 ms, whole run. */
        readonly fanOutSwitchyardMs: number;
        readonly fanOutPeerMs: number;
        /** A tool returning about 1 MB of JSON, the program returning its length, whole run. */
        readonly bigResultSwitchyardMs: number;
        readonly bigResultPeerMs: number;
        readonly bigResultRatio: number;
        /** `return 1 + 1`. */
        readonly coldSwitchyardMs: number;
        readonly coldPeerMs: number;
        readonly coldRatio: number;
      }
    | undefined;
  /** Why the peer rows are missing, when they are. */
  readonly peerUnavailable: string | undefined;
  readonly cold: {
    /** new Isolate + createContext + compileScript + run + dispose of `1 + 1`. */
    readonly bareMs: number;
    /** `yard.run("return 1 + 1", { typeCheck: "off" })`: esbuild, isolate, guest runtime, run, dispose. */
    readonly switchyardMs: number;
    readonly switchyardRatio: number;
    /** `const sum: number = 1 + 1; return sum;`: TypeScript syntax, so esbuild transforms it. */
    readonly switchyardTypedMs: number;
    readonly switchyardTypedRatio: number;
    /** The same run started right after the previous one, before the spare isolate is ready. */
    readonly switchyardBackToBackMs: number;
    readonly switchyardBackToBackRatio: number;
    /** The same with the session default, `typeCheck: "error"` (a warm check in the worker thread first). */
    readonly switchyardCheckedMs: number;
    readonly switchyardCheckedRatio: number;
  };
  readonly pipeline: {
    /** `runToolCall` awaited in a loop, in process, context built as Switchyard builds it; share of the bare sequential round trip. */
    readonly runToolCallSequentialUs: number;
    readonly runToolCallSequentialShare: number;
    /** `runToolCall` for all calls at once, default scheduler (64 reads in flight); share of the bare parallel round trip. */
    readonly runToolCallParallelUs: number;
    readonly runToolCallParallelShare: number;
    /** The same with `maxConcurrentReads: 10_000`. */
    readonly runToolCallParallelWideUs: number;
    readonly runToolCallParallelWideShare: number;
    /** `ToolBridge.handle` awaited in a loop: the whole host side of a call (checks, parse, pipeline, envelope). */
    readonly bridgeHandleSequentialUs: number;
    readonly bridgeHandleSequentialShare: number;
    /** What Switchyard adds to the bare round trip per sequential call, measured end to end. */
    readonly switchyardMinusBareSequentialUs: number;
    readonly switchyardMinusBareSequentialShare: number;
  };
  readonly typeCheck: TypeCheckFigures | undefined;
}

const TARGET_CALL_RATIO = 1.5;
/** Issue 17: a wide fan-out pays a fraction of a crossing per call. */
const TARGET_PARALLEL_RATIO = 0.5;
/** Issue 17: sequential calls no slower than the peer's blocking crossing. */
const TARGET_PEER_SEQUENTIAL_RATIO = 1.0;
const LOG_LINES = 2_000;
const FAN_OUT_CALLS = 50;
const SLOW_TOOL_MS = 20;
const TARGET_COLD_RATIO = 1.5;
const TARGET_PIPELINE_SHARE = 0.1;
const TARGET_TYPE_CHECK_WARM_MS = 40;
const TARGET_TYPE_CHECK_COLD_MS = 600;
const DIRECT_LOOP_FACTOR = 10;

// ---- small utilities ----

async function timeMs(run: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await run();
  return performance.now() - started;
}

// ---- the workload ----

const noopTool = defineTool({
  name: "bench.noop",
  description: "Does nothing and returns null.",
  effect: "read",
  inputSchema: { type: "object" },
  execute: () => null,
});

const slowTool = defineTool({
  name: "bench.slow",
  description: `Answers after ${SLOW_TOOL_MS} ms.`,
  effect: "read",
  inputSchema: { type: "object" },
  execute: () => sleep(SLOW_TOOL_MS),
});

/** About 1 MB of JSON: 8,000 records of the kind an API answers with. */
const BIG_RESULT = Array.from({ length: 8_000 }, (_, index) => ({
  id: index,
  name: `item-${index}`,
  tags: ["alpha", "beta"],
  note: "n".repeat(80),
}));

const bigTool = defineTool({
  name: "bench.big",
  description: "Returns about 1 MB of JSON.",
  effect: "read",
  inputSchema: { type: "object" },
  execute: () => BIG_RESULT,
});

function sleep(ms: number): Promise<null> {
  return new Promise((resolve) => setTimeout(() => resolve(null), ms));
}

function sequentialProgram(calls: number): string {
  return `let count = 0;\nfor (let i = 0; i < ${calls}; i++) { await tools.bench.noop({}); count++; }\nreturn count;`;
}

function parallelProgram(calls: number): string {
  return `const results = await Promise.all(Array.from({ length: ${calls} }, () => tools.bench.noop({})));\nreturn results.length;`;
}

function fanOutProgram(): string {
  return `const results = await Promise.all(Array.from({ length: ${FAN_OUT_CALLS} }, () => tools.bench.slow({})));\nreturn results.length;`;
}

function bigResultProgram(): string {
  return "const rows = await tools.bench.big({});\nreturn rows.length;";
}

function logProgram(lines: number, log: boolean): string {
  return `let sum = 0;\nfor (let i = 0; i < ${lines}; i++) { sum += i;${log ? " console.log('line', i);" : ""} }\nreturn ${lines};`;
}

// The same workloads for the peer, in its dialect: tool calls are synchronous functions.
const peerPrograms = {
  sequential: (calls: number) =>
    `let count = 0;\nfor (let i = 0; i < ${calls}; i++) { bench.noop({}); count++; }\nreturn count;`,
  fanOut: `const results = await Promise.all(Array.from({ length: ${FAN_OUT_CALLS} }, async () => bench.slow({})));\nreturn results.length;`,
  bigResult: "const rows = bench.big({});\nreturn rows.length;",
  cold: "return 1 + 1;",
};

// The bare guest mirrors what the guest runtime must do at the least: serialize the input,
// cross with a path and the JSON, and parse the envelope that comes back.
const BARE_CALL = `const call = () => hostCall.apply(undefined, ["bench.noop", JSON.stringify({})], { result: { promise: true, copy: true } }).then((text) => JSON.parse(text).value);`;

function bareSequentialScript(calls: number): string {
  return `(async () => { ${BARE_CALL} let count = 0; for (let i = 0; i < ${calls}; i++) { await call(); count++; } return count; })()`;
}

function bareParallelScript(calls: number): string {
  return `(async () => { ${BARE_CALL} const results = await Promise.all(Array.from({ length: ${calls} }, () => call())); return results.length; })()`;
}

// ---- one helper per measurement ----

/**
 * Times one `yard.run`. The type check is off unless asked for: it is a separate station
 * with its own rows, and its 20-40 ms would drown the per-call figures in noise.
 */
async function timeSwitchyardRun(
  yard: Switchyard,
  source: string,
  expected: number,
  limits: Partial<RunLimits>,
  typeCheck: TypeCheckMode = "off",
): Promise<number> {
  let output: unknown;
  const elapsed = await timeMs(async () => {
    const result = await yard.run(source, { limits, typeCheck });
    if (!result.ok) throw new Error(`bench program failed: ${result.error?.code} ${result.error?.message}`);
    output = result.output;
  });
  if (output !== expected) throw new Error(`bench program returned ${JSON.stringify(output)}, expected ${expected}`);
  return elapsed;
}

/** A fresh isolate whose global `hostCall` references an async host function; the whole run is timed. */
async function timeBareRun(script: string, expected: number): Promise<number> {
  let output: unknown;
  const elapsed = await timeMs(async () => {
    const isolate = new ivm.Isolate({ memoryLimit: 128 });
    const host = new ivm.Reference(async (path: string, argsJson: string): Promise<string> => {
      JSON.parse(argsJson);
      return `{"ok":true,"callId":${JSON.stringify(path)},"value":${JSON.stringify(null)}}`;
    });
    try {
      const context = await isolate.createContext();
      await context.global.set("hostCall", host);
      const compiled = await isolate.compileScript(script);
      output = await compiled.run(context, { promise: true, copy: true });
    } finally {
      isolate.dispose();
      host.release();
    }
  });
  if (output !== expected) throw new Error(`bare script returned ${JSON.stringify(output)}, expected ${expected}`);
  return elapsed;
}

/** A bare isolate whose program sends `lines` console lines (or none) with `applyIgnored`, as the old console did. */
async function timeBareLogRun(lines: number, log: boolean): Promise<number> {
  const received: unknown[] = [];
  return timeMs(async () => {
    const isolate = new ivm.Isolate({ memoryLimit: 128 });
    const host = new ivm.Reference((level: unknown, text: unknown) => {
      received.push(level, text);
    });
    try {
      const context = await isolate.createContext();
      await context.global.set("hostLog", host);
      const line = log ? ' hostLog.applyIgnored(undefined, ["log", "line " + i]);' : "";
      const script = await isolate.compileScript(
        `let sum = 0; for (let i = 0; i < ${lines}; i++) { sum += i;${line} }`,
      );
      await script.run(context);
    } finally {
      isolate.dispose();
      host.release();
    }
  });
}

/** An untimed pause before a cold run, as between two model turns. */
function idle(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 5));
}

/** The bare floor of a cold run: isolate, context, compile, run, dispose. */
async function timeBareColdRun(): Promise<number> {
  return timeMs(async () => {
    const isolate = new ivm.Isolate({ memoryLimit: 128 });
    try {
      const context = await isolate.createContext();
      const script = await isolate.compileScript("1 + 1");
      const value: unknown = await script.run(context);
      if (value !== 2) throw new Error("bare cold run returned the wrong value");
    } finally {
      isolate.dispose();
    }
  });
}

async function timeDirectSequential(calls: number): Promise<number> {
  const noop = async (_input: object): Promise<null> => null;
  return timeMs(async () => {
    for (let index = 0; index < calls; index++) await noop({});
  });
}

async function timeDirectParallel(calls: number): Promise<number> {
  const noop = async (_input: object): Promise<null> => null;
  return timeMs(() => Promise.all(Array.from({ length: calls }, () => noop({}))));
}

let pipelineRunCount = 0;

/** A pipeline context built the way Switchyard and runProgram build it: session parts, run signal and deadline. */
function createPipelineContext(yard: Switchyard, scheduler: ToolScheduler): PipelineContext {
  const run = new AbortController();
  // As in runProgram: every in-flight call listens to the run's signal.
  setMaxListeners(0, run.signal);
  return {
    catalog: yard.registry.snapshot(),
    permissions: new PermissionGate(),
    scheduler,
    trace: new TraceBus(),
    signal: run.signal,
    // The context serves the whole bench, which runs longer than one program may.
    budgets: { sessionDeadlineAt: undefined, runDeadlineAt: Date.now() + 60 * 60_000 },
  };
}

async function timeRunToolCall(
  context: PipelineContext,
  calls: number,
  mode: "sequential" | "parallel",
): Promise<number> {
  const programId = `bench-p${++pipelineRunCount}`;
  const callAt = (index: number): ToolCall => ({
    id: `${programId}.${index + 1}`,
    tool: "bench.noop",
    input: {},
    caller: "program",
    programId,
  });
  const check = (status: string): void => {
    if (status !== "ok") throw new Error(`runToolCall resolved ${status}`);
  };
  return timeMs(async () => {
    if (mode === "sequential") {
      for (let index = 0; index < calls; index++)
        check((await runToolCall(callAt(index), context, { inputBytes: 2 })).outcome.status);
    } else {
      const results = await Promise.all(
        Array.from({ length: calls }, (_, index) => runToolCall(callAt(index), context, { inputBytes: 2 })),
      );
      for (const result of results) check(result.outcome.status);
    }
  });
}

async function timeBridgeHandle(context: PipelineContext, calls: number): Promise<number> {
  const bridge = new ToolBridge({
    programId: `bench-p${++pipelineRunCount}`,
    pipeline: context,
    maxToolCalls: calls + 1,
    maxArgumentBytes: 1024 * 1024,
    maxArgumentDepth: 64,
    maxPendingArgumentBytes: 32 * 1024 * 1024,
    onCallLimit: () => {
      throw new Error("call limit reached in the bridge bench");
    },
  });
  return timeMs(async () => {
    for (let index = 0; index < calls; index++) {
      const envelope = await bridge.handle("bench.noop", "{}");
      if (!decodeCallEnvelope(envelope).ok) throw new Error(`bridge answered ${envelope}`);
    }
  });
}

async function measureTypeCheckIfAvailable(): Promise<TypeCheckFigures | undefined> {
  // Imported through a variable so this script still loads (and type-checks) without the file.
  const specifier = "./type-check.js";
  let module: { measureTypeCheck?: unknown };
  try {
    module = (await import(specifier)) as { measureTypeCheck?: unknown };
  } catch {
    return undefined;
  }
  if (typeof module.measureTypeCheck !== "function") return undefined;
  type Timing = { coldMs: number; warmMedianMs: number };
  const measured = await (module.measureTypeCheck as () => Promise<{ inProcess: Timing; worker: Timing }>)();
  return {
    inProcessColdMs: measured.inProcess.coldMs,
    inProcessWarmMedianMs: measured.inProcess.warmMedianMs,
    workerColdMs: measured.worker.coldMs,
    workerWarmMedianMs: measured.worker.warmMedianMs,
  };
}

// ---- the rounds ----

type Variant = readonly [name: string, run: () => Promise<number>];

/** Median over rounds of a per-round figure; rounds missing a sample are skipped. */
function perRound(
  samples: Record<string, number[]>,
  rounds: number,
  figure: (get: (name: string) => number) => number,
): number {
  const values: number[] = [];
  for (let round = 0; round < rounds; round++) {
    const value = figure((name) => samples[name]?.[round] ?? Number.NaN);
    if (Number.isFinite(value)) values.push(value);
  }
  return median(values);
}

/**
 * Runs every variant once per round after one unrecorded warm-up round and returns medians.
 * Variants that are compared run back to back in one block (block order rotates, and the
 * order inside a block flips every round), and ratios are the median of per-round ratios,
 * so load that drifts between rounds cancels out. About 45 s on two cores (the peer's serialized
 * fan-out takes a second a round), plus the type check.
 */
export async function measureRuntime(options: RuntimeBenchOptions = {}): Promise<RuntimeMeasurement> {
  const calls = options.calls ?? 2_000;
  const rounds = options.rounds ?? 9;
  const coldRuns = options.coldRunsPerRound ?? 8;
  const maxToolCalls = calls + 10;
  const limits = { maxToolCalls };
  const logLimits = { maxToolCalls, maxLogLines: LOG_LINES + 10, maxLogBytes: 1024 * 1024 };
  const yard = new Switchyard({ tools: [noopTool, slowTool, bigTool] });
  const wideYard = new Switchyard({ tools: [noopTool], scheduler: { maxConcurrentReads: 10_000 } });
  const peer = await createPeerHarness({ noop: () => null, slow: () => sleep(SLOW_TOOL_MS), big: () => BIG_RESULT });
  const peerVariants = (variants: readonly Variant[]): readonly Variant[] => (typeof peer === "string" ? [] : variants);
  const withPeer = (run: (harness: PeerHarness) => Promise<number>) => () =>
    typeof peer === "string" ? Promise.resolve(Number.NaN) : run(peer);
  const context = createPipelineContext(yard, new ToolScheduler());
  const wideContext = createPipelineContext(yard, new ToolScheduler({ maxConcurrentReads: 10_000 }));

  const blocks: readonly (readonly Variant[])[] = [
    [
      ["seq.bare", () => timeBareRun(bareSequentialScript(calls), calls)],
      ["seq.yard", () => timeSwitchyardRun(yard, sequentialProgram(calls), calls, limits)],
      ...peerVariants([["seq.peer", withPeer((harness) => harness.time(peerPrograms.sequential(calls), calls))]]),
      ["seq.bare0", () => timeBareRun(bareSequentialScript(0), 0)],
      ["seq.yard0", () => timeSwitchyardRun(yard, sequentialProgram(0), 0, limits)],
      ...peerVariants([
        ["seq.peer0", withPeer((harness) => harness.time(peerPrograms.sequential(0), 0))],
        ["seq.peerLogged", withPeer((harness) => harness.time(peerPrograms.sequential(calls), calls, "sink"))],
      ]),
      ["pipe.seq", () => timeRunToolCall(context, calls, "sequential")],
      ["pipe.bridge", () => timeBridgeHandle(context, calls)],
    ],
    [
      ["par.bare", () => timeBareRun(bareParallelScript(calls), calls)],
      ["par.yard", () => timeSwitchyardRun(yard, parallelProgram(calls), calls, limits)],
      ["par.yardWide", () => timeSwitchyardRun(wideYard, parallelProgram(calls), calls, limits)],
      ["par.bare0", () => timeBareRun(bareParallelScript(0), 0)],
      ["par.yard0", () => timeSwitchyardRun(yard, parallelProgram(0), 0, limits)],
      ["pipe.par", () => timeRunToolCall(context, calls, "parallel")],
      ["pipe.parWide", () => timeRunToolCall(wideContext, calls, "parallel")],
    ],
    [
      ["log.yard", () => timeSwitchyardRun(yard, logProgram(LOG_LINES, true), LOG_LINES, logLimits)],
      ["log.yard0", () => timeSwitchyardRun(yard, logProgram(LOG_LINES, false), LOG_LINES, logLimits)],
      ["log.bare", () => timeBareLogRun(LOG_LINES, true)],
      ["log.bare0", () => timeBareLogRun(LOG_LINES, false)],
    ],
    peerVariants([
      ["fan.yard", () => timeSwitchyardRun(yard, fanOutProgram(), FAN_OUT_CALLS, limits)],
      ["fan.peer", withPeer((harness) => harness.time(peerPrograms.fanOut, FAN_OUT_CALLS))],
      ["big.yard", () => timeSwitchyardRun(yard, bigResultProgram(), BIG_RESULT.length, limits)],
      ["big.peer", withPeer((harness) => harness.time(peerPrograms.bigResult, BIG_RESULT.length))],
    ]),
    [
      ["seq.direct", () => timeDirectSequential(calls * DIRECT_LOOP_FACTOR)],
      ["par.direct", () => timeDirectParallel(calls * DIRECT_LOOP_FACTOR)],
    ],
  ];
  // Per variant, one sample per round; cold variants keep every run of the round.
  const samples: Record<string, number[]> = {};
  const coldSamples: Record<string, number[][]> = {};
  const runRound = async (round: number, keep: boolean): Promise<void> => {
    for (let step = 0; step < blocks.length; step++) {
      const block = blocks[(step + round) % blocks.length] ?? [];
      for (const [name, run] of round % 2 === 0 ? block : [...block].reverse()) {
        const elapsed = await run();
        if (keep) (samples[name] ??= [])[round] = elapsed;
      }
    }
    const keepCold = (name: string, elapsed: number): void => {
      if (keep) ((coldSamples[name] ??= [])[round] ??= []).push(elapsed);
    };
    for (let index = 0; index < coldRuns; index++) {
      // A cold run arrives after idle time (a model turn takes seconds): both variants get the
      // same short untimed pause first, in which Switchyard's spare isolate is prepared.
      // Alternate so neither variant always runs right after the other's garbage.
      if ((index + round) % 2 === 0) {
        await idle();
        keepCold("cold.yard", await timeSwitchyardRun(yard, "return 1 + 1", 2, limits));
        await idle();
        keepCold("cold.bare", await timeBareColdRun());
      } else {
        await idle();
        keepCold("cold.bare", await timeBareColdRun());
        await idle();
        keepCold("cold.yard", await timeSwitchyardRun(yard, "return 1 + 1", 2, limits));
      }
      // The same program with a type annotation: it takes the esbuild transform path.
      await idle();
      keepCold("cold.yardTyped", await timeSwitchyardRun(yard, "const sum: number = 1 + 1;\nreturn sum;", 2, limits));
      // Back to back, with no pause: the spare is still being prepared when the next run starts.
      keepCold("cold.yardBackToBack", await timeSwitchyardRun(yard, "return 1 + 1", 2, limits));
      if (typeof peer !== "string") {
        await idle();
        keepCold("cold.peer", await peer.time(peerPrograms.cold, 2));
      }
      if (index % 4 === 0) {
        await idle();
        // A fresh comment makes a program the check cache has not seen: this row is the warm check.
        const unseen = `return 1 + 1; // ${round}.${index}.${Math.random()}`;
        keepCold("cold.yardChecked", await timeSwitchyardRun(yard, unseen, 2, limits, "error"));
      }
    }
  };

  await runRound(0, false);
  for (let round = 0; round < rounds; round++) await runRound(round, true);

  // Per-call µs in one round: the N-call total minus the same program with 0 calls.
  const perCall = (get: (name: string) => number, name: string, fixedName: string): number =>
    ((get(name) - get(fixedName)) * 1000) / calls;
  const loopUs = (get: (name: string) => number, name: string, loopCalls: number): number =>
    (get(name) * 1000) / loopCalls;
  const figure = (compute: (get: (name: string) => number) => number): number => perRound(samples, rounds, compute);
  const seqBare = (get: (name: string) => number): number => perCall(get, "seq.bare", "seq.bare0");
  const seqYard = (get: (name: string) => number): number => perCall(get, "seq.yard", "seq.yard0");
  const parBare = (get: (name: string) => number): number => perCall(get, "par.bare", "par.bare0");
  const parYard = (get: (name: string) => number): number => perCall(get, "par.yard", "par.yard0");
  const parYardWide = (get: (name: string) => number): number => perCall(get, "par.yardWide", "par.yard0");
  const directCalls = calls * DIRECT_LOOP_FACTOR;

  const coldMedians: Record<string, number[]> = {};
  for (const [name, perRoundRuns] of Object.entries(coldSamples))
    coldMedians[name] = perRoundRuns.map((runs) => median(runs));
  const coldFigure = (compute: (get: (name: string) => number) => number): number =>
    perRound(coldMedians, rounds, compute);
  const allCold = (name: string): number => median((coldSamples[name] ?? []).flat());

  const seqPeer = (get: (name: string) => number): number => perCall(get, "seq.peer", "seq.peer0");
  const perLine = (get: (name: string) => number, name: string, fixedName: string): number =>
    ((get(name) - get(fixedName)) * 1000) / LOG_LINES;
  const peerFigures =
    typeof peer === "string"
      ? undefined
      : {
          fanOutSwitchyardMs: figure((get) => get("fan.yard")),
          fanOutPeerMs: figure((get) => get("fan.peer")),
          bigResultSwitchyardMs: figure((get) => get("big.yard")),
          bigResultPeerMs: figure((get) => get("big.peer")),
          bigResultRatio: figure((get) => get("big.yard") / get("big.peer")),
          coldSwitchyardMs: allCold("cold.yard"),
          coldPeerMs: allCold("cold.peer"),
          coldRatio: coldFigure((get) => get("cold.yard") / get("cold.peer")),
        };

  return {
    calls,
    rounds,
    sequential: {
      bareUs: figure(seqBare),
      switchyardUs: figure(seqYard),
      switchyardRatio: figure((get) => seqYard(get) / seqBare(get)),
      directUs: figure((get) => loopUs(get, "seq.direct", directCalls)),
      bareFixedMs: figure((get) => get("seq.bare0")),
      switchyardFixedMs: figure((get) => get("seq.yard0")),
      peerUs: figure(seqPeer),
      peerRatio: figure((get) => seqYard(get) / seqPeer(get)),
      peerLoggedUs: figure((get) => perCall(get, "seq.peerLogged", "seq.peer0")),
    },
    console: {
      bareUs: figure((get) => perLine(get, "log.bare", "log.bare0")),
      switchyardUs: figure((get) => perLine(get, "log.yard", "log.yard0")),
    },
    peer: peerFigures,
    peerUnavailable: typeof peer === "string" ? peer : undefined,
    parallel: {
      bareUs: figure(parBare),
      switchyardUs: figure(parYard),
      switchyardRatio: figure((get) => parYard(get) / parBare(get)),
      switchyardWideUs: figure(parYardWide),
      switchyardWideRatio: figure((get) => parYardWide(get) / parBare(get)),
      directUs: figure((get) => loopUs(get, "par.direct", directCalls)),
    },
    cold: {
      bareMs: allCold("cold.bare"),
      switchyardMs: allCold("cold.yard"),
      switchyardRatio: coldFigure((get) => get("cold.yard") / get("cold.bare")),
      switchyardTypedMs: allCold("cold.yardTyped"),
      switchyardTypedRatio: coldFigure((get) => get("cold.yardTyped") / get("cold.bare")),
      switchyardBackToBackMs: allCold("cold.yardBackToBack"),
      switchyardBackToBackRatio: coldFigure((get) => get("cold.yardBackToBack") / get("cold.bare")),
      switchyardCheckedMs: allCold("cold.yardChecked"),
      switchyardCheckedRatio: coldFigure((get) => get("cold.yardChecked") / get("cold.bare")),
    },
    pipeline: {
      runToolCallSequentialUs: figure((get) => loopUs(get, "pipe.seq", calls)),
      runToolCallSequentialShare: figure((get) => loopUs(get, "pipe.seq", calls) / seqBare(get)),
      runToolCallParallelUs: figure((get) => loopUs(get, "pipe.par", calls)),
      runToolCallParallelShare: figure((get) => loopUs(get, "pipe.par", calls) / parBare(get)),
      runToolCallParallelWideUs: figure((get) => loopUs(get, "pipe.parWide", calls)),
      runToolCallParallelWideShare: figure((get) => loopUs(get, "pipe.parWide", calls) / parBare(get)),
      bridgeHandleSequentialUs: figure((get) => loopUs(get, "pipe.bridge", calls)),
      bridgeHandleSequentialShare: figure((get) => loopUs(get, "pipe.bridge", calls) / seqBare(get)),
      switchyardMinusBareSequentialUs: figure((get) => seqYard(get) - seqBare(get)),
      switchyardMinusBareSequentialShare: figure((get) => (seqYard(get) - seqBare(get)) / seqBare(get)),
    },
    typeCheck: options.typeCheck === false ? undefined : await measureTypeCheckIfAvailable(),
  };
}

// ---- the table ----

interface Row {
  readonly what: string;
  readonly median: string;
  readonly ratio: string;
  readonly target: string;
  readonly verdict: string;
}

const us = (value: number): string => `${value.toFixed(2)} µs`;
const ms = (value: number): string => `${value.toFixed(2)} ms`;
const times = (value: number, baseline: string): string => `${value.toFixed(2)}× ${baseline}`;
const percent = (value: number, baseline: string): string => `${(value * 100).toFixed(1)}% of ${baseline}`;
const verdict = (ok: boolean): string => (ok ? "PASS" : "MISS");

function ratioRow(
  what: string,
  value: number,
  ratio: number,
  baselineName: string,
  unit: (value: number) => string,
  limit: number,
): Row {
  return {
    what,
    median: unit(value),
    ratio: times(ratio, baselineName),
    target: `≤ ${limit}× ${baselineName}`,
    verdict: verdict(ratio <= limit),
  };
}

function infoRow(what: string, median: string, ratio = ""): Row {
  return { what, median, ratio, target: "", verdict: "info" };
}

function section(title: string): Row {
  return { what: title, median: "", ratio: "", target: "", verdict: "" };
}

/** The rows the script prints, in order. */
export function runtimeRows(measurement: RuntimeMeasurement): Row[] {
  const { sequential, parallel, cold, pipeline, typeCheck, peer } = measurement;
  const n = measurement.calls;
  const rows: Row[] = [
    section(`sequential no-op calls (${n} per program, typeCheck off), per call`),
    infoRow("  bare isolated-vm Reference.apply round trip", us(sequential.bareUs), "baseline"),
    ratioRow(
      "  Switchyard yard.run",
      sequential.switchyardUs,
      sequential.switchyardRatio,
      "bare",
      us,
      TARGET_CALL_RATIO,
    ),
    ...(peer === undefined
      ? [infoRow(`  @utcp/code-mode: not measured (${measurement.peerUnavailable ?? "unavailable"})`, "")]
      : [
          infoRow("  @utcp/code-mode callToolChain, its per-call host log muted", us(sequential.peerUs)),
          ratioRow(
            "  Switchyard yard.run against @utcp/code-mode",
            sequential.switchyardUs,
            sequential.peerRatio,
            "peer",
            us,
            TARGET_PEER_SEQUENTIAL_RATIO,
          ),
          infoRow("  @utcp/code-mode with its per-call host log line (to a sink)", us(sequential.peerLoggedUs)),
        ]),
    infoRow(
      "  direct in-process await noop({})",
      us(sequential.directUs),
      times(sequential.directUs / sequential.bareUs, "bare"),
    ),
    infoRow(
      "  fixed run cost subtracted: bare / Switchyard",
      `${ms(sequential.bareFixedMs)} / ${ms(sequential.switchyardFixedMs)}`,
    ),
    section(`parallel no-op calls (Promise.all of ${n}, typeCheck off), per call`),
    infoRow("  bare isolated-vm Reference.apply round trip", us(parallel.bareUs), "baseline"),
    ratioRow(
      "  Switchyard, default scheduler (64 reads/namespace)",
      parallel.switchyardUs,
      parallel.switchyardRatio,
      "bare",
      us,
      TARGET_PARALLEL_RATIO,
    ),
    ratioRow(
      "  Switchyard, maxConcurrentReads 10 000",
      parallel.switchyardWideUs,
      parallel.switchyardWideRatio,
      "bare",
      us,
      TARGET_PARALLEL_RATIO,
    ),
    infoRow(
      "  direct in-process Promise.all(noop({}))",
      us(parallel.directUs),
      times(parallel.directUs / parallel.bareUs, "bare"),
    ),
    section(`console.log, per line (${LOG_LINES} lines, the same loop without them subtracted)`),
    infoRow("  bare isolated-vm Reference.applyIgnored per line", us(measurement.console.bareUs), "baseline"),
    infoRow(
      "  Switchyard: shared log buffer, read when the run ends",
      us(measurement.console.switchyardUs),
      times(measurement.console.switchyardUs / measurement.console.bareUs, "bare"),
    ),
    ...peerRows(peer),
    section("cold run of `return 1 + 1`"),
    infoRow("  bare floor: Isolate+context+compile+run+dispose", ms(cold.bareMs), "baseline"),
    ratioRow(
      "  Switchyard yard.run, typeCheck off, after idle",
      cold.switchyardMs,
      cold.switchyardRatio,
      "bare",
      ms,
      TARGET_COLD_RATIO,
    ),
    infoRow(
      "  Switchyard yard.run, typeCheck off, back to back",
      ms(cold.switchyardBackToBackMs),
      times(cold.switchyardBackToBackRatio, "bare"),
    ),
    infoRow(
      "  Switchyard yard.run of `const sum: number = 1 + 1` (esbuild path)",
      ms(cold.switchyardTypedMs),
      times(cold.switchyardTypedRatio, "bare"),
    ),
    // The type check has its own targets (the rows at the end); this row shows what it adds.
    infoRow(
      '  Switchyard yard.run, default typeCheck "error", a program not seen before',
      ms(cold.switchyardCheckedMs),
      times(cold.switchyardCheckedRatio, "bare"),
    ),
    section("full pipeline vs bare bridge (runToolCall in process, per call)"),
    pipelineRow(
      "  runToolCall, sequential",
      pipeline.runToolCallSequentialUs,
      pipeline.runToolCallSequentialShare,
      "bare seq",
    ),
    pipelineRow(
      "  runToolCall, parallel, default scheduler",
      pipeline.runToolCallParallelUs,
      pipeline.runToolCallParallelShare,
      "bare par",
    ),
    pipelineRow(
      "  runToolCall, parallel, maxConcurrentReads 10 000",
      pipeline.runToolCallParallelWideUs,
      pipeline.runToolCallParallelWideShare,
      "bare par",
    ),
    infoRow(
      "  ToolBridge.handle (whole host side), sequential",
      us(pipeline.bridgeHandleSequentialUs),
      percent(pipeline.bridgeHandleSequentialShare, "bare seq"),
    ),
    infoRow(
      "  Switchyard minus bare, sequential",
      us(pipeline.switchyardMinusBareSequentialUs),
      percent(pipeline.switchyardMinusBareSequentialShare, "bare seq"),
    ),
    section("type check (bench/type-check.ts; cold = 1 sample, warm = median of 20)"),
  ];
  if (typeCheck === undefined) {
    rows.push(infoRow("  type check: not available", ""));
  } else {
    rows.push(
      limitRow("  in process, cold", typeCheck.inProcessColdMs, TARGET_TYPE_CHECK_COLD_MS),
      limitRow("  in process, warm", typeCheck.inProcessWarmMedianMs, TARGET_TYPE_CHECK_WARM_MS),
      limitRow("  worker thread, cold", typeCheck.workerColdMs, TARGET_TYPE_CHECK_COLD_MS),
      limitRow("  worker thread, warm", typeCheck.workerWarmMedianMs, TARGET_TYPE_CHECK_WARM_MS),
    );
  }
  return rows;
}

function peerRows(peer: RuntimeMeasurement["peer"]): Row[] {
  if (peer === undefined) return [];
  return [
    section("side by side with @utcp/code-mode (same workloads, same rounds), whole run"),
    infoRow(
      `  Promise.all of ${FAN_OUT_CALLS} calls to a ${SLOW_TOOL_MS} ms tool: Switchyard / peer`,
      `${ms(peer.fanOutSwitchyardMs)} / ${ms(peer.fanOutPeerMs)}`,
      times(peer.fanOutSwitchyardMs / peer.fanOutPeerMs, "peer"),
    ),
    infoRow(
      `  a tool result of ${Math.round(JSON.stringify(BIG_RESULT).length / 1024)} KB: Switchyard / peer`,
      `${ms(peer.bigResultSwitchyardMs)} / ${ms(peer.bigResultPeerMs)}`,
      times(peer.bigResultRatio, "peer"),
    ),
    infoRow(
      "  cold run of `return 1 + 1`: Switchyard (typeCheck off) / peer",
      `${ms(peer.coldSwitchyardMs)} / ${ms(peer.coldPeerMs)}`,
      times(peer.coldRatio, "peer"),
    ),
  ];
}

function pipelineRow(what: string, value: number, share: number, baselineName: string): Row {
  return {
    what,
    median: us(value),
    ratio: percent(share, baselineName),
    target: `≤ ${TARGET_PIPELINE_SHARE * 100}%`,
    verdict: verdict(share <= TARGET_PIPELINE_SHARE),
  };
}

function limitRow(what: string, value: number, limitMs: number): Row {
  return { what, median: ms(value), ratio: "", target: `≤ ${limitMs} ms`, verdict: verdict(value <= limitMs) };
}

/** Formats rows as a fixed-width table. */
export function formatTable(rows: readonly Row[]): string {
  const header: Row = {
    what: "what",
    median: "median",
    ratio: "ratio vs baseline",
    target: "target",
    verdict: "verdict",
  };
  const all = [header, ...rows];
  const width = (key: keyof Row): number => Math.max(...all.map((row) => row[key].length));
  const widths = { what: width("what"), median: width("median"), ratio: width("ratio"), target: width("target") };
  const line = (row: Row): string =>
    [
      row.what.padEnd(widths.what),
      row.median.padStart(widths.median),
      row.ratio.padEnd(widths.ratio),
      row.target.padEnd(widths.target),
      row.verdict,
    ]
      .join("  ")
      .trimEnd();
  const rule = "-".repeat(line(header).length + 4);
  return [line(header), rule, ...rows.map(line)].join("\n");
}

// ---- type-check cache (issue 17 item 3): a repeated program with the default check ----

const TARGET_REPEATED_CHECKED_RATIO = 2;

/** Medians of the check-cache section, in ms; ratios are medians of per-round ratios to the bare floor. */
export interface CheckCacheMeasurement {
  readonly rounds: number;
  /** The bare cold floor (isolate, context, compile, run, dispose of `1 + 1`), in the same rounds. */
  readonly bareMs: number;
  /** `return 1 + 1` again and again with the default `typeCheck: "error"`: every check after the first is cached. */
  readonly repeatedMs: number;
  readonly repeatedRatio: number;
  /** One batch program, a different `input` each run (with its inputSchema): the check is cached across inputs. */
  readonly repeatedWithInputMs: number;
  readonly repeatedWithInputRatio: number;
}

const BATCH_PROGRAM = "return input.ids.length;";
const BATCH_INPUT_SCHEMA = {
  type: "object",
  properties: { ids: { type: "array", items: { type: "string" } } },
  required: ["ids"],
} as const;

/** Runs the repeated-program variants beside the bare floor, after idle time, as the cold rows do. */
export async function measureCheckCache(
  options: { rounds?: number; runsPerRound?: number } = {},
): Promise<CheckCacheMeasurement> {
  const rounds = options.rounds ?? 9;
  const runs = options.runsPerRound ?? 8;
  const yard = new Switchyard({ tools: [noopTool] });
  const samples: Record<string, number[][]> = {};
  const keep = (round: number, name: string, elapsed: number): void => {
    if (round >= 0) ((samples[name] ??= [])[round] ??= []).push(elapsed);
  };
  let batch = 0;
  const timeBatch = async (): Promise<number> => {
    batch += 1;
    const ids = Array.from({ length: 1 + (batch % 5) }, (_, index) => `order-${batch}-${index}`);
    let result: Awaited<ReturnType<Switchyard["run"]>> | undefined;
    const elapsed = await timeMs(async () => {
      result = await yard.run(BATCH_PROGRAM, { input: { ids }, inputSchema: BATCH_INPUT_SCHEMA });
    });
    if (result?.output !== ids.length) throw new Error(`batch program failed: ${JSON.stringify(result?.error)}`);
    return elapsed;
  };
  try {
    // Round -1 warms up: the first check of each program goes to the worker, later ones hit the cache.
    for (let round = -1; round < rounds; round++) {
      for (let index = 0; index < runs; index++) {
        const order = [
          ["bare", () => timeBareColdRun()],
          ["repeated", () => timeSwitchyardRun(yard, "return 1 + 1", 2, { maxToolCalls: 10 }, "error")],
          ["batch", timeBatch],
        ] as const;
        for (const [name, run] of (index + round) % 2 === 0 ? order : [...order].reverse()) {
          await idle();
          keep(round, name, await run());
        }
      }
    }
  } finally {
    await yard.close();
  }
  const perRoundMedians = (name: string): number[] => (samples[name] ?? []).map((runsOfRound) => median(runsOfRound));
  const ratio = (name: string): number => {
    const bare = perRoundMedians("bare");
    return median(perRoundMedians(name).map((value, round) => value / (bare[round] ?? Number.NaN)));
  };
  const all = (name: string): number => median((samples[name] ?? []).flat());
  return {
    rounds,
    bareMs: all("bare"),
    repeatedMs: all("repeated"),
    repeatedRatio: ratio("repeated"),
    repeatedWithInputMs: all("batch"),
    repeatedWithInputRatio: ratio("batch"),
  };
}

/** The check-cache section's rows. */
export function checkCacheRows(measurement: CheckCacheMeasurement): Row[] {
  return [
    section(`type-check cache: a repeated program with the default check (${measurement.rounds} rounds)`),
    infoRow("  bare floor: Isolate+context+compile+run+dispose", ms(measurement.bareMs), "baseline"),
    ratioRow(
      '  Switchyard yard.run of `return 1 + 1` again, typeCheck "error" (cached)',
      measurement.repeatedMs,
      measurement.repeatedRatio,
      "bare",
      ms,
      TARGET_REPEATED_CHECKED_RATIO,
    ),
    infoRow(
      "  the same batch program, a new input each run (inputSchema, cached)",
      ms(measurement.repeatedWithInputMs),
      times(measurement.repeatedWithInputRatio, "bare"),
    ),
  ];
}

/**
 * The figures docs/benchmarks.md quotes, by key, each as the docs print it. Peer and type-check
 * keys are left out when those rows were not measured, so a doc quoting them fails to render.
 */
export function runtimeFigures(measurement: RuntimeMeasurement, cache: CheckCacheMeasurement): Record<string, string> {
  const ratio = (value: number): string => `${value.toFixed(2)}×`;
  const micro = (value: number): string => `${value.toFixed(1)} µs`;
  const milli = (value: number): string =>
    `${value < 10 ? value.toFixed(1) : Math.round(value).toLocaleString("en-US")} ms`;
  const share = (value: number): string => `${Math.round(value * 100)}%`;
  const { sequential, parallel, cold, pipeline, peer, typeCheck } = measurement;
  return {
    "sequential-ratio": ratio(sequential.switchyardRatio),
    "parallel-ratio": ratio(parallel.switchyardRatio),
    "parallel-us": micro(parallel.switchyardUs),
    "parallel-bare-us": micro(parallel.bareUs),
    "log-us": micro(measurement.console.switchyardUs),
    "log-ratio": ratio(measurement.console.switchyardUs / measurement.console.bareUs),
    "cold-ratio": ratio(cold.switchyardRatio),
    "cold-ms": milli(cold.switchyardMs),
    "typed-ratio": ratio(cold.switchyardTypedRatio),
    "unseen-checked-ratio": ratio(cold.switchyardCheckedRatio),
    "repeated-checked-ratio": ratio(cache.repeatedRatio),
    "pipeline-us": micro(pipeline.runToolCallSequentialUs),
    "pipeline-sequential-share": share(pipeline.runToolCallSequentialShare),
    "pipeline-parallel-share": share(pipeline.runToolCallParallelShare),
    ...(peer === undefined
      ? {}
      : {
          "peer-sequential-ratio": ratio(sequential.peerRatio),
          "fan-out-ms": milli(peer.fanOutSwitchyardMs),
          "fan-out-peer-ms": milli(peer.fanOutPeerMs),
          "big-result-ratio": ratio(peer.bigResultRatio),
          "cold-peer-ratio": ratio(peer.coldRatio),
        }),
    ...(typeCheck === undefined
      ? {}
      : {
          "type-check-cold-ms": milli(typeCheck.workerColdMs),
          "type-check-warm-ms": milli(typeCheck.workerWarmMedianMs),
        }),
  };
}

const invokedDirectly = process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href;
if (invokedDirectly) {
  const started = performance.now();
  const startLoad = currentLoad();
  try {
    // RUNTIME_ROUNDS: fewer rounds on a busy machine (the result file states how many).
    const rounds = Number(process.env["RUNTIME_ROUNDS"] ?? 9);
    const measurement = await measureRuntime({ rounds });
    console.log(
      `Node ${process.version}, isolated-vm 5.0.4; ${measurement.rounds} rounds after a warm-up, compared variants back to back; medians, ratios = median of per-round ratios.`,
    );
    console.log(formatTable(runtimeRows(measurement)));
    const cache = await measureCheckCache({ rounds });
    console.log(formatTable(checkCacheRows(cache)));
    const peerNote =
      measurement.peerUnavailable === undefined ? [] : [`No @utcp/code-mode rows: ${measurement.peerUnavailable}`];
    const written = writeBenchResult("runtime", benchConditions(startLoad), runtimeFigures(measurement, cache), [
      ...peerNote,
      `${rounds} rounds after a warm-up (RUNTIME_ROUNDS), compared variants back to back; medians, ratios are medians of per-round ratios. Per-round ratios are the figures to read on a shared machine; single times move with its load.`,
    ]);
    console.log(`wrote ${written}`);
  } catch (error) {
    console.error("runtime bench failed:", error);
  }
  console.log(`(bench took ${((performance.now() - started) / 1000).toFixed(1)} s)`);
  process.exitCode = 0;
}
