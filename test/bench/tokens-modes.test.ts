import { describe, expect, it } from "vitest";
import type { AnthropicRequestBody } from "../../bench/tokens/count-request.js";
import { countRequestTokens } from "../../bench/tokens/count-request.js";
import { MODES, runMode, type ModeId, type ModeRun } from "../../bench/tokens/modes.js";
import { DEFAULT_BENCH_MODEL } from "../../bench/tokens/settings.js";
import { summarizeRun } from "../../bench/tokens/summarize-run.js";
import { canonicalJson, type BenchTask } from "../../bench/tokens/task.js";
import { TASKS } from "../../bench/tokens/tasks/index.js";
import { expenseBudgets } from "../../bench/tokens/tasks/expense-budgets.js";
import { invoiceSweep } from "../../bench/tokens/tasks/invoice-sweep.js";

const model = DEFAULT_BENCH_MODEL;

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
    const run = await runMode(expenseBudgets, "direct", { model });
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
    const run = await runMode(expenseBudgets, "direct-grouped", { model });
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

  it("gives the same, correct answer in every mode, graded by the task's checker, with the summed input equal to the sum over the recorded requests", async () => {
    for (const task of TASKS) {
      const modes = MODES.map((mode) => mode.id).filter((mode) => mode !== "direct" || cheapSingleCall.has(task.id));
      const answers = new Set<string>();
      for (const mode of modes) {
        const run = await runMode(task, mode, { model });
        runs.push(run);
        expect(run.problems, `${task.id} / ${mode}`).toEqual([]);
        expect(run.correct, `${task.id} / ${mode}`).toBe(true);
        expect(run.grade, `${task.id} / ${mode}`).toEqual({
          answerMatches: true,
          checkerProblems: [],
          worldProblems: [],
        });
        answers.add(canonicalJson(run.answer));
        const figures = summarizeRun(run, model);
        expect(figures.inputTokens).toBe(run.records.reduce((sum, record) => sum + record.inputTokens, 0));
        // Hosted mode also counts the program's stdout on its last request (tokens-hosted.test.ts).
        if (mode !== "hosted")
          for (const record of run.records) expect(record.inputTokens).toBe(countRequestTokens(record.body, model));
      }
      expect(answers.size, task.id).toBe(1);
    }
  }, 300_000);

  it("prices the retry: the refused program is a request of its own", () => {
    for (const task of TASKS) {
      const plain = runs.find((run) => run.taskId === task.id && run.mode === "programmatic")!;
      const retry = runs.find((run) => run.taskId === task.id && run.mode === "programmatic-retry")!;
      expect(retry.records.length).toBe(plain.records.length + 1);
      expect(summarizeRun(retry, model).outputTokens).toBeGreaterThan(summarizeRun(plain, model).outputTokens);
      const refused = toolResults(retry.records[1]!.body);
      expect(refused[0]?.[1]).toMatch(/^error TYPE_ERROR/);
    }
  });

  it("offers only run_program and search_tools in deferred mode, over a catalog padded with the 224 SaaS tools", () => {
    expect(runs.filter((candidate) => candidate.mode === "programmatic-deferred")).toHaveLength(TASKS.length);
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
    const run = await runMode(lossy, "programmatic" satisfies ModeId, { model });
    expect(run.correct).toBe(false);
    expect(run.problems.join(" ")).toMatch(/incomplete sweep/);
  });
});

describe("lean direct and separated effects", () => {
  it("narrows direct calls with the lean API: fewer input tokens than grouped for the expense task, the same answer", async () => {
    const grouped = await runMode(expenseBudgets, "direct-grouped", { model });
    const lean = await runMode(expenseBudgets, "direct-lean", { model });
    expect(lean.correct).toBe(true);
    expect(lean.answer).toEqual(grouped.answer);
    const lastBody = lean.records.at(-1)!.body;
    const calls = lastBody.messages.flatMap((message) =>
      typeof message.content === "string" ? [] : message.content.filter((block) => block.type === "tool_use"),
    ) as { name: string; input: any }[];
    const listCalls = calls.filter((call) => call.name === "expenses__listExpenses");
    expect(listCalls).toHaveLength(24);
    expect(listCalls.every((call) => call.input.statuses?.join() === "approved,pending")).toBe(true);
    expect(summarizeRun(lean, model).inputTokens).toBeLessThan(summarizeRun(grouped, model).inputTokens * 0.5);
  });

  it("runs direct and programmatic calling on the same padded catalog, with and without search", async () => {
    const padded = await runMode(invoiceSweep, "direct-padded", { model });
    const searched = await runMode(invoiceSweep, "direct-deferred", { model });
    const programPadded = await runMode(invoiceSweep, "programmatic-padded", { model });
    for (const run of [padded, searched, programPadded]) {
      expect(run.correct, run.mode).toBe(true);
      expect(run.catalogTools).toBe(225);
    }
    // All 225 definitions up front (+ results.read, offered to direct callers), or search first and only the found tool joins.
    expect(padded.records[0]!.body.tools).toHaveLength(226);
    expect(searched.records[0]!.body.tools?.map((tool) => tool.name)).toEqual(["search_tools", "results__read"]);
    // Every tool a search returned joins (the search's top hits, distractors among them), in the order found.
    const loaded = searched.records.at(-1)!.body.tools!.map((tool) => tool.name);
    expect(loaded.slice(0, 2)).toEqual(["search_tools", "results__read"]);
    expect(loaded).toContain("receivables__listInvoices");
    expect(loaded.length).toBeLessThan(10);
    expect(programPadded.records[0]!.body.tools?.map((tool) => tool.name)).toEqual(["run_program"]);
    expect(summarizeRun(searched, model).inputTokens).toBeLessThan(summarizeRun(padded, model).inputTokens);
  });

  it("grades with the task's checker: a final answer that drops a fact or names a wrong one is wrong", () => {
    for (const task of TASKS) {
      const world = task.createWorld();
      const right = world.render(world.truth);
      expect(world.checkAnswer(right), task.id).toEqual([]);
      expect(world.checkAnswer("I could not finish the task."), task.id).not.toEqual([]);
    }
    const expenses = expenseBudgets.createWorld();
    const truth = expenses.truth as { overBudget: { memberId: string; spentCents: number; limitCents: number }[] };
    const missingOne = expenses.render({ ...truth, overBudget: truth.overBudget.slice(1) });
    expect(expenses.checkAnswer(missingOne).join()).toMatch(/misses mem_/);
    const invoices = invoiceSweep.createWorld();
    const invoiceTruth = invoices.truth as { byRegion: { totalCents: number }[] };
    const wrongTotal = invoices.render({
      ...invoiceTruth,
      byRegion: invoiceTruth.byRegion.map((row, index) =>
        index === 0 ? { ...row, totalCents: row.totalCents + 100 } : row,
      ),
    });
    expect(invoices.checkAnswer(wrongTotal).join()).toMatch(/misses AMER's total/);
  });
});
