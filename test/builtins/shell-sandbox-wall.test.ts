// The sandbox is the wall: what an attacker with a shell inside tries first (remount, umount,
// new namespaces, memory, processes, /dev/shm), run for real as the host's user (root here and
// in CI) and as an ordinary user (uid 4242 through setpriv when the tests run as root).

import { spawn } from "node:child_process";
import { closeSync, existsSync, readdirSync } from "node:fs";
import { chmod, chown, mkdir, mkdtemp, readFile, realpath, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  DEFAULT_SHELL_LIMITS,
  detectShellSandbox,
  openSeccompFilter,
  type ShellSandbox,
  sandboxedCommand,
} from "../../src/builtins/shell-sandbox.js";
import type { ShellRunResult, ShellToolOptions } from "../../src/builtins/shell-tool.js";
import { runScript } from "../helpers/shell-script.js";

const ORDINARY_UID = 4242;
const isRoot = process.getuid?.() === 0;

let root: string;
let workspace: string;
let readOnly: string;

beforeAll(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), "switchyard-wall-")));
  workspace = join(root, "workspace");
  readOnly = join(root, "read-only");
  await mkdir(workspace);
  await mkdir(readOnly);
  await writeFile(join(readOnly, "kept.txt"), "kept\n");
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

const run = (script: string, options: Partial<ShellToolOptions> = {}): Promise<ShellRunResult> =>
  runScript(workspace, script, { timeoutMs: 20_000, ...options });

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

describe("the sandbox as the host's user (root here and in CI)", () => {
  it("keeps a read-only path inside the workspace read-only (the workspace is bound after it)", async () => {
    const vendor = join(workspace, "vendor");
    await mkdir(vendor, { recursive: true });
    await writeFile(join(vendor, "kept.txt"), "kept\n");
    const result = await run("echo x >> vendor/kept.txt; echo planted > vendor/planted.txt; echo x > made.txt", {
      readOnlyPaths: [vendor],
    });
    expect(result.stderr).toMatch(/Read-only file system/);
    expect(await readFile(join(vendor, "kept.txt"), "utf8")).toBe("kept\n");
    expect(await exists(join(vendor, "planted.txt"))).toBe(false);
    expect(await readFile(join(workspace, "made.txt"), "utf8")).toBe("x\n");
  });

  it("runs commands as uid 1000 with no capabilities", async () => {
    const result = await run("id -u; id -g; grep -E '^Cap(Eff|Prm|Bnd):' /proc/self/status");
    expect(result.stdout).toBe(
      "1000\n1000\nCapPrm:\t0000000000000000\nCapEff:\t0000000000000000\nCapBnd:\t0000000000000000\n",
    );
  });

  it("cannot remount /etc read-write: mount fails and /etc stays unwritable", async () => {
    const result = await run("mount -o remount,bind,rw /etc; echo mount=$?; test -w /etc; echo writable=$?");
    expect(result.stdout).toBe("mount=32\nwritable=1\n");
  });

  // Found from outside (2026-12-03): as root the sandbox user is host uid 0, and /proc/sys and
  // /proc/sysrq-trigger obey owner bits alone, so a command set kernel.core_pattern to a program of
  // the workspace and the kernel ran it as host root. Each write here puts back the value already
  // there (and nothing to the sysrq trigger), so a wall that gave way would change nothing.
  it("cannot write /proc: not a sysctl, not the sysrq trigger, not after trying to remount it", async () => {
    const pattern = await readFile("/proc/sys/kernel/core_pattern", "utf8");
    const result = await run(
      [
        "cat /proc/sys/vm/swappiness > /proc/sys/vm/swappiness; echo sysctl=$?",
        "cat /proc/sys/kernel/core_pattern > /proc/sys/kernel/core_pattern; echo core=$?",
        "printf '' > /proc/sysrq-trigger; echo sysrq=$?",
        "mount -o remount,rw /proc; echo mount=$?",
        "test -r /proc/self/status; echo readable=$?",
      ].join("\n"),
    );
    expect(result.stdout).toBe("sysctl=2\ncore=2\nsysrq=2\nmount=32\nreadable=0\n");
    expect(result.stderr).toContain("/proc/sys/kernel/core_pattern: Read-only file system");
    expect(await readFile("/proc/sys/kernel/core_pattern", "utf8")).toBe(pattern);
  });

  // Found from outside (2026-12-03): as root the sandbox user is host uid 0, the owner of what it
  // writes, and an owner sets S_ISUID with no capability: a setuid-root dash was left in the
  // workspace (the sandbox's mount is nosuid, the host's is not), and any host user became root.
  it("cannot leave a setuid or setgid file or folder in the workspace, while chmod still works", async () => {
    const result = await run(
      [
        "cp /usr/bin/dash suid; chmod 4755 suid; echo chmod=$?",
        "chmod g+s suid; echo setgid=$?",
        "install -m 4755 /usr/bin/dash installed; echo install=$?",
        "mkdir -m 2755 shared; echo mkdir=$?",
        "chmod 700 suid; echo plain=$?",
      ].join("\n"),
    );
    expect(result.stdout).toBe("chmod=1\nsetgid=1\ninstall=1\nmkdir=1\nplain=0\n");
    for (const name of ["suid", "installed", "shared"]) {
      const mode = await stat(join(workspace, name)).then(
        (stats) => stats.mode,
        () => 0,
      );
      expect(mode & 0o6000).toBe(0);
    }
    expect((await stat(join(workspace, "suid"))).mode & 0o777).toBe(0o700);
  });

  it("cannot umount the mask over /etc/shadow to read the host's file", async () => {
    const result = await run("umount /etc/shadow; echo umount=$?; cat /etc/shadow");
    // The mask (the host's /dev/null, bound without device access) stays: nothing of the host's file.
    expect(result.stdout).toBe("umount=32\n");
    expect(result.stderr).toContain("/etc/shadow: Permission denied");
  });

  it("cannot write a readOnlyPaths folder, not even after trying to remount it", async () => {
    const result = await run(
      `mount -o remount,bind,rw ${readOnly}; echo planted > ${readOnly}/planted.txt; echo x >> ${readOnly}/kept.txt`,
      { readOnlyPaths: [readOnly] },
    );
    expect(result.stderr).toContain("Read-only file system");
    expect(await exists(join(readOnly, "planted.txt"))).toBe(false);
    expect(await readFile(join(readOnly, "kept.txt"), "utf8")).toBe("kept\n");
  });

  it.skipIf(!isRoot)(
    "hides what an ordinary user could not read in the bound folders: host root is the sandbox user's owner",
    async () => {
      const tree = join(root, "tree");
      await mkdir(join(tree, "closed"), { recursive: true });
      await writeFile(join(tree, "public.txt"), "public\n", { mode: 0o644 });
      await writeFile(join(tree, "secret.txt"), "root only\n", { mode: 0o600 });
      await writeFile(join(tree, "closed", "inside.txt"), "inside\n", { mode: 0o644 });
      await chmod(join(tree, "closed"), 0o700);
      const result = await run(
        `cat ${tree}/public.txt ${tree}/secret.txt ${tree}/closed/inside.txt; wc -c < /etc/gshadow`,
        {
          readOnlyPaths: [tree],
        },
      );
      expect(result.stdout).toBe("public\n");
      expect(result.stderr).toContain("secret.txt: Permission denied");
      expect(result.stderr).toContain("inside.txt: No such file or directory");
    },
  );

  it("refuses new namespaces (seccomp): unshare, a user namespace with root mapped, setns", async () => {
    const result = await run(
      "unshare -U true; echo user=$?; unshare -r id -u; echo root=$?; unshare -m true; echo mnt=$?",
    );
    expect(result.stdout).toBe("user=1\nroot=1\nmnt=1\n");
    expect(result.stderr).toContain("Operation not permitted");
  });

  it("cannot open a vsock socket (not separated by network namespaces), while other sockets still open", async () => {
    const result = await run(
      `perl -e 'socket(my $v, 40, 1, 0) ? print "vsock open\\n" : print "vsock: $!\\n"; socket(my $u, 1, 1, 0) ? print "unix open\\n" : print "unix: $!\\n"'`,
    );
    expect(result.stdout).toBe("vsock: Operation not permitted\nunix open\n");
  });

  it("cannot build a 512 MiB string in awk: the memory limit stops it", async () => {
    const result = await run(`awk 'BEGIN{s="x";for(i=0;i<29;i++)s=s s;print length(s)}'; echo exit=$?`);
    expect(result.stdout).not.toContain("536870912");
    expect(result.stdout).toMatch(/exit=[1-9]/);
  });

  it("cannot run 300 background processes: the process limit stops the loop", async () => {
    const result = await run(
      // dash exits when a fork fails, so the loop runs in a subshell; the count is a glob: no fork.
      "(i=0; while [ $i -lt 300 ]; do sleep 30 & i=$((i+1)); done) 2>/dev/null; echo loop=$?; set -- /proc/[0-9]*; echo $#",
    );
    const [loop, count] = result.stdout.trim().split("\n");
    expect(loop).toBe("loop=2");
    const running = Number(count);
    expect(running).toBeGreaterThan(10);
    expect(running).toBeLessThanOrEqual(DEFAULT_SHELL_LIMITS.maxProcesses);
    // The command's cgroup is gone with its processes (where one was made: root here and in CI).
    const pidsRoot = "/sys/fs/cgroup/pids";
    const left = existsSync(pidsRoot)
      ? readdirSync(pidsRoot).filter((name) => name.startsWith(`switchyard-shell-${process.pid}-`))
      : [];
    expect(left).toEqual([]);
  });

  it("cannot put 100 MB into /dev/shm, nor write new files in /dev", async () => {
    const result = await run(
      "head -c 100000000 /dev/zero > /dev/shm/fill; echo shm=$?; du -k /dev/shm/fill | cut -f1; echo x > /dev/planted; echo dev=$?",
    );
    const [shm, kilobytes, dev] = result.stdout.trim().split("\n");
    expect(shm).not.toBe("shm=0");
    expect(Number(kilobytes)).toBeLessThanOrEqual(DEFAULT_SHELL_LIMITS.maxShmBytes / 1024);
    expect(dev).toBe("dev=2");
    expect(result.stderr).toContain("No space left on device");
  });

  it("still writes the workspace, /tmp and /dev/null, and runs ordinary pipelines", async () => {
    const result = await run(
      "echo hi > made.txt && cat made.txt | tr a-z A-Z; echo t > /tmp/t && cat /tmp/t; echo x > /dev/null; echo ok",
    );
    expect(result.stdout).toBe("HI\nt\nok\n");
    expect(await readFile(join(workspace, "made.txt"), "utf8")).toBe("hi\n");
  });
});

/**
 * The bwrap command line run directly as an ordinary user: uid 4242 through setpriv when the
 * tests run as root (no cgroup then: RLIMIT_NPROC and RLIMIT_AS do the work), the current user
 * otherwise. The workspace belongs to that user, as a real one would.
 */
describe("the sandbox as an ordinary user", () => {
  let sandbox: ShellSandbox;
  let userWorkspace: string;

  beforeAll(async () => {
    const found = detectShellSandbox("none");
    if ("unavailable" in found) throw new Error(found.unavailable);
    sandbox = found;
    userWorkspace = join(root, "user-workspace");
    await mkdir(userWorkspace);
    if (isRoot) {
      await chown(userWorkspace, ORDINARY_UID, ORDINARY_UID);
      // The path down to the workspace must be searchable by that user.
      await chown(root, ORDINARY_UID, ORDINARY_UID);
    }
  });

  async function runAsUser(script: string): Promise<{ stdout: string; stderr: string; code: number | null }> {
    const env = { PATH: "/usr/bin:/bin", HOME: "/tmp", LANG: "C.UTF-8" };
    const policy = {
      workspace: userWorkspace,
      network: "none" as const,
      limits: DEFAULT_SHELL_LIMITS,
      readOnlyPaths: [],
      env,
    };
    const { file, args } = sandboxedCommand(sandbox, policy, script);
    const argv = isRoot
      ? [
          "/usr/bin/setpriv",
          `--reuid=${ORDINARY_UID}`,
          `--regid=${ORDINARY_UID}`,
          "--clear-groups",
          "--inh-caps=-all",
          "--bounding-set=-all",
          "--",
          file,
          ...args,
        ]
      : [file, ...args];
    const filter = openSeccompFilter(sandbox);
    try {
      const child = spawn(argv[0] as string, argv.slice(1), {
        cwd: userWorkspace,
        env,
        detached: true,
        stdio: ["ignore", "pipe", "pipe", filter],
      });
      let stdout = "";
      let stderr = "";
      child.stdout?.on("data", (chunk: Buffer) => {
        stdout += chunk.toString();
      });
      child.stderr?.on("data", (chunk: Buffer) => {
        stderr += chunk.toString();
      });
      const code = await new Promise<number | null>((resolve) => child.on("close", (exitCode) => resolve(exitCode)));
      return { stdout, stderr, code };
    } finally {
      closeSync(filter);
    }
  }

  it("runs as uid 1000 inside, with no capabilities, on a host uid that is not root", async () => {
    const result = await runAsUser("id -u; grep '^CapEff:' /proc/self/status; echo w > w.txt && cat w.txt");
    expect(result.stdout).toBe("1000\nCapEff:\t0000000000000000\nw\n");
  });

  it("cannot remount, umount or unshare", async () => {
    const result = await runAsUser(
      "mount -o remount,bind,rw /etc; echo mount=$?; umount /etc/shadow; echo umount=$?; unshare -U true; echo unshare=$?",
    );
    expect(result.stdout).toBe("mount=32\numount=32\nunshare=1\n");
  });

  it("cannot build a 512 MiB string in awk", async () => {
    const result = await runAsUser(`awk 'BEGIN{s="x";for(i=0;i<29;i++)s=s s;print length(s)}'; echo exit=$?`);
    expect(result.stdout).not.toContain("536870912");
  });

  it("cannot run 300 background processes (RLIMIT_NPROC binds a user that is not root)", async () => {
    const result = await runAsUser(
      "(i=0; while [ $i -lt 300 ]; do sleep 30 & i=$((i+1)); done) 2>/dev/null; echo loop=$?; set -- /proc/[0-9]*; echo $#; kill -9 -1",
    );
    const [loop, count] = result.stdout.trim().split("\n");
    expect(loop).toBe("loop=2");
    expect(Number(count)).toBeGreaterThan(10);
    expect(Number(count)).toBeLessThanOrEqual(DEFAULT_SHELL_LIMITS.maxProcesses + 1);
  });

  it("cannot put 100 MB into /dev/shm", async () => {
    const result = await runAsUser("head -c 100000000 /dev/zero > /dev/shm/fill; echo shm=$?");
    expect(result.stdout).not.toBe("shm=0\n");
    expect(result.stderr).toContain("No space left on device");
  });
});
