// The work of `switchyard agent`, loaded only when the command runs: the provider adapter, the
// session of the tools, the loop, and the summary on stderr with the bill as the provider bills it.

import { writeFile } from "node:fs/promises";
import { createAnthropicAdapter } from "../agent/anthropic-adapter.js";
import type { AgentMode, ModelAdapter } from "../agent/model-adapter.js";
import {
  createPriceTable,
  describePriceRow,
  loadPriceRows,
  priceRequests,
  type BilledCost,
  type ModelPrice,
} from "../agent/model-pricing.js";
import { createOpenAIAdapter } from "../agent/openai-adapter.js";
import { createOpenAIResponsesAdapter } from "../agent/openai-responses-adapter.js";
import { runAgent, type AgentResult } from "../agent/run-agent.js";
import { createSwitchyardFromConfig } from "../config/create-switchyard-from-config.js";
import { loadConfig } from "../config/load-config.js";
import { SwitchyardError } from "../errors.js";
import type { ToolDefinition } from "../registry/define-tool.js";
import { loadToolModule } from "../sources/load-tool-module.js";
import { Switchyard } from "../switchyard.js";
import { createAgentProgressView, formatUsage, type ProgressOutput } from "./agent-progress.js";
import { approveOnTerminal } from "./terminal-approver.js";
import { assertWritableFile } from "./cli-error.js";
import { processInterrupts } from "./process-interrupts.js";

/** Where the command reads and writes; the process's own streams unless a test swaps them. */
export interface AgentCommandIO {
  readonly stdout: ProgressOutput;
  readonly stderr: ProgressOutput;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly setExitCode: (code: number) => void;
}

/** The parsed flags of `agent`. */
export interface AgentCommandOptions {
  readonly provider: "anthropic" | "openai" | "openai-responses";
  readonly model?: string;
  readonly pricing?: string;
  readonly mode: AgentMode;
  readonly tools?: string[];
  readonly config?: string;
  readonly transcript?: string;
  readonly baseUrl?: string;
  readonly maxSteps: string;
  readonly maxTokens: string;
  readonly stream?: boolean;
}

const PROVIDER_ENV = {
  anthropic: { key: "ANTHROPIC_API_KEY", baseURL: "ANTHROPIC_BASE_URL" },
  openai: { key: "OPENAI_API_KEY", baseURL: "OPENAI_BASE_URL" },
  "openai-responses": { key: "OPENAI_API_KEY", baseURL: "OPENAI_BASE_URL" },
} as const;

/** Runs `agent` with parsed flags; resolves to the exit code. */
export async function runAgentCommand(task: string, options: AgentCommandOptions, io: AgentCommandIO): Promise<number> {
  if (options.tools === undefined && options.config === undefined) {
    throw new SwitchyardError(
      "OPTION_INVALID",
      "Give the agent tools: --tools <module> (repeatable) and/or --config <file>.",
    );
  }
  const env = PROVIDER_ENV[options.provider];
  const apiKey = io.env[env.key];
  if (apiKey === undefined || apiKey === "") {
    throw new SwitchyardError("OPTION_INVALID", `Set ${env.key} to use --provider ${options.provider}.`);
  }
  const baseURL = options.baseUrl ?? (io.env[env.baseURL] || undefined);
  if (baseURL !== undefined && !URL.canParse(baseURL)) {
    const from = options.baseUrl === undefined ? env.baseURL : "--base-url";
    throw new SwitchyardError(
      "OPTION_INVALID",
      `${from} must be a URL such as https://api.example.com/v1, got ${JSON.stringify(baseURL)}.`,
    );
  }
  const prices = createPriceTable(
    options.pricing === undefined ? {} : { prices: await loadPriceRows(options.pricing) },
  );
  const modelId =
    options.model ?? prices.defaultFor(options.provider === "openai-responses" ? "openai" : options.provider)?.id;
  if (modelId === undefined) {
    throw new SwitchyardError(
      "OPTION_INVALID",
      `No default model for --provider ${options.provider}: pass --model <id>, or mark a row "default" in --pricing.`,
    );
  }
  const priceRow = prices.find(modelId);
  const model = createAdapter(options, modelId, apiKey, baseURL);
  if (options.transcript !== undefined) await assertWritableFile(options.transcript, "the transcript (--transcript)");

  const tools: ToolDefinition[] = [];
  for (const module of options.tools ?? []) tools.push(...(await loadToolModule(module)));
  const session =
    options.config === undefined
      ? { yard: new Switchyard({ tools, permissions: { approve: approveOnTerminal } }), close: async () => {} }
      : await createSwitchyardFromConfig(await loadConfig(options.config), { tools, approve: approveOnTerminal });

  const view = createAgentProgressView(io.stderr);
  // SIGINT and SIGTERM cancel the loop (every pending call CANCELLED); the exit code says which.
  const interrupts = processInterrupts();
  let result: AgentResult;
  try {
    result = await runAgent({
      yard: session.yard,
      model,
      task,
      mode: options.mode,
      maxSteps: Number(options.maxSteps),
      maxTokens: Number(options.maxTokens),
      signal: interrupts.claim(),
      onEvent: view.onEvent,
    });
  } finally {
    view.finish();
    await session.close();
  }

  const cost = priceRow === undefined ? undefined : priceRequests(priceRow, result.usage.requests);
  if (options.transcript !== undefined) {
    const saved = {
      provider: options.provider,
      model: modelId,
      mode: options.mode,
      task,
      priceRow: priceRow ?? null,
      costUsd: cost ?? null,
      ...result,
    };
    await writeFile(options.transcript, `${JSON.stringify(saved, null, 2)}\n`);
  }
  io.stdout.write(`${result.status === "completed" ? result.finalText : result.lastText}\n`);
  io.stderr.write(`\n${summarize(result)}\n${describeModel(modelId, priceRow, cost)}\n`);
  if (options.transcript !== undefined) io.stderr.write(`transcript: ${options.transcript}\n`);
  return result.status === "completed" ? 0 : 1;
}

function createAdapter(
  options: AgentCommandOptions,
  model: string,
  apiKey: string,
  baseURL: string | undefined,
): ModelAdapter {
  const common = {
    apiKey,
    model,
    stream: options.stream === true,
    ...(baseURL === undefined ? {} : { baseURL }),
  };
  if (options.provider === "anthropic") return createAnthropicAdapter(common);
  return options.provider === "openai" ? createOpenAIAdapter(common) : createOpenAIResponsesAdapter(common);
}

/** The run in a few lines: status, steps, tokens, program runs. */
function summarize(result: AgentResult): string {
  const lines = [
    `status: ${result.status}${result.stop === undefined ? "" : ` (${result.stop.code}: ${result.stop.message})`}`,
    `steps: ${result.steps}; tokens: ${formatUsage(result.usage.total)}${result.usage.total.cacheCreation > 0 ? `, ${result.usage.total.cacheCreation} written to cache` : ""}`,
  ];
  if (result.runs.length > 0) {
    const calls = result.runs.reduce((sum, run) => sum + run.stats.toolCalls, 0);
    const bytesIn = result.runs.reduce((sum, run) => sum + run.stats.bytesIn, 0);
    const bytesOut = result.runs.reduce((sum, run) => sum + run.stats.bytesOut, 0);
    const failed = result.runs.filter((run) => !run.ok).length;
    lines.push(
      `programs: ${result.runs.length} run${result.runs.length === 1 ? "" : "s"} (${failed} failed), ${calls} tool calls, ${bytesIn} bytes stayed in the sandbox, ${bytesOut} bytes returned`,
    );
  }
  return lines.join("\n");
}

/** Which model ran and which price row priced it, with the bill split as the provider bills it. */
function describeModel(modelId: string, row: ModelPrice | undefined, cost: BilledCost | undefined): string {
  if (row === undefined || cost === undefined)
    return `model: ${modelId} (no price row for this id: pass --pricing <file> to price it)`;
  const usd = (value: number) => `$${value.toFixed(4)}`;
  return (
    `model: ${modelId}; price row ${describePriceRow(row)}\n` +
    `cost as billed: ${usd(cost.totalUsd)} (input ${usd(cost.inputUsd)}, cache write ${usd(cost.cacheWriteUsd)}, ` +
    `cache read ${usd(cost.cacheReadUsd)}, output ${usd(cost.outputUsd)})`
  );
}
