// OpenTelemetry overhead: the same workloads with telemetry turned off in options (`false`), with
// the default and no tracer provider registered (what every user without OpenTelemetry runs),
// and recording into an in-memory exporter. Each is paired with `false` back to back, the pair's
// order alternating by round; figures are medians, ratios medians of per-pair ratios. Exits 0.
// Run: npm run bench:telemetry   (compiled with tsc first, like bench:runtime; TELEMETRY_ROUNDS=n
// for fewer rounds). Writes bench/results/telemetry.json, whose figures docs/benchmarks.md quotes.

import { setMaxListeners } from "node:events";
import { pathToFileURL } from "node:url";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { defineTool } from "../src/registry/define-tool.js";
import { Switchyard, type SwitchyardOptions } from "../src/switchyard.js";
import { benchConditions, currentLoad, writeBenchResult } from "./bench-result.js";
import { median } from "./stats.js";

/** What `measureTelemetry` runs. */
export interface TelemetryBenchOptions {
  /** No-op calls per program run. Default 500. */
  readonly programCalls?: number;
  /** Sequential direct calls (`yard.callTool`) per sample. Default 2 000. */
  readonly directCalls?: number;
  /** Rounds. Default 41: many short rounds ride out a noisy shared machine better than few long ones. */
  readonly rounds?: number;
}

/**
 * `disabled`: `telemetry: false`; `control`: a second such session, so the table shows how far two
 * identical setups differ on this machine; `off`: the default with no provider registered;
 * `on`: recording into an in-memory exporter.
 */
type Variant = "disabled" | "control" | "off" | "on";
const VARIANTS: readonly Variant[] = ["disabled", "control", "off", "on"];

/** Per-call figures in µs by variant, and medians of per-round ratios against `disabled`. */
export interface TelemetryMeasurement {
  readonly programUs: Record<Variant, number>;
  readonly directUs: Record<Variant, number>;
  readonly programRatio: Record<Variant, number>;
  readonly directRatio: Record<Variant, number>;
  /** Spans the recording variant exported in its last round, for a sanity check. */
  readonly spansRecorded: number;
}

/** "Zero measurable cost when off": off may not differ from `false` more than the control does, plus 3%. */
const TOLERANCE = 0.03;

const noop = defineTool({
  name: "bench.noop",
  description: "Does nothing.",
  effect: "read",
  inputSchema: { type: "object" },
  execute: () => null,
});

/** Runs the benchmark; see the module comment. */
export async function measureTelemetry(options: TelemetryBenchOptions = {}): Promise<TelemetryMeasurement> {
  const programCalls = options.programCalls ?? 500;
  const directCalls = options.directCalls ?? 2_000;
  const rounds = options.rounds ?? 41;
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const telemetryOf: Record<Variant, SwitchyardOptions["telemetry"]> = {
    disabled: false,
    control: false,
    off: undefined,
    on: { tracerProvider: provider },
  };
  const yards = Object.fromEntries(
    VARIANTS.map((variant) => {
      const telemetry = telemetryOf[variant];
      return [
        variant,
        new Switchyard({
          tools: [noop],
          typeCheck: "off",
          limits: { maxToolCalls: programCalls + 1 },
          scheduler: { maxConcurrentReads: 10_000 },
          ...(telemetry === undefined ? {} : { telemetry }),
        }),
      ];
    }),
  ) as Record<Variant, Switchyard>;
  const program = `const results = await Promise.all(Array.from({ length: ${programCalls} }, () => tools.bench.noop({})));\nreturn results.length;`;

  const timeProgram = async (yard: Switchyard): Promise<number> => {
    const started = performance.now();
    const result = await yard.run(program);
    const elapsed = performance.now() - started;
    if (result.output !== programCalls) throw new Error(`the bench program failed: ${JSON.stringify(result.error)}`);
    return (elapsed * 1000) / programCalls;
  };
  const timeDirect = async (yard: Switchyard): Promise<number> => {
    const started = performance.now();
    for (let index = 0; index < directCalls; index++) await yard.callTool("bench.noop", {});
    return ((performance.now() - started) * 1000) / directCalls;
  };

  try {
    // Warm-up: isolates, JIT, the exporter's first spans.
    for (const variant of VARIANTS) {
      await timeProgram(yards[variant]);
      await timeDirect(yards[variant]);
    }
    exporter.reset();
    const program_: Record<Variant, number[]> = { disabled: [], control: [], off: [], on: [] };
    const direct: Record<Variant, number[]> = { disabled: [], control: [], off: [], on: [] };
    // The three that make no spans rotate within each round; the recording one runs last in
    // every round, so the garbage it leaves is collected in its own time, never another's.
    const quiet: readonly Variant[] = ["disabled", "control", "off"];
    for (let round = 0; round < rounds; round++) {
      const order = quiet.map((_, index) => quiet[(index + round) % quiet.length]!);
      for (const variant of [...order, "on" as const]) {
        program_[variant].push(await timeProgram(yards[variant]));
        direct[variant].push(await timeDirect(yards[variant]));
      }
      if (round < rounds - 1) exporter.reset();
    }
    const spansRecorded = exporter.getFinishedSpans().length;
    const ratios = (samples: Record<Variant, number[]>): Record<Variant, number> =>
      Object.fromEntries(
        VARIANTS.map((variant) => [
          variant,
          median(samples[variant].map((value, index) => value / samples.disabled[index]!)),
        ]),
      ) as Record<Variant, number>;
    const medians = (samples: Record<Variant, number[]>): Record<Variant, number> =>
      Object.fromEntries(VARIANTS.map((variant) => [variant, median(samples[variant])])) as Record<Variant, number>;
    return {
      programUs: medians(program_),
      directUs: medians(direct),
      programRatio: ratios(program_),
      directRatio: ratios(direct),
      spansRecorded,
    };
  } finally {
    await Promise.all(VARIANTS.map((variant) => yards[variant].close()));
  }
}

/** The figures docs/benchmarks.md quotes, by key, each as the docs print it. */
export function telemetryFigures(measurement: TelemetryMeasurement): Record<string, string> {
  const figures: Record<string, string> = {};
  for (const variant of ["control", "off", "on"] as const) {
    figures[`${variant}-program-ratio`] = `${measurement.programRatio[variant].toFixed(2)}×`;
    figures[`${variant}-direct-ratio`] = `${measurement.directRatio[variant].toFixed(2)}×`;
  }
  figures["disabled-program-us"] = `${measurement.programUs.disabled.toFixed(2)} µs`;
  figures["disabled-direct-us"] = `${measurement.directUs.disabled.toFixed(2)} µs`;
  return figures;
}

/** The report as printed: a table, then one verdict line. */
export function formatTelemetryReport(measurement: TelemetryMeasurement, programCalls = 500): string {
  const cells = (label: string, us: Record<Variant, number>, ratio: Record<Variant, number>): string[] => [
    label,
    ...VARIANTS.map((variant) => `${us[variant].toFixed(2)} µs (${ratio[variant].toFixed(3)}×)`),
  ];
  const rows = [
    [
      "per call (ratio to telemetry: false)",
      "telemetry: false",
      "false again (control)",
      "off (no provider)",
      "recording",
    ],
    cells(`program, ${programCalls} parallel calls`, measurement.programUs, measurement.programRatio),
    cells("direct yard.callTool, sequential", measurement.directUs, measurement.directRatio),
  ];
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  const table = rows.map((row) => row.map((cell, column) => cell.padEnd(widths[column]!)).join("  ")).join("\n");
  const excess = Math.max(
    Math.abs(measurement.programRatio.off - 1) - Math.abs(measurement.programRatio.control - 1),
    Math.abs(measurement.directRatio.off - 1) - Math.abs(measurement.directRatio.control - 1),
  );
  const verdict = excess <= TOLERANCE ? "PASS" : "MISS";
  return `${table}\n(${measurement.spansRecorded} spans recorded in the last round)\ntelemetry off vs false, beyond the control's spread: ${(excess * 100).toFixed(1)}% (target ≤ ${TOLERANCE * 100}%): ${verdict}`;
}

const invokedDirectly = process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href;
if (invokedDirectly) {
  setMaxListeners(0);
  const startLoad = currentLoad();
  const rounds = Number(process.env["TELEMETRY_ROUNDS"] ?? 41);
  const measurement = await measureTelemetry({ rounds });
  process.stdout.write(`${formatTelemetryReport(measurement)}\n`);
  const written = writeBenchResult("telemetry", benchConditions(startLoad), telemetryFigures(measurement), [
    `${rounds} rounds (TELEMETRY_ROUNDS); per call, each variant paired with telemetry: false in the same round; ratios are medians of per-round ratios. The control is a second telemetry: false session: its ratio is how far two identical setups differ on this machine.`,
  ]);
  process.stdout.write(`wrote ${written}\n`);
  process.exit(0);
}
