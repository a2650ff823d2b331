// The event-loop lag of a fresh process while a new session warms up (src/warm-up-session.ts: the
// checker's process, esbuild's service, an isolate, ajv and the validators): one child process per
// sample creates a session of 40 tools with distinct schemas and records its longest event-loop
// delay from the end of the constructor through one model turn (1.5 s). Used by bench:host-stalls.

import { execFile } from "node:child_process";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { fileURLToPath, pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { defineTool } from "../src/registry/define-tool.js";
import { Switchyard } from "../src/switchyard.js";
import { measureSlowdown } from "./stall-verdict.js";

const CHILD_FLAG = "--session-start-child";
/** The pause between a session's start and its first program: a model turn, short end. */
const MODEL_TURN_MS = 1_500;

/** One sample: the longest event-loop delay during the warm-up, and what the machine alone cost that process. */
export interface StartUpLag {
  readonly lagMs: number;
  /** The worst lag of 5 idle rounds of 200 ms, after the session was closed. */
  readonly idleMs: number;
  /** Wall over CPU time of a busy spin in that process (see measureSlowdown). */
  readonly slowdown: number;
}

/** One fresh process per sample. */
export async function measureStartUpLag(samples: number): Promise<StartUpLag[]> {
  const lags: StartUpLag[] = [];
  for (let sample = 0; sample < samples; sample++) {
    const { stdout } = await promisify(execFile)(process.execPath, [
      "--no-node-snapshot",
      ...process.execArgv.filter((flag) => flag !== "--no-node-snapshot"),
      fileURLToPath(import.meta.url),
      CHILD_FLAG,
    ]);
    lags.push(JSON.parse(stdout.trim().split("\n").at(-1) ?? "{}") as StartUpLag);
  }
  return lags;
}

function tools() {
  return Array.from({ length: 40 }, (_, index) =>
    defineTool({
      name: `ns${index % 4}.tool_${index}`,
      description: `Reads records of kind ${index}.`,
      effect: "read",
      inputSchema: {
        type: "object",
        properties: { [`field${index}`]: { type: "string", minLength: 1 }, limit: { type: "integer", maximum: 100 } },
        required: [`field${index}`],
      },
      outputSchema: { type: "object", properties: { items: { type: "array", items: { type: "string" } } } },
      execute: () => ({ items: [] }),
    }),
  );
}

async function child(): Promise<void> {
  const catalog = tools();
  const histogram = monitorEventLoopDelay({ resolution: 1 });
  const yard = new Switchyard({ tools: catalog });
  histogram.enable();
  await new Promise((resolve) => setTimeout(resolve, MODEL_TURN_MS));
  histogram.disable();
  await yard.close();
  const lagMs = histogram.max / 1e6;
  let idleMs = 0;
  for (let round = 0; round < 5; round++) {
    const idle = monitorEventLoopDelay({ resolution: 1 });
    idle.enable();
    await new Promise((resolve) => setTimeout(resolve, 200));
    idle.disable();
    idleMs = Math.max(idleMs, idle.max / 1e6);
  }
  const result: StartUpLag = { lagMs, idleMs, slowdown: measureSlowdown() };
  console.log(JSON.stringify(result));
}

if (
  process.argv.includes(CHILD_FLAG) &&
  process.argv[1] !== undefined &&
  import.meta.url === pathToFileURL(process.argv[1]).href
) {
  await child();
}
