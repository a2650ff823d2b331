// Live mode: the tasks through a real model API (any model id, Anthropic or OpenAI), a real
// model deciding every call, n trials per task and mode, each answer graded by the task's
// checker, the bill priced from the price table and capped by a spend limit. Each request is
// counted offline as the benchmark counts it before it is sent, so the API's usage sits
// beside our estimate of the very same bodies; for Anthropic the calibration bodies are also
// counted by the provider's count_tokens endpoint (free). The hosted mode runs on Anthropic's
// code execution or the OpenAI Responses API's programmatic tool calling (Chat Completions has
// none), every call its program makes through Switchyard's pipeline. Needs a key; never run in CI.

import Anthropic from "@anthropic-ai/sdk";
import { buildAnthropicRequest, createAnthropicAdapter } from "../../src/agent/anthropic-adapter.js";
import {
  addUsage,
  type ModelAdapter,
  type ModelRequest,
  type ModelUsage,
  ZERO_USAGE,
} from "../../src/agent/model-adapter.js";
import {
  billedTokensOf,
  describePriceRow,
  type ModelPrice,
  type PriceTable,
  priceTokens,
  sumCosts,
  type BilledCost,
} from "../../src/agent/model-pricing.js";
import { buildOpenAIRequest, createOpenAIAdapter } from "../../src/agent/openai-adapter.js";
import { buildOpenAIResponsesRequest, createOpenAIResponsesAdapter } from "../../src/agent/openai-responses-adapter.js";
import { runAgent } from "../../src/agent/run-agent.js";
import { countTokens } from "../../src/search/token-count.js";
import { Switchyard } from "../../src/switchyard.js";
import type { CalibrationSample } from "./calibration.js";
import { countRequestTokens } from "./count-request.js";
import { HOSTED_RESULT_LIMIT_BYTES, withoutHostedTraffic } from "./hosted-mode.js";
import { catalogOf, DIRECT_RESULT_LIMIT_BYTES, modeInfo, type ModeId } from "./modes.js";
import { formatChange, formatInteger, formatUsd } from "./report.js";
import { MAX_OUTPUT_TOKENS, SYSTEM_PROMPT } from "./settings.js";
import type { BenchTask } from "./task.js";

/** The modes a live model can run: it decides itself how to group direct calls. */
export const LIVE_MODES = [
  "direct-grouped",
  "direct-lean",
  "programmatic",
  "direct-deferred",
  "programmatic-deferred",
  "hosted",
] as const satisfies readonly ModeId[];
export type LiveMode = (typeof LIVE_MODES)[number];

export const DEFAULT_LIVE_MODES: readonly LiveMode[] = ["direct-grouped", "direct-lean", "programmatic"];

export interface LiveOptions {
  readonly tasks: readonly BenchTask[];
  readonly modes?: readonly LiveMode[];
  /** Trials per task and mode. Default 3. */
  readonly trials?: number;
  /** Any model id the provider serves. */
  readonly model: string;
  readonly provider: "anthropic" | "openai";
  readonly prices: PriceTable;
  /** Stop starting runs, and stop the running one, once this much is spent (USD). */
  readonly maxSpendUsd: number;
  /** Default: the SDK's environment (ANTHROPIC_API_KEY / OPENAI_API_KEY, *_BASE_URL). */
  readonly apiKey?: string;
  readonly baseURL?: string;
  readonly maxSteps?: number;
  /** Bodies for the provider to count (Anthropic's count_tokens), beside our count. */
  readonly calibration?: readonly CalibrationSample[];
  readonly onTrial?: (trial: LiveTrial) => void;
}

/** One trial of one task in one mode. */
export interface LiveTrial {
  readonly taskId: string;
  readonly mode: LiveMode;
  readonly trial: number;
  /** The agent run's status, or `not run` when the spend cap was reached before it started. */
  readonly status: string;
  readonly correct: boolean;
  readonly problems: readonly string[];
  readonly requests: number;
  /** The API's usage, summed (input includes cache reads and writes). */
  readonly usage: ModelUsage;
  readonly cost: BilledCost;
  /** Our count of the same request bodies, summed. */
  readonly estimatedInput: number;
  readonly finalText: string;
}

export interface LiveResult {
  readonly model: string;
  readonly provider: string;
  readonly priceRow: ModelPrice;
  readonly trials: readonly LiveTrial[];
  readonly spentUsd: number;
  readonly maxSpendUsd: number;
  readonly capReached: boolean;
  /** The provider's count of each calibration body, by sample name (Anthropic only). */
  readonly providerCounts: ReadonlyMap<string, number>;
}

/** Thrown before any request when live mode cannot run. */
export class LiveModeUnavailableError extends Error {
  override readonly name = "LiveModeUnavailableError";
}

const KEY_ENV = { anthropic: "ANTHROPIC_API_KEY", openai: "OPENAI_API_KEY" } as const;

/**
 * Runs every task in every live mode `trials` times; see the module comment. Throws
 * LiveModeUnavailableError, before any request, without a key or without a price row for
 * the model (the spend cap needs prices). A failed request ends that trial with its status.
 */
export async function runLive(options: LiveOptions): Promise<LiveResult> {
  const { apiKey, priceRow } = checkLiveReady(options);
  const trials = options.trials ?? 3;
  if (!Number.isInteger(trials) || trials < 1)
    throw new LiveModeUnavailableError("--trials must be a positive integer.");
  const connection = { apiKey, ...(options.baseURL === undefined ? {} : { baseURL: options.baseURL }), maxRetries: 2 };

  const providerCounts = new Map<string, number>();
  if (options.provider === "anthropic" && options.calibration !== undefined) {
    const client = new Anthropic(connection);
    for (const sample of options.calibration) {
      const { system, tools, messages } = sample.body as Record<string, any>;
      const counted = await client.messages.countTokens({
        model: options.model,
        messages,
        ...(system === undefined ? {} : { system }),
        ...(tools === undefined ? {} : { tools }),
      });
      providerCounts.set(sample.name, counted.input_tokens);
    }
  }

  let spentUsd = 0;
  let capReached = false;
  const results: LiveTrial[] = [];
  for (const task of options.tasks) {
    for (const mode of options.modes ?? DEFAULT_LIVE_MODES) {
      for (let trial = 1; trial <= trials; trial++) {
        if (spentUsd >= options.maxSpendUsd) capReached = true;
        const result = capReached
          ? notRun(task.id, mode, trial)
          : await runTrial(
              task,
              mode,
              trial,
              options,
              priceRow,
              connection,
              () => spentUsd,
              (usd) => {
                spentUsd += usd;
              },
            );
        if (result.problems.some((problem) => problem.startsWith("spend cap"))) capReached = true;
        results.push(result);
        options.onTrial?.(result);
      }
    }
  }
  return {
    model: options.model,
    provider: options.provider,
    priceRow,
    trials: results,
    spentUsd,
    maxSpendUsd: options.maxSpendUsd,
    capReached,
    providerCounts,
  };
}

/**
 * The key and the price row live mode needs; throws LiveModeUnavailableError naming what is
 * missing. Call it before anything slow, so a run that cannot go live fails at once.
 */
export function checkLiveReady(options: Pick<LiveOptions, "apiKey" | "provider" | "model" | "prices">): {
  apiKey: string;
  priceRow: ModelPrice;
} {
  const apiKey = options.apiKey ?? process.env[KEY_ENV[options.provider]];
  if (apiKey === undefined || apiKey === "")
    throw new LiveModeUnavailableError(
      `Live mode needs ${KEY_ENV[options.provider]} in the environment; no request was sent and no figure was made up.`,
    );
  const priceRow = options.prices.find(options.model);
  if (priceRow === undefined)
    throw new LiveModeUnavailableError(
      `No price row for model "${options.model}", so the spend cap cannot be kept: add one with --pricing <file>. Nothing was sent.`,
    );
  return { apiKey, priceRow };
}

async function runTrial(
  task: BenchTask,
  mode: LiveMode,
  trial: number,
  options: LiveOptions,
  priceRow: ModelPrice,
  connection: { apiKey: string; baseURL?: string; maxRetries: number },
  spent: () => number,
  spend: (usd: number) => void,
): Promise<LiveTrial> {
  const info = modeInfo(mode);
  const hosted = info.family === "hosted";
  const world = task.createWorld();
  const yard = new Switchyard({
    tools: catalogOf(world, info),
    discovery: { defer: info.loading === "search" },
    results: {
      maxDirectResultBytes: DIRECT_RESULT_LIMIT_BYTES,
      ...(hosted ? { maxHostedResultBytes: HOSTED_RESULT_LIMIT_BYTES } : {}),
    },
  });
  const adapterOptions = { ...connection, model: options.model };
  const real =
    options.provider === "anthropic"
      ? createAnthropicAdapter(adapterOptions)
      : hosted
        ? createOpenAIResponsesAdapter(adapterOptions)
        : createOpenAIAdapter(adapterOptions);
  const controller = new AbortController();
  let estimatedInput = 0;
  let capHit = false;
  const costs: BilledCost[] = [];
  const counting: ModelAdapter = {
    provider: real.provider,
    ...(real.modes === undefined ? {} : { modes: real.modes }),
    async createTurn(request) {
      estimatedInput += estimateInput(request, options.provider, hosted, options.model, priceRow);
      const turn = await real.createTurn(request);
      const cost = priceTokens(priceRow, billedTokensOf(turn.usage));
      costs.push(cost);
      spend(cost.totalUsd);
      if (spent() >= options.maxSpendUsd) {
        capHit = true;
        controller.abort();
      }
      return turn;
    },
  };
  const result = await runAgent({
    yard,
    model: counting,
    task: task.question,
    mode: hosted ? "hosted" : info.family === "direct" ? "direct" : "programmatic",
    deferDirectTools: info.family === "direct" && info.loading === "search",
    system: SYSTEM_PROMPT,
    maxSteps: options.maxSteps ?? 60,
    maxTokens: MAX_OUTPUT_TOKENS,
    signal: controller.signal,
  });
  const finalText = result.finalText ?? result.lastText;
  const problems = [
    ...(capHit ? [`spend cap of ${formatUsd(options.maxSpendUsd)} reached during this run: stopped`] : []),
    ...(result.status === "completed" ? [] : [`the run ended ${result.status}: ${result.stop?.message ?? ""}`]),
    ...world.checkAnswer(finalText).map((problem) => `checker: ${problem}`),
    ...(world.verifyWorld?.() ?? []),
  ];
  return {
    taskId: task.id,
    mode,
    trial,
    status: result.status,
    correct: problems.length === 0,
    problems,
    requests: result.steps,
    usage: result.usage.total,
    cost: sumCosts(costs),
    estimatedInput,
    finalText,
  };
}

function notRun(taskId: string, mode: LiveMode, trial: number): LiveTrial {
  return {
    taskId,
    mode,
    trial,
    status: "not run",
    correct: false,
    problems: ["not run: the spend cap was reached"],
    requests: 0,
    usage: ZERO_USAGE,
    cost: sumCosts([]),
    estimatedInput: 0,
    finalText: "",
  };
}

/**
 * Our count of one request's input, as the offline benchmark counts it: Anthropic bodies with
 * the hidden tool prompt (hosted traffic left out, as in hosted-mode.ts); OpenAI bodies as
 * o200k on what the model reads (exact tokenizer, framing approximate; a hosted program's
 * calls and results included, since the Responses API documents no split).
 */
function estimateInput(
  request: ModelRequest,
  provider: LiveOptions["provider"],
  hosted: boolean,
  model: string,
  priceRow: ModelPrice,
): number {
  if (provider === "anthropic") {
    const body = buildAnthropicRequest(request, { model });
    return countRequestTokens(hosted ? withoutHostedTraffic(body) : body, priceRow);
  }
  if (hosted) {
    const body = buildOpenAIResponsesRequest(request, { model });
    return countTokens(JSON.stringify({ instructions: body.instructions, tools: body.tools, input: body.input }));
  }
  const body = buildOpenAIRequest(request, { model });
  return countTokens(JSON.stringify({ tools: body.tools, messages: body.messages }));
}

// ---------------------------------------------------------------------------------------
// The report

/** Mean and sample standard deviation, min and max. */
export function spread(values: readonly number[]): { mean: number; sd: number; min: number; max: number } {
  if (values.length === 0) return { mean: Number.NaN, sd: Number.NaN, min: Number.NaN, max: Number.NaN };
  const mean = values.reduce((sum, value) => sum + value, 0) / values.length;
  const variance =
    values.length < 2 ? 0 : values.reduce((sum, value) => sum + (value - mean) ** 2, 0) / (values.length - 1);
  return { mean, sd: Math.sqrt(variance), min: Math.min(...values), max: Math.max(...values) };
}

/** tokens-live.md: trials summarized per task and mode, beside the offline figures of the same mode. */
export function renderLiveMarkdown(
  result: LiveResult,
  offline: (taskId: string, mode: ModeId) => { inputTokens: number; billedUsd: number } | undefined,
  calibration: readonly { name: string; counted: number }[] = [],
): string {
  const lines = [
    `# Live run: ${result.model} (${result.provider})`,
    "",
    `Price row: ${describePriceRow(result.priceRow)}. Spent ${formatUsd(result.spentUsd)} of a ${formatUsd(result.maxSpendUsd)} cap` +
      `${result.capReached ? " (cap reached: later runs were stopped or not started)" : ""}. ` +
      "Every answer graded by its task's checker. Means ± sample standard deviation over the trials that ran; API input includes cache reads and writes.",
    "",
    "| Task | Mode | Trials | Correct | Req | API input | API output | Billed (mean ± sd) | Billed min-max | Split: input / write / read / output | Our count vs API | Offline scripted (same mode) |",
    "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
  ];
  const groups = new Map<string, LiveTrial[]>();
  for (const trial of result.trials) {
    const key = `${trial.taskId}\u0000${trial.mode}`;
    groups.set(key, [...(groups.get(key) ?? []), trial]);
  }
  for (const trials of groups.values()) {
    const ran = trials.filter((trial) => trial.status !== "not run");
    const first = trials[0]!;
    const billed = spread(ran.map((trial) => trial.cost.totalUsd));
    const input = spread(ran.map((trial) => trial.usage.input));
    const output = spread(ran.map((trial) => trial.usage.output));
    const requests = spread(ran.map((trial) => trial.requests));
    const split = sumCosts(ran.map((trial) => trial.cost));
    const n = Math.max(1, ran.length);
    const total = ran.reduce((sum, trial) => addUsage(sum, trial.usage), ZERO_USAGE);
    const estimated = ran.reduce((sum, trial) => sum + trial.estimatedInput, 0);
    const reference = offline(first.taskId, first.mode);
    lines.push(
      `| ${first.taskId} | ${modeInfo(first.mode).label} | ${ran.length}/${trials.length} | ${ran.filter((trial) => trial.correct).length}/${ran.length} | ` +
        `${ran.length === 0 ? "" : requests.mean.toFixed(1)} | ${ran.length === 0 ? "" : `${formatInteger(input.mean)} ± ${formatInteger(input.sd)}`} | ` +
        `${ran.length === 0 ? "" : `${formatInteger(output.mean)} ± ${formatInteger(output.sd)}`} | ` +
        `${ran.length === 0 ? "" : `${formatUsd(billed.mean)} ± ${formatUsd(billed.sd)}`} | ${ran.length === 0 ? "" : `${formatUsd(billed.min)}-${formatUsd(billed.max)}`} | ` +
        `${ran.length === 0 ? "" : [split.inputUsd, split.cacheWriteUsd, split.cacheReadUsd, split.outputUsd].map((usd) => formatUsd(usd / n)).join(" / ")} | ` +
        `${total.input === 0 ? "n/a" : formatChange(estimated, total.input)} | ` +
        `${reference === undefined ? "n/a" : `${formatInteger(reference.inputTokens)} tok, ${formatUsd(reference.billedUsd)}`} |`,
    );
  }
  if (result.providerCounts.size > 0) {
    lines.push(
      "",
      "## Counting calibration: the provider's count of the same bodies",
      "",
      "| Request | Our count | Provider count (count_tokens) | Ours vs provider |",
      "| --- | ---: | ---: | ---: |",
    );
    for (const row of calibration) {
      const provider = result.providerCounts.get(row.name);
      if (provider === undefined) continue;
      lines.push(
        `| ${row.name} | ${formatInteger(row.counted)} | ${formatInteger(provider)} | ${formatChange(row.counted, provider)} |`,
      );
    }
  }
  const remarks = result.trials.filter((trial) => trial.problems.length > 0);
  lines.push("", "## Trials with remarks", "");
  if (remarks.length === 0) lines.push("None: every trial ran and every answer passed its checker.");
  for (const trial of remarks)
    lines.push(`- ${trial.taskId} / ${trial.mode} / trial ${trial.trial}: ${trial.problems.join("; ").slice(0, 400)}`);
  lines.push(
    "",
    "The live model chooses its own calls, so its requests differ from the scripted ones; offline figures are for comparison.",
    "",
  );
  return lines.join("\n");
}
