// The child process of `npm run bench:durable`'s resume measurement: a durable 2,000-call sweep
// whose tool appends "<epoch ms> <idempotency key>" to a log per live call (replayed calls do
// not reach it), and "<log>.ready" when it is about to run. Arguments: <journal folder> <log file>
// <run id> [--standby]. With --standby it starts its session and runs one small program first (a
// fleet worker that is already up), writes "<log>.ready", and runs the sweep when a line arrives
// on its stdin: the bench sends it at the kill of the first child.

import { appendFileSync, writeFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { FileRunJournal } from "../src/durable/file-run-journal.js";
import { defineTool } from "../src/registry/define-tool.js";
import { Switchyard } from "../src/switchyard.js";
import { pageOf, SWEEP } from "./durable-sweep.js";

const [folder, log, runId, mode] = process.argv.slice(2) as [string, string, string, string | undefined];
const page = defineTool({
  name: "api.page",
  description: "One page.",
  inputSchema: { type: "object", properties: { cursor: { type: "number" } }, required: ["cursor"] },
  execute: async (input: { cursor: number }, context) => {
    appendFileSync(log, `${Date.now()} ${context.idempotencyKey}\n`);
    await new Promise((resolve) => setImmediate(resolve));
    return pageOf(input.cursor);
  },
});
const yard = new Switchyard({ tools: [page], typeCheck: "off", runJournal: new FileRunJournal({ folder }) });
if (mode === "--standby") {
  await yard.run("return 1;");
  writeFileSync(`${log}.ready`, `${Date.now()}`);
  const lines = createInterface({ input: process.stdin });
  await new Promise<void>((resolve) => lines.once("line", () => resolve()));
  lines.close();
} else {
  // When the process is ready to run: the bench tells the process start apart from the replay.
  writeFileSync(`${log}.ready`, `${Date.now()}`);
}
const result = await yard.run(SWEEP, { durable: { id: runId }, limits: { maxToolCalls: 5_000, wallTimeMs: 120_000 } });
if (!result.ok) process.stderr.write(`durable-child ${runId}: ${result.error?.code}: ${result.error?.message}\n`);
await yard.close();
