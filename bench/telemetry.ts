// OpenTelemetry overhead: the same workloads with telemetry turned off in options (`false`), with
// the default and no tracer provider registered (what every user without OpenTelemetry runs),
// and recording into an in-memory exporter. Variants run back to back in each round, in rotating
// order; figures are medians, ratios medians of per-round ratios. Always exits 0.
// Run: npm run bench:telemetry   (compiled with tsc first, like bench:runtime)

import { setMaxListeners } from "node:events";
import { pathToFileURL } from "node:url";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { defineTool } from "../src/registry/define-tool.js";
import { Switchyard, type SwitchyardOptions } from "../src/switchyard.js";

/** What `measureTelemetry` runs. */
export interface TelemetryBenchOptions {
  /** No-op calls per program run. Default 1 000. */
  readonly programCalls?: number;
  /** Sequential direct calls (`yard.callTool`) per measurement. Default 5 000. */
  readonly directCalls?: number;
  /** Measured rounds. Default 21: many short rounds ride out a noisy shared machine better than few long ones. */
  readonly rounds?: number;
}

type Variant = "disabled" | "off" | "on";
const VARIANTS: readonly Variant[] = ["disabled", "off", "on"];

/** Per-call figures in µs by variant, and the medians of per-round ratios against `disabled`. */
export interface TelemetryMeasurement {
  readonly programUs: Record<Variant, number>;
  readonly directUs: Record<Variant, number>;
  readonly programOffRatio: number;
  readonly directOffRatio: number;
  readonly programOnRatio: number;
  readonly directOnRatio: number;
  /** Spans the recording variant exported in all, for a sanity check. */
  readonly spansRecorded: number;
}

/** "Zero measurable cost when off": within 3% of turning telemetry off outright. */
const TARGET_OFF_RATIO = 1.03;

const noop = defineTool({
  name: "bench.noop",
  description: "Does nothing.",
  effect: "read",
  inputSchema: { type: "object" },
  execute: () => null,
});

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[middle] ?? 0) : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}

/** Runs the benchmark; see the module comment. */
export async function measureTelemetry(options: TelemetryBenchOptions = {}): Promise<TelemetryMeasurement> {
  const programCalls = options.programCalls ?? 1_000;
  const directCalls = options.directCalls ?? 5_000;
  const rounds = options.rounds ?? 21;
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const telemetryOf: Record<Variant, SwitchyardOptions["telemetry"]> = {
    disabled: false,
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
    const program_: Record<Variant, number[]> = { disabled: [], off: [], on: [] };
    const direct: Record<Variant, number[]> = { disabled: [], off: [], on: [] };
    for (let round = 0; round < rounds; round++) {
      const order = VARIANTS.map((_, index) => VARIANTS[(index + round) % VARIANTS.length]!);
      for (const variant of order) program_[variant].push(await timeProgram(yards[variant]));
      for (const variant of order) direct[variant].push(await timeDirect(yards[variant]));
      // The recording variant keeps every span in memory; a round's worth is enough to count.
      if (round < rounds - 1) exporter.reset();
    }
    const spansRecorded = exporter.getFinishedSpans().length;
    const ratio = (samples: Record<Variant, number[]>, variant: Variant): number =>
      median(samples[variant].map((value, index) => value / samples.disabled[index]!));
    const medians = (samples: Record<Variant, number[]>): Record<Variant, number> => ({
      disabled: median(samples.disabled),
      off: median(samples.off),
      on: median(samples.on),
    });
    return {
      programUs: medians(program_),
      directUs: medians(direct),
      programOffRatio: ratio(program_, "off"),
      directOffRatio: ratio(direct, "off"),
      programOnRatio: ratio(program_, "on"),
      directOnRatio: ratio(direct, "on"),
      spansRecorded,
    };
  } finally {
    await Promise.all(VARIANTS.map((variant) => yards[variant].close()));
  }
}

function formatUs(value: number): string {
  return `${value.toFixed(2)} µs`;
}

/** The report as printed: a table, then one verdict line. */
export function formatTelemetryReport(measurement: TelemetryMeasurement): string {
  const rows = [
    ["per call", "telemetry: false", "off (no provider)", "recording", "off / false", "recording / false"],
    [
      "program, 1,000 parallel calls",
      formatUs(measurement.programUs.disabled),
      formatUs(measurement.programUs.off),
      formatUs(measurement.programUs.on),
      `${measurement.programOffRatio.toFixed(3)}×`,
      `${measurement.programOnRatio.toFixed(2)}×`,
    ],
    [
      "direct yard.callTool, sequential",
      formatUs(measurement.directUs.disabled),
      formatUs(measurement.directUs.off),
      formatUs(measurement.directUs.on),
      `${measurement.directOffRatio.toFixed(3)}×`,
      `${measurement.directOnRatio.toFixed(2)}×`,
    ],
  ];
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  const table = rows.map((row) => row.map((cell, column) => cell.padEnd(widths[column]!)).join("  ")).join("\n");
  const worst = Math.max(measurement.programOffRatio, measurement.directOffRatio);
  const verdict = worst <= TARGET_OFF_RATIO ? "PASS" : "MISS";
  return `${table}\n(${measurement.spansRecorded} spans recorded in the last round)\ntelemetry off vs disabled: ${worst.toFixed(3)}× at worst (target ≤ ${TARGET_OFF_RATIO}×): ${verdict}`;
}

const invokedDirectly = process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href;
if (invokedDirectly) {
  setMaxListeners(0);
  const measurement = await measureTelemetry();
  process.stdout.write(`${formatTelemetryReport(measurement)}\n`);
  process.exit(0);
}
