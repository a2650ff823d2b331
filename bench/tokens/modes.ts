// The five ways the benchmark runs one task: direct calls one per turn, direct calls grouped
// per turn (the fair baseline), one program with every declaration loaded, the same with a
// first program the type check refuses, and one program after searching a catalog padded
// with 224 SaaS tools. Tools, sandbox and search run for real; only the model is scripted.

import { RUN_PROGRAM_TOOL } from "../../src/model-tools/run-program-tool.js";
import { SEARCH_TOOLS_TOOL } from "../../src/model-tools/search-tools-tool.js";
import { toProviderToolName } from "../../src/agent/provider-tool-names.js";
import { runAgent, type AgentResult } from "../../src/agent/run-agent.js";
import type { AgentMode } from "../../src/agent/agent-toolset.js";
import { ToolError } from "../../src/errors.js";
import { defineTool, type ToolDefinition } from "../../src/registry/define-tool.js";
import { Switchyard } from "../../src/switchyard.js";
import { saasTools } from "../search/catalog/saas-tools.js";
import { HOSTED_MODE, runHostedMode } from "./hosted-mode.js";
import { ScriptedModel, type PolicyTurns, type RequestRecord, type ScriptedPolicy } from "./scripted-model.js";
import { MAX_OUTPUT_TOKENS, SYSTEM_PROMPT, type ModelProfile } from "./settings.js";
import {
  canonicalJson,
  type BenchTask,
  type CallRequest,
  type DirectSession,
  type SeenResult,
  type TaskWorld,
} from "./task.js";

export type ModeId =
  | "direct"
  | "direct-grouped"
  | "programmatic"
  | "programmatic-retry"
  | "programmatic-deferred"
  | "hosted";

export interface ModeInfo {
  readonly id: ModeId;
  /** Column-width label for tables and the chart legend. */
  readonly label: string;
  readonly description: string;
}

export const MODES: readonly ModeInfo[] = [
  { id: "direct", label: "direct, 1 call/turn", description: "Direct tool calls, one per model turn." },
  {
    id: "direct-grouped",
    label: "direct, grouped",
    description: "Direct tool calls; independent calls grouped in one turn (the baseline).",
  },
  { id: "programmatic", label: "program", description: "One run_program call; every declaration loaded up front." },
  {
    id: "programmatic-retry",
    label: "program + retry",
    description: "A first program with a wrong field (TYPE_ERROR), then the corrected one.",
  },
  {
    id: "programmatic-deferred",
    label: "program, deferred",
    description: "Catalog padded with 224 SaaS tools, deferred; search_tools first, then run_program.",
  },
  HOSTED_MODE,
];

/** The baseline savings are measured against. */
export const BASELINE_MODE: ModeId = "direct-grouped";

export interface RunModeOptions {
  readonly profile: ModelProfile;
  /** Most tool calls in one grouped turn; default unlimited (the most generous baseline). */
  readonly maxCallsPerTurn?: number;
}

/** Everything one task run in one mode produced. */
export interface ModeRun {
  readonly taskId: string;
  readonly mode: ModeId;
  readonly records: readonly RequestRecord[];
  readonly answer: unknown;
  readonly truth: unknown;
  readonly correct: boolean;
  /** Why the answer is wrong, or what went unexpectedly (empty for a clean run). */
  readonly problems: readonly string[];
  readonly finalText: string;
  /** Time spent in tools, sandbox and type check, in ms (no model time). */
  readonly toolWallMs: number;
  /** Real tool calls, including those made inside programs. */
  readonly toolCalls: number;
  /** Tools in the session's catalog. */
  readonly catalogTools: number;
}

/**
 * Largest direct result put into the context, in bytes. Switchyard's default (16 KB) would
 * refuse or spill the transcript, invoice pages and the document; plain direct calling has
 * no such budget, and that is the baseline measured here.
 */
export const DIRECT_RESULT_LIMIT_BYTES = 4 * 1024 * 1024;

/** Runs `task` in `mode` through `runAgent` with a scripted model, against a fresh world, and grades the answer. */
export async function runMode(task: BenchTask, mode: ModeId, options: RunModeOptions): Promise<ModeRun> {
  if (mode === "hosted") return runHostedMode(task, options);
  const world = task.createWorld();
  const problems: string[] = [];
  const deferred = mode === "programmatic-deferred";
  const catalog = deferred ? [...world.tools, ...distractorTools()] : [...world.tools];
  const yard = new Switchyard({
    tools: catalog,
    discovery: { defer: deferred },
    results: { maxDirectResultBytes: DIRECT_RESULT_LIMIT_BYTES },
  });

  let answer: unknown;
  const solved = (value: unknown): string => {
    answer = value;
    return world.render(value);
  };
  let policy: ScriptedPolicy;
  let agentMode: AgentMode;
  if (mode === "direct" || mode === "direct-grouped") {
    agentMode = "direct";
    const perTurn = mode === "direct-grouped" ? (options.maxCallsPerTurn ?? Number.POSITIVE_INFINITY) : 1;
    policy = async (turns) => solved(await world.solveDirect(directSession(turns, perTurn)));
  } else {
    agentMode = "programmatic";
    policy = async (turns) => {
      if (deferred) await discover(turns, world, problems);
      if (mode === "programmatic-retry") {
        const { find, replace } = world.programMistake;
        if (!world.program.includes(find))
          throw new Error(`Task ${task.id}: programMistake.find does not occur in the program.`);
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
    };
  }

  const model = new ScriptedModel(policy, options.profile);
  const started = performance.now();
  const result: AgentResult = await runAgent({
    yard,
    model,
    task: task.question,
    mode: agentMode,
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
  const correct = answer !== undefined && canonicalJson(answer) === canonicalJson(world.truth);
  if (answer !== undefined && !correct) problems.push("the answer differs from the truth");
  const worldProblems = world.verifyWorld?.() ?? [];
  problems.push(...worldProblems);
  const directCalls = agentMode === "direct" ? model.records.reduce((sum, record) => sum + record.toolCallCount, 0) : 0;
  return {
    taskId: task.id,
    mode,
    records: model.records,
    answer,
    truth: world.truth,
    correct: correct && worldProblems.length === 0 && result.status === "completed",
    problems,
    finalText: result.finalText ?? "",
    toolWallMs: Math.max(0, wallMs - model.harnessMs),
    toolCalls: directCalls + result.runs.reduce((sum, run) => sum + run.stats.toolCalls, 0),
    catalogTools: catalog.length,
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

// ---------------------------------------------------------------------------------------
// Programmatic calling

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
 * Deferred mode's discovery turns: every query in one turn; then, for a needed tool none of
 * the searches returned, one more turn searching its exact name by pattern, as a model that
 * knows what it is looking for would.
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
