// Live mode: the same tasks through the real Anthropic API, a real model deciding every call.
// Each request is counted offline exactly as the benchmark counts (same body builder, same
// tokenizer) before it is sent, so the API's own usage figures sit beside our estimate of
// the very same bodies. Needs ANTHROPIC_API_KEY; never run in CI.

import { createAnthropicAdapter, buildAnthropicRequest } from "../../src/agent/anthropic-adapter.js";
import type { ModelAdapter, ModelUsage } from "../../src/agent/model-adapter.js";
import { runAgent } from "../../src/agent/run-agent.js";
import { Switchyard } from "../../src/switchyard.js";
import { countRequestTokens } from "./count-request.js";
import { DIRECT_RESULT_LIMIT_BYTES, distractorTools, type ModeId } from "./modes.js";
import { formatChange, formatInteger } from "./report.js";
import { MAX_OUTPUT_TOKENS, SYSTEM_PROMPT, type ModelProfile } from "./settings.js";
import type { BenchTask } from "./task.js";

/** The live modes: the model itself decides how to group direct calls. */
export const LIVE_MODES = ["direct", "programmatic", "programmatic-deferred"] as const;
export type LiveMode = (typeof LIVE_MODES)[number];

/** The offline mode each live mode is compared with. */
export const OFFLINE_COUNTERPART: Record<LiveMode, ModeId> = {
  direct: "direct-grouped",
  programmatic: "programmatic",
  "programmatic-deferred": "programmatic-deferred",
};

export interface LiveRow {
  readonly taskId: string;
  readonly mode: LiveMode;
  readonly status: string;
  readonly requests: number;
  /** The API's usage, summed (input includes cache reads and writes). */
  readonly api: ModelUsage;
  /** Our count of the same request bodies (body + hidden tool prompt), and of the response text. */
  readonly estimatedInput: number;
  readonly finalText: string;
}

/** Thrown before any request when live mode cannot run. */
export class LiveModeUnavailableError extends Error {
  override readonly name = "LiveModeUnavailableError";
}

/**
 * Runs `tasks` in the live modes against the real API. Throws LiveModeUnavailableError when
 * ANTHROPIC_API_KEY is not set; a failed request ends that run with its status, not the benchmark.
 */
export async function runLive(
  tasks: readonly BenchTask[],
  profile: ModelProfile,
  options: { maxSteps?: number } = {},
): Promise<LiveRow[]> {
  if (process.env.ANTHROPIC_API_KEY === undefined || process.env.ANTHROPIC_API_KEY === "") {
    throw new LiveModeUnavailableError(
      "Live mode needs ANTHROPIC_API_KEY in the environment; no request was sent and no figure was made up.",
    );
  }
  const rows: LiveRow[] = [];
  for (const task of tasks) {
    for (const mode of LIVE_MODES) {
      const world = task.createWorld();
      const deferred = mode === "programmatic-deferred";
      const yard = new Switchyard({
        tools: deferred ? [...world.tools, ...distractorTools()] : [...world.tools],
        discovery: { defer: deferred },
        results: { maxDirectResultBytes: DIRECT_RESULT_LIMIT_BYTES },
      });
      const real = createAnthropicAdapter({ model: profile.id });
      let estimatedInput = 0;
      const counting: ModelAdapter = {
        provider: real.provider,
        createTurn(request) {
          estimatedInput += countRequestTokens(buildAnthropicRequest(request, { model: profile.id }), profile);
          return real.createTurn(request);
        },
      };
      const result = await runAgent({
        yard,
        model: counting,
        task: task.question,
        mode: mode === "direct" ? "direct" : "programmatic",
        system: SYSTEM_PROMPT,
        maxSteps: options.maxSteps ?? 60,
        maxTokens: MAX_OUTPUT_TOKENS,
      });
      rows.push({
        taskId: task.id,
        mode,
        status: result.status,
        requests: result.steps,
        api: result.usage.total,
        estimatedInput,
        finalText: result.finalText ?? result.lastText,
      });
    }
  }
  return rows;
}

/** The live rows as a markdown table, beside the offline estimate of the counterpart mode. */
export function renderLiveMarkdown(
  rows: readonly LiveRow[],
  offlineInput: (taskId: string, mode: ModeId) => number | undefined,
  profile: ModelProfile,
): string {
  const lines = [
    `# Live run: ${profile.label} (API usage) beside the offline estimate`,
    "",
    "| Task | Live mode | Status | Req | API input | Our count of the same bodies | Count vs API | API output | Offline scripted estimate (mode) |",
    "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |",
  ];
  for (const row of rows) {
    const offline = offlineInput(row.taskId, OFFLINE_COUNTERPART[row.mode]);
    lines.push(
      `| ${row.taskId} | ${row.mode} | ${row.status} | ${row.requests} | ${formatInteger(row.api.input)} | ${formatInteger(row.estimatedInput)} | ` +
        `${formatChange(row.estimatedInput, row.api.input)} | ${formatInteger(row.api.output)} | ` +
        `${offline === undefined ? "n/a" : `${formatInteger(offline)} (${OFFLINE_COUNTERPART[row.mode]})`} |`,
    );
  }
  lines.push(
    "",
    "API input includes cache reads and writes. The live model chooses its own calls, so its requests differ from the scripted ones.",
    "",
  );
  return lines.join("\n");
}
