#!/usr/bin/env node
// Entry point of the `switchyard` command. isolated-vm needs --no-node-snapshot, which cannot be
// set from inside a running process, so this re-executes Node with it, forwards SIGINT and
// SIGTERM to the child, and mirrors the child's exit code. It runs the compiled JavaScript in
// dist/ (an installed package; a checkout whose build is newer than its sources) and falls back
// to the TypeScript sources through tsx only in a checkout that is not built or built stale.

import { spawn } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { constants } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const compiled = join(root, "dist/src/cli/main.js");
const source = join(root, "src/cli/main.ts");
// The outputs of `npm run build`: tsc's, then the bundles written after it from runtime/ and browser/.
const BUILT = ["dist/src/cli/main.js", "dist/runtime/guest-runtime.iife.js", "dist/browser/timeline-page.iife.js"];
const SOURCES = ["src", "runtime", "browser", "examples/orders"];

/** The newest modification time under `folder` (0 for a missing folder). */
function newestIn(folder) {
  let newest = 0;
  for (const entry of readdirSync(folder, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) newest = Math.max(newest, statSync(join(entry.parentPath ?? entry.path, entry.name)).mtimeMs);
  }
  return newest;
}

/** Whether dist/ holds a build at least as new as every source it was built from. */
function builtAndFresh() {
  const built = BUILT.map((path) => join(root, path));
  if (!built.every((path) => existsSync(path))) return false;
  // An installed package has no sources: its dist/ is the build.
  if (!existsSync(source)) return true;
  const buildTime = Math.min(...built.map((path) => statSync(path).mtimeMs));
  return SOURCES.every((folder) => !existsSync(join(root, folder)) || newestIn(join(root, folder)) <= buildTime);
}

const fromSource = !builtAndFresh() && existsSync(source);
// Compiled code loads tsx only when a tool module is TypeScript (load-tool-module.ts), which keeps
// `--help` and `--version` fast; the sources need it from the start.
const flags = fromSource ? ["--no-node-snapshot", "--import", import.meta.resolve("tsx")] : ["--no-node-snapshot"];
// From the sources, `switchyard-runtime` imports (the demo's) resolve to the sources through
// tsconfig.json's paths, from whatever folder the command runs in.
const env = fromSource ? { ...process.env, TSX_TSCONFIG_PATH: join(root, "tsconfig.json") } : process.env;

const child = spawn(process.execPath, [...flags, fromSource ? source : compiled, ...process.argv.slice(2)], {
  stdio: "inherit",
  env,
});
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
