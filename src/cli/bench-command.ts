// `switchyard bench tokens`: runs the token-savings benchmark from a checkout. The benchmark
// lives in bench/ (tasks, data, scripted policies), which is not part of the published
// package, so an installed copy says where to get it instead of failing obscurely.

import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { Command } from "commander";

// From the sources (src/cli/) or from a build in a checkout (dist/src/cli/): the bench stays TypeScript.
const TOKEN_BENCH_CANDIDATES = [
  new URL("../../bench/tokens/run.ts", import.meta.url),
  new URL("../../../bench/tokens/run.ts", import.meta.url),
];

/** Adds `bench tokens [options...]` to the program; options pass through to the benchmark. */
export function registerBenchCommand(program: Command): void {
  const bench = program.command("bench").description("run a benchmark from a source checkout");
  bench
    .command("tokens")
    .description(
      "direct vs programmatic calling on real request bodies, billed as the provider bills; writes a fresh bench/out/tokens-<time>/ unless --out",
    )
    .allowUnknownOption()
    .argument(
      "[options...]",
      "--model <id>, --pricing <file>, --tasks <ids>, --modes <ids>, --max-calls-per-turn <n>, --out <dir>, " +
        "--live, --provider <name>, --live-modes <ids>, --trials <n>, --max-spend-usd <usd> (--help-bench for details)",
    )
    .action(async (options: string[]) => {
      const TOKEN_BENCH = TOKEN_BENCH_CANDIDATES.find((candidate) => existsSync(fileURLToPath(candidate)));
      if (TOKEN_BENCH === undefined) {
        process.stderr.write(
          "switchyard: the token benchmark runs from a source checkout (bench/tokens is not in the package).\n",
        );
        process.exitCode = 2;
        return;
      }
      // Run from compiled JavaScript, the process has no TypeScript loader yet: tsx's, as tool modules get.
      if (!import.meta.url.endsWith(".ts")) (await import("tsx/esm/api")).register();
      const { main, USAGE } = (await import(TOKEN_BENCH.href)) as {
        main: (argv: readonly string[]) => Promise<void>;
        USAGE: string;
      };
      if (options.includes("--help-bench")) {
        process.stdout.write(`${USAGE}\n`);
        process.exit(0);
      }
      // A mistyped option is a SwitchyardError: the command's one error path reports it (exit 2).
      await main(options);
      // The type checker's worker thread would keep the process alive.
      process.exit(process.exitCode ?? 0);
    });
}
