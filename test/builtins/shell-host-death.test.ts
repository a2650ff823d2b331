// A host killed outright (SIGKILL, the OOM killer) cannot kill its running commands, and where no
// cgroup can be made (a host that is not root, root with a read-only cgroup tree) no later host
// sweeps them either. What binds a command to its host then is bwrap's --die-with-parent (bwrap
// dies with the host, the sandbox's PID 1 with bwrap, and every process of the sandbox's PID
// namespace with its PID 1). Real hosts, real bwrap, as root and as an unprivileged user.

import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { cgroupsOf, type Host, startHost, waitFor } from "./fixtures/command-cgroups.js";

const isRoot = process.getuid?.() === 0;

const started: Host[] = [];
afterEach(async () => {
  for (const { process: child, exited } of started.splice(0)) {
    child.kill("SIGKILL");
    await exited;
  }
});

/** The pids of this namespace's processes whose command line is exactly `sleep <seconds>`. */
function sleepsOf(seconds: string): number[] {
  const found: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (readFileSync(`/proc/${name}/cmdline`, "utf8") === `sleep\0${seconds}\0`) found.push(Number(name));
    } catch {
      // Gone meanwhile.
    }
  }
  return found;
}

/**
 * Starts a host under `prefix` that runs sleeps trying to outlive it, SIGKILLs the host once they
 * run, and returns what is left of them after up to five seconds (with how many there were).
 */
async function sleepsLeftAfterKillingHost(prefix: readonly string[]): Promise<{ before: number[]; left: number[] }> {
  // A number no other test sleeps for: these processes, and only these, are the command's.
  const seconds = `${90 + Math.floor(Math.random() * 9)}.${process.pid}${Date.now() % 100_000}`;
  // Attack: a background job, and one that leaves the session and ignores HUP and TERM, as a
  // daemon would, both meant to keep running after the host is gone.
  const script = `sleep ${seconds} & (trap '' HUP TERM; setsid sleep ${seconds} &); sleep ${seconds}`;
  const host = startHost(script, prefix);
  started.push(host);
  const before = await waitFor(() => {
    const found = sleepsOf(seconds);
    return found.length === 3 && found;
  }, 20_000);
  // No cgroup of the host's: nothing but --die-with-parent stands between the sleeps and the host's death.
  expect(cgroupsOf(host.process.pid as number, "any")).toEqual([]);
  host.process.kill("SIGKILL");
  await host.exited;
  const left = await waitFor(() => {
    const found = sleepsOf(seconds);
    return found.length === 0 ? found : undefined;
  }, 5_000).catch(() => sleepsOf(seconds));
  for (const pid of left) process.kill(pid, "SIGKILL");
  return { before, left };
}

describe.skipIf(process.platform !== "linux")("shell.run commands when their host is SIGKILLed", () => {
  it.skipIf(!isRoot)(
    "die with a host that runs as root without a writable cgroup tree",
    async () => {
      // An empty tmpfs over /sys/fs/cgroup in a mount namespace of the host's own: no cgroup can be made.
      const noCgroups = ["unshare", "--mount", "--propagation", "private", "sh", "-c"];
      const script = 'mount -t tmpfs none /sys/fs/cgroup && exec "$@"';
      const { before, left } = await sleepsLeftAfterKillingHost([...noCgroups, script, "no-cgroups"]);
      expect(before).toHaveLength(3);
      expect(left).toEqual([]);
    },
    60_000,
  );

  // uid 65534 must be able to run this Node: a binary under root's home (CI's Node 24 and 22) is not.
  it.skipIf(isRoot && !nobodyCanRun(process.execPath))(
    "die with a host that runs as an unprivileged user",
    async () => {
      // As root (here, CI) the host drops to uid 65534 with setpriv; run by an ordinary user it is theirs.
      const nobody = ["setpriv", "--reuid", "65534", "--regid", "65534", "--clear-groups", "env", "HOME=/tmp"];
      const { before, left } = await sleepsLeftAfterKillingHost(isRoot ? nobody : []);
      expect(before).toHaveLength(3);
      expect(left).toEqual([]);
    },
    60_000,
  );
});

/**
 * Whether uid 65534 can run `node` on this checkout: every folder on both paths searchable (a Node or
 * a checkout under root's home or a mode-700 temporary folder, as CI's Node 24 copy is, is not).
 */
function nobodyCanRun(node: string): boolean {
  const checkout = fileURLToPath(new URL("../..", import.meta.url));
  const read = `require("node:fs").readdirSync(${JSON.stringify(join(checkout, "node_modules"))})`;
  const nobody = ["--reuid", "65534", "--regid", "65534", "--clear-groups", node, "-e", read];
  return spawnSync("setpriv", nobody).status === 0;
}
