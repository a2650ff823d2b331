// The ways the benchmark runs one task. A mode is a point in a small grid: its family (how
// the model calls tools: direct turns or one program; a third family, the providers' hosted
// code execution, slots in beside them), the catalog (the task's own tools, or padded with
// 224 SaaS tools), how the catalog is loaded (every definition up front, or search first),
// and the API (plain, or lean: field selection and server-side filters). Tools, sandbox,
// search and the adapter's request bodies are real; only the model is scripted.

import type { AgentMode } from "../../src/agent/agent-toolset.js";
import { RUN_PROGRAM_TOOL } from "../../src/model-tools/run-program-tool.js";
import { SEARCH_TOOLS_TOOL } from "../../src/model-tools/search-tools-tool.js";
import { toProviderToolName } from "../../src/agent/provider-tool-names.js";
import { runAgent, type AgentResult } from "../../src/agent/run-agent.js";
import { ToolError } from "../../src/errors.js";
import { defineTool, type ToolDefinition } from "../../src/registry/define-tool.js";
import { Switchyard } from "../../src/switchyard.js";
import { saasTools } from "../search/catalog/saas-tools.js";
import { HOSTED_MODE, runHostedMode } from "./hosted-mode.js";
import { ScriptedModel, type PolicyTurns, type ScriptedPolicy } from "./scripted-model.js";
import { MAX_OUTPUT_TOKENS, SYSTEM_PROMPT } from "./settings.js";
import {
  canonicalJson,
  type BenchTask,
  type CallRequest,
  type DirectSession,
  type SeenResult,
  type TaskWorld,
} from "./task.js";

import type { Grade, ModeFamily, ModeId, ModeInfo, ModeRun, RunModeOptions } from "./mode-run.js";

export type { Grade, ModeFamily, ModeId, ModeInfo, ModeRun, RunModeOptions };

export const MODES: readonly ModeInfo[] = [
  {
    id: "direct",
    family: "direct",
    catalog: "task",
    loading: "all",
    api: "plain",
    grouping: "one",
    label: "direct, 1 call/turn",
    description: "Direct tool calls, one per model turn.",
  },
  {
    id: "direct-grouped",
    family: "direct",
    catalog: "task",
    loading: "all",
    api: "plain",
    grouping: "grouped",
    label: "direct, grouped",
    description: "Direct tool calls; independent calls grouped in one turn (the plain baseline).",
  },
  {
    id: "direct-lean",
    family: "direct",
    catalog: "task",
    loading: "all",
    api: "lean",
    grouping: "grouped",
    label: "direct, lean API",
    description:
      "Grouped direct calls against the task's narrower API: field selection and server-side filters where a " +
      "well-designed API would have them (the conservative baseline; same as grouped where no narrower API helps).",
  },
  {
    id: "programmatic",
    family: "programmatic",
    catalog: "task",
    loading: "all",
    api: "plain",
    label: "program",
    description: "One run_program call; every declaration loaded up front.",
  },
  {
    id: "programmatic-retry",
    family: "programmatic",
    catalog: "task",
    loading: "all",
    api: "plain",
    retry: true,
    label: "program + retry",
    description: "A first program with a wrong field (TYPE_ERROR), then the corrected one.",
  },
  {
    id: "direct-padded",
    family: "direct",
    catalog: "padded",
    loading: "all",
    api: "plain",
    grouping: "grouped",
    label: "direct, 228 tools",
    description: "Grouped direct calls with the catalog padded by 224 SaaS tools, every definition sent up front.",
  },
  {
    id: "direct-deferred",
    family: "direct",
    catalog: "padded",
    loading: "search",
    api: "plain",
    grouping: "grouped",
    label: "direct, search",
    description:
      "The padded catalog deferred: search_tools first, then grouped direct calls to the tools found (their definitions join the request).",
  },
  {
    id: "programmatic-padded",
    family: "programmatic",
    catalog: "padded",
    loading: "all",
    api: "plain",
    label: "program, 228 tools",
    description: "One run_program call whose description declares all 228 tools of the padded catalog.",
  },
  {
    id: "programmatic-deferred",
    family: "programmatic",
    catalog: "padded",
    loading: "search",
    api: "plain",
    label: "program, search",
    description: "The padded catalog deferred: search_tools first, then run_program.",
  },
  HOSTED_MODE,
];

/** The info of `id`. */
export function modeInfo(id: ModeId): ModeInfo {
  const info = MODES.find((mode) => mode.id === id);
  if (info === undefined) throw new Error(`Unknown mode ${id}.`);
  return info;
}

/** The plain baseline savings are measured against, and the conservative one. */
export const BASELINE_MODE: ModeId = "direct-grouped";
export const LEAN_BASELINE_MODE: ModeId = "direct-lean";

/**
 * The four modes on the padded catalog that separate the effects: search alone, code
 * execution alone, and both, each against direct calling with every definition up front.
 */
export const EFFECT_MODES = {
  neither: "direct-padded",
  search: "direct-deferred",
  code: "programmatic-padded",
  both: "programmatic-deferred",
} as const satisfies Record<string, ModeId>;

/**
 * Largest direct result put into the context, in bytes. Switchyard's default (16 KB) would
 * refuse or spill the transcript, invoice pages and the document; plain direct calling has
 * no such budget, and that is the baseline measured here.
 */
export const DIRECT_RESULT_LIMIT_BYTES = 4 * 1024 * 1024;

/** What a family's policy gets: the world, the mode, and the way to report. */
interface PolicyContext {
  readonly world: TaskWorld<unknown>;
  readonly mode: ModeInfo;
  readonly options: RunModeOptions;
  readonly problems: string[];
  readonly taskId: string;
  /** Records the structured answer and returns the text the model answers with. */
  readonly solved: (answer: unknown) => string;
}

/** One family of modes: the agent mode it runs in and the scripted model's policy. */
interface ModeFamilyRunner {
  readonly agentMode: AgentMode;
  policy(context: PolicyContext): ScriptedPolicy;
}

// The hosted family has no scripted policy: runHostedMode emulates the provider's container.
const FAMILIES: Record<Exclude<ModeFamily, "hosted">, ModeFamilyRunner> = {
  direct: {
    agentMode: "direct",
    policy: ({ world, mode, options, problems, solved }) => {
      const perTurn = mode.grouping === "one" ? 1 : (options.maxCallsPerTurn ?? Number.POSITIVE_INFINITY);
      const solve = mode.api === "lean" && world.lean !== undefined ? world.lean.solveDirect : world.solveDirect;
      return async (turns) => {
        if (mode.loading === "search") await discover(turns, world, problems);
        return solved(await solve(directSession(turns, perTurn)));
      };
    },
  },
  programmatic: {
    agentMode: "programmatic",
    policy:
      ({ world, mode, problems, solved, taskId }) =>
      async (turns) => {
        if (mode.loading === "search") await discover(turns, world, problems);
        if (mode.retry === true) {
          const { find, replace } = world.programMistake;
          if (!world.program.includes(find))
            throw new Error(`Task ${taskId}: programMistake.find does not occur in the program.`);
          const [first] = await turns.turn([
            { name: RUN_PROGRAM_TOOL, input: { code: world.program.replace(find, replace) } },
          ]);
          if (!first?.content.startsWith("error TYPE_ERROR"))
            problems.push(`the mistaken program was not refused with TYPE_ERROR: ${first?.content.slice(0, 120)}`);
        }
        const [result] = await turns.turn([{ name: RUN_PROGRAM_TOOL, input: { code: world.program } }]);
        try {
          return solved(world.answerFromOutput(parseRenderedOutput(result?.content ?? "")));
        } catch (error) {
          problems.push(`no answer from the program output: ${(error as Error).message.slice(0, 200)}`);
          return "The program did not produce a usable result, so I cannot answer reliably.";
        }
      },
  },
};

/** The catalog of a mode: the task's tools (lean ones replacing plain ones by name), padded or not. */
export function catalogOf(world: TaskWorld<unknown>, mode: ModeInfo): ToolDefinition[] {
  const lean = mode.api === "lean" ? (world.lean?.tools ?? []) : [];
  const leanNames = new Set(lean.map((tool) => tool.name));
  const own = [...world.tools.filter((tool) => !leanNames.has(tool.name)), ...lean];
  return mode.catalog === "padded" ? [...own, ...distractorTools()] : own;
}

/** Runs `task` in `mode` through `runAgent` with a scripted model, against a fresh world, and grades the answer. */
export async function runMode(task: BenchTask, modeId: ModeId, options: RunModeOptions): Promise<ModeRun> {
  const mode = modeInfo(modeId);
  if (mode.family === "hosted") return runHostedMode(task, options);
  const world = task.createWorld();
  const problems: string[] = [];
  const catalog = catalogOf(world, mode);
  const yard = new Switchyard({
    tools: catalog,
    discovery: { defer: mode.loading === "search" },
    results: { maxDirectResultBytes: DIRECT_RESULT_LIMIT_BYTES },
  });
  let toolResultBytes = 0;
  yard.trace.subscribe((event) => {
    if (event.type === "tool-call-end") toolResultBytes += event.bytesOut;
  });

  let answer: unknown;
  const solved = (value: unknown): string => {
    answer = value;
    return world.render(value);
  };
  const family = FAMILIES[mode.family as Exclude<ModeFamily, "hosted">];
  const policy = family.policy({ world, mode, options, problems, solved, taskId: task.id });
  const model = new ScriptedModel(policy, options.model);
  const started = performance.now();
  const result: AgentResult = await runAgent({
    yard,
    model,
    task: task.question,
    mode: family.agentMode,
    deferDirectTools: mode.family === "direct" && mode.loading === "search",
    system: SYSTEM_PROMPT,
    maxSteps: 10_000,
    maxTokens: MAX_OUTPUT_TOKENS,
  });
  const wallMs = performance.now() - started;
  if (result.status !== "completed")
    problems.push(`the agent run ended ${result.status}: ${result.stop?.message ?? ""}`);
  for (const record of model.records) {
    if (record.overOutputLimit)
      problems.push(
        `request ${record.index + 1} needs ${record.outputTokens} output tokens, over max_tokens ${MAX_OUTPUT_TOKENS}`,
      );
  }
  const finalText = result.finalText ?? "";
  const answerMatches = answer !== undefined && canonicalJson(answer) === canonicalJson(world.truth);
  if (answer !== undefined && !answerMatches) problems.push("the answer differs from the truth");
  const checkerProblems = world.checkAnswer(finalText);
  problems.push(...checkerProblems.map((problem) => `checker: ${problem}`));
  const worldProblems = world.verifyWorld?.() ?? [];
  problems.push(...worldProblems);
  const directCalls =
    family.agentMode === "direct" ? model.records.reduce((sum, record) => sum + record.toolCallCount, 0) : 0;
  return {
    taskId: task.id,
    mode: modeId,
    records: model.records,
    answer,
    truth: world.truth,
    correct:
      answerMatches && checkerProblems.length === 0 && worldProblems.length === 0 && result.status === "completed",
    grade: { answerMatches, checkerProblems, worldProblems },
    problems,
    finalText,
    toolWallMs: Math.max(0, wallMs - model.harnessMs),
    toolCalls: directCalls + result.runs.reduce((sum, run) => sum + run.stats.toolCalls, 0),
    catalogTools: catalog.length,
    toolResultBytes,
    programOutputBytes: result.runs.reduce((sum, run) => sum + run.stats.bytesOut, 0),
  };
}

/**
 * The direct-mode session over the loop: calls go out under their provider names, at most
 * `perTurn` per model turn, and come back as the model read them.
 */
function directSession(turns: PolicyTurns, perTurn: number): DirectSession {
  return {
    async call(calls: readonly CallRequest[]): Promise<SeenResult[]> {
      const seen: SeenResult[] = [];
      for (let start = 0; start < calls.length; start += perTurn) {
        const chunk = calls.slice(start, start + perTurn);
        const results = await turns.turn(
          chunk.map((call) => ({ name: toProviderToolName(call.tool), input: call.input })),
        );
        seen.push(...results.map((result) => readResult(result.content, result.isError)));
      }
      return seen;
    },
  };
}

/** A direct result as the model reads it: JSON for a success, `error CODE: message` for a failure. */
function readResult(text: string, isError: boolean): SeenResult {
  if (isError) return { ok: false, value: undefined, code: /^error (\S+):/.exec(text)?.[1], text };
  return { ok: true, value: JSON.parse(text), code: undefined, text };
}

let distractors: ToolDefinition[] | undefined;

/** The 224 SaaS catalog tools as callable definitions that refuse to run (they are only found, never needed). */
export function distractorTools(): ToolDefinition[] {
  distractors ??= saasTools.map((tool) =>
    defineTool({
      name: tool.name,
      description: tool.description,
      inputSchema: tool.inputSchema,
      effect: "read",
      source: "saas-distractors",
      execute: () => {
        throw new ToolError(`${tool.name} is a catalog distractor in this benchmark and does not run.`, {
          code: "NOT_AVAILABLE",
        });
      },
    }),
  );
  return distractors;
}

/**
 * The discovery turns of a search-first mode: every query in one turn; then, for a needed
 * tool none of the searches returned, one more turn searching its exact name by pattern, as
 * a model that knows what it is looking for would.
 */
async function discover(turns: PolicyTurns, world: TaskWorld<unknown>, problems: string[]): Promise<void> {
  const found = new Set<string>();
  // A search answer lists one found tool per line, as "- <name>: <summary>" (renderSearchAnswerForModel).
  const collect = (content: string) => {
    for (const match of content.matchAll(/^- ([^:\s]+): /gm)) found.add(match[1]!);
  };
  const results = await turns.turn(world.searchQueries.map((query) => ({ name: SEARCH_TOOLS_TOOL, input: { query } })));
  for (const result of results) collect(result.content);
  const missing = world.requiredTools.filter((name) => !found.has(name));
  if (missing.length > 0) {
    problems.push(`search missed ${missing.join(", ")} (found by exact-name pattern in a second turn)`);
    const again = await turns.turn(
      missing.map((name) => ({
        name: SEARCH_TOOLS_TOOL,
        input: { pattern: `^${name.replace(/\./g, "\\.")}$`, limit: 1 },
      })),
    );
    for (const result of again) collect(result.content);
  }
}

/**
 * The program's output as the model reads it: the JSON on the rendered result's first line
 * (`output: ...`). Throws when the run failed or the output was cut.
 */
export function parseRenderedOutput(content: string): unknown {
  const firstLine = content.split("\n", 1)[0] ?? "";
  if (!firstLine.startsWith("output: ")) throw new Error(`the run did not succeed: ${firstLine.slice(0, 160)}`);
  return JSON.parse(firstLine.slice("output: ".length));
}
