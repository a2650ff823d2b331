// Host event-loop lag while hostile input is processed: each row feeds one input that once
// stalled the host (issue 14) through the path a model or client uses, and records the
// longest event-loop delay seen meanwhile, beside the idle lag of the same process measured
// just before. Target: every row ≤ 50 ms. Run with `npm run bench:host-stalls`.

import { monitorEventLoopDelay } from "node:perf_hooks";
import { answerModelToolCall } from "../src/model-tools/answer-model-tool-call.js";
import { defineTool } from "../src/registry/define-tool.js";
import { Switchyard } from "../src/switchyard.js";

const TARGET_MS = 50;
const ROUNDS = 5;

interface Row {
  readonly what: string;
  readonly work: (yard: Switchyard) => Promise<string>;
}

const ROWS: readonly Row[] = [
  {
    what: "regex `.{0,99}.{0,99}.{0,99}.{0,99}~` via search_tools, 1,000 tools",
    work: async (yard) => {
      const answer = await answerModelToolCall(yard, {
        name: "search_tools",
        input: { pattern: ".{0,99}.{0,99}.{0,99}.{0,99}~" },
      });
      return answer.tool === "refused" ? answer.error.code : "answered";
    },
  },
  {
    what: "fenced program: opening fence and 40 KB of spaces (quadratic before)",
    work: async (yard) => {
      const answer = await answerModelToolCall(yard, {
        name: "run_program",
        input: { code: `\`\`\`\n${" ".repeat(40_000)}x` },
      });
      return answer.tool === "run_program" ? (answer.run.error?.code ?? "ok") : answer.tool;
    },
  },
  {
    what: "run_program with 4 MB of code (refused before any work on it)",
    work: async (yard) => {
      const answer = await answerModelToolCall(yard, {
        name: "run_program",
        input: { code: `\`\`\`\n${" \t".repeat(2_000_000)}` },
      });
      return answer.tool === "run_program" ? (answer.run.error?.code ?? "ok") : answer.tool;
    },
  },
  {
    what: "999 calls to unknown 250-character tool names, 1,000 tools registered",
    work: async (yard) => {
      const result = await yard.run(
        `const name = "y".repeat(240); let refused = 0;
        for (let i = 0; i < 999; i++) { try { await (tools as any).ns1[name + i]({}); } catch { refused++; } }
        return refused;`,
        { typeCheck: "off" },
      );
      return `${result.output} refused`;
    },
  },
];

function catalog(): ReturnType<typeof defineTool>[] {
  return Array.from({ length: 1_000 }, (_, index) =>
    defineTool({
      name: `ns${index % 20}.operation_number_${index}`,
      description: `Performs operation ${index} on records of kind ${index % 37}; returns a page of results.`,
      inputSchema: { type: "object", properties: { id: { type: "string" }, cursor: { type: "string" } } },
      effect: "read",
      execute: () => ({ ok: true }),
    }),
  );
}

/** Longest event-loop delay, in ms, while `work` runs. */
async function maxLagDuring(work: () => Promise<unknown>): Promise<number> {
  const histogram = monitorEventLoopDelay({ resolution: 1 });
  histogram.enable();
  await work();
  // A block that lasted until the work ended is only recorded when the timer fires next.
  await new Promise((resolve) => setTimeout(resolve, 5));
  histogram.disable();
  return histogram.max / 1e6;
}

async function main(): Promise<void> {
  const yard = new Switchyard({ tools: catalog(), discovery: { defer: true } });
  // Warm the paths once (type checker, regex worker, esbuild), so rows measure steady work.
  for (const row of ROWS) await row.work(yard);
  const idle = await maxLagDuring(() => new Promise((resolve) => setTimeout(resolve, 500)));
  console.log(`host event-loop lag, max over ${ROUNDS} rounds (idle lag of this process: ${idle.toFixed(1)} ms)`);
  let worst = 0;
  for (const row of ROWS) {
    const lags: number[] = [];
    let outcome = "";
    for (let round = 0; round < ROUNDS; round++) {
      lags.push(
        await maxLagDuring(async () => {
          outcome = await row.work(yard);
        }),
      );
    }
    const max = Math.max(...lags);
    worst = Math.max(worst, max);
    const verdict = max <= TARGET_MS ? "PASS" : "MISS";
    console.log(`  ${row.what}: ${max.toFixed(1)} ms (${outcome}) ${verdict}`);
  }
  await yard.close();
  console.log(`host stalls: worst event-loop lag ${worst.toFixed(1)} ms, target ≤ ${TARGET_MS} ms`);
}

await main();
