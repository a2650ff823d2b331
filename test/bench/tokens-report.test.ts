import { describe, expect, it } from "vitest";
import { renderChartSvg } from "../../bench/tokens/chart-svg.js";
import { renderMarkdown, renderText } from "../../bench/tokens/report.js";
import { runTokenBenchmark } from "../../bench/tokens/run-benchmark.js";
import { freshOutFolder, parseArguments } from "../../bench/tokens/run.js";
import { singleLookup } from "../../bench/tokens/tasks/single-lookup.js";

describe("token benchmark report", () => {
  it("has the lean-direct and separated-effects rows, the range with its band, the published workload on its own line, and every answer graded", async () => {
    const result = await runTokenBenchmark({
      tasks: [singleLookup],
      modes: [
        "direct-grouped",
        "direct-lean",
        "programmatic",
        "direct-padded",
        "direct-deferred",
        "programmatic-padded",
        "programmatic-deferred",
      ],
    });
    expect(result.rows.map((row) => row.mode)).toEqual([
      "direct-grouped",
      "direct-lean",
      "programmatic",
      "direct-padded",
      "direct-deferred",
      "programmatic-padded",
      "programmatic-deferred",
    ]);
    for (const row of [...result.rows, ...result.published!]) {
      expect(row.run.correct, row.mode).toBe(true);
      expect(row.run.grade.checkerProblems).toEqual([]);
      expect(row.baseline).toBeDefined();
      expect(row.leanBaseline).toBeDefined();
    }
    expect(result.published!.map((row) => row.task.id)).toEqual([
      "budget-compliance-published",
      "budget-compliance-published",
      "budget-compliance-published",
    ]);

    const markdown = renderMarkdown(result);
    expect(
      markdown.match(/^\| [^|]* \| (direct, grouped|direct, lean API|program) \| /gm)?.length,
    ).toBeGreaterThanOrEqual(3);
    expect(markdown).toMatch(/\| Single lookup \(control\) \| \+\d+\.\d% \| [-+]\d+\.\d% to [-+]\d+\.\d% \|/);
    expect(markdown).toContain("## Separated effects: tool search and code execution");
    expect(markdown).toMatch(/\| Single lookup \(control\) \| \$0\.\d{4} \| -\d+\.\d% \| [-+]\d+\.\d% \| -\d+\.\d% \|/);
    expect(markdown).toMatch(
      /\*\*Published workload\*\* \(Anthropic's budget-compliance example, 20 members x 50-100 expense lines\)/,
    );
    expect(markdown).toContain("https://www.anthropic.com/engineering/advanced-tool-use");
    expect(markdown).toMatch(
      /\| docs: get_weather tool \+ one question \| \d+ \| 0% \| 422 \(76 \+ 346\) \| 403 \| \+4\.7% \|/,
    );
    expect(markdown).toContain("$ cache write");
    expect(markdown).toMatch(/Every answer is graded by its task's checker.*: 10 of 10 runs correct/);
    expect(markdown).toContain(
      "claude-sonnet-5-5 (Claude Sonnet 5.5): $2 input / $2.5 cache write / $0.1 cache read / $10 output",
    );
    expect(renderText(result)).toContain("Best case: vs grouped");

    const svg = renderChartSvg(result);
    expect(svg.startsWith("<svg")).toBe(true);
    expect(svg.match(/<rect [^>]*><title>/g)?.length).toBe(7);
    expect(svg).toContain("direct, lean API");
  }, 120_000);
});

describe("bench tokens arguments", () => {
  it("writes to a fresh folder under bench/out by default, never the committed bench/results", () => {
    expect(parseArguments([]).out).toBeUndefined();
    const folder = freshOutFolder(new Date("2026-12-01T10:20:30.123Z"));
    expect(folder).toBe("bench/out/tokens-2026-12-01T10-20-30-123Z");
    expect(freshOutFolder()).not.toBe(folder);
    expect(parseArguments(["--out", "bench/results"]).out).toBe("bench/results");
  });

  it("passes any model id through, and refuses unknown options and bad numbers in one line naming the help", () => {
    expect(parseArguments(["--model", "claude-haiku-5-5", "--live", "--trials", "5"])).toMatchObject({
      model: "claude-haiku-5-5",
      live: true,
      trials: 5,
    });
    expect(() => parseArguments(["--trails", "5"])).toThrow(
      /^Unknown option --trails; see switchyard bench tokens --help-bench\.$/,
    );
    expect(() => parseArguments(["--trials", "0"])).toThrow(/--trials needs a positive integer/);
    expect(() => parseArguments(["--max-spend-usd", "-1"])).toThrow(/--max-spend-usd needs a positive number/);
    expect(() => parseArguments(["--live-modes", "direct"])).toThrow(/Unknown live mode direct/);
  });
});
