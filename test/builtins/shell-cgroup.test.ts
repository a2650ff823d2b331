// The per-command cgroup, on this machine's real cgroup tree: the limits written, a process that
// joins it counted, everything killed and the folders removed on release. Runs where this
// process may create cgroups (root, as here and in CI); elsewhere the tool falls back to rlimits.

import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { createCommandCgroup } from "../../src/builtins/shell-cgroup.js";

const isRoot = process.getuid?.() === 0;

describe("createCommandCgroup", () => {
  it.skipIf(!isRoot)(
    "writes pids.max and the memory limit, counts a joined process, and removes everything on release",
    async () => {
      const cgroup = await createCommandCgroup({ maxProcesses: 7, maxMemoryBytes: 64 * 1024 * 1024 });
      expect(cgroup, "root here should be able to create a cgroup under /sys/fs/cgroup").toBeDefined();
      if (cgroup === undefined) return;
      expect(cgroup.enforces).toEqual({ processes: true, memory: true });
      const folders = cgroup.procsFiles.map((file) => dirname(file));
      const pidsFolder = folders.find((folder) => existsSync(join(folder, "pids.max"))) as string;
      expect(readFileSync(join(pidsFolder, "pids.max"), "utf8").trim()).toBe("7");
      const memoryFolder = folders.find(
        (folder) => existsSync(join(folder, "memory.limit_in_bytes")) || existsSync(join(folder, "memory.max")),
      ) as string;
      const memoryFile = existsSync(join(memoryFolder, "memory.max")) ? "memory.max" : "memory.limit_in_bytes";
      expect(readFileSync(join(memoryFolder, memoryFile), "utf8").trim()).toBe(String(64 * 1024 * 1024));

      // A process that joins (as the tool's wrapper does before exec'ing bwrap) and forks past the limit.
      const child = spawn(
        "/bin/sh",
        [
          "-c",
          `for f in "$@"; do echo $$ > "$f"; done; (sleep 30 & sleep 30 & sleep 30 & sleep 30 & sleep 30 & sleep 30 & sleep 30 & wait) 2>/dev/null; sleep 30`,
          "sh",
          ...cgroup.procsFiles,
        ],
        { stdio: "ignore" },
      );
      await new Promise((resolve) => setTimeout(resolve, 500));
      const current = Number(readFileSync(join(pidsFolder, "pids.current"), "utf8"));
      expect(current).toBeGreaterThan(1);
      expect(current).toBeLessThanOrEqual(7);

      const exited = new Promise((resolve) => child.on("exit", resolve));
      await cgroup.release();
      await exited;
      for (const folder of folders) expect(existsSync(folder)).toBe(false);
    },
  );
});
