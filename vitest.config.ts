import { defineConfig } from "vitest/config";

// isolated-vm on Node 20 needs --no-node-snapshot, which cannot reach worker threads
// through NODE_OPTIONS: every test file runs in a forked child with the flag.
export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    pool: "forks",
    execArgv: ["--no-node-snapshot"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
