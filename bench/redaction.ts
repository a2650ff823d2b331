// Redaction benchmark: what the boundary to the model costs, measured side by side in one
// process. Rows: a 1 MB tool result (its JSON, as the pipeline has it after serializing a
// direct call's value) and a typical 2 KB program output, against their targets; the same
// 1 MB with one token in it (then the value is parsed, walked and serialized again), as a
// value and as one text; secretlint's preset run as published on the text, for scale; and the
// per-call figure of programs with the session's redaction on and off (their calls are never
// redacted, so the two must match). The machine is shared and noisy: variants run in rounds, back to back;
// figures are medians. Prints PASS/MISS against the targets; always exits 0.
// Run: npm run bench:redaction   (compiled with tsc first, like bench:runtime).

import { pathToFileURL } from "node:url";
import { rules as presetRules } from "@secretlint/secretlint-rule-preset-recommend";
import { redactRunResult } from "../src/redaction/redact-results.js";
import { Redactor } from "../src/redaction/redactor.js";
import { defineTool } from "../src/registry/define-tool.js";
import { Switchyard } from "../src/switchyard.js";
import type { RunResult } from "../src/contract.js";
import { benchConditions, currentLoad, writeBenchResult } from "./bench-result.js";
import { buildRedactionCorpus } from "./redaction-corpus.js";
import { median } from "./stats.js";

const TARGET_LARGE_MS = 5;
const TARGET_SMALL_MS = 0.05;
const LARGE_BYTES = 1024 * 1024;
const ROUNDS = 15;
const SMALL_REPEATS = 2_000;
const BRIDGE_CALLS = 2_000;

function timeMs(run: () => void, repeats = 1): number {
  const started = performance.now();
  for (let index = 0; index < repeats; index++) run();
  return (performance.now() - started) / repeats;
}

/** A GitHub token made up at run time (the repository holds no token-shaped literal). */
function madeUpToken(): string {
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  let token = `gh${"p"}_`;
  for (let index = 0; index < 36; index++) token += alphabet[(index * 7919 + 13) % alphabet.length];
  return token;
}

/** A 1 MB tool result made of the corpus: code, prose, API answers and logs, as one JSON value. */
function largeToolResult(): { value: unknown; json: string; text: string; jsonWithToken: string } {
  const documents: { name: string; text: string }[] = [];
  let size = 0;
  for (const document of buildRedactionCorpus()) {
    const text = document.text.slice(0, LARGE_BYTES - size);
    documents.push({ name: document.name, text });
    size += text.length + document.name.length + 20;
    if (size >= LARGE_BYTES) break;
  }
  const value = { documents };
  // The token goes in the middle of the middle document, as a log line would carry it.
  const withToken = documents.map((document) => ({ ...document }));
  const middle = withToken[Math.floor(withToken.length / 2)]!;
  const cut = Math.floor(middle.text.length / 2);
  middle.text = `${middle.text.slice(0, cut)}\nGITHUB_TOKEN=${madeUpToken()}\n${middle.text.slice(cut)}`;
  return {
    value,
    json: JSON.stringify(value),
    text: documents.map((document) => document.text).join("\n"),
    jsonWithToken: JSON.stringify({ documents: withToken }),
  };
}

/** A program's answer as the demo's sweep returns it: about 2 KB of ids, amounts and a log. */
function typicalRunResult(): RunResult {
  const candidates = Array.from({ length: 12 }, (_, index) => ({
    orderId: `ord_${1000 + index}`,
    customerId: `c_${index % 6}`,
    chargeIds: [`ch_3Pq${index}x81AbC`, `ch_3Pq${index}y92DeF`],
    amountCents: 1299 + index * 100,
    reason: "same amount and card within 5 minutes",
  }));
  const output = {
    checked: 612,
    candidates,
    failed: [{ orderId: "ord_0042", code: "PAYMENT_LOOKUP_FAILED" }],
    complete: true,
  };
  return {
    ok: true,
    programId: "bench-p1",
    output,
    logs: ["customer c_0: 3 pages, 104 orders", "customer c_1: 2 pages, 97 orders", "retried 18 payment lookups"],
    warnings: [],
    calls: [],
    stats: { wallMs: 67, cpuMs: 20, toolCalls: 651, bytesIn: 185_000, bytesOut: 2_200 },
    catalogVersion: 1,
  };
}

/** secretlint's preset as published: every rule over the whole text. */
function runPresetWhole(text: string): number {
  let reports = 0;
  const context = {
    report: () => reports++,
    ignore: () => {},
    createTranslator: () => () => "",
    sharedOptions: {},
  };
  for (const rule of presetRules as unknown as {
    create: (context: unknown, options: unknown) => { file?(source: unknown): void };
  }[]) {
    rule.create(context, { enableIDScanRule: true }).file?.({ content: text, contentType: "text" });
  }
  return reports;
}

const noop = defineTool({
  name: "bench.noop",
  description: "Does nothing.",
  effect: "read",
  inputSchema: { type: "object" },
  execute: () => null,
});

async function perCallUs(yard: Switchyard): Promise<number> {
  const program = (calls: number): string =>
    `let count = 0;\nfor (let i = 0; i < ${calls}; i++) { await tools.bench.noop({}); count++; }\nreturn count;`;
  const run = async (calls: number): Promise<number> => {
    const started = performance.now();
    const result = await yard.run(program(calls), { typeCheck: "off", limits: { maxToolCalls: calls + 1 } });
    if (result.output !== calls) throw new Error(`bench program failed: ${result.error?.message}`);
    return performance.now() - started;
  };
  const fixed = await run(0);
  const full = await run(BRIDGE_CALLS);
  return ((full - fixed) * 1000) / BRIDGE_CALLS;
}

interface Row {
  readonly what: string;
  readonly median: string;
  readonly target: string;
  readonly verdict: string;
}

function formatTable(rows: readonly Row[]): string {
  const all = [{ what: "what", median: "median", target: "target", verdict: "verdict" }, ...rows];
  const width = (key: keyof Row): number => Math.max(...all.map((row) => row[key].length));
  return all
    .map((row, index) => {
      const line = [
        row.what.padEnd(width("what")),
        row.median.padStart(width("median")),
        row.target.padEnd(width("target")),
        row.verdict,
      ]
        .join("  ")
        .trimEnd();
      return index === 0 ? `${line}\n${"-".repeat(line.length + 4)}` : line;
    })
    .join("\n");
}

/** What the bench measured: the printed table, and the figures docs/benchmarks.md quotes, by key. */
export interface RedactionMeasurement {
  readonly table: string;
  readonly figures: Readonly<Record<string, string>>;
}

/** Runs the benchmark and returns its table and figures. */
export async function measureRedaction(): Promise<RedactionMeasurement> {
  const redactor = new Redactor();
  const large = largeToolResult();
  const small = typicalRunResult();
  const found = redactor.redactJson(large.json);
  if (found !== undefined) throw new Error(`the corpus holds ${found.redactions.length} secrets; it must hold none`);
  const withToken = redactor.redactJson(large.jsonWithToken);
  if (withToken?.redactions.length !== 1) throw new Error("the token in the 1 MB value was not found once");

  // Warm-up, so every regex is compiled and every function optimized before timing.
  for (let index = 0; index < 3; index++) {
    redactor.redactJson(large.json);
    redactor.redactJson(large.jsonWithToken);
    redactor.redactValue(large.value);
    redactor.redactText(large.text);
    runPresetWhole(large.text);
  }
  for (let index = 0; index < 5_000; index++) redactRunResult(redactor, small);

  const json: number[] = [];
  const jsonWithToken: number[] = [];
  const walk: number[] = [];
  const text: number[] = [];
  const preset: number[] = [];
  const output: number[] = [];
  const stringify: number[] = [];
  const outputStringify: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    // The baselines: serializing the same value, which the pipeline does for every result anyway.
    stringify.push(timeMs(() => JSON.stringify(large.value)));
    outputStringify.push(timeMs(() => JSON.stringify(small), SMALL_REPEATS));
    json.push(timeMs(() => redactor.redactJson(large.json)));
    jsonWithToken.push(timeMs(() => redactor.redactJson(large.jsonWithToken)));
    walk.push(timeMs(() => redactor.redactValue(large.value)));
    text.push(timeMs(() => redactor.redactText(large.text)));
    preset.push(timeMs(() => runPresetWhole(large.text)));
    output.push(timeMs(() => redactRunResult(redactor, small), SMALL_REPEATS));
  }

  const on = new Switchyard({ tools: [noop], typeCheck: "off" });
  const off = new Switchyard({ tools: [noop], typeCheck: "off", redaction: false });
  const callsOn: number[] = [];
  const callsOff: number[] = [];
  try {
    await perCallUs(on);
    await perCallUs(off);
    // Alternating which goes first, so neither always inherits the other's garbage.
    for (let round = 0; round < 8; round++) {
      if (round % 2 === 0) {
        callsOn.push(await perCallUs(on));
        callsOff.push(await perCallUs(off));
      } else {
        callsOff.push(await perCallUs(off));
        callsOn.push(await perCallUs(on));
      }
    }
  } finally {
    await Promise.all([on.close(), off.close()]);
  }

  const ms = (value: number): string => `${value.toFixed(value < 0.1 ? 4 : 2)} ms`;
  const verdict = (pass: boolean): string => (pass ? "PASS" : "MISS");
  const largeMs = median(json);
  const smallMs = median(output);
  const onUs = median(callsOn);
  const offUs = median(callsOff);
  const times = (value: number, baseline: number): string => `${(value / baseline).toFixed(1)}x JSON.stringify`;
  const rows: Row[] = [
    {
      what: `1 MB tool result (${(large.json.length / 1024).toFixed(0)} KB of JSON, direct call), ${times(largeMs, median(stringify))}`,
      median: ms(largeMs),
      target: `≤ ${TARGET_LARGE_MS} ms`,
      verdict: verdict(largeMs <= TARGET_LARGE_MS),
    },
    {
      what: `typical 2 KB program output (${(JSON.stringify(small.output).length / 1024).toFixed(1)} KB + logs), ${times(smallMs, median(outputStringify))}`,
      median: ms(smallMs),
      target: `≤ ${TARGET_SMALL_MS} ms`,
      verdict: verdict(smallMs <= TARGET_SMALL_MS),
    },
    {
      what: "  same 1 MB with one token in it (parsed, walked, serialized)",
      median: ms(median(jsonWithToken)),
      target: "",
      verdict: "",
    },
    {
      what: "  same 1 MB as a value (redactValue: JSON.stringify, then the same pass)",
      median: ms(median(walk)),
      target: "",
      verdict: "",
    },
    { what: "  same 1 MB as one text", median: ms(median(text)), target: "", verdict: "" },
    {
      what: `  secretlint preset as published on it (${(median(preset) / median(text)).toFixed(1)}x)`,
      median: ms(median(preset)),
      target: "",
      verdict: "",
    },
    {
      what: "bridge per call, session redaction on",
      median: `${onUs.toFixed(1)} µs`,
      target: "",
      verdict: "",
    },
    {
      what: "bridge per call, session redaction off",
      median: `${offUs.toFixed(1)} µs`,
      target: "",
      verdict: "",
    },
    {
      what: `  per-call overhead of redaction (${BRIDGE_CALLS} calls a run)`,
      median: `${(onUs - offUs).toFixed(1)} µs`,
      target: "none: calls are not redacted",
      verdict: "",
    },
  ];
  // The figures the docs quote, each as the docs print it.
  const figures = {
    "large-kb": `${Math.round(large.json.length / 1024).toLocaleString("en-US")} KB`,
    "large-ms": `${largeMs.toFixed(1)} ms`,
    "large-ratio": `${(largeMs / median(stringify)).toFixed(1)}×`,
    "small-ms": `${smallMs.toFixed(3)} ms`,
    "small-ratio": `${(smallMs / median(outputStringify)).toFixed(1)}×`,
    "token-ms": `${median(jsonWithToken).toFixed(1)} ms`,
    "secretlint-ratio": `${(median(preset) / median(text)).toFixed(1)}×`,
    "call-on-us": `${onUs.toFixed(1)} µs`,
    "call-off-us": `${offUs.toFixed(1)} µs`,
  };
  return { table: formatTable(rows), figures };
}

const invokedDirectly = process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href;
if (invokedDirectly) {
  const started = performance.now();
  const startLoad = currentLoad();
  try {
    console.log(
      `Node ${process.version}; ${ROUNDS} rounds after a warm-up, variants back to back; medians. Load average: ${startLoad.toFixed(1)} on ${(await import("node:os")).availableParallelism()} cores.`,
    );
    const measurement = await measureRedaction();
    console.log(measurement.table);
    const written = writeBenchResult("redaction", benchConditions(startLoad), measurement.figures, [
      `${ROUNDS} rounds after a warm-up, variants back to back; medians. The ratio to JSON.stringify of the same value is the steadier figure on a shared machine.`,
    ]);
    console.log(`wrote ${written}`);
  } catch (error) {
    console.error("redaction bench failed:", error);
  }
  console.log(`(bench took ${((performance.now() - started) / 1000).toFixed(1)} s)`);
  process.exitCode = 0;
}
