import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import { fileURLToPath, pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { nextBackgroundTurn } from "../src/background-turn.js";

const TSX = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;
const MODULE = pathToFileURL(fileURLToPath(new URL("../src/background-turn.ts", import.meta.url))).href;

/** Runs `script` (an ES module importing `nextBackgroundTurn`) in a child; its exit code, output and run time. */
async function runChild(script: string): Promise<{ code: number | null; output: string; ms: number }> {
  const started = Date.now();
  const source = `import { nextBackgroundTurn } from ${JSON.stringify(MODULE)};\n${script}`;
  const child = spawn(process.execPath, ["--import", TSX, "--input-type=module", "-e", source], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  let output = "";
  child.stdout?.setEncoding("utf8");
  child.stdout?.on("data", (chunk: string) => {
    output += chunk;
  });
  const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
  return { code, output, ms: Date.now() - started };
}

/** Sleeps on one timer: the event loop has nothing else to wake it meanwhile. */
function idle(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

describe("a background turn", () => {
  it("runs a chain of 100 turns while the event loop has nothing else to do", async () => {
    let turns = 0;
    const turn = (): void => {
      turns += 1;
      if (turns < 100) nextBackgroundTurn(turn);
    };
    nextBackgroundTurn(turn);
    // One 3 s timer and nothing else: an unreferenced setImmediate chain ran 1-2 turns here.
    await idle(3_000);
    expect(turns).toBe(100);
  });

  it("runs one turn per turn of the event loop, whoever queued them: what the first let wait runs before the second", async () => {
    const order: string[] = [];
    await new Promise<void>((resolve) => {
      nextBackgroundTurn(() => {
        order.push("first");
        // Queued by the first turn for the loop's next check phase: it comes before the second turn.
        setImmediate(() => order.push("the loop turned"));
      });
      nextBackgroundTurn(() => {
        order.push("second");
        resolve();
      });
    });
    // As two timers (or two immediates) of 0 ms, both turns ran in one phase, holding the loop for both.
    expect(order).toEqual(["first", "the loop turned", "second"]);
  });

  it("goes on with the next turn when one throws", async () => {
    const errors: unknown[] = [];
    const listener = (error: unknown): void => void errors.push(error);
    const listeners = process.listeners("uncaughtException");
    process.removeAllListeners("uncaughtException");
    process.on("uncaughtException", listener);
    try {
      await new Promise<void>((resolve) => {
        nextBackgroundTurn(() => {
          throw new Error("a turn that fails");
        });
        nextBackgroundTurn(resolve);
      });
    } finally {
      process.removeListener("uncaughtException", listener);
      for (const restored of listeners) process.on("uncaughtException", restored);
    }
    expect(errors).toHaveLength(1);
  });

  it("waits `afterMs` before a turn held back", async () => {
    const started = performance.now();
    const ran = await new Promise<number>((resolve) =>
      nextBackgroundTurn(() => resolve(performance.now() - started), { afterMs: 60 }),
    );
    expect(ran).toBeGreaterThanOrEqual(55);
  });

  it("does not run a turn that was cancelled", async () => {
    let ran = 0;
    nextBackgroundTurn(() => (ran += 1)).cancel();
    nextBackgroundTurn(() => (ran += 1), { awaited: true }).cancel();
    nextBackgroundTurn(() => (ran += 1), { afterMs: 5 }).cancel();
    await idle(50);
    expect(ran).toBe(0);
  });

  it("lets a process whose only work is an endless chain of turns exit", async () => {
    const child = await runChild(
      "let turns = 0; const turn = () => { turns++; nextBackgroundTurn(turn); }; nextBackgroundTurn(turn);" +
        "process.on('exit', () => process.stdout.write(String(turns)));",
    );
    expect(child.code).toBe(0);
    // It exited at once: at most a turn or two ran (each timer of 0 ms is unreferenced).
    expect(Number(child.output)).toBeLessThan(10);
  });

  it("keeps the process alive for a turn someone awaits, and runs it", async () => {
    const child = await runChild("nextBackgroundTurn(() => process.stdout.write('ran'), { awaited: true });");
    expect(child).toMatchObject({ code: 0, output: "ran" });
  });
});
