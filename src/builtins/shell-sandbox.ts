// Builds the bubblewrap (bwrap) command line that runs one shell command in an OS sandbox on
// Linux: the system folders read-only, the workspace the only writable bind, a private sized
// /tmp and /dev/shm, a read-only minimal /dev, new user/PID/IPC/UTS/cgroup (and, unless granted,
// network) namespaces, a non-root uid with no capabilities, a seccomp filter (shell-seccomp.ts),
// a fixed environment and resource limits set with prlimit inside. It refuses to pretend: where
// bwrap is missing or cannot create namespaces, `detectShellSandbox` says why and nothing runs.
//
// Why bwrap directly rather than @anthropic-ai/sandbox-runtime: that package declares Node
// >= 22.12 (Switchyard supports Node 20), is at 0.0.x, and filters hosts with an HTTP/SOCKS
// proxy plus socat and seccomp: more moving parts than an on/off network switch needs. bwrap
// is one Debian package (`bubblewrap`), and the argument list below is the whole policy.

import { type SpawnSyncReturns, spawnSync } from "node:child_process";
import {
  closeSync,
  existsSync,
  lstatSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readlinkSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { procShowsOwnPidNamespace } from "./proc-namespace.js";
import { seccompFilter } from "./shell-seccomp.js";

/** Whether commands may use the network: `none` (a new, empty network namespace) or `host`. */
export type ShellNetwork = "none" | "host";

/** Per-command resource limits, applied inside the sandbox with prlimit (setrlimit). */
export interface ShellLimits {
  /** CPU seconds each process may use (RLIMIT_CPU, per process); then it is killed. Default 30. */
  readonly cpuSeconds?: number;
  /** Largest file a process may write, in bytes (RLIMIT_FSIZE); past it the write fails with SIGXFSZ. Default 64 MiB. */
  readonly maxFileBytes?: number;
  /**
   * Most processes of the command at once. Default 256. Enforced by a `pids` cgroup where the
   * host lets Switchyard make one (root, or a delegated cgroup v2 tree), else by RLIMIT_NPROC,
   * which binds a host user that is not root (counted per user inside the sandbox's namespace)
   * but not root: see docs/shell-sandbox.md.
   */
  readonly maxProcesses?: number;
  /**
   * Memory of the command, in bytes. Default 512 MiB. Each process's address space is capped
   * at this (RLIMIT_AS, which binds root too); where a memory cgroup can be made, the whole
   * command (all its processes and what it writes to /tmp and /dev/shm) is capped at it as well.
   */
  readonly maxMemoryBytes?: number;
  /** Size of the private /tmp (a tmpfs, held in memory), in bytes. Default 64 MiB. */
  readonly maxTmpBytes?: number;
  /** Size of /dev/shm (a tmpfs, held in memory), in bytes. Default 8 MiB. */
  readonly maxShmBytes?: number;
}

/** Where the sandbox's programs are; found once by `detectShellSandbox`. */
export interface ShellSandbox {
  readonly bwrapPath: string;
  readonly prlimitPath: string;
  /** The pinned shell, dash (see `findPinnedShell`). */
  readonly shellPath: string;
  /** bash, which only closes inherited descriptors before the command runs (see `CLOSE_INHERITED_FDS`). */
  readonly closerPath: string;
  /** A file holding the seccomp filter (in a private folder): opened once per command for bwrap. */
  readonly seccompPath: string;
}

/** Everything one sandboxed command depends on. */
export interface SandboxPolicy {
  /** Real path of the workspace: bound read-write at the same path, and the working folder. */
  readonly workspace: string;
  readonly network: ShellNetwork;
  readonly limits: Required<ShellLimits>;
  /** Extra host folders or files made visible read-only (absolute paths). */
  readonly readOnlyPaths: readonly string[];
  /** The complete environment of the command. */
  readonly env: Readonly<Record<string, string>>;
}

/** The limits a command gets when ShellToolOptions.limits leaves one out. */
export const DEFAULT_SHELL_LIMITS: Required<ShellLimits> = {
  cpuSeconds: 30,
  maxFileBytes: 64 * 1024 * 1024,
  maxProcesses: 256,
  maxMemoryBytes: 512 * 1024 * 1024,
  maxTmpBytes: 64 * 1024 * 1024,
  maxShmBytes: 8 * 1024 * 1024,
};

/**
 * The uid and gid commands run as inside the sandbox: never 0, so no capability is held or
 * regained (`--cap-drop ALL`, and bwrap sets no_new_privs), whatever user the host runs as.
 */
export const SANDBOX_UID = 1000;
export const SANDBOX_GID = 1000;

/** The descriptor on which bwrap reads the seccomp filter (see `openSeccompFilter`). */
export const SECCOMP_FD = 3;

/** HOME inside the sandbox: the private /tmp, never the workspace (a planted .gitconfig stays unread). */
export const SANDBOX_HOME = "/tmp";

// Only these locations are trusted to hold the real programs: never the host's PATH.
const BWRAP_LOCATIONS = ["/usr/bin/bwrap", "/bin/bwrap", "/usr/local/bin/bwrap"];
const PRLIMIT_LOCATIONS = ["/usr/bin/prlimit", "/bin/prlimit"];
// dash, whatever /bin/sh is: the classifier parses POSIX sh as dash reads it (bash as sh accepts
// $'…', [[ ]] and more, which would read differently). Debian and Ubuntu's /bin/sh; macOS ships it.
const DASH_LOCATIONS = ["/usr/bin/dash", "/bin/dash"];
// bash closes descriptors of any number (dash only 0-9); it runs a fixed script, never the command.
const BASH_LOCATIONS = ["/usr/bin/bash", "/bin/bash"];
// The system as programs need it; /home, /root, /var, /run, /srv and /work stay invisible.
const SYSTEM_PATHS = ["/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc"];
// Secrets in /etc that a process of the host's user (often root in containers) could read.
const MASKED_FILES = ["/etc/shadow", "/etc/shadow-", "/etc/gshadow", "/etc/gshadow-", "/etc/sudoers"];
const MASKED_FOLDERS = ["/etc/ssh", "/etc/sudoers.d", "/etc/ssl/private"];

const probes = new Map<string, string | undefined>();

/**
 * Finds bwrap and prlimit in the standard system folders and checks, once per process and
 * network mode, that bwrap can really create its namespaces here (a run of `/bin/true`).
 * Returns the sandbox, or the reason there is none (not Linux, bwrap missing, user
 * namespaces disabled …), with what to install. Never throws.
 */
export function detectShellSandbox(network: ShellNetwork): ShellSandbox | { readonly unavailable: string } {
  if (process.platform !== "linux") {
    return {
      unavailable: `no shell sandbox on ${process.platform}: only Linux (bubblewrap) is supported; macOS sandbox-exec is deprecated and not used`,
    };
  }
  const bwrapPath = BWRAP_LOCATIONS.find((path) => existsSync(path));
  if (bwrapPath === undefined) {
    return { unavailable: "bubblewrap is not installed (apt-get install -y bubblewrap)" };
  }
  const prlimitPath = PRLIMIT_LOCATIONS.find((path) => existsSync(path));
  if (prlimitPath === undefined) {
    return { unavailable: "prlimit is not installed (apt-get install -y util-linux)" };
  }
  const shellPath = findPinnedShell();
  if (shellPath === undefined) {
    return {
      unavailable: "dash is not installed (apt-get install -y dash): shell.run runs dash, the dialect it parses",
    };
  }
  const closerPath = findFdCloser();
  if (closerPath === undefined) {
    return {
      unavailable:
        "bash is not installed (apt-get install -y bash): the sandbox uses it to close the descriptors a command would inherit",
    };
  }
  if (!procShowsOwnPidNamespace()) {
    // bwrap finds the namespaces it made by the child's pid in /proc: here that pid names another
    // namespace's process (it failed, hung 10 s, or read an unrelated process's namespaces).
    return {
      unavailable:
        "this process runs in a PID namespace whose /proc belongs to another namespace (unshare --pid without --mount-proc), where bubblewrap would look up the wrong processes; give the namespace its own /proc (unshare --mount-proc, or a container runtime's default)",
    };
  }
  const sandbox = { bwrapPath, prlimitPath, shellPath, closerPath, seccompPath: seccompFile() };
  const key = `${bwrapPath}\0${network}`;
  if (!probes.has(key)) probes.set(key, probe(sandbox, network));
  const failure = probes.get(key);
  return failure === undefined ? sandbox : { unavailable: failure };
}

/**
 * The program and arguments that run `dash -c <commandLine>` under `policy`. The command
 * sees: the system folders read-only (with /etc/shadow and similar masked), `readOnlyPaths`
 * read-only, the workspace read-write at its real path (its working folder), a private /tmp
 * of `maxTmpBytes`, a read-only /dev of the usual device nodes with a /dev/shm of `maxShmBytes`,
 * a fresh /proc (its own processes only), no network unless `host`, and the limits. It runs as
 * uid/gid 1000 with no capabilities, under the seccomp filter read from descriptor 3: spawn bwrap
 * with `openSeccompFilter(sandbox)` as its fourth stdio entry. bwrap is killed with its parent (`--die-with-parent`), and the whole
 * PID namespace dies with it. The command inherits bwrap's environment, so spawn bwrap with
 * exactly `policy.env`: never the host's, which the sandbox's PID 1 (a copy of bwrap) would
 * show in /proc/1/environ. (Not `--setenv`: its values would be visible in the host's `ps`.)
 */
export function sandboxedCommand(
  sandbox: ShellSandbox,
  policy: SandboxPolicy,
  commandLine: string,
): { file: string; args: string[] } {
  return {
    file: sandbox.bwrapPath,
    args: [...sandboxArguments(policy), ...commandArguments(sandbox, policy, commandLine)],
  };
}

/**
 * bwrap's arguments before `--` for `policy`: the same for every command of a policy, and built
 * with a file-system look at each system path and mask, so build them once per policy.
 */
export function sandboxArguments(policy: SandboxPolicy): string[] {
  return [
    ...isolationArguments(policy),
    "--bind",
    policy.workspace,
    policy.workspace,
    // Binds apply in order: a read-only path inside the workspace would be writable again under it.
    ...policy.readOnlyPaths
      .filter((path) => path.startsWith(`${policy.workspace}/`))
      .flatMap((path) => ["--ro-bind", path, path]),
    // bwrap's own root is a writable tmpfs: nothing outside the binds may be written.
    "--remount-ro",
    "/",
    "--chdir",
    policy.workspace,
  ];
}

/**
 * Run by bash (`-p`: no BASH_ENV, no functions from the environment) before the command, inside
 * the sandbox and on the unsandboxed path alike: closes every descriptor above 2, then execs its
 * arguments. bwrap and Node's spawn pass on every descriptor without close-on-exec, and the host
 * may hold some it was started with (a CI runner's pipe, a native addon's file): Node marks only
 * its first few close-on-exec at start-up. It lists its descriptors in /proc/self/fd (bash reads
 * the folder itself), or /dev/fd where there is no /proc (macOS), and refuses to run the command
 * (exit 126) where neither is. Not /proc/$$/fd: in a PID namespace whose /proc is another's
 * (`unshare --pid` without a /proc of its own), $$ there is another process.
 */
export const CLOSE_INHERITED_FDS =
  'd=/proc/self/fd; [ -d "$d" ] || d=/dev/fd; [ -d "$d" ] || exit 126; for fd in "$d"/*; do fd=${fd##*/}; case $fd in *[!0-9]*) continue;; esac; [ "$fd" -gt 2 ] && eval "exec $fd>&-"; done; exec "$@"';

/** The arguments after `sandboxArguments(policy)` that run `commandLine`, with only stdin, stdout and stderr open. */
export function commandArguments(sandbox: ShellSandbox, policy: SandboxPolicy, commandLine: string): string[] {
  return [
    "--",
    ...withInheritedFdsClosed(
      sandbox.closerPath,
      limitedCommand(sandbox.prlimitPath, sandbox.shellPath, policy.limits, commandLine),
    ),
  ];
}

/** `argv` run through `closerPath` (bash) with `CLOSE_INHERITED_FDS`: it starts with only descriptors 0, 1 and 2. */
export function withInheritedFdsClosed(closerPath: string, argv: readonly string[]): string[] {
  return [closerPath, "-p", "-c", CLOSE_INHERITED_FDS, "close-inherited-fds", ...argv];
}

/** `prlimit <limits> -- <dash> -c <commandLine>`: also what the unsandboxed shell runs. */
export function limitedCommand(
  prlimitPath: string,
  shellPath: string,
  limits: Required<ShellLimits>,
  commandLine: string,
): string[] {
  return [
    prlimitPath,
    `--cpu=${limits.cpuSeconds}`,
    `--fsize=${limits.maxFileBytes}`,
    `--nproc=${limits.maxProcesses}`,
    `--as=${limits.maxMemoryBytes}`,
    "--core=0",
    "--",
    shellPath,
    "-c",
    commandLine,
  ];
}

/** The shell commands run with: dash, at its standard path; undefined where it is not installed. */
export function findPinnedShell(): string | undefined {
  return DASH_LOCATIONS.find((path) => existsSync(path));
}

/** bash at its standard path, for `withInheritedFdsClosed` on the unsandboxed path; undefined where it is not installed. */
export function findFdCloser(): string | undefined {
  return BASH_LOCATIONS.find((path) => existsSync(path));
}

/** prlimit where it is installed, for the unsandboxed shell; undefined elsewhere. */
export function findPrlimit(): string | undefined {
  return process.platform === "linux" ? PRLIMIT_LOCATIONS.find((path) => existsSync(path)) : undefined;
}

/**
 * Opens the seccomp filter for one bwrap: pass the descriptor as stdio entry 3 of the spawn and
 * close it afterwards. One open per command, since bwrap reads it to the end (a shared offset).
 */
export function openSeccompFilter(sandbox: ShellSandbox): number {
  // Written again if a temp-folder cleaner removed it; a failure to open fails the call, closed.
  return openSync(existsSync(sandbox.seccompPath) ? sandbox.seccompPath : seccompFile(), "r");
}

let seccompPath: string | undefined;

/** Writes the filter once per process into a private folder (mode 0700) and returns its path. */
function seccompFile(): string {
  if (seccompPath === undefined || !existsSync(seccompPath)) {
    const folder = mkdtempSync(join(tmpdir(), "switchyard-seccomp-"));
    seccompPath = join(folder, "filter.bpf");
    writeFileSync(seccompPath, seccompFilter(), { mode: 0o400 });
  }
  return seccompPath;
}

function isolationArguments({ network, readOnlyPaths, limits }: SandboxPolicy): string[] {
  const args = [
    "--die-with-parent",
    // setsid: a command cannot push keystrokes into a terminal of the host (TIOCSTI).
    "--new-session",
    "--unshare-user",
    // Not root inside, no capability in the sandbox's user namespace: no mount, no umount.
    "--uid",
    String(SANDBOX_UID),
    "--gid",
    String(SANDBOX_GID),
    "--cap-drop",
    "ALL",
    "--seccomp",
    String(SECCOMP_FD),
    "--unshare-pid",
    "--unshare-ipc",
    "--unshare-uts",
    "--unshare-cgroup-try",
    ...(network === "none" ? ["--unshare-net"] : []),
    "--hostname",
    "sandbox",
  ];
  for (const path of SYSTEM_PATHS) args.push(...mirror(path));
  const etc = hiddenFromOthers("/etc");
  for (const path of new Set([...MASKED_FILES, ...etc.files])) {
    if (isFile(path)) args.push("--ro-bind", "/dev/null", path);
  }
  for (const path of new Set([...MASKED_FOLDERS, ...etc.folders])) {
    if (isFolder(path)) args.push("--size", "4096", "--tmpfs", path, "--remount-ro", path);
  }
  if (network === "host") args.push(...resolverFiles());
  // /dev: bwrap's usual nodes (null, zero, full, random, urandom, tty, pts, ptmx, fd, std*) on an
  // unsized tmpfs, so it is remounted read-only; /dev/shm gets a sized tmpfs of its own.
  args.push("--dev", "/dev", "--size", String(limits.maxShmBytes), "--tmpfs", "/dev/shm", "--remount-ro", "/dev");
  // /proc read-only, all of it: as root the sandbox user is host uid 0, and the kernel lets uid 0
  // write /proc/sys and /proc/sysrq-trigger by their owner bits alone, without a capability (a
  // command set kernel.core_pattern and the kernel ran its program as host root). Reading it
  // (ps, /proc/self/fd, /dev/stdout) is unchanged.
  args.push("--proc", "/proc", "--remount-ro", "/proc");
  // /tmp before the binds that may lie under it, or the tmpfs would hide them.
  args.push("--size", String(limits.maxTmpBytes), "--tmpfs", "/tmp");
  for (const path of readOnlyPaths) {
    args.push("--ro-bind", path, path);
    const hidden = hiddenFromOthers(path);
    for (const file of hidden.files) args.push("--ro-bind", "/dev/null", file);
    for (const folder of hidden.folders) args.push("--size", "4096", "--tmpfs", folder, "--remount-ro", folder);
  }
  return args;
}

// Entries looked at per bound tree when searching for what others may not read.
const HIDDEN_SCAN_LIMIT = 20_000;
const hiddenCache = new Map<string, { files: string[]; folders: string[] }>();

/**
 * What an ordinary host user could not read under `root`: files without the read bit for
 * others, folders without read or search for others. Only when this process runs as root:
 * the sandbox's user namespace then maps host root to the sandbox user, which would make
 * root's own 0600 files readable to the command. Scanned once per process and tree, at most
 * HIDDEN_SCAN_LIMIT entries (deeper entries of a larger tree are not masked).
 */
function hiddenFromOthers(root: string): { files: string[]; folders: string[] } {
  if (process.getuid?.() !== 0) return { files: [], folders: [] };
  const cached = hiddenCache.get(root);
  if (cached !== undefined) return cached;
  const found = { files: [] as string[], folders: [] as string[] };
  const pending = [root];
  let seen = 0;
  while (pending.length > 0 && seen < HIDDEN_SCAN_LIMIT) {
    const folder = pending.pop() as string;
    let names: string[];
    try {
      names = readdirSync(folder);
    } catch {
      continue;
    }
    for (const name of names) {
      if (++seen > HIDDEN_SCAN_LIMIT) break;
      const path = join(folder, name);
      let stats: ReturnType<typeof lstatSync>;
      try {
        stats = lstatSync(path);
      } catch {
        continue;
      }
      if (stats.isDirectory()) {
        if ((stats.mode & 0o005) !== 0o005) found.folders.push(path);
        else pending.push(path);
      } else if (stats.isFile() && (stats.mode & 0o004) === 0) {
        found.files.push(path);
      }
    }
  }
  hiddenCache.set(root, found);
  return found;
}

/** A top-level system path as the host has it: a symlink stays a symlink (usrmerge), a folder is bound read-only. */
function mirror(path: string): string[] {
  try {
    const stats = lstatSync(path);
    if (stats.isSymbolicLink()) return ["--symlink", readlinkSync(path), path];
    if (stats.isDirectory()) return ["--ro-bind", path, path];
  } catch {
    // Absent on this distribution.
  }
  return [];
}

/** /etc/resolv.conf often links into /run, which is not visible: bind its target for DNS. */
function resolverFiles(): string[] {
  try {
    const target = realpathSync("/etc/resolv.conf");
    if (target.startsWith("/etc/")) return [];
    return ["--ro-bind", target, target];
  } catch {
    return [];
  }
}

function isFile(path: string): boolean {
  try {
    return lstatSync(path).isFile();
  } catch {
    return false;
  }
}

function isFolder(path: string): boolean {
  try {
    return lstatSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** Runs `/bin/true` in a sandbox like the real ones; returns why it failed, or undefined. */
function probe(sandbox: ShellSandbox, network: ShellNetwork): string | undefined {
  const workspace = realpathSync(mkdtempSync(join(tmpdir(), "switchyard-sandbox-probe-")));
  let result: SpawnSyncReturns<string>;
  try {
    const env = { PATH: "/usr/bin:/bin" };
    const policy = { workspace, network, limits: DEFAULT_SHELL_LIMITS, readOnlyPaths: [], env };
    const { args } = sandboxedCommand(sandbox, policy, "true");
    const filter = openSeccompFilter(sandbox);
    try {
      result = spawnSync(sandbox.bwrapPath, args, {
        env,
        stdio: ["ignore", "ignore", "pipe", filter],
        timeout: 10_000,
        encoding: "utf8",
      });
    } finally {
      closeSync(filter);
    }
  } finally {
    rmSync(workspace, { recursive: true, force: true });
  }
  if (result.status === 0) return undefined;
  const detail = (result.stderr ?? "").trim().split("\n")[0] ?? "";
  const why = result.error?.message ?? (detail || `exit ${result.status ?? result.signal}`);
  return `bubblewrap is installed but cannot create a sandbox here (${why.slice(0, 300)}); user namespaces may be disabled (sysctl kernel.unprivileged_userns_clone=1, or an AppArmor profile for bwrap)`;
}
