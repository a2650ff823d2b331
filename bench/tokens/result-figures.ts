// The figures docs/benchmarks.md quotes from the token benchmark, computed from one offline run, so
// the paragraph that summarises bench/results/tokens.md renders from bench/results/tokens.json and
// cannot drift from it. Savings are billed cost; bands are what the token counting cannot rule out.

import { changeBand } from "./calibration.js";
import { HOSTED_MODE } from "./hosted-mode.js";
import { BASELINE_MODE, EFFECT_MODES, LEAN_BASELINE_MODE, type ModeId } from "./modes.js";
import { uniqueTasks } from "./report.js";
import type { BenchmarkResult, BenchmarkRow } from "./run-benchmark.js";

/** Signed whole percent, as the docs print a change: "-80%", "+77%". */
function percent(change: number): string {
  const rounded = Math.round(change * 100);
  return `${rounded > 0 ? "+" : ""}${rounded}%`;
}

/** `value` against `baseline` as a change and its counting band: ["-80%", "-86% to -72%"]. */
function changeWithBand(value: number, baseline: number): [string, string] {
  const [low, high] = changeBand(value, baseline);
  return [percent(value / baseline - 1), `${percent(low)} to ${percent(high)}`];
}

/** Lowest to highest saving (a positive share), "18–27%"; undefined when no task measured it. */
function savingRange(changes: readonly number[]): string | undefined {
  if (changes.length === 0) return undefined;
  const savings = changes.map((change) => Math.round(-change * 100));
  return `${Math.min(...savings)}–${Math.max(...savings)}%`;
}

/**
 * Per task: `<task>-best` (program against grouped direct calls) and `<task>-best-band`, and where a
 * lean API was measured `<task>-lean` and `<task>-lean-band`; across the data-heavy tasks the
 * separated effects on the padded catalog, the hosted mode's range, and the published workload.
 */
export function tokenResultFigures(result: BenchmarkResult): Record<string, string> {
  const rowOf = (taskId: string, mode: ModeId): BenchmarkRow | undefined =>
    result.rows.find((row) => row.task.id === taskId && row.mode === mode);
  const cost = (row: BenchmarkRow | undefined): number | undefined => row?.figures.billed.totalUsd;
  const figures: Record<string, string> = {};
  const all = [...result.rows, ...(result.published ?? [])];
  const tasks = uniqueTasks(result);
  figures["tasks"] = String(tasks.length);
  figures["modes"] = String(new Set(result.rows.map((row) => row.mode)).size);
  figures["correct"] = `${all.filter((row) => row.run.correct).length} of ${all.length}`;

  for (const task of tasks) {
    const program = rowOf(task.id, "programmatic");
    const grouped = cost(rowOf(task.id, BASELINE_MODE));
    const lean = cost(rowOf(task.id, LEAN_BASELINE_MODE));
    if (program === undefined || grouped === undefined) continue;
    [figures[`${task.id}-best`], figures[`${task.id}-best-band`]] = changeWithBand(cost(program)!, grouped);
    if (lean !== undefined)
      [figures[`${task.id}-lean`], figures[`${task.id}-lean-band`]] = changeWithBand(cost(program)!, lean);
    const groupedInput = rowOf(task.id, BASELINE_MODE)?.figures.inputTokens;
    if (groupedInput !== undefined)
      figures[`${task.id}-input`] = percent(program.figures.inputTokens / groupedInput - 1);
  }

  const dataHeavy = tasks.filter((task) => !task.control);
  const effect = (mode: ModeId): number[] =>
    dataHeavy.flatMap((task) => {
      const base = cost(rowOf(task.id, EFFECT_MODES.neither));
      const value = cost(rowOf(task.id, mode));
      return base === undefined || value === undefined ? [] : [value / base - 1];
    });
  const againstGrouped = (mode: ModeId): number[] =>
    dataHeavy.flatMap((task) => {
      const grouped = cost(rowOf(task.id, BASELINE_MODE));
      const value = cost(rowOf(task.id, mode));
      return grouped === undefined || value === undefined ? [] : [value / grouped - 1];
    });
  const ranges: Record<string, string | undefined> = {
    "search-alone-saving": savingRange(effect(EFFECT_MODES.search)),
    "code-alone-saving": savingRange(effect(EFFECT_MODES.code)),
    "both-saving": savingRange(effect(EFFECT_MODES.both)),
    "hosted-saving": savingRange(againstGrouped(HOSTED_MODE.id)),
    "program-saving": savingRange(againstGrouped("programmatic")),
  };
  for (const [key, range] of Object.entries(ranges)) if (range !== undefined) figures[key] = range;

  const published = result.published ?? [];
  const publishedCost = (mode: ModeId): number | undefined =>
    published.find((row) => row.mode === mode)?.figures.billed.totalUsd;
  const publishedProgram = published.find((row) => row.mode === "programmatic");
  const publishedGrouped = publishedCost(BASELINE_MODE);
  const publishedLean = publishedCost(LEAN_BASELINE_MODE);
  if (publishedProgram !== undefined && publishedGrouped !== undefined) {
    const programCost = publishedProgram.figures.billed.totalUsd;
    figures["published-saving"] = `${Math.round((1 - programCost / publishedGrouped) * 100)}%`;
    if (publishedLean !== undefined)
      figures["published-lean-saving"] = `${Math.round((1 - programCost / publishedLean) * 100)}%`;
    figures["published-kept-kb"] = `${Math.round(publishedProgram.run.toolResultBytes / 1024)} KB`;
    figures["published-back-kb"] = `${(publishedProgram.run.programOutputBytes / 1024).toFixed(1)} KB`;
  }
  return figures;
}
