// Timer benchmark: what `await sleep(0)` costs inside a program, side by side with a no-op tool
// call through the same crossing (the turn's batch, answered at once) and with bare isolated-vm
// round trips (what a dedicated timer binding would cost at best: `Reference.apply`, and the
// blocking `applySyncPromise` the batch crossing is built on), plus the host timers a run holds
// while a program has thousands of timers pending. Medians of rounds, variants back to back.
// Run: npm run bench:timers   (compiled with tsc into dist-bench/ first; TIMERS_ROUNDS=n for fewer rounds).
// Writes bench/results/timers.json, whose figures docs/programs.md quotes.

import { loadavg } from "node:os";
import { pathToFileURL } from "node:url";
import { loadIsolatedVm } from "../src/sandbox/load-isolated-vm.js";
import { defineTool } from "../src/registry/define-tool.js";
import { Switchyard } from "../src/switchyard.js";
import { benchConditions, currentLoad, writeBenchResult } from "./bench-result.js";
import { median } from "./stats.js";

const ivm = loadIsolatedVm();

const CROSSINGS = 1_000;
const ROUNDS = Number(process.env["TIMERS_ROUNDS"] ?? 9);
const PENDING_TIMERS = 10_000;

function hostTimers(): number {
  return process.getActiveResourcesInfo().filter((resource) => resource === "Timeout").length;
}

/**
 * µs per bare round trip: the guest awaits a host function that answers with a resolved promise
 * (`apply`), or blocks on one that answers a string at once (`applySyncPromise`).
 */
async function bareRoundTripUs(count: number, crossing: "apply" | "applySyncPromise"): Promise<number> {
  const isolate = new ivm.Isolate({ memoryLimit: 64 });
  try {
    const context = await isolate.createContext();
    const host = new ivm.Reference(() => (crossing === "apply" ? Promise.resolve("") : "[]"));
    await context.global.set("host", host);
    const call =
      crossing === "apply"
        ? "host.apply(undefined, [], { result: { promise: true, copy: true } })"
        : "host.applySyncPromise(undefined, [])";
    const script = await isolate.compileScript(`(async () => { for (let i = 0; i < ${count}; i++) await ${call}; })()`);
    const started = performance.now();
    await script.run(context, { promise: true });
    return ((performance.now() - started) * 1_000) / count;
  } finally {
    isolate.dispose();
  }
}

export async function measureTimers(): Promise<void> {
  const startLoad = currentLoad();
  const noop = defineTool({
    name: "bench.noop",
    description: "Does nothing.",
    inputSchema: { type: "object" },
    outputSchema: { type: "null" },
    effect: "read",
    execute: () => null,
  });
  const probe = defineTool({
    name: "bench.hostTimers",
    description: "Counts the host's timers.",
    inputSchema: { type: "object" },
    outputSchema: { type: "number" },
    effect: "read",
    execute: () => hostTimers(),
  });
  const yard = new Switchyard({ tools: [noop, probe], typeCheck: "off" });
  const perCrossing = async (body: string): Promise<number> => {
    const loop = await yard.run(`for (let i = 0; i < ${CROSSINGS}; i++) ${body}; return 0;`);
    const empty = await yard.run(`for (let i = 0; i < 0; i++) ${body}; return 0;`);
    if (!loop.ok) throw new Error(loop.error?.message);
    return ((loop.stats.wallMs - empty.stats.wallMs) * 1_000) / CROSSINGS;
  };
  const rows = {
    sleep: [] as number[],
    call: [] as number[],
    bare: [] as number[],
    bareSync: [] as number[],
    ratio: [] as number[],
  };
  await perCrossing("await sleep(0)");
  await perCrossing("await tools.bench.noop()");
  for (let round = 0; round < ROUNDS; round++) {
    const sleep = await perCrossing("await sleep(0)");
    const call = await perCrossing("await tools.bench.noop()");
    rows.bare.push(await bareRoundTripUs(CROSSINGS, "apply"));
    rows.bareSync.push(await bareRoundTripUs(CROSSINGS, "applySyncPromise"));
    rows.sleep.push(sleep);
    rows.call.push(call);
    rows.ratio.push(sleep / call);
  }
  const idle = await yard.run("return await tools.bench.hostTimers();");
  const pending = await yard.run(`
    const all = Promise.all(Array.from({ length: ${PENDING_TIMERS} }, (_, i) => sleep(200 + (i % 100))));
    const during = await tools.bench.hostTimers();
    await all;
    return during;`);
  const churn = await yard.run(
    "for (let i = 0; i < 100_000; i++) clearTimeout(setTimeout(() => {}, 60_000 - (i % 1000))); return 0;",
  );
  await yard.close();

  const format = (value: number): string => value.toFixed(1);
  console.log(`timers, ${CROSSINGS} crossings per run, medians of ${ROUNDS} rounds (load ${loadAverage()})`);
  console.log(`  await sleep(0), per crossing:                          ${format(median(rows.sleep))} µs`);
  console.log(`  await tools.bench.noop(), per crossing:                ${format(median(rows.call))} µs`);
  console.log(`  bare Reference.apply round trip (a binding's floor):   ${format(median(rows.bare))} µs`);
  console.log(`  bare applySyncPromise round trip (the batch's floor):  ${format(median(rows.bareSync))} µs`);
  console.log(`  sleep(0) / no-op call:                                 ${median(rows.ratio).toFixed(2)}×`);
  console.log(
    `  host timers with ${PENDING_TIMERS} sleeps pending: ${String(pending.output)} (idle run: ${String(idle.output)})`,
  );
  console.log(`  100,000 setTimeout + clearTimeout pairs: ${format(churn.stats.cpuMs)} ms of isolate CPU`);
  const micro = (value: number): string => `${format(value)} µs`;
  const written = writeBenchResult(
    "timers",
    benchConditions(startLoad),
    {
      "sleep-us": micro(median(rows.sleep)),
      "call-us": micro(median(rows.call)),
      "bare-us": micro(median(rows.bare)),
      "binding-saving-us": micro(Math.max(0, median(rows.sleep) - median(rows.bare))),
      "pending-host-timers": String(pending.output),
      "idle-host-timers": String(idle.output),
      "churn-cpu-ms": `${Math.round(churn.stats.cpuMs)} ms`,
    },
    [`${ROUNDS} rounds (TIMERS_ROUNDS) of ${CROSSINGS} crossings, variants back to back; medians.`],
  );
  console.log(`wrote ${written}`);
}

function loadAverage(): string {
  return loadavg()
    .map((value) => value.toFixed(1))
    .join(", ");
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await measureTimers();
