import { describe, expect, it } from "vitest";
import type { AnthropicRequestBody } from "../../bench/tokens/count-request.js";
import { countRequestTokens } from "../../bench/tokens/count-request.js";
import { MODES, runMode, type ModeId, type ModeRun } from "../../bench/tokens/modes.js";
import { CLAUDE_SONNET_4_5 } from "../../bench/tokens/settings.js";
import { summarizeRun } from "../../bench/tokens/summarize-run.js";
import { canonicalJson, type BenchTask } from "../../bench/tokens/task.js";
import { TASKS } from "../../bench/tokens/tasks/index.js";
import { expenseBudgets } from "../../bench/tokens/tasks/expense-budgets.js";
import { invoiceSweep } from "../../bench/tokens/tasks/invoice-sweep.js";

const profile = CLAUDE_SONNET_4_5;

/** tool_result blocks of a body: [tool_use_id, content]. */
function toolResults(body: AnthropicRequestBody): [string, string][] {
  return body.messages.flatMap((message) =>
    typeof message.content === "string"
      ? []
      : message.content.flatMap((block) =>
          block.type === "tool_result" ? [[block.tool_use_id, String(block.content)] as [string, string]] : [],
        ),
  );
}

describe("direct mode request bodies", () => {
  it("carry every earlier tool result, so the history grows turn by turn", async () => {
    const run = await runMode(expenseBudgets, "direct", { profile });
    expect(run.correct).toBe(true);
    expect(run.records.length).toBe(31);
    let previous: [string, string][] = [];
    for (const record of run.records) {
      const results = toolResults(record.body);
      // Everything the previous request held is still there, unchanged and in order...
      expect(results.slice(0, previous.length)).toEqual(previous);
      // ...plus the result of each call the previous response made.
      const previousCalls = record.index === 0 ? 0 : run.records[record.index - 1]!.toolCallCount;
      expect(results.length).toBe(previous.length + previousCalls);
      expect(record.body.messages.length).toBe(1 + 2 * record.index);
      previous = results;
    }
    // The request that produced the answer held all 30 results, each as the tool returned it.
    expect(previous.length).toBe(30);
    expect(previous.every(([, content]) => content.startsWith("{"))).toBe(true);
    const inputs = run.records.map((record) => record.inputTokens);
    expect([...inputs].sort((a, b) => a - b)).toEqual(inputs);
  });

  it("group independent calls in one turn in grouped mode", async () => {
    const run = await runMode(expenseBudgets, "direct-grouped", { profile });
    expect(run.records.map((record) => record.toolCallCount)).toEqual([1, 29, 0]);
  });
});

describe("every task in every mode", () => {
  // Reduced configuration: direct one-call-per-turn only where it stays small; grouped,
  // programmatic, retry and deferred everywhere.
  const cheapSingleCall = new Set([
    "expense-budgets",
    "single-lookup",
    "dependent-chain",
    "document-summary",
    "transcript-copy",
  ]);
  const runs: ModeRun[] = [];

  it("gives the same, correct answer in every mode, with the summed input equal to the sum over the recorded requests", async () => {
    for (const task of TASKS) {
      const modes = MODES.map((mode) => mode.id).filter((mode) => mode !== "direct" || cheapSingleCall.has(task.id));
      const answers = new Set<string>();
      for (const mode of modes) {
        const run = await runMode(task, mode, { profile });
        runs.push(run);
        expect(run.problems, `${task.id} / ${mode}`).toEqual([]);
        expect(run.correct, `${task.id} / ${mode}`).toBe(true);
        answers.add(canonicalJson(run.answer));
        const figures = summarizeRun(run, profile);
        expect(figures.inputTokens).toBe(run.records.reduce((sum, record) => sum + record.inputTokens, 0));
        // Hosted mode counts the context without the container's traffic (tokens-hosted.test.ts).
        if (mode !== "hosted")
          for (const record of run.records) expect(record.inputTokens).toBe(countRequestTokens(record.body, profile));
      }
      expect(answers.size, task.id).toBe(1);
    }
  }, 120_000);

  it("prices the retry: the refused program is a request of its own", () => {
    for (const task of TASKS) {
      const plain = runs.find((run) => run.taskId === task.id && run.mode === "programmatic")!;
      const retry = runs.find((run) => run.taskId === task.id && run.mode === "programmatic-retry")!;
      expect(retry.records.length).toBe(plain.records.length + 1);
      expect(summarizeRun(retry, profile).outputTokens).toBeGreaterThan(summarizeRun(plain, profile).outputTokens);
      const refused = toolResults(retry.records[1]!.body);
      expect(refused[0]?.[1]).toMatch(/^error TYPE_ERROR/);
    }
  });

  it("offers only run_program and search_tools in deferred mode, over a catalog padded with the 224 SaaS tools", () => {
    for (const run of runs.filter((candidate) => candidate.mode === "programmatic-deferred")) {
      expect(run.catalogTools).toBeGreaterThan(224);
      expect(run.records[0]!.body.tools?.map((tool) => ("name" in tool ? tool.name : undefined))).toEqual([
        "run_program",
        "search_tools",
      ]);
    }
  });
});

describe("grading", () => {
  it("marks the answer wrong when the program loses pages, instead of trusting it", async () => {
    const lossy: BenchTask = {
      ...invoiceSweep,
      createWorld() {
        const world = invoiceSweep.createWorld();
        const program = world.program.replace(
          "if (page.nextCursor === null) break;",
          "if (page.nextCursor === null || pages >= 3) break;",
        );
        expect(program).not.toBe(world.program);
        return { ...world, program };
      },
    };
    const run = await runMode(lossy, "programmatic" satisfies ModeId, { profile });
    expect(run.correct).toBe(false);
    expect(run.problems.join(" ")).toMatch(/incomplete sweep/);
  });
});
