// Observed output types benchmark: what learning a result's shape adds to a program's tool
// call, side by side with the same session without it (`observedTypes: false`), for a no-op
// result and for a typical API record, and what inferring the shape of a 1 MB result costs
// against serializing it. Medians of per-round ratios, variants back to back.
// Run: npm run bench:observed-types   (compiled with tsc into dist-bench/ first; OBSERVED_TYPES_ROUNDS=n
// for fewer rounds). Writes bench/results/observed-types.json, whose figures docs/programs.md quotes.

import { loadavg } from "node:os";
import { pathToFileURL } from "node:url";
import { defineTool } from "../src/registry/define-tool.js";
import { ObservedOutputTypes } from "../src/schema/observed-output-types.js";
import { inferSchema } from "../src/schema/observed-schema.js";
import { Switchyard } from "../src/switchyard.js";
import { benchConditions, currentLoad, writeBenchResult } from "./bench-result.js";
import { median } from "./stats.js";

const CALLS = 900;
const ROUNDS = Number(process.env["OBSERVED_TYPES_ROUNDS"] ?? 15);

const record = {
  id: "cus_0001",
  name: "Ada Lovelace",
  email: "ada@example.com",
  tier: "gold",
  createdAt: "2026-01-01T00:00:00Z",
  address: { street: "1 Main St", city: "London", country: "GB" },
  tags: ["vip", "early"],
  orders: Array.from({ length: 10 }, (_, index) => ({ id: `o${index}`, total: index * 10.5, paid: index % 2 === 0 })),
};

export async function measureObservedTypes(): Promise<void> {
  const startLoad = currentLoad();
  const tools = [
    defineTool({
      name: "bench.noop",
      description: "Returns null.",
      inputSchema: { type: "object" },
      effect: "read",
      execute: () => null,
    }),
    defineTool({
      name: "bench.record",
      description: "Returns a customer record.",
      inputSchema: { type: "object" },
      effect: "read",
      execute: () => record,
    }),
  ];
  const observing = new Switchyard({ tools, typeCheck: "off" });
  const plain = new Switchyard({ tools, typeCheck: "off", observedTypes: false });
  const perCall = async (yard: Switchyard, tool: string): Promise<number> => {
    const loop = await yard.run(`for (let i = 0; i < ${CALLS}; i++) await tools.bench.${tool}(); return 0;`);
    if (!loop.ok) throw new Error(loop.error?.message);
    return (loop.stats.wallMs * 1_000) / CALLS;
  };
  const ratios: Record<string, number[]> = { noop: [], record: [] };
  const micros: Record<string, number[]> = { noop: [], record: [], noopOff: [], recordOff: [] };
  for (const tool of ["noop", "record"]) {
    await perCall(observing, tool);
    await perCall(plain, tool);
  }
  for (let round = 0; round < ROUNDS; round++) {
    for (const tool of ["noop", "record"] as const) {
      const on = await perCall(observing, tool);
      const off = await perCall(plain, tool);
      micros[tool]!.push(on);
      micros[`${tool}Off`]!.push(off);
      ratios[tool]!.push(on / off);
    }
  }
  await observing.close();
  await plain.close();

  // In process, where the machine's noise matters less: a settled type's check per result,
  // beside the JSON.stringify of the same result that every call pays anyway.
  const store = new ObservedOutputTypes();
  store.observe("bench.record", record);
  const inProcess = { observe: [] as number[], stringify: [] as number[], ratio: [] as number[] };
  const LOOPS = 20_000;
  for (let round = 0; round < ROUNDS; round++) {
    const expected = store.snapshot().get("bench.record");
    let started = performance.now();
    for (let index = 0; index < LOOPS; index++) store.observe("bench.record", record, expected);
    const observe = ((performance.now() - started) * 1_000) / LOOPS;
    started = performance.now();
    for (let index = 0; index < LOOPS; index++) JSON.stringify(record);
    const stringify = ((performance.now() - started) * 1_000) / LOOPS;
    inProcess.observe.push(observe);
    inProcess.stringify.push(stringify);
    inProcess.ratio.push(observe / stringify);
  }

  const big = Array.from({ length: 8_000 }, (_, index) => ({ ...record, id: `cus_${index}` }));
  const inferMs: number[] = [];
  const stringifyMs: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    let started = performance.now();
    inferSchema(big);
    inferMs.push(performance.now() - started);
    started = performance.now();
    JSON.stringify(big);
    stringifyMs.push(performance.now() - started);
  }

  const loads = loadavg()
    .map((value) => value.toFixed(1))
    .join(", ");
  console.log(`observed types, ${CALLS} sequential calls per run, medians of ${ROUNDS} rounds (load ${loads})`);
  for (const tool of ["noop", "record"] as const) {
    console.log(
      `  ${tool.padEnd(6)} observed ${median(micros[tool]!).toFixed(1)} µs/call, off ${median(micros[`${tool}Off`]!).toFixed(1)} µs/call: ${median(ratios[tool]!).toFixed(2)}×`,
    );
  }
  console.log(
    `  in process, the record: observing ${median(inProcess.observe).toFixed(2)} µs, JSON.stringify ${median(inProcess.stringify).toFixed(2)} µs: ${median(inProcess.ratio).toFixed(2)}× the serialization`,
  );
  const bytes = JSON.stringify(big).length;
  console.log(
    `  shape of a ${(bytes / 1e6).toFixed(1)} MB result: ${median(inferMs).toFixed(2)} ms, JSON.stringify of it ${median(stringifyMs).toFixed(1)} ms`,
  );
  const ratio = (values: number[]): string => `${median(values).toFixed(2)}×`;
  const written = writeBenchResult(
    "observed-types",
    benchConditions(startLoad),
    {
      "noop-ratio": ratio(ratios["noop"]!),
      "record-ratio": ratio(ratios["record"]!),
      "check-ratio": ratio(inProcess.ratio),
      "big-mb": `${(bytes / 1e6).toFixed(1)} MB`,
      "big-shape-ms": `${median(inferMs).toFixed(1)} ms`,
      "big-stringify-ms": `${Math.round(median(stringifyMs))} ms`,
    },
    [
      `${ROUNDS} rounds (OBSERVED_TYPES_ROUNDS), observing and observedTypes: false back to back; medians of per-round ratios.`,
    ],
  );
  console.log(`wrote ${written}`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await measureObservedTypes();
