// A host process for the tests of a session's warm-up and the processes it starts: creates a
// Switchyard (the process-wide shared checker, esbuild, isolates), then closes it either at once
// (`close-now`) or once the warm-up has started a child process (`close-during`), prints the ids
// of the child processes the session added (tsx's loader has an esbuild service of its own before
// it), and ends on its own: nothing may hold it open after the close.
// Run: node --no-node-snapshot --import tsx test/helpers/session-warm-up-host.ts close-now|close-during

import { readdirSync, readFileSync } from "node:fs";
import { defineTool } from "../../src/registry/define-tool.js";
import { Switchyard } from "../../src/switchyard.js";

function childPids(): number[] {
  return readdirSync("/proc/self/task").flatMap((task) =>
    readFileSync(`/proc/self/task/${task}/children`, "utf8").split(" ").filter(Boolean).map(Number),
  );
}

const tool = defineTool({
  name: "items.get",
  description: "Gets an item.",
  inputSchema: { type: "object", properties: { id: { type: "string" } }, required: ["id"] },
  execute: () => ({ ok: true }),
});
const before = new Set(childPids());
const added = (): number[] => childPids().filter((pid) => !before.has(pid));
const yard = new Switchyard({ tools: [tool] });
if (process.argv[2] === "close-now") {
  await yard.close();
  // Long enough for any warm-up step that was still scheduled to have started a process.
  await new Promise((resolve) => setTimeout(resolve, 500));
} else {
  const deadline = Date.now() + 20_000;
  while (added().length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
  await yard.close();
}
console.log(JSON.stringify({ children: added() }));
