// Numbers that cannot go stale: every figure marked in README.md and docs/*.md must be exactly what
// its bench's committed result file says (scripts/render-figures.mjs renders them), and every
// result file must say when, on what machine, under what load and on which Node line it was measured.

import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

interface BenchResultFile {
  readonly bench: string;
  readonly date: string;
  readonly machine: { readonly cpu: string; readonly cores: number };
  readonly loadAverage: { readonly start: number; readonly end: number };
  readonly node: string;
  readonly notes: readonly string[];
  readonly figures: Readonly<Record<string, string>>;
  readonly transcribed?: boolean;
}

interface FiguresModule {
  loadResults(folder?: string): Record<string, BenchResultFile>;
  renderFigures(markdown: string, results: Record<string, BenchResultFile>, document?: string): string;
  staleDocuments(results?: Record<string, BenchResultFile>): { document: string }[];
  documents(): string[];
}

const SCRIPT = fileURLToPath(new URL("../../scripts/render-figures.mjs", import.meta.url));
const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const figures = (await import(SCRIPT)) as FiguresModule;

describe("figures in the docs", () => {
  it("match their bench result files in every document", () => {
    expect(figures.staleDocuments().map((stale) => stale.document)).toEqual([]);
  });

  it("come from result files that say when, where, under what load and on which Node line", () => {
    const results = Object.values(figures.loadResults());
    expect(results.map((result) => result.bench)).toEqual(
      expect.arrayContaining(["package", "package-command", "runtime", "throughput", "search", "tokens"]),
    );
    for (const result of results) {
      expect(result.date).toMatch(/^\d{4}-\d{2}-\d{2}/);
      expect(result.machine.cores).toBeGreaterThan(0);
      expect(result.machine.cpu.length).toBeGreaterThan(0);
      expect(typeof result.loadAverage.start).toBe("number");
      expect(result.node).toMatch(/^v\d+/);
      expect(Object.keys(result.figures).length).toBeGreaterThan(0);
    }
  });

  it("quote the command row and the install figures the issue asks for", () => {
    const benchmarks = readFileSync(`${ROOT}docs/benchmarks.md`, "utf8");
    for (const key of ["core-import-ms", "install-mb", "install-seconds", "conditions"]) {
      expect(benchmarks).toContain(`<!-- figure:package.${key} -->`);
    }
    for (const key of ["help-ms", "help-cpu-ms", "run-return-1-ms", "run-return-1-cpu-ms", "conditions"]) {
      expect(benchmarks).toContain(`<!-- figure:package-command.${key} -->`);
    }
    // An install measured here compiles isolated-vm: the result file says so.
    expect(figures.loadResults()["package"]?.notes.join(" ")).toMatch(/offline.*compiling it from source/i);
  });

  it("come from the bench that measures them, never from a hand transcription", () => {
    // Every bench that calls writeBenchResult("<name>", ...) names the file it owns.
    const sources = readdirSync(`${ROOT}bench`, { recursive: true, encoding: "utf8" })
      .filter((file) => file.endsWith(".ts") && !file.endsWith("bench-result.ts"))
      .map((file) => readFileSync(`${ROOT}bench/${file}`, "utf8"));
    const writers = new Set(
      sources.flatMap((source) => [...source.matchAll(/writeBenchResult\(\s*"([\w-]+)"/g)].map((match) => match[1]!)),
    );
    expect([...writers]).toEqual(
      expect.arrayContaining([
        "runtime",
        "redaction",
        "search",
        "telemetry",
        "fleet",
        "tokens",
        "observed-types",
        "timers",
      ]),
    );
    const results = figures.loadResults();
    for (const writer of writers) expect(results[writer], writer).toBeDefined();
    const transcribed = Object.values(results).filter((result) => result.transcribed === true);
    expect(transcribed.map((result) => result.bench)).toEqual([]);
  });

  it("mark each number of a bench paragraph rather than rendering the paragraph as one transcribed summary", () => {
    const benchmarks = readFileSync(`${ROOT}docs/benchmarks.md`, "utf8");
    for (const bench of ["runtime", "redaction", "search", "telemetry", "fleet", "tokens"]) {
      expect(benchmarks, bench).not.toContain(`<!-- figure:${bench}.summary -->`);
      expect(benchmarks.match(new RegExp(`<!-- figure:${bench}\\.`, "g"))?.length ?? 0, bench).toBeGreaterThan(5);
    }
  });

  it("fail the check when a figure in a document differs from its result file", () => {
    const results = figures.loadResults();
    const edited = "help: <!-- figure:package-command.help-ms -->1 ms<!-- /figure -->";
    expect(figures.renderFigures(edited, results)).not.toBe(edited);
    expect(() => figures.renderFigures("<!-- figure:package.no-such-key -->x<!-- /figure -->", results)).toThrow(
      /has no figure no-such-key/,
    );
    expect(() => figures.renderFigures("<!-- figure:no-bench.x -->x<!-- /figure -->", results)).toThrow(
      /no bench\/results file/,
    );
  });
});
