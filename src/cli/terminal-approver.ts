// Asks a person at the terminal to approve a tool call. Without a terminal (CI, pipes) the
// answer is no. Questions are asked one at a time even when calls arrive in parallel.

import { createInterface } from "node:readline/promises";
import type { ApprovalAnswer, PermissionRequest } from "../permissions/permission-gate.js";

let queue: Promise<unknown> = Promise.resolve();

/** An `approve` callback for PermissionOptions that prompts on stdin/stderr. */
export function approveOnTerminal(request: PermissionRequest): Promise<ApprovalAnswer> {
  if (!process.stdin.isTTY || !process.stderr.isTTY) {
    return Promise.resolve({ approved: false, reason: "approval needed, and there is no terminal to ask" });
  }
  const answer = queue.then(async (): Promise<ApprovalAnswer> => {
    const prompt = createInterface({ input: process.stdin, output: process.stderr });
    try {
      const input = JSON.stringify(request.input);
      const shown = input.length > 500 ? `${input.slice(0, 500)}…` : input;
      const reply = await prompt.question(
        `\nAllow ${request.tool}${request.reason === undefined ? "" : ` (${request.reason})`}?\n  input: ${shown}\n[y/N] `,
      );
      return /^y(es)?$/i.test(reply.trim()) ? true : { approved: false, reason: "the user declined" };
    } finally {
      prompt.close();
    }
  });
  queue = answer.catch(() => undefined);
  return answer;
}
