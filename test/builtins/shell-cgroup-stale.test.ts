// Cgroups of hosts that were killed outright: a host SIGKILLed while a command runs cannot release
// its cgroup, and names made of the pid alone let a later host with the same pid clash with what
// was left (its mkdir failed, and the command silently ran with rlimits only). Real child hosts,
// the real cgroup tree; runs where this process may create cgroups (root, as here and in CI).

import { existsSync, mkdirSync, readdirSync, rmdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createCommandCgroup, removeStaleCommandCgroups } from "../../src/builtins/shell-cgroup.js";
import {
  DEAD_PID,
  ownCgroupFolders,
  pidNamespaceOf,
  startHost,
  startTimeOf,
  waitFor,
} from "./fixtures/command-cgroups.js";

const isRoot = process.getuid?.() === 0;
// The part of a name that says which PID namespace its host ran in (this process's, here).
const NS = `ns${pidNamespaceOf("self")}`;

/** The command cgroups of host `pid` (of this namespace), in every folder. */
function cgroupsOf(pid: number): string[] {
  return ownCgroupFolders().flatMap((folder) =>
    readdirSync(folder)
      .filter((name) => name.startsWith(`switchyard-shell-${NS}-${pid}-`))
      .map((name) => join(folder, name)),
  );
}

describe.skipIf(!isRoot)("command cgroups of hosts that were killed", () => {
  it("removes a SIGKILLed host's cgroups at the next host's first command, and never a live host's", async () => {
    const killed = startHost("sleep 60");
    const running = startHost("sleep 60");
    await waitFor(
      () => cgroupsOf(killed.process.pid!).length > 0 && cgroupsOf(running.process.pid!).length > 0,
      20_000,
    );
    const left = cgroupsOf(killed.process.pid!);
    killed.process.kill("SIGKILL");
    await killed.exited;
    // bwrap dies with its parent, the sandbox with bwrap: the cgroups are left behind, empty.
    await new Promise((resolve) => setTimeout(resolve, 300));
    for (const folder of left) expect(existsSync(folder), folder).toBe(true);

    const next = startHost("true");
    expect((await next.exited).code).toBe(0);
    for (const folder of left) expect(existsSync(folder), folder).toBe(false);
    // The other host still runs its command: its cgroups stay.
    expect(cgroupsOf(running.process.pid!).length).toBeGreaterThan(0);
    running.process.kill("SIGTERM");
    await running.exited;
    const after = startHost("true");
    await after.exited;
  }, 60_000);

  it("makes its cgroup although a folder is left under the name a host of the same pid used before", async () => {
    // What a killed host of this pid left under the old names (pid and a counter only).
    const planted = ownCgroupFolders().flatMap((folder) =>
      [1, 2].map((counter) => join(folder, `switchyard-shell-${process.pid}-${counter}`)),
    );
    for (const folder of planted) mkdirSync(folder);
    try {
      const cgroup = await createCommandCgroup({ maxProcesses: 7, maxMemoryBytes: 64 * 1024 * 1024 });
      expect(cgroup?.enforces).toEqual({ processes: true, memory: true });
      await cgroup?.release();
      // Not a name this module makes now: left alone.
      for (const folder of planted) expect(existsSync(folder)).toBe(true);
    } finally {
      for (const folder of planted) rmdirSync(folder);
    }
  });

  it("removes a folder named with this process's pid and another start time (a host before it), never its own", async () => {
    const folders = ownCgroupFolders();
    const before = folders.map((folder) => join(folder, `switchyard-shell-${NS}-${process.pid}-1-0badc0de-1`));
    const own = folders.map((folder) =>
      join(folder, `switchyard-shell-${NS}-${process.pid}-${startTimeOf("self")}-0badc0de-1`),
    );
    // A pid no number can hold: no process owns it either.
    const hostile = folders.map((folder) => join(folder, `switchyard-shell-${NS}-${"9".repeat(200)}-1-0badc0de-1`));
    for (const folder of [...before, ...own, ...hostile]) mkdirSync(folder);
    try {
      const removed = await removeStaleCommandCgroups();
      for (const folder of [...before, ...hostile]) expect(existsSync(folder), folder).toBe(false);
      expect(removed).toEqual(expect.arrayContaining([...before, ...hostile]));
      for (const folder of own) expect(existsSync(folder), folder).toBe(true);
    } finally {
      for (const folder of [...before, ...own, ...hostile]) if (existsSync(folder)) rmdirSync(folder);
    }
  });

  it("spends one round of retries on folders it cannot remove, however many there are", async () => {
    // A cgroup made inside a stale one keeps it from being removed: each costs 40 tries 50 ms apart.
    const stuck = ownCgroupFolders().flatMap((folder) =>
      [1, 2, 3, 4].map((counter) => join(folder, `switchyard-shell-${NS}-${DEAD_PID}-1-0badc0de-${counter}`)),
    );
    for (const folder of stuck) mkdirSync(join(folder, "inner"), { recursive: true });
    try {
      const startedAt = Date.now();
      const removed = await removeStaleCommandCgroups();
      // One after another they took 2 s each (8 s or more: four per hierarchy); at once, about 2 s in all.
      expect(Date.now() - startedAt).toBeLessThan(6_000);
      for (const folder of stuck) {
        expect(existsSync(folder), folder).toBe(true);
        expect(removed).not.toContain(folder);
      }
    } finally {
      for (const folder of stuck) {
        rmdirSync(join(folder, "inner"));
        rmdirSync(folder);
      }
    }
  }, 30_000);
});
