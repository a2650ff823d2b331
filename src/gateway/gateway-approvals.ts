// Routes the `ask` decisions of a session to the MCP client whose request made the call: each
// run_program or call_tool request binds its program id or call id to an asker for as long as
// it runs. A call nobody can be asked about is denied, never left waiting.

import type { ElicitRequestFormParams } from "@modelcontextprotocol/sdk/types.js";
import type { ApprovalAnswer, PermissionRequest } from "../permissions/permission-gate.js";
import { messageOf } from "../errors.js";

/** Asks one client about one call. Must resolve (a failure is a `no` with a reason). */
export type ApprovalAsker = (request: PermissionRequest) => Promise<ApprovalAnswer>;

/** The reason of a denial when the client that made the call cannot be asked. */
export const CANNOT_ASK_REASON = "approval needed and the client cannot be asked";

/**
 * The approver a gateway session is built with (`approve: approvals.approve`) and the table
 * gateway servers bind their requests in. One instance may serve several gateway servers
 * (one per HTTP session) over one Switchyard session.
 */
export class GatewayApprovals {
  readonly #askers = new Map<string, ApprovalAsker>();

  /**
   * The PermissionOptions `approve` callback: finds the asker bound to the call's program
   * (or, for a direct call, to its call id) and waits for it; denies with CANNOT_ASK_REASON
   * when none is bound. Never rejects.
   */
  readonly approve = async (request: PermissionRequest): Promise<ApprovalAnswer> => {
    const asker = this.#askers.get(request.programId ?? request.callId);
    if (asker === undefined) return { approved: false, reason: CANNOT_ASK_REASON };
    try {
      return await asker(request);
    } catch (error) {
      return { approved: false, reason: `approval needed and the client did not answer: ${messageOf(error)}` };
    }
  };

  /** Binds a program id or call id to an asker; returns the unbind function. */
  bind(key: string, asker: ApprovalAsker): () => void {
    this.#askers.set(key, asker);
    return () => {
      if (this.#askers.get(key) === asker) this.#askers.delete(key);
    };
  }

  /** How many requests are bound now (for tests and leak checks). */
  get size(): number {
    return this.#askers.size;
  }
}

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
