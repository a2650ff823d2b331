import { describe, expect, it } from "vitest";
import { renderChartSvg } from "../../bench/tokens/chart-svg.js";
import { renderMarkdown, renderText } from "../../bench/tokens/report.js";
import { runTokenBenchmark } from "../../bench/tokens/run-benchmark.js";
import { dependentChain } from "../../bench/tokens/tasks/dependent-chain.js";
import { singleLookup } from "../../bench/tokens/tasks/single-lookup.js";

describe("token benchmark report", () => {
  it("prints one row per task and mode, the savings against the grouped baseline, and the published-figure check", async () => {
    const result = await runTokenBenchmark({
      tasks: [singleLookup, dependentChain],
      modes: ["direct-grouped", "programmatic"],
    });
    expect(result.rows.map((row) => `${row.task.id}/${row.mode}`)).toEqual([
      "single-lookup/direct-grouped",
      "single-lookup/programmatic",
      "dependent-chain/direct-grouped",
      "dependent-chain/programmatic",
    ]);
    const markdown = renderMarkdown(result);
    expect(markdown.match(/^\| [^|]* \| (direct, grouped|program) \| /gm)?.length).toBe(4);
    expect(markdown).toContain("| baseline |");
    expect(markdown).toMatch(
      /get_weather tool \+ one user message: counted \d+ \(\d+ body \+ 346 tool-use system prompt, o200k_base/,
    );
    expect(markdown).toContain("PASS");
    expect(renderText(result)).toContain("Published-figure check:");

    const svg = renderChartSvg(result);
    expect(svg.startsWith("<svg")).toBe(true);
    expect(svg.trimEnd().endsWith("</svg>")).toBe(true);
    expect(svg.match(/<rect [^>]*><title>/g)?.length).toBe(4);
    expect(svg).toContain("o200k_base");
    expect(svg).toContain("direct, grouped (baseline)");
  });
});
