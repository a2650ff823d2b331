#!/usr/bin/env node
// Entry point of the `switchyard` command. isolated-vm on Node 20 needs --no-node-snapshot,
// which cannot be set from inside a running process, so this re-executes Node with it (and
// with tsx, so tool modules may be TypeScript), then mirrors the child's exit.

import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

const compiled = fileURLToPath(new URL("../dist/src/cli/main.js", import.meta.url));
const source = fileURLToPath(new URL("../src/cli/main.ts", import.meta.url));
// A checkout has the sources (and maybe a stale build); an installed package only dist/.
const entry = existsSync(source) ? source : compiled;
const flags = ["--no-node-snapshot", "--import", import.meta.resolve("tsx")];

const child = spawn(process.execPath, [...flags, entry, ...process.argv.slice(2)], { stdio: "inherit" });
// Ctrl-C reaches the child through the terminal's process group; the parent only waits.
process.on("SIGINT", () => {});
process.on("SIGTERM", () => child.kill("SIGTERM"));
child.on("exit", (code, signal) => {
  if (signal !== null) process.kill(process.pid, signal);
  else process.exit(code ?? 1);
});
