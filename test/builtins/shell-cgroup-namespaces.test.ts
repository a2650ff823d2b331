// The stale-cgroup sweep and PID namespaces: a host's first command removes the command cgroups of
// hosts that no longer run, judged by pid and start time. A pid means something only in its own
// PID namespace, and several namespaces share one cgroup tree (containers on one machine, a host
// under `unshare --pid`): a live host there looks dead from here. Real hosts, real namespaces
// (unshare, nsenter), the real cgroup tree; runs where this process may create cgroups (root, as CI).

import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { removeStaleCommandCgroups } from "../../src/builtins/shell-cgroup.js";
import {
  cgroupsOf,
  childOf,
  DEAD_PID,
  type Host,
  innerPidOf,
  ownCgroupFolders,
  pidNamespaceOf,
  startHost,
  startTimeOf,
  waitFor,
} from "./fixtures/command-cgroups.js";

const isRoot = process.getuid?.() === 0;
const OWN_NAMESPACE = pidNamespaceOf("self");

const SWEEP = fileURLToPath(new URL("./fixtures/sweep-stale-cgroups.ts", import.meta.url));

const started: Host[] = [];
function host(...args: Parameters<typeof startHost>): Host {
  const made = startHost(...args);
  started.push(made);
  return made;
}

afterEach(async () => {
  // A failed test leaves no host behind (unshare --kill-child takes the namespace's node with it).
  for (const { process: child, exited } of started.splice(0)) {
    child.kill("SIGKILL");
    await exited;
  }
});

/** The node process of a host started under unshare or nsenter (their child), once it runs. */
async function nodeOf(wrapped: Host): Promise<number> {
  const wrapper = wrapped.process.pid as number;
  return waitFor(() => {
    const child = childOf(wrapper);
    return child !== undefined && readCommand(child).includes("run-shell-command") ? child : undefined;
  }, 20_000);
}

/** Removes a cgroup folder once the kernel has emptied it (a killed process leaves it a moment later). */
async function removeWhenEmpty(folder: string): Promise<void> {
  await waitFor(() => {
    try {
      if (existsSync(folder)) rmdirSync(folder);
      return true;
    } catch {
      return false;
    }
  }, 5_000);
}

/** A Node command line that runs the TypeScript file `path` as the test hosts do. */
function tsx(path: string): string[] {
  return [process.execPath, "--import", "tsx", path];
}

/** Runs a command to its end; its exit code and output. */
function run(argv: readonly string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(argv[0] as string, argv.slice(1), { stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk));
  return new Promise((resolve) => child.on("close", (code) => resolve({ code, stdout, stderr })));
}

function readCommand(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8");
  } catch {
    return "";
  }
}

describe.skipIf(!isRoot)("the stale-cgroup sweep across PID namespaces", () => {
  it("never touches a live host's cgroups in another PID namespace, and still removes a killed host's of its own", async () => {
    // Attack: a second container on the same cgroup tree (here `unshare --pid --fork --mount-proc`)
    // runs a host as its pid 1. From this namespace pid 1 is init, started at another time: the
    // sweep took that host for dead and SIGKILLed the command it was running.
    const foreign = host("sleep 6; echo survived", ["unshare", "--pid", "--fork", "--mount-proc", "--kill-child"]);
    const killed = host("sleep 60");
    const foreignNode = await nodeOf(foreign);
    expect(pidNamespaceOf(foreignNode)).not.toBe(OWN_NAMESPACE);
    expect(innerPidOf(foreignNode)).toBe(1);
    const foreignCgroups = await waitFor(() => {
      const found = cgroupsOf(1, startTimeOf(foreignNode));
      return found.length > 0 && found;
    }, 20_000);
    const killedPid = killed.process.pid as number;
    const killedStart = startTimeOf(killedPid);
    const killedCgroups = await waitFor(() => {
      const found = cgroupsOf(killedPid, killedStart);
      return found.length > 0 && found;
    }, 20_000);

    killed.process.kill("SIGKILL");
    await killed.exited;
    const removed = await removeStaleCommandCgroups();

    // Gone (this sweep's work, or a concurrent test host's first command's: either is this code).
    for (const folder of killedCgroups) expect(existsSync(folder), folder).toBe(false);
    for (const folder of foreignCgroups) expect(existsSync(folder), folder).toBe(true);
    expect(removed.filter((folder) => foreignCgroups.includes(folder))).toEqual([]);
    const { code, result, stderr } = await foreign.exited;
    expect(code, stderr).toBe(0);
    expect(result).toMatchObject({ exitCode: 0, signal: null, stdout: "survived\n" });
  }, 60_000);

  it("does not sweep from a PID namespace whose /proc belongs to another namespace", async () => {
    // Attack: a process joins a host's PID namespace but keeps this namespace's /proc (`nsenter
    // --pid`, or `unshare --pid` without a /proc of its own). Its sweep matched the host's folders
    // (same namespace), looked up the host's pid 1 in the wrong /proc, found init with another start
    // time, and SIGKILLed the host's running command. (A sandboxed command cannot run in such a
    // namespace at all: see the next test; the sweep is checked here directly.)
    const first = host("sleep 6; echo survived", ["unshare", "--pid", "--fork", "--mount-proc", "--kill-child"]);
    const firstNode = await nodeOf(first);
    const firstCgroups = await waitFor(() => {
      const found = cgroupsOf(1, startTimeOf(firstNode));
      return found.length > 0 && found;
    }, 20_000);

    const sweep = await run(["nsenter", `--target=${firstNode}`, "--pid", "--", ...tsx(SWEEP)]);
    expect(sweep.code, sweep.stderr).toBe(0);
    expect(JSON.parse(sweep.stdout)).toEqual([]);

    for (const folder of firstCgroups) expect(existsSync(folder), folder).toBe(true);
    const { code, result, stderr } = await first.exited;
    expect(code, stderr).toBe(0);
    expect(result).toMatchObject({ exitCode: 0, signal: null, stdout: "survived\n" });
  }, 60_000);

  it("refuses a sandboxed command at once in a PID namespace whose /proc belongs to another namespace", async () => {
    // bwrap finds the namespaces it made by its child's pid in /proc: here that pid is another
    // namespace's process. It failed and left its child blocked, so the probe waited its 10 s
    // timeout (Node 24), or it read an unrelated process's namespaces and went on (Node 20).
    const started = Date.now();
    const refused = host("echo ran", ["unshare", "--pid", "--fork", "--kill-child"]);
    const { code, result, stderr } = await refused.exited;
    expect(result).toBeUndefined();
    expect(code).toBe(1);
    expect(stderr).toContain("SANDBOX_UNAVAILABLE");
    expect(stderr).toContain("whose /proc belongs to another namespace (unshare --pid without --mount-proc)");
    // Node and tsx start in well under this; the probe's timeout alone was 10 s.
    expect(Date.now() - started).toBeLessThan(8_000);
  }, 30_000);

  it("survives stale folders holding processes it cannot see, and leaves those processes alone", async () => {
    // Attack: a process of another namespace is put into a stale folder of this host's namespace.
    // cgroup v2's cgroup.procs lists a process the reader cannot see as pid 0, and kill(0, SIGKILL)
    // kills the caller's own process group: the sweeping host killed itself. (cgroup v1, as on
    // this machine, leaves such a process out of the list: here the folder just cannot be removed.)
    const flag = join(mkdtempSync(join(tmpdir(), "switchyard-sweep-flag-")), "go");
    const gated = `while [ ! -e ${flag} ]; do sleep 0.05; done; exec "$@"`;
    const prefix = ["unshare", "--pid", "--fork", "--mount-proc", "--kill-child", "sh", "-c", gated, "gated"];
    const sweeping = host("echo ran", prefix);
    const gate = await waitFor(() => childOf(sweeping.process.pid as number), 20_000);
    const namespace = pidNamespaceOf(gate);
    // The names a host there sweeps (its namespace's) and those of the version before (any namespace).
    const names = [
      `switchyard-shell-ns${namespace}-${DEAD_PID}-1-0badc0de-1`,
      `switchyard-shell-${DEAD_PID}-1-0badc0de-1`,
    ];
    // A process is in one cgroup per hierarchy: one invisible process per name.
    const invisible = names.map(() => spawn("sleep", ["30"], { stdio: "ignore" }));
    const invisibleExited = invisible.map((child) => new Promise((resolve) => child.on("exit", resolve)));
    const planted: string[] = [];
    try {
      for (const folder of ownCgroupFolders()) {
        for (const [index, name] of names.entries()) {
          mkdirSync(join(folder, name));
          planted.push(join(folder, name));
          writeFileSync(join(folder, name, "cgroup.procs"), String(invisible[index]?.pid));
        }
      }
      writeFileSync(flag, "");
      const { code, result, stderr } = await sweeping.exited;
      expect(code, stderr).toBe(0);
      expect(result).toMatchObject({ exitCode: 0, stdout: "ran\n" });
      for (const child of invisible) expect([child.exitCode, child.signalCode]).toEqual([null, null]);
      for (const folder of planted) expect(existsSync(folder), folder).toBe(true);
    } finally {
      for (const child of invisible) child.kill("SIGKILL");
      await Promise.all(invisibleExited);
      for (const folder of planted) await removeWhenEmpty(folder);
      rmSync(dirname(flag), { recursive: true, force: true });
    }
  }, 60_000);

  it("removes a dead owner's folder of its own PID namespace, never one of another namespace with the same pid", async () => {
    const folders = ownCgroupFolders();
    const own = folders.map((folder) => join(folder, `switchyard-shell-ns${OWN_NAMESPACE}-${DEAD_PID}-1-0badc0de-1`));
    const other = folders.flatMap((folder) => [
      join(folder, `switchyard-shell-ns${OWN_NAMESPACE + 1}-${DEAD_PID}-1-0badc0de-1`),
      // A namespace no number can hold: not this one either.
      join(folder, `switchyard-shell-ns${"9".repeat(200)}-${DEAD_PID}-1-0badc0de-1`),
    ]);
    for (const folder of [...own, ...other]) mkdirSync(folder);
    try {
      await removeStaleCommandCgroups();
      for (const folder of own) expect(existsSync(folder), folder).toBe(false);
      for (const folder of other) expect(existsSync(folder), folder).toBe(true);
    } finally {
      for (const folder of [...own, ...other]) if (existsSync(folder)) rmdirSync(folder);
    }
  });
});

describe.skipIf(!isRoot)("the stale-cgroup sweep and folders of earlier versions", () => {
  it("leaves folders named without a PID namespace alone, even with a dead pid and a process inside", async () => {
    // Why not swept: a name of pid only (or pid and start time) does not say which namespace it
    // belongs to, so no host can prove its owner dead; a live host of an earlier version in
    // another container would lose its running command. Such a folder holds nothing once its
    // host died (bwrap dies with its parent), so leaving it costs an empty cgroup, not a process.
    const folders = ownCgroupFolders();
    const pidOnly = folders.map((folder) => join(folder, `switchyard-shell-${DEAD_PID}-1`));
    const pidAndStart = folders.map((folder) => join(folder, `switchyard-shell-${DEAD_PID}-1-0badc0de-1`));
    for (const folder of [...pidOnly, ...pidAndStart]) mkdirSync(folder);
    const inside = spawn("sleep", ["30"], { stdio: "ignore" });
    const insideExited = new Promise((resolve) => inside.on("exit", resolve));
    try {
      for (const folder of pidAndStart) writeFileSync(join(folder, "cgroup.procs"), String(inside.pid));
      const removed = await removeStaleCommandCgroups();
      for (const folder of [...pidOnly, ...pidAndStart]) {
        expect(existsSync(folder), folder).toBe(true);
        expect(removed).not.toContain(folder);
      }
      expect(inside.exitCode).toBeNull();
      expect(inside.signalCode).toBeNull();
    } finally {
      inside.kill("SIGKILL");
      await insideExited;
      for (const folder of [...pidOnly, ...pidAndStart]) await removeWhenEmpty(folder);
    }
  });
});
