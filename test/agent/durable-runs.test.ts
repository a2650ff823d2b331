// Durable runs in the agent loop, against a scripted model over the real Anthropic SDK client:
// run_program pauses on two unanswered asks and the model reads the run id, the pending calls and
// the route; a person decides on the command line's route; a later runAgent over the same
// transcript resumes through resume_run, whose own approvals are refused.

import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runAgent } from "../../src/agent/run-agent.js";
import { FileRunJournal } from "../../src/durable/file-run-journal.js";
import { Switchyard } from "../../src/switchyard.js";
import type { RecordedRequest } from "../../src/testing/index.js";
import { REFUNDS, shopPermissions, shopTools } from "../durable/fixtures/shop-tools.js";
import { tempFolder } from "../helpers/mcp-servers.js";
import { adapterFor, startServer } from "./agent-fixtures.js";

const work = tempFolder("agent-durable");
const store = new FileRunJournal({ folder: join(work.path, "runs") });
const yards: Switchyard[] = [];
afterAll(async () => {
  await Promise.all(yards.map((yard) => yard.close()));
  work.remove();
});

/** The text of the tool result in the request's last message, if it has one. */
function lastToolResultText(request: RecordedRequest): string[] {
  const last = request.body.messages.at(-1);
  const content = Array.isArray(last.content) ? last.content : [];
  const block = content.find((candidate: { type: string }) => candidate.type === "tool_result");
  if (block === undefined) return [];
  return [typeof block.content === "string" ? block.content : JSON.stringify(block.content)];
}

describe("runAgent with durable runs", () => {
  it("surfaces a paused run to the model with its id and route, and resumes it by resume_run in a later run", async () => {
    const yard = new Switchyard({ tools: shopTools, permissions: shopPermissions, typeCheck: "off" });
    yards.push(yard);
    let runId = "";
    const read: string[] = [];
    const server = await startServer({
      script: (request, index) => {
        read.push(...lastToolResultText(request));
        if (index === 0) return { content: [{ type: "tool_use", name: "run_program", input: { code: REFUNDS } }] };
        if (index === 1) {
          runId = /paused: run (run-[0-9a-f]{32})/.exec(read[0]!)?.[1] ?? "";
          return { content: [{ type: "text", text: `Run ${runId} waits for a person.` }] };
        }
        // The second runAgent: the model first tries to approve on its own, then just resumes.
        if (index === 2)
          return {
            content: [
              {
                type: "tool_use",
                name: "resume_run",
                input: { runId, decisions: [{ position: 3, approved: true }] },
              },
            ],
          };
        if (index === 3) return { content: [{ type: "tool_use", name: "resume_run", input: { runId } }] };
        return { content: [{ type: "text", text: "Refunded order 1; order 2 was refused." }] };
      },
    });
    const model = adapterFor(server, "anthropic");
    const durable = { store, askTimeoutMs: 100 };
    const first = await runAgent({ yard, model, task: "Refund orders 1 and 2.", mode: "programmatic", durable });
    expect(first.status).toBe("completed");
    expect(server.requests[0]!.body.tools.map((tool: { name: string }) => tool.name)).toEqual([
      "run_program",
      "resume_run",
    ]);
    expect(first.runs.map((run) => run.error?.code)).toEqual(["PAUSED"]);
    expect(read[0]).toContain(`paused: run ${runId} waits for a person's decision on 2 call(s)`);
    expect(read[0]).toContain('- call 4: shop.refund {"id":2} (rule: refunds need a person)');
    expect(read[0]).toContain(`resume: call resume_run with {"runId":"${runId}"}`);

    // A person decides outside the loop (what `switchyard runs approve|deny` appends).
    await store.appendOutside(runId, [
      { t: "decision", at: Date.now(), position: 3, approved: true },
      { t: "decision", at: Date.now(), position: 4, approved: false, reason: "refunded by hand" },
    ]);
    const second = await runAgent({
      yard,
      model,
      messages: first.messages,
      task: "A person has decided; go on.",
      mode: "programmatic",
      durable,
    });
    expect(second.status).toBe("completed");
    expect(read[1]).toMatch(/^error PERMISSION_DENIED: resume_run cannot approve call 3: a person must/);
    expect(second.runs).toHaveLength(1);
    const resumed = second.runs[0]!;
    expect(resumed.ok, resumed.error?.message).toBe(true);
    expect(resumed.output).toMatchObject({
      a: { refunded: 1 },
      b: { caught: "PERMISSION_DENIED", message: expect.stringContaining("refunded by hand") },
    });
    expect(read[2]).toMatch(/^output: \{"totals":30,"a":\{"refunded":1\}/);
  });

  it("does not offer resume_run, and refuses it, when runs are not durable", async () => {
    const yard = new Switchyard({ tools: shopTools, permissions: shopPermissions, typeCheck: "off" });
    yards.push(yard);
    const read: string[] = [];
    const server = await startServer({
      script: (request, index) => {
        read.push(...lastToolResultText(request));
        return index === 0
          ? { content: [{ type: "tool_use", name: "resume_run", input: { runId: `run-${"a".repeat(32)}` } }] }
          : { content: [{ type: "text", text: "ok" }] };
      },
    });
    await runAgent({ yard, model: adapterFor(server, "anthropic"), task: "Resume.", mode: "programmatic" });
    expect(server.requests[0]!.body.tools.map((tool: { name: string }) => tool.name)).toEqual(["run_program"]);
    expect(read[0]).toMatch(/^error TOOL_NOT_FOUND: No tool named "resume_run" is offered/);
  });
});
