// The resume tools of LangChain and the OpenAI Agents SDK, called as each framework calls a tool:
// the code-mode tool's durable run pauses; the resume tool resumes it once a person has decided,
// and hands a refusal (an id this tool did not mint) back as the framework's tool error.

import { join } from "node:path";
import { RunContext } from "@openai/agents";
import type { ToolMessage } from "@langchain/core/messages";
import { afterAll, describe, expect, it } from "vitest";
import type { RunResult } from "../../src/contract.js";
import { FileRunJournal } from "../../src/durable/file-run-journal.js";
import * as langchain from "../../src/integrations/langchain.js";
import * as openaiAgents from "../../src/integrations/openai-agents.js";
import { Switchyard } from "../../src/switchyard.js";
import { REFUNDS, shopPermissions, shopTools } from "../durable/fixtures/shop-tools.js";
import { tempFolder } from "../helpers/mcp-servers.js";

const work = tempFolder("framework-durable");
const store = new FileRunJournal({ folder: join(work.path, "runs") });
const yard = new Switchyard({ tools: shopTools, permissions: shopPermissions, typeCheck: "off" });
afterAll(async () => {
  await yard.close();
  work.remove();
});
const options = { durable: { store, askTimeoutMs: 50 } };

async function decide(runId: string): Promise<void> {
  await store.appendOutside(runId, [
    { t: "decision", at: Date.now(), position: 3, approved: true },
    { t: "decision", at: Date.now(), position: 4, approved: false, reason: "by hand" },
  ]);
}

describe("durable runs through LangChain's tools", () => {
  it("pauses with the run id in the ToolMessage, and resume_run resumes it once a person decided", async () => {
    const codeMode = langchain.createCodeModeTool(yard, options);
    const resume = langchain.createResumeRunTool(yard, options);
    expect(resume.name).toBe("resume_run");
    const paused = (await codeMode.invoke({
      id: "c1",
      name: "run_program",
      args: { code: REFUNDS },
      type: "tool_call",
    })) as ToolMessage;
    expect(paused.status).toBe("error");
    const runId = ((paused.artifact as RunResult).error!.details as { runId: string }).runId;
    expect(String(paused.content)).toContain(`resume: call resume_run with {"runId":"${runId}"}`);
    await decide(runId);
    const resumed = (await resume.invoke({
      id: "c2",
      name: "resume_run",
      args: { runId },
      type: "tool_call",
    })) as ToolMessage;
    expect(resumed.status).toBe("success");
    expect((resumed.artifact as RunResult).output).toMatchObject({
      a: { refunded: 1 },
      b: { caught: "PERMISSION_DENIED" },
    });
    await expect(resume.invoke({ runId: "refunds" })).rejects.toThrow(/^error RUN_NOT_FOUND: /);
  });

  it("refuses the model's approval of the call it waits for, leaving the journal untouched", async () => {
    const codeMode = langchain.createCodeModeTool(yard, options);
    const resume = langchain.createResumeRunTool(yard, options);
    const paused = (await codeMode.invoke({
      id: "c3",
      name: "run_program",
      args: { code: REFUNDS },
      type: "tool_call",
    })) as ToolMessage;
    const runId = ((paused.artifact as RunResult).error!.details as { runId: string }).runId;
    const before = await store.read(runId);
    await expect(resume.invoke({ runId, decisions: [{ position: 3, approved: true }] })).rejects.toThrow(
      /^error PERMISSION_DENIED: resume_run cannot approve call 3: a person must/,
    );
    expect(await store.read(runId)).toEqual(before);
    expect((await store.list()).find((run) => run.id === runId)?.state).toBe("paused");
  });
});

describe("durable runs through the OpenAI Agents SDK's tools", () => {
  it("pauses with the run id in the text, and resume_run resumes it once a person decided", async () => {
    const codeMode = openaiAgents.createCodeModeTool(yard, options);
    const resume = openaiAgents.createResumeRunTool(yard, options);
    const context = new RunContext({});
    const paused = String(await codeMode.invoke(context, JSON.stringify({ code: REFUNDS })));
    const runId = /paused: run (run-[0-9a-f]{32})/.exec(paused)?.[1];
    expect(runId, paused).toBeDefined();
    await decide(runId!);
    const resumed = String(await resume.invoke(context, JSON.stringify({ runId })));
    expect(resumed).toMatch(/^output: \{"totals":30,"a":\{"refunded":1\},"b":\{"caught":"PERMISSION_DENIED"/);
    const refused = String(await resume.invoke(context, JSON.stringify({ runId: "../../etc/passwd" })));
    expect(refused).toContain("INPUT_INVALID");
  });
});
