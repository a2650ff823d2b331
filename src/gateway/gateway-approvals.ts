// How the gateway asks an MCP client about one call (`ask` decisions): the yes/no form sent by
// elicitation, and how the client's answer reads. Each run_program or call_tool request brings
// its own approver (RunOptions.approve), so a decision goes to the client that made the call.

import type { ElicitRequestFormParams } from "@modelcontextprotocol/sdk/types.js";
import type { ApprovalAnswer, PermissionRequest } from "../permissions/permission-gate.js";

/** The reason of a denial when the client that made the call cannot be asked. */
export const CANNOT_ASK_REASON = "approval needed and the client cannot be asked";

const MAX_SHOWN_INPUT_CHARS = 4_000;

/**
 * The yes/no form shown to the user for one call: the tool, the rule's reason and the input
 * as JSON (cut at 4 000 characters). The answer is `{ approve: boolean }`.
 */
export function approvalForm(request: PermissionRequest): ElicitRequestFormParams {
  const input = JSON.stringify(request.input, null, 2) ?? "undefined";
  const shown = input.length > MAX_SHOWN_INPUT_CHARS ? `${input.slice(0, MAX_SHOWN_INPUT_CHARS)}\n… [cut]` : input;
  const origin = request.programId === undefined ? "A direct tool call" : `Program ${request.programId}`;
  const lines = [`${origin} wants to call ${request.tool} (effect: ${request.effect}).`];
  if (request.reason !== undefined) lines.push(`Rule: ${request.reason}`);
  lines.push(`Input:\n${shown}`, "Allow this call?");
  return {
    mode: "form",
    message: lines.join("\n"),
    requestedSchema: {
      type: "object",
      properties: {
        approve: { type: "boolean", title: `Allow ${request.tool}`, description: "Yes runs the call; no denies it." },
      },
      required: ["approve"],
    },
  };
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
