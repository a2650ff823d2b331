#!/usr/bin/env node
// Entry point of the `switchyard` command. isolated-vm on Node 20 needs --no-node-snapshot,
// which cannot be set from inside a running process, so this re-executes Node with it (and
// with tsx, so tool modules may be TypeScript), forwards SIGINT and SIGTERM to the child,
// and mirrors the child's exit code.

import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { constants } from "node:os";
import { fileURLToPath } from "node:url";

const compiled = fileURLToPath(new URL("../dist/src/cli/main.js", import.meta.url));
const source = fileURLToPath(new URL("../src/cli/main.ts", import.meta.url));
const tsconfig = fileURLToPath(new URL("../tsconfig.json", import.meta.url));
// A checkout has the sources (and maybe a stale build); an installed package only dist/.
const fromSource = existsSync(source);
const entry = fromSource ? source : compiled;
const flags = ["--no-node-snapshot", "--import", import.meta.resolve("tsx")];
// In a checkout, `switchyard-runtime` imports (the demo's) resolve to the sources through
// tsconfig.json's paths, from whatever folder the command runs in.
const env = fromSource ? { ...process.env, TSX_TSCONFIG_PATH: tsconfig } : process.env;

const child = spawn(process.execPath, [...flags, entry, ...process.argv.slice(2)], { stdio: "inherit", env });
// A signal sent to this process (a supervisor's SIGTERM, `kill -INT`) must reach the child.
// A terminal's Ctrl-C reaches both; the child counts a repeat within a moment as one.
for (const signal of ["SIGINT", "SIGTERM"]) {
  process.on(signal, () => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
  });
}
child.on("exit", (code, signal) => {
  process.exit(signal === null ? (code ?? 1) : 128 + (constants.signals[signal] ?? 0));
});
child.on("error", (error) => {
  process.stderr.write(`switchyard: could not start Node: ${error.message}\n`);
  process.exit(3);
});
