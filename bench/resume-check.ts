// `switchyard runs resume` of a paused 2-call durable run, in a new process with the default type
// check, for two trees side by side (a base checkout and this one), in alternating pairs: wall ms
// from the process's spawn to its result on stdout, and to its exit, and the resume process's CPU
// seconds (user + system, by /usr/bin/time; the checker's own process is not counted: it is not
// reaped before the resume exits). Each tree starts and pauses
// its own runs (`switchyard run --durable`), so each resumes a journal of its own format.
// Usage: node --import tsx bench/resume-check.ts <base tree> <this tree> [pairs] (both built: bin runs dist/).

import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";

const [baseTree, thisTree, pairsArgument] = process.argv.slice(2) as [string, string, string | undefined];
const PAIRS = Number(pairsArgument ?? 10);
const work = mkdtempSync(join(tmpdir(), "resume-check-bench-"));

const TOOLS = `export const tools = [
  { name: "shop.order", description: "Reads an order.", effect: "read",
    inputSchema: { type: "object", properties: { id: { type: "number" } }, required: ["id"] },
    execute: (input) => ({ id: input.id, total: input.id * 10 }) },
  { name: "shop.refund", description: "Refunds an order.", effect: "write",
    inputSchema: { type: "object", properties: { id: { type: "number" } }, required: ["id"] },
    execute: (input) => ({ refunded: input.id }) },
];
`;
const PROGRAM = `const order = await tools.shop.order({ id: 1 });
const refund = await tools.shop.refund({ id: order.id });
return { total: order.total, refund };
`;
writeFileSync(join(work, "tools.mjs"), TOOLS);
writeFileSync(join(work, "program.ts"), PROGRAM);
const rules = [{ tools: "shop.refund", decision: "ask" }];
writeFileSync(join(work, "shop.config.json"), JSON.stringify({ tools: ["./tools.mjs"], permissions: { rules } }));

function cli(tree: string, runs: string, args: readonly string[]): void {
  const done = spawnSync(process.execPath, [join(tree, "bin/switchyard.js"), ...args], {
    cwd: work,
    env: { ...process.env, SWITCHYARD_RUNS_DIR: runs },
    stdio: ["ignore", "ignore", "inherit"],
  });
  if (done.status !== 0 && done.status !== 1) throw new Error(`${args.join(" ")}: exit ${done.status}`);
}

/** Pauses a new run in `tree` and approves its refund; then times its resume in a new process. */
async function resumeOnce(
  tree: string,
  id: string,
): Promise<{ resultMs: number; exitMs: number; cpuS: number; checkedBy: string }> {
  const runs = join(work, tree === baseTree ? "base" : "this");
  mkdirSync(runs, { recursive: true });
  cli(tree, runs, ["run", "program.ts", "--config", "shop.config.json", "--durable", id]);
  cli(tree, runs, ["runs", "approve", id, "2"]);
  const started = performance.now();
  const cpuFile = join(work, "cpu.txt");
  const child = spawn(
    "/usr/bin/time",
    [
      "-o",
      cpuFile,
      "-f",
      "%U %S",
      process.execPath,
      join(tree, "bin/switchyard.js"),
      "runs",
      "resume",
      id,
      "--config",
      "shop.config.json",
      "--json",
    ],
    { cwd: work, env: { ...process.env, SWITCHYARD_RUNS_DIR: runs }, stdio: ["ignore", "pipe", "inherit"] },
  );
  let stdout = "";
  let resultMs = Number.NaN;
  child.stdout.on("data", (chunk: Buffer) => {
    if (stdout === "") resultMs = performance.now() - started;
    stdout += chunk.toString();
  });
  await new Promise((resolve) => child.on("close", resolve));
  const exitMs = performance.now() - started;
  const result = JSON.parse(stdout) as { ok: boolean; stats: { typeCheckedBy?: string }; error?: { message: string } };
  if (!result.ok) throw new Error(`resume of ${id} failed: ${result.error?.message}`);
  const [user, system] = readFileSync(cpuFile, "utf8").trim().split("\n").at(-1)!.split(" ").map(Number);
  return { resultMs, exitMs, cpuS: user! + system!, checkedBy: result.stats.typeCheckedBy ?? "(not reported)" };
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

type Timed = { resultMs: number; exitMs: number; cpuS: number };
const base: Timed[] = [];
const mine: Timed[] = [];
const loads: number[] = [];
let checkedBy = { base: "", this: "" };
for (let pair = 0; pair < PAIRS; pair++) {
  loads.push(loadavg()[0]!);
  // Alternating order within pairs: A B, B A, ...
  const order = pair % 2 === 0 ? [baseTree, thisTree] : [thisTree, baseTree];
  for (const tree of order) {
    const timed = await resumeOnce(tree, `pair-${pair}`);
    if (tree === baseTree) {
      base.push(timed);
      checkedBy = { ...checkedBy, base: timed.checkedBy };
    } else {
      mine.push(timed);
      checkedBy = { ...checkedBy, this: timed.checkedBy };
    }
  }
  process.stderr.write(
    `pair ${pair + 1}: base ${base[pair]!.resultMs.toFixed(0)} ms, this ${mine[pair]!.resultMs.toFixed(0)} ms (load ${loads[pair]!.toFixed(2)})\n`,
  );
}
const differences = base.map((timed, pair) => timed.resultMs - mine[pair]!.resultMs);
console.log(`runs resume of a paused 2-call run, default check, new process; ${PAIRS} alternating pairs`);
console.log(`load (1-min) during pairs: ${Math.min(...loads).toFixed(2)}-${Math.max(...loads).toFixed(2)}`);
console.log(`tree   checked by       result ms (median, min-max)   exit ms (median)  host CPU s (median)`);
for (const [name, rows, by] of [
  ["base", base, checkedBy.base],
  ["this", mine, checkedBy.this],
] as const) {
  const results = rows.map((row) => row.resultMs);
  console.log(
    `${name.padEnd(6)} ${by.padEnd(16)} ${median(results).toFixed(0).padStart(6)} (${Math.min(...results).toFixed(0)}-${Math.max(...results).toFixed(0)})`.padEnd(
      52,
    ) +
      median(rows.map((row) => row.exitMs))
        .toFixed(0)
        .padEnd(18) +
      median(rows.map((row) => row.cpuS)).toFixed(2),
  );
}
console.log(
  `paired difference base - this, result ms: median ${median(differences).toFixed(0)}, min ${Math.min(...differences).toFixed(0)}, max ${Math.max(...differences).toFixed(0)}; this faster in ${differences.filter((difference) => difference > 0).length}/${PAIRS}`,
);
rmSync(work, { recursive: true, force: true });
