// The figures docs/benchmarks.md quotes from the token benchmark are the report's own numbers,
// rounded: a figure that disagreed with bench/results/tokens.md would put two truths in the docs.

import { describe, expect, it } from "vitest";
import { renderMarkdown } from "../../bench/tokens/report.js";
import { tokenResultFigures } from "../../bench/tokens/result-figures.js";
import { runTokenBenchmark } from "../../bench/tokens/run-benchmark.js";
import { singleLookup } from "../../bench/tokens/tasks/single-lookup.js";

describe("token benchmark result figures", () => {
  it("round the range table's change and band and the published workload's saving, and leave out what was not run", async () => {
    const result = await runTokenBenchmark({
      tasks: [singleLookup],
      modes: ["direct-grouped", "direct-lean", "programmatic"],
    });
    const figures = tokenResultFigures(result);
    const markdown = renderMarkdown(result);

    const range = markdown.match(
      /\| Single lookup \(control\) \| ([-+]\d+\.\d)% \| ([-+]\d+\.\d)% to ([-+]\d+\.\d)% \| ([-+]\d+\.\d)% \|/,
    );
    expect(range).not.toBeNull();
    const signed = (text: string): string => {
      const rounded = Math.round(Number(text));
      return `${rounded > 0 ? "+" : ""}${rounded}%`;
    };
    expect(figures["single-lookup-best"]).toBe(signed(range![1]!));
    expect(figures["single-lookup-best-band"]).toBe(`${signed(range![2]!)} to ${signed(range![3]!)}`);
    expect(figures["single-lookup-lean"]).toBe(signed(range![4]!));

    const published = markdown.match(/program -(\d+\.\d)% billed vs grouped, -(\d+\.\d)% vs lean API/);
    expect(published).not.toBeNull();
    expect(figures["published-saving"]).toBe(`${Math.round(Number(published![1]))}%`);
    expect(figures["published-lean-saving"]).toBe(`${Math.round(Number(published![2]))}%`);
    expect(figures["correct"]).toMatch(/^(\d+) of \1$/);

    // A control alone measures no data-heavy task and no padded catalog: no range is made up.
    for (const key of ["search-alone-saving", "code-alone-saving", "both-saving", "hosted-saving", "program-saving"])
      expect(figures, key).not.toHaveProperty(key);
    expect(Object.values(figures).join(" ")).not.toMatch(/NaN|Infinity|undefined/);
  });
});
