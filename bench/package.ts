// Package benchmark: what a user installs and what importing it costs. Packs the checkout (or
// takes --tarball), installs it into a fresh project with no optional peer, measures the
// node_modules footprint, then times imports in fresh processes, side by side and interleaved:
// the core, `/agent`, and the core plus what the root import used to load (both provider SDKs
// and the tokenizer, installed afterwards as the optional peers). Medians of --runs rounds. Then the
// same tarball on other Node lines from the registry (.ci/install-node.sh, cached; default 24):
// install time and size, which isolated-vm npm picked, and the import times under that Node.
// The installed command's start (`--help`, a first `run`) is its own row and result file; rerun it
// alone against an existing install with --commands-only <project>.
// Run: npm run bench:package [-- --tarball <file>] [--runs <n>] [--lines 24,22|none] [--keep] [--commands-only <project>]

import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { benchConditions, currentLoad, writeBenchResult } from "./bench-result.js";
import { median } from "./stats.js";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const CORE_IMPORT_TARGET_MS = 250;
const FOOTPRINT_TARGET_MB = 100;
const FOOTPRINT_BEFORE_MB = 176;
const HELP_TARGET_MS = 300;
const RUN_TARGET_MS = 1_500;
const OPTIONAL_PEERS = ["@anthropic-ai/sdk@1.14.0", "openai@6.49.0", "gpt-tokenizer@4.0.0"];

interface Options {
  /** Time only the installed command in this project (an install of the tarball), nothing else. */
  commandsOnly: string | undefined;
  tarball: string | undefined;
  runs: number;
  keep: boolean;
  /** Node majors measured beside the machine's own, installed from the registry. */
  lines: string[];
}

function parseOptions(argv: readonly string[]): Options {
  const options: Options = { commandsOnly: undefined, tarball: undefined, runs: 9, keep: false, lines: ["24"] };
  for (let index = 0; index < argv.length; index++) {
    const argument = argv[index];
    if (argument === "--tarball") options.tarball = argv[++index];
    else if (argument === "--runs") options.runs = Number(argv[++index]);
    else if (argument === "--keep") options.keep = true;
    else if (argument === "--commands-only") options.commandsOnly = argv[++index];
    else if (argument === "--lines") {
      const lines = argv[++index] ?? "";
      options.lines = lines === "none" ? [] : lines.split(",");
    } else
      throw new Error(
        `Unknown option ${argument}; options: --tarball <file>, --runs <n>, --lines <majors>, --keep, --commands-only <project>`,
      );
  }
  if (!Number.isInteger(options.runs) || options.runs < 1) throw new Error("--runs needs a positive integer");
  return options;
}

function sh(command: string, args: readonly string[], cwd: string, env: NodeJS.ProcessEnv = process.env): string {
  return execFileSync(command, args, { cwd, env, encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] });
}

function megabytes(folder: string): number {
  return Number(sh("du", ["-sk", folder], ROOT).split("\t")[0]) / 1024;
}

/** The largest packages of node_modules, in MB. */
function largestPackages(modules: string, count: number): { name: string; mb: number }[] {
  const sizes: { name: string; mb: number }[] = [];
  for (const entry of readdirSync(modules)) {
    if (entry.startsWith(".")) continue;
    const names = entry.startsWith("@") ? readdirSync(join(modules, entry)).map((name) => `${entry}/${name}`) : [entry];
    for (const name of names) sizes.push({ name, mb: megabytes(join(modules, name)) });
  }
  return sizes.sort((a, b) => b.mb - a.mb).slice(0, count);
}

interface ImportTiming {
  /** Wall time of the import inside the process, in ms. */
  readonly importMs: number;
  /** CPU time (user + system) of the import, in ms: steadier than wall time on a busy machine. */
  readonly cpuMs: number;
  /** Wall time of the whole process, start to exit, in ms. */
  readonly processMs: number;
}

/** Runs `body` (an ES module snippet doing the imports) in a fresh `node --no-node-snapshot` (`node`, default this one). */
function timeImport(project: string, body: string, node = process.execPath): ImportTiming {
  const script = `const started = performance.now(); const cpu = process.cpuUsage();
${body}
const used = process.cpuUsage(cpu);
process.stdout.write(JSON.stringify({ importMs: performance.now() - started, cpuMs: (used.user + used.system) / 1000 }));`;
  const before = performance.now();
  const output = sh(node, ["--no-node-snapshot", "--input-type=module", "-e", script], project);
  const processMs = performance.now() - before;
  return { ...(JSON.parse(output) as { importMs: number; cpuMs: number }), processMs };
}

const round = (value: number): string => String(Math.round(value));

/** A Node line from the registry: its `node`, and an environment whose npm runs under it. */
interface NodeLine {
  readonly major: string;
  readonly node: string;
  readonly env: NodeJS.ProcessEnv;
}

function installNodeLine(major: string): NodeLine {
  const folder = sh(join(ROOT, ".ci/install-node.sh"), [major], ROOT).trim().split("\n")[0]!;
  const env = { ...process.env, PATH: `${folder}:${process.env["PATH"] ?? ""}`, npm_config_nodedir: dirname(folder) };
  return { major, node: join(folder, "node"), env };
}

/** Which isolated-vm the package loads in `project` under `node`: prebuilt, or built at install (see consumer-test.sh). */
function isolateOf(project: string, node: string): string {
  const script = `const { createRequire } = require("node:module"); const { existsSync } = require("node:fs");
const { dirname, join } = require("node:path");
const load = createRequire(require.resolve("switchyard-runtime/package.json"));
for (const name of ["isolated-vm", "isolated-vm-7"]) {
  try { load(name); } catch { continue; }
  const folder = dirname(load.resolve(name + "/package.json"));
  console.log(name + "@" + require(join(folder, "package.json")).version + (existsSync(join(folder, "prebuilds")) && !existsSync(join(folder, "build")) ? " prebuilt" : " built at install"));
  process.exit(0);
}
console.log("none loads");`;
  return sh(node, ["-e", script], project).trim();
}

interface LineMeasurement {
  readonly node: string;
  readonly installS: number;
  readonly mb: number;
  readonly isolate: string;
  readonly core: ImportTiming[];
  readonly agent: ImportTiming[];
}

/** Installs `tarball` into a fresh project under `line` and times its imports there. */
function measureLine(work: string, tarball: string, runs: number, line: NodeLine): LineMeasurement {
  const node = line.node;
  const project = join(work, `line-${line.major}`);
  mkdirSync(project, { recursive: true });
  writeFileSync(join(project, "package.json"), '{ "name": "bench-package-line", "private": true, "type": "module" }\n');
  const started = performance.now();
  sh("npm", ["install", "--no-audit", "--no-fund", "--loglevel=error", tarball], project, line.env);
  const installS = (performance.now() - started) / 1000;
  const core: ImportTiming[] = [];
  const agent: ImportTiming[] = [];
  for (let round = 0; round < runs; round++) {
    core.push(timeImport(project, 'await import("switchyard-runtime");', node));
    agent.push(timeImport(project, 'await import("switchyard-runtime/agent");', node));
  }
  const version = sh(node, ["--version"], project).trim();
  return {
    node: version,
    installS,
    mb: megabytes(join(project, "node_modules")),
    isolate: isolateOf(project, node),
    core,
    agent,
  };
}

function pad(cells: readonly string[], widths: readonly number[]): string {
  return `| ${cells.map((cell, index) => cell.padEnd(widths[index]!)).join(" | ")} |`;
}

function table(rows: readonly (readonly string[])[]): string {
  const widths = rows[0]!.map((_cell, column) => Math.max(...rows.map((row) => row[column]!.length)));
  const [header, ...body] = rows;
  return [
    pad(header!, widths),
    pad(
      widths.map((width) => "-".repeat(width)),
      widths,
    ),
    ...body.map((row) => pad(row, widths)),
  ].join("\n");
}

// --- The installed command: `switchyard --help` and a first run, each a fresh process ---------

interface CommandTiming {
  /** Wall time of the whole process, in ms. */
  readonly wallMs: number;
  /** CPU time (user + system) of the process and its children, in ms: steadier on a busy machine. */
  readonly cpuMs: number;
}

interface CommandTimings {
  /** `switchyard --help`. */
  readonly help: CommandTiming[];
  /** `switchyard run` of `return 1` with the type check on, tools from a JavaScript module. */
  readonly runJs: CommandTiming[];
  /** The same with the tools in a TypeScript module (tsx loads it). */
  readonly runTs: CommandTiming[];
}

const TOOL_MODULE = `export const tools = [{
  name: "echo.say",
  description: "Says its text back.",
  inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
  effect: "read",
  execute: (input) => input.text,
}];
`;

/** Times the installed `switchyard` command in `project`: --help and a type-checked `return 1`. */
function timeCommands(project: string, runs: number): CommandTimings {
  writeFileSync(join(project, "return-1.ts"), "return 1;\n");
  writeFileSync(join(project, "bench-tools.mjs"), TOOL_MODULE);
  writeFileSync(join(project, "bench-tools.ts"), TOOL_MODULE.replace("(input) =>", "(input: { text: string }) =>"));
  const bin = join(project, "node_modules", ".bin", "switchyard");
  // GNU time reports the CPU of the command and every process it waited for (the re-executed Node).
  const measure = (args: readonly string[]): CommandTiming => {
    const report = join(project, ".time");
    const started = performance.now();
    const output = sh("/usr/bin/time", ["-o", report, "-f", "%U %S", bin, ...args], project);
    const wallMs = performance.now() - started;
    if (args[0] === "run" && !/^output:\n {2}1$/m.test(output)) throw new Error(`unexpected output: ${output}`);
    const [user, system] = readFileSync(report, "utf8").trim().split(/\s+/).slice(-2).map(Number);
    return { wallMs, cpuMs: ((user ?? Number.NaN) + (system ?? Number.NaN)) * 1000 };
  };
  const timings: CommandTimings = { help: [], runJs: [], runTs: [] };
  for (let round = 0; round < runs; round++) {
    timings.help.push(measure(["--help"]));
    timings.runJs.push(measure(["run", "return-1.ts", "--tools", "./bench-tools.mjs", "--type-check", "error"]));
    timings.runTs.push(measure(["run", "return-1.ts", "--tools", "./bench-tools.ts", "--type-check", "error"]));
  }
  return timings;
}

/** Prints the command row and writes bench/results/package-command.json (its own file: it can be rerun alone). */
function reportCommands(commands: CommandTimings, startLoad: number): void {
  const wall = (runs: readonly CommandTiming[]): number => median(runs.map((run) => run.wallMs));
  const cpu = (runs: readonly CommandTiming[]): number => median(runs.map((run) => run.cpuMs));
  console.log(`\nThe installed command, whole process, medians of ${commands.help.length} rounds:\n`);
  console.log(
    table([
      ["command", "wall", "CPU", "target"],
      [
        "`switchyard --help`",
        `${round(wall(commands.help))} ms`,
        `${round(cpu(commands.help))} ms`,
        `≤ ${HELP_TARGET_MS} ms`,
      ],
      [
        "`switchyard run` of `return 1`, type check on, tools in a .mjs",
        `${round(wall(commands.runJs))} ms`,
        `${round(cpu(commands.runJs))} ms`,
        `≤ ${RUN_TARGET_MS} ms`,
      ],
      [
        "the same, tools in a .ts module (tsx loads it)",
        `${round(wall(commands.runTs))} ms`,
        `${round(cpu(commands.runTs))} ms`,
        "",
      ],
    ]),
  );
  const written = writeBenchResult(
    "package-command",
    benchConditions(startLoad),
    {
      "help-ms": `${round(wall(commands.help))} ms`,
      "help-cpu-ms": `${round(cpu(commands.help))} ms`,
      "run-return-1-ms": `${round(wall(commands.runJs))} ms`,
      "run-return-1-cpu-ms": `${round(cpu(commands.runJs))} ms`,
      "run-return-1-ts-tools-ms": `${round(wall(commands.runTs))} ms`,
      "run-return-1-ts-tools-cpu-ms": `${round(cpu(commands.runTs))} ms`,
      rounds: String(commands.help.length),
    },
    [
      "The installed `switchyard` bin from a fresh install of the packed tarball, whole process; CPU is the process's and its children's (GNU time).",
    ],
  );
  console.log(`result: ${written}`);
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  if (options.commandsOnly !== undefined) {
    const startLoad = currentLoad();
    reportCommands(timeCommands(options.commandsOnly, Math.min(options.runs, 5)), startLoad);
    return;
  }
  const work = mkdtempSync(join(tmpdir(), "switchyard-bench-package-"));
  try {
    let tarball = options.tarball;
    if (tarball === undefined) {
      console.log("packing (prepack builds)...");
      const name = sh("npm", ["pack", "--silent", "--pack-destination", work], ROOT).trim().split("\n").at(-1)!;
      tarball = join(work, name);
    }
    const project = join(work, "project");
    rmSync(project, { recursive: true, force: true });
    execFileSync("mkdir", ["-p", project]);
    writeFileSync(join(project, "package.json"), '{ "name": "bench-package", "private": true, "type": "module" }\n');
    console.log("installing the tarball alone (on Node 20 isolated-vm builds from source)...");
    const startLoad = currentLoad();
    const installStarted = performance.now();
    sh("npm", ["install", "--no-audit", "--no-fund", "--loglevel=error", tarball], project);
    const installS = (performance.now() - installStarted) / 1000;
    const modules = join(project, "node_modules");
    const coreMb = megabytes(modules);
    const isolate = isolateOf(project, process.execPath);
    const largest = largestPackages(modules, 8);

    const core = 'await import("switchyard-runtime");';
    const agent = 'await import("switchyard-runtime/agent");';
    const timings = { core: [] as ImportTiming[], agent: [] as ImportTiming[] };
    for (let round = 0; round < options.runs; round++) {
      timings.core.push(timeImport(project, core));
      timings.agent.push(timeImport(project, agent));
    }

    const commands = timeCommands(project, Math.min(options.runs, 5));

    console.log("installing the optional peers...");
    sh("npm", ["install", "--no-audit", "--no-fund", "--loglevel=error", ...OPTIONAL_PEERS], project);
    const withPeersMb = megabytes(modules);
    const before =
      'await import("switchyard-runtime"); await import("@anthropic-ai/sdk"); await import("openai"); await import("gpt-tokenizer");';
    const coreWithPeers: ImportTiming[] = [];
    const previousRoot: ImportTiming[] = [];
    const baseline: ImportTiming[] = [];
    for (let round = 0; round < options.runs; round++) {
      coreWithPeers.push(timeImport(project, core));
      previousRoot.push(timeImport(project, before));
      baseline.push(timeImport(project, ""));
    }

    const row = (what: string, runs: readonly ImportTiming[], target: string): string[] => [
      what,
      `${round(median(runs.map((run) => run.importMs)))} ms (min ${round(Math.min(...runs.map((run) => run.importMs)))})`,
      `${round(median(runs.map((run) => run.cpuMs)))} ms`,
      `${round(median(runs.map((run) => run.processMs)))} ms`,
      target,
    ];
    console.log(`\nImports in a fresh \`node --no-node-snapshot\`, medians of ${options.runs} interleaved rounds:\n`);
    console.log(
      table([
        ["import", "import, wall", "import, CPU", "whole process", "target"],
        row('`import("switchyard-runtime")`, no optional peers', timings.core, `≤ ${CORE_IMPORT_TARGET_MS} ms`),
        row('`import("switchyard-runtime/agent")`, no optional peers', timings.agent, ""),
        row('`import("switchyard-runtime")`, optional peers installed', coreWithPeers, `≤ ${CORE_IMPORT_TARGET_MS} ms`),
        row("the core + both SDKs + gpt-tokenizer (what the root import loaded before)", previousRoot, ""),
        row("`node --no-node-snapshot` doing nothing", baseline, ""),
      ]),
    );
    console.log("\nInstall footprint (du of node_modules):\n");
    console.log(
      table([
        ["install", "size", "target"],
        [
          "the tarball alone (no optional peers)",
          `${coreMb.toFixed(1)} MB`,
          `≤ ${FOOTPRINT_TARGET_MB} MB (was ${FOOTPRINT_BEFORE_MB})`,
        ],
        ["with @anthropic-ai/sdk, openai, gpt-tokenizer", `${withPeersMb.toFixed(1)} MB`, ""],
      ]),
    );
    console.log(
      `\nLargest packages without the peers: ${largest.map((entry) => `${entry.name} ${entry.mb.toFixed(1)}`).join(", ")} (MB).`,
    );
    if (options.lines.length > 0) {
      console.log(`\ninstalling the tarball on Node ${options.lines.join(", ")} (from the registry)...`);
      const here = { node: process.version, installS, mb: coreMb, isolate, core: timings.core, agent: timings.agent };
      const lines: LineMeasurement[] = [here];
      for (const major of options.lines) lines.push(measureLine(work, tarball, options.runs, installNodeLine(major)));
      const ms = (runs: readonly ImportTiming[]): string => `${round(median(runs.map((run) => run.importMs)))} ms`;
      console.log(
        `\nBy Node line (a fresh project each, npm ${sh("npm", ["--version"], ROOT).trim()}; imports: medians of ${options.runs}):\n`,
      );
      console.log(
        table([
          ["node", "install", "node_modules", "isolated-vm", "core import", "/agent import"],
          ...lines.map((line) => [
            line.node,
            `${line.installS.toFixed(0)} s`,
            `${line.mb.toFixed(1)} MB`,
            line.isolate,
            ms(line.core),
            ms(line.agent),
          ]),
        ]),
      );
    }
    const coreMs = median(timings.core.map((run) => run.importMs));
    console.log(
      `\ncore import ${round(coreMs)} ms (target ≤ ${CORE_IMPORT_TARGET_MS}), /agent ${round(median(timings.agent.map((run) => run.importMs)))} ms; ` +
        `install ${coreMb.toFixed(1)} MB without optional peers (target ≤ ${FOOTPRINT_TARGET_MB}, was ${FOOTPRINT_BEFORE_MB})`,
    );
    reportCommands(commands, startLoad);
    const conditions = benchConditions(startLoad);
    const written = writeBenchResult(
      "package",
      conditions,
      {
        "install-seconds": `${Math.round(installS)} s`,
        "install-mb": `${coreMb.toFixed(1)} MB`,
        "install-with-peers-mb": `${withPeersMb.toFixed(1)} MB`,
        "core-import-ms": `${round(coreMs)} ms`,
        "core-import-cpu-ms": `${round(median(timings.core.map((run) => run.cpuMs)))} ms`,
        "agent-import-ms": `${round(median(timings.agent.map((run) => run.importMs)))} ms`,
        "agent-import-cpu-ms": `${round(median(timings.agent.map((run) => run.cpuMs)))} ms`,
        "previous-root-import-ms": `${round(median(previousRoot.map((run) => run.importMs)))} ms`,
        "previous-root-import-cpu-ms": `${round(median(previousRoot.map((run) => run.cpuMs)))} ms`,
        rounds: String(options.runs),
      },
      [
        "Measured offline: npm could not fetch isolated-vm's prebuilt binary, so the install time includes compiling it from source (most of it).",
        "Imports: medians of fresh `node --no-node-snapshot` processes, rounds interleaved.",
      ],
    );
    console.log(`\nresult: ${written}`);
    if (options.keep) console.log(`kept: ${work}`);
  } finally {
    if (!options.keep) rmSync(work, { recursive: true, force: true });
  }
}

await main();
