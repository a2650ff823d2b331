// How the gateway asks an MCP client about one call (`ask` decisions): the yes/no form sent by
// elicitation, and how the client's answer reads. Each run_program or call_tool request brings
// its own approver (RunOptions.approve), so a decision goes to the client that made the call.

import type { ElicitRequestFormParams } from "@modelcontextprotocol/sdk/types.js";
import { MAX_REASON_CHARS } from "../durable/decide-run.js";
import type { PendingRequest } from "../durable/run-journal.js";
import type { ApprovalAnswer, PermissionRequest } from "../permissions/permission-gate.js";

/** The reason of a denial when the client that made the call cannot be asked. */
export const CANNOT_ASK_REASON = "approval needed and the client cannot be asked";

const MAX_SHOWN_INPUT_CHARS = 4_000;

/**
 * The yes/no form shown to the user for one call: the tool, the rule's reason and the input
 * as JSON (cut at 4 000 characters). The answer is `{ approve: boolean }`.
 */
export function approvalForm(request: PermissionRequest): ElicitRequestFormParams {
  const shown = shownInput(request.input);
  const origin = request.programId === undefined ? "A direct tool call" : `Program ${request.programId}`;
  const lines = [`${origin} wants to call ${request.tool} (effect: ${request.effect}).`];
  if (request.reason !== undefined) lines.push(`Rule: ${request.reason}`);
  lines.push(`Input:\n${shown}`, "Allow this call?");
  return yesNoForm(lines, request.tool, false);
}

/** Reads a client's elicitation answer: only `accept` with `approve: true` is a yes. */
export function answerOfElicitation(
  result: { action: string; content?: Record<string, unknown> | undefined },
  tool: string,
): ApprovalAnswer {
  if (result.action === "accept") {
    return result.content?.["approve"] === true ? true : { approved: false, reason: `the user did not allow ${tool}` };
  }
  if (result.action === "decline") return { approved: false, reason: `the user declined ${tool}` };
  return { approved: false, reason: `the user dismissed the approval of ${tool}` };
}

/**
 * The form for one call a paused durable run waits for (asked by `resume_run`): the run, the
 * call's position and tool, the rule's reason and the input (cut at 4 000 characters). The
 * answer is `{ approve: boolean, reason?: string }`; the reason goes to the program with a denial.
 */
export function pendingApprovalForm(runId: string, request: PendingRequest): ElicitRequestFormParams {
  const lines = [`Paused run ${runId} waits for your decision on call ${request.position}: ${request.tool}.`];
  if (request.reason !== undefined) lines.push(`Rule: ${request.reason}`);
  lines.push(`Input:\n${shownInput(request.input)}`, "Allow this call?");
  return yesNoForm(lines, request.tool, true);
}

/** The yes/no form both approvals ask with (`lines` its message), with an optional reason when `withReason`. */
function yesNoForm(lines: readonly string[], tool: string, withReason: boolean): ElicitRequestFormParams {
  return {
    mode: "form",
    message: lines.join("\n"),
    requestedSchema: {
      type: "object",
      properties: {
        approve: { type: "boolean", title: `Allow ${tool}`, description: "Yes runs the call; no denies it." },
        ...(withReason
          ? {
              reason: { type: "string", title: "Reason", description: "Optional; the program reads it with a denial." },
            }
          : {}),
      },
      required: ["approve"],
    },
  };
}

/**
 * A durable run's reading of an elicitation answer: `accept` with `approve` a boolean is a
 * decision (a denial with the person's reason, if they gave a string), `decline` a denial, and
 * anything else (`cancel`, no content, `approve: "yes"`) no decision at all: the call stays
 * pending, since a malformed answer is not a person's word either way.
 */
export function decisionOfElicitation(
  result: { action: string; content?: Record<string, unknown> | undefined },
  tool: string,
): { readonly approved: boolean; readonly reason?: string } | undefined {
  if (result.action === "decline") return { approved: false, reason: `the user declined ${tool}` };
  const approve = result.content?.["approve"];
  if (result.action !== "accept" || typeof approve !== "boolean") return undefined;
  if (approve) return { approved: true };
  const reason = result.content?.["reason"];
  return {
    approved: false,
    reason:
      typeof reason === "string" && reason.trim() !== ""
        ? reason.slice(0, MAX_REASON_CHARS)
        : `the user did not allow ${tool}`,
  };
}

function shownInput(value: unknown): string {
  const input = JSON.stringify(value, null, 2) ?? "undefined";
  return input.length > MAX_SHOWN_INPUT_CHARS ? `${input.slice(0, MAX_SHOWN_INPUT_CHARS)}\n… [cut]` : input;
}
