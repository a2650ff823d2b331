import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

// Examples import the package by name (`switchyard-runtime`, `switchyard-runtime/agent`, ...),
// as a user would; tests resolve those names to the sources through tsconfig.json's `paths`,
// the one list of entry points that tsc and tsx read too.
const { compilerOptions } = JSON.parse(readFileSync(new URL("./tsconfig.json", import.meta.url), "utf8")) as {
  compilerOptions: { paths: Record<string, [string]> };
};
// Only the package's own names: "isolated-vm" is there for tsc and tsx (two install folders, the
// first that exists wins), and loadIsolatedVm resolves it through Node's require, not vite.
const alias = Object.entries(compilerOptions.paths)
  .filter(([name]) => name.startsWith("switchyard-runtime"))
  .map(([name, [target]]) => ({
    find: new RegExp(`^${name.replaceAll("/", "\\/")}$`),
    replacement: fileURLToPath(new URL(target, import.meta.url)),
  }));

// isolated-vm on Node 20 needs --no-node-snapshot, which cannot reach worker threads
// through NODE_OPTIONS: every test file runs in a forked child with the flag.
export default defineConfig({
  resolve: { alias },
  test: {
    include: ["test/**/*.test.ts"],
    pool: "forks",
    execArgv: ["--no-node-snapshot"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
