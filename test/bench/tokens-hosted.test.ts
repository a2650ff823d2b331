import { describe, expect, it } from "vitest";
import { promptBlocks } from "../../bench/tokens/cache-model.js";
import { countRequestTokens } from "../../bench/tokens/count-request.js";
import { runHostedMode, withoutHostedTraffic } from "../../bench/tokens/hosted-mode.js";
import { MODES, runMode } from "../../bench/tokens/modes.js";
import { renderMarkdown } from "../../bench/tokens/report.js";
import { runTokenBenchmark } from "../../bench/tokens/run-benchmark.js";
import { DEFAULT_BENCH_MODEL } from "../../bench/tokens/settings.js";
import { splitCache } from "../../bench/tokens/summarize-run.js";
import { duplicateCharges } from "../../bench/tokens/tasks/duplicate-charges.js";
import { expenseBudgets } from "../../bench/tokens/tasks/expense-budgets.js";
import { singleLookup } from "../../bench/tokens/tasks/single-lookup.js";
import { countTokens } from "../../src/search/token-count.js";

const model = DEFAULT_BENCH_MODEL;

describe("hosted mode of the token benchmark", () => {
  it("is in the mode list and runs through runMode", () => {
    expect(MODES.map((mode) => mode.id)).toContain("hosted");
  });

  it("answers correctly with every call through the pipeline, counting the program as output and leaving hosted traffic out of the input", async () => {
    const run = await runHostedMode(expenseBudgets, { model });
    expect(run.problems).toEqual([]);
    expect(run.correct).toBe(true);
    expect(run.toolCalls).toBe(30);
    const [first, ...rest] = run.records;
    // The real adapter built every body in hosted mode: code execution offered, callers mapped.
    const tools = first!.body.tools as { type?: string; name: string; allowed_callers?: string[] }[];
    expect(tools[0]).toEqual({ type: "code_execution_20260120", name: "code_execution" });
    expect(tools.slice(1).every((tool) => tool.allowed_callers?.includes("code_execution_20260120"))).toBe(true);
    const world = expenseBudgets.createWorld();
    expect(first!.outputTokens).toBe(countTokens(JSON.stringify({ code: world.program })));
    // Continuations carry the program's calls to the container: no model output, and the calls
    // and results are on the wire but not in the counted context (the recorded body is the context).
    const last = rest.at(-1)!;
    expect(rest.slice(0, -1).every((record) => record.outputTokens === 0 && record.toolCallCount > 0)).toBe(true);
    expect(JSON.stringify(last.body)).not.toContain('"caller":{"type":"code_execution_20260120"');
    expect(withoutHostedTraffic(last.body)).toEqual(last.body);
    // The final request also counts the program's stdout, which the model reads before it answers.
    expect(last.inputTokens).toBeGreaterThan(countRequestTokens(last.body, model));
  });

  it("is the same run whether asked through runMode or directly", async () => {
    const viaModes = await runMode(expenseBudgets, "hosted", { model });
    expect(viaModes.mode).toBe("hosted");
    expect(viaModes.correct).toBe(true);
  });
});

describe("the prompt cache over hosted continuations", () => {
  it("keeps a breakpoint that sat on a hosted result, on the context block before it", async () => {
    const run = await runHostedMode(duplicateCharges, { model });
    const [first, ...continuations] = run.records;
    // The adapter marks the newest user messages, which hold only the hosted results here:
    // the marks move to the last block the context keeps (the program), not away.
    for (const record of continuations) {
      const marked = promptBlocks(record.body).filter((block) => block.marked);
      expect(marked.length).toBeGreaterThan(1);
      expect(marked.at(-1)!.key).toMatch(/^assistant#1:.*"server_tool_use"/);
    }
    const splits = splitCache(run.records, model);
    expect(first!.inputTokens).toBeGreaterThan(model.minCacheableTokens);
    // Each continuation reads back the whole context the request before it wrote; only the
    // program's stdout, which the last request adds after every breakpoint, is plain input.
    expect(continuations.length).toBeGreaterThan(5);
    continuations.forEach((_, index) => {
      expect(splits[index + 1]!.read).toBe(run.records[index]!.inputTokens);
      if (index < continuations.length - 1) expect(splits[index + 1]!.uncached).toBe(0);
    });
  });
});

describe("the hosted rows in the report", () => {
  it("say how hosted mode is counted, beside its figures, and only when a hosted row ran", async () => {
    const withHosted = renderMarkdown(
      await runTokenBenchmark({ tasks: [singleLookup], modes: ["direct-grouped", "hosted"], publishedWorkload: false }),
    );
    expect(withHosted).toMatch(/^\| {2}\| hosted program \| 2 \| /m);
    expect(withHosted).toMatch(/^- Hosted program: the provider's container is emulated offline.*an upper bound/m);
    const without = renderMarkdown(
      await runTokenBenchmark({ tasks: [singleLookup], modes: ["direct-grouped"], publishedWorkload: false }),
    );
    expect(without).not.toContain("Hosted program:");
  });
});
