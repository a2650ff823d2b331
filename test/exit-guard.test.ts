// process.exit() with runs in flight: isolated-vm's threads outlive Node's teardown of V8's
// platform unless the isolates are disposed first (exit-guard.ts). Each case is a real child
// process with a session whose runs are in the sandbox when the host calls process.exit(3).

import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import { fileURLToPath, pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { guardedIsolateCount } from "../src/sandbox/exit-guard.js";
import { defineTool, Switchyard } from "../src/index.js";

const TSX = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;
const INDEX = pathToFileURL(fileURLToPath(new URL("../src/index.ts", import.meta.url))).href;
/** A child that outlives this is hung: Node's exit waiting on isolated-vm's threads (the watchdog ends one in 2 s). */
const HUNG_MS = 15_000;

/**
 * A host with four loops of runs of `program` (each ends, the next starts) that calls
 * process.exit(3) `exitAfterMs` after its session starts; how the child ended.
 */
async function exitWithRunsInFlight(
  program: string,
  exitAfterMs: number,
  closeFirst = false,
): Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string; stdioHeldMs: number }> {
  const source = `
import { defineTool, Switchyard } from ${JSON.stringify(INDEX)};
const yard = new Switchyard({
  tools: [
    defineTool({ name: "fast.echo", description: "Answers 1 at once.", inputSchema: { type: "object" }, execute: async () => 1 }),
    defineTool({ name: "host.quit", description: "Ends the host.", inputSchema: { type: "object" }, execute: () => process.exit(5) }),
  ],
  typeCheck: "off",
});
let stop = false;
const loop = async () => { while (!stop) await yard.run(${JSON.stringify(program)}, { limits: { wallTimeMs: 60_000, cpuTimeMs: 60_000 } }); };
for (let i = 0; i < 4; i++) void loop();
setTimeout(async () => {
  ${closeFirst ? "stop = true; await yard.close();" : ""}
  process.exit(3);
}, ${exitAfterMs});
`;
  const child = spawn(process.execPath, ["--no-node-snapshot", "--import", TSX, "--input-type=module", "-e", source], {
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr?.setEncoding("utf8");
  child.stderr?.on("data", (chunk: string) => {
    stderr += chunk;
  });
  const hung = setTimeout(() => child.kill("SIGKILL"), HUNG_MS);
  let exitedAt = 0;
  child.once("exit", () => {
    exitedAt = Date.now();
  });
  // 'close': the child's stdio reached their end too (nothing it left behind holds them).
  const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) =>
    child.once("close", (exitCode, exitSignal) => resolve([exitCode, exitSignal])),
  );
  clearTimeout(hung);
  return { code, signal, stderr, stdioHeldMs: Date.now() - exitedAt };
}

const CPU_BOUND = "let x = 0; while (true) { x++; }";
const CALLING = "let n = 0; for (let i = 0; i < 20; i++) n += await tools.fast.echo({}); return n;";

describe("process.exit() with runs in the sandbox", () => {
  it("exits with the host's code while CPU-bound programs run (without the guard: SIGSEGV, 12 exits in 12)", async () => {
    // Exit at several points of the runs' lives: starting, running, being replaced.
    for (const exitAfterMs of [400, 650, 900]) {
      const ended = await exitWithRunsInFlight(CPU_BOUND, exitAfterMs);
      expect(ended, ended.stderr).toMatchObject({ code: 3, signal: null });
    }
  }, 90_000);

  it("never hangs while programs make calls: it exits with the host's code, or is killed with a line saying why", async () => {
    // A guest thread blocked in a crossing the event loop never takes up keeps Node's exit waiting
    // forever (12 exits in 12 without the guard); the watchdog ends such a process 2 s later.
    for (const exitAfterMs of [400, 700, 1_000]) {
      const started = Date.now();
      const ended = await exitWithRunsInFlight(CALLING, exitAfterMs);
      const killedWithReason =
        ended.signal === "SIGKILL" && ended.stderr.includes("switchyard: process.exit() was called with");
      expect(ended.code === 3 || killedWithReason, JSON.stringify(ended)).toBe(true);
      expect(Date.now() - started).toBeLessThan(HUNG_MS - 5_000);
      // The watchdog holds none of the child's stdio: a parent reading them is not kept waiting.
      expect(ended.stdioHeldMs).toBeLessThan(1_000);
    }
  }, 90_000);

  it("never hangs when a tool itself calls process.exit(): killed 2 s later, with the line saying why", async () => {
    // An instant tool answers inside the crossing: the guest waits for it to return, which it never does.
    const started = Date.now();
    const ended = await exitWithRunsInFlight("await tools.host.quit({}); return 1;", 60_000);
    expect(ended.code === 5 || ended.signal === "SIGKILL", JSON.stringify(ended)).toBe(true);
    if (ended.signal === "SIGKILL") expect(ended.stderr).toContain("switchyard: process.exit() was called with");
    expect(Date.now() - started).toBeLessThan(HUNG_MS - 5_000);
  }, 30_000);

  it("exits with the host's code after `await yard.close()`, while programs make calls", async () => {
    for (const exitAfterMs of [400, 700]) {
      const ended = await exitWithRunsInFlight(CALLING, exitAfterMs, true);
      expect(ended, ended.stderr).toMatchObject({ code: 3, signal: null });
    }
  }, 60_000);
});

describe("the isolates the exit guard keeps", () => {
  it("are let go when they are disposed: a closed session leaves none", async () => {
    const before = guardedIsolateCount();
    const yard = new Switchyard({
      tools: [
        defineTool({
          name: "fast.echo",
          description: "Answers 1.",
          inputSchema: { type: "object" },
          execute: async () => 1,
        }),
      ],
      typeCheck: "off",
    });
    const results = await Promise.all(Array.from({ length: 5 }, () => yard.run("return await tools.fast.echo({});")));
    expect(results.map((result) => result.output)).toEqual([1, 1, 1, 1, 1]);
    await yard.close();
    expect(guardedIsolateCount()).toBe(before);
  });
});
