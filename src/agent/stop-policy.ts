// What the agent loop does after each model turn, decided from the normalized stop reason
// alone. One table, one pure function: every stop reason has an explicit action, and a tool
// call is run only when the turn ended in `tool_use`: a truncated call never runs.

import type { ModelTurn } from "./model-adapter.js";
import { toolCallsOf } from "./transcript.js";

/** How the loop treats stop reasons that have a choice. */
export interface StopPolicy {
  /**
   * After a `max_tokens` turn: `continue` (default) appends the cut text without its partial
   * tool calls plus a request to continue more concisely; `stop` ends with status `max_tokens`.
   */
  readonly onMaxTokens?: "continue" | "stop";
  /** Consecutive `max_tokens` turns tolerated under `continue` before stopping. Default 3. */
  readonly maxConsecutiveTruncations?: number;
}

/** How an agent run ended. */
export type AgentStatus =
  | "completed"
  | "max_tokens"
  | "refused"
  | "context_exceeded"
  | "step_limit"
  | "budget_exceeded"
  | "cancelled"
  | "model_error"
  | "incomplete";

/** The loop's next move after a turn. */
export type TurnDecision =
  /** Append the turn, run its tool calls, append their results, ask again. */
  | { readonly action: "run-tools" }
  /** Append the turn without tool calls; it is the final answer. */
  | { readonly action: "finish" }
  /** Append the cut turn without tool calls, then ask the model to continue concisely. */
  | { readonly action: "continue-truncated" }
  /** Append the turn exactly as received and ask again: the provider resumes it. */
  | { readonly action: "resume" }
  /** Append the turn without tool calls and end the run with `status`. */
  | { readonly action: "stop"; readonly status: Exclude<AgentStatus, "completed">; readonly reason: string };

const DEFAULT_MAX_CONSECUTIVE_TRUNCATIONS = 3;

/**
 * The decision for one turn:
 * - `end_turn`, `stop_sequence` → finish (completed);
 * - `tool_use` with calls → run-tools; without calls → stop `incomplete`;
 * - `max_tokens` → continue-truncated, or stop `max_tokens` under `onMaxTokens: "stop"` or
 *   after `maxConsecutiveTruncations` cut turns in a row;
 * - `pause_turn` → resume (run-tools if it holds a client tool call); `refusal` → stop `refused`;
 * - `context_exceeded` → stop `context_exceeded`; `unknown` → stop `incomplete`.
 * `consecutiveTruncations` counts the cut turns right before this one.
 */
export function decideTurn(turn: ModelTurn, policy: StopPolicy = {}, consecutiveTruncations = 0): TurnDecision {
  switch (turn.stopReason) {
    case "end_turn":
    case "stop_sequence":
      return { action: "finish" };
    case "tool_use":
      if (hasToolCalls(turn)) return { action: "run-tools" };
      return { action: "stop", status: "incomplete", reason: "The model stopped for tool use but made no tool call." };
    case "max_tokens": {
      const limit = policy.maxConsecutiveTruncations ?? DEFAULT_MAX_CONSECUTIVE_TRUNCATIONS;
      if ((policy.onMaxTokens ?? "continue") === "continue" && consecutiveTruncations < limit)
        return { action: "continue-truncated" };
      return { action: "stop", status: "max_tokens", reason: "The response was cut at the output token limit." };
    }
    case "pause_turn":
      // A paused turn carries server-side work; should it also carry a complete client call,
      // sending it back unanswered would break the transcript, so the call is run instead.
      return hasToolCalls(turn) ? { action: "run-tools" } : { action: "resume" };
    case "refusal":
      return { action: "stop", status: "refused", reason: "The model declined to continue." };
    case "context_exceeded":
      return { action: "stop", status: "context_exceeded", reason: "The context window is full." };
    case "unknown":
      return {
        action: "stop",
        status: "incomplete",
        reason: `The model stopped for an unknown reason (${turn.rawStopReason ?? "none"}).`,
      };
  }
}

function hasToolCalls(turn: ModelTurn): boolean {
  return toolCallsOf({ role: "assistant", content: turn.content }).length > 0;
}

/** The user message that follows a cut turn under `onMaxTokens: "continue"`. */
export const CONTINUE_AFTER_TRUNCATION =
  "Your previous response was cut off at the output token limit, and any tool call in it was not run. " +
  "Continue from where you stopped, more concisely: keep text short, and split large tool inputs or programs into smaller steps.";
