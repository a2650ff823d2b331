// A host process for the tests of what happens to the checker process when its host dies: starts
// a TypeChecker, leaves its process idle (`idle`) or busy on a check that runs for a long time
// (`busy`), prints the checker process's id, and waits to be killed.
// Run: node --import tsx test/helpers/checker-host.ts idle|busy

import { readdirSync, readFileSync } from "node:fs";
import { TypeChecker } from "../../src/program/type-checker.js";
import { WORKER_KILLER } from "./worker-killer.js";

const DECLARATIONS = "declare const console: { log(...args: unknown[]): void };";

function childPids(): number[] {
  return readdirSync("/proc/self/task").flatMap((task) =>
    readFileSync(`/proc/self/task/${task}/children`, "utf8").split(" ").filter(Boolean).map(Number),
  );
}

const checker = new TypeChecker({ memoryLimitMb: 4_096, timeoutMs: 600_000 });
// Held open by this timer, not by the checker: an idle checker keeps no host alive.
setInterval(() => undefined, 1_000);
if (process.argv[2] === "busy") {
  // Wait until the child has loaded TypeScript and started on the program that grows its heap.
  await checker.check("return 1;", DECLARATIONS);
  void checker.check(WORKER_KILLER, DECLARATIONS).catch(() => undefined);
  await new Promise((resolve) => setTimeout(resolve, 500));
} else {
  await checker.check("return 1;", DECLARATIONS);
}
console.log(JSON.stringify({ checkerPid: childPids()[0] }));
