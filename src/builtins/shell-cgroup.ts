// A control group per sandboxed command, where the host lets this process make one: a process
// count (pids) and a memory limit that hold for every user, root included. RLIMIT_NPROC does not
// bind a host that runs as root (the sandbox's uid maps back to root, which the kernel exempts),
// and RLIMIT_AS is per process; a cgroup counts the command's processes and memory as a whole.
// Where no cgroup can be made (no write access, a v2 tree without delegation) the rlimits remain.
// A host killed outright leaves its cgroups behind: the next host of the same PID namespace removes
// those whose owner is gone; it never touches another namespace's, nor names of earlier versions.

import { randomBytes } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { mkdir, readdir, readFile, rmdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { procShowsOwnPidNamespace, readProcLink, readProcText } from "./proc-namespace.js";

const CGROUP_ROOT = "/sys/fs/cgroup";

/** A command's cgroup(s): the `cgroup.procs` files its first process joins, and how to remove them. */
export interface CommandCgroup {
  /** One per hierarchy (cgroup v1 has one for pids and one for memory; v2 one for both). */
  readonly procsFiles: readonly string[];
  /** What the cgroup enforces, for the tool's description and the tests. */
  readonly enforces: { readonly processes: boolean; readonly memory: boolean };
  /** Kills whatever is left in the cgroup(s) and removes them. Never throws. */
  release(): Promise<void>;
}

/** The limits a command cgroup sets. */
export interface CgroupLimits {
  readonly maxProcesses: number;
  readonly maxMemoryBytes: number;
}

interface Hierarchy {
  /** The folder of this process's own cgroup in the hierarchy. */
  readonly own: string;
  readonly pidsFile: string | undefined;
  readonly memoryFiles: readonly string[];
}

let counter = 0;
let hierarchies: readonly Hierarchy[] | undefined;
let staleRemoved: Promise<unknown> | undefined;

const NAME_PREFIX = "switchyard-shell-";
// `switchyard-shell-ns<pid namespace>-<pid>-<start time>-<nonce>-<n>`. A pid names a process only
// in its own PID namespace, and namespaces share the cgroup tree (containers on one machine, a host
// under `unshare --pid`): pid 1 of another container is this one's init. So the name carries the
// namespace's inode (/proc/self/ns/pid): in the name, because mkdir writes it with the folder in
// one step and a cgroup folder cannot hold a file of ours (cgroupfs makes only its own files).
// The kernel reuses an inode only after its namespace is gone, with every host that ran in it.
// With the start time (clock ticks since boot) a dead owner is told from a live one of a reused
// pid, and the nonce keeps two hosts apart. Names without `ns` (earlier versions) never match.
const NAME_PATTERN = /^switchyard-shell-ns(\d+)-(\d+)-(\d+)-[0-9a-f]+-\d+$/;

// Read through /proc/self: /proc/<process.pid> is another process where /proc is not this namespace's.
const OWN_START_TIME = startTimeOf("self") ?? 0;
// 0, which no namespace has, where it cannot be read: such a host then never sweeps.
const OWN_PID_NAMESPACE = pidNamespaceOf("self") ?? 0;
/** This process's part of every cgroup name it makes: PID namespace, pid, start time and a random nonce. */
const OWNER = `ns${OWN_PID_NAMESPACE}-${process.pid}-${OWN_START_TIME}-${randomBytes(4).toString("hex")}`;

/**
 * Makes a fresh cgroup for one command, with `pids.max` and the memory limit, in every hierarchy
 * this process may write (cgroup v1 `pids` and `memory`, or v2 where the pids and memory
 * controllers are delegated to its own cgroup). Returns undefined where none can be made.
 */
export async function createCommandCgroup(limits: CgroupLimits): Promise<CommandCgroup | undefined> {
  hierarchies ??= findHierarchies();
  // Once per process, before its first cgroup: what killed hosts left in the same folders.
  await (staleRemoved ??= removeStaleCommandCgroups());
  const made: string[] = [];
  const enforces = { processes: false, memory: false };
  const name = `${NAME_PREFIX}${OWNER}-${++counter}`;
  for (const hierarchy of hierarchies) {
    const folder = join(hierarchy.own, name);
    try {
      await mkdir(folder);
    } catch {
      continue;
    }
    made.push(folder);
    try {
      if (hierarchy.pidsFile !== undefined) {
        await writeFile(join(folder, hierarchy.pidsFile), String(limits.maxProcesses));
        enforces.processes = true;
      }
      for (const file of hierarchy.memoryFiles) {
        if (!existsSync(join(folder, file))) continue;
        await writeFile(join(folder, file), file === "memory.swap.max" ? "0" : String(limits.maxMemoryBytes));
        if (file !== "memory.swap.max") enforces.memory = true;
      }
    } catch {
      // A controller that refuses its limit: the folder stays usable for what did work.
    }
  }
  if (made.length === 0 || (!enforces.processes && !enforces.memory)) {
    await Promise.all(made.map((folder) => removeCgroup(folder)));
    return undefined;
  }
  return {
    procsFiles: made.map((folder) => join(folder, "cgroup.procs")),
    enforces,
    release: async () => {
      await Promise.all(made.map((folder) => removeCgroup(folder)));
    },
  };
}

/**
 * Removes the command cgroups that a host no longer running left behind (one killed with SIGKILL
 * cannot release them): only folders named as this module names them, in the folders where this
 * process makes its own, made by a host of this process's PID namespace whose pid is gone or now
 * belongs to a process started at another time. What is still inside one is killed first (it
 * belongs to a dead host's command). Never touched: folders of hosts in other PID namespaces (their
 * pids mean nothing here; their own next host sweeps them), folders named by earlier versions
 * (pid only, or pid and start time: nothing proves their namespace), and everything when /proc
 * shows another namespace's processes (`unshare --pid` without a /proc of its own), since no owner
 * can then be looked up. Returns the folders removed. Never throws.
 */
export async function removeStaleCommandCgroups(): Promise<string[]> {
  hierarchies ??= findHierarchies();
  if (OWN_PID_NAMESPACE === 0 || !procShowsOwnPidNamespace()) return [];
  const stale: string[] = [];
  for (const hierarchy of hierarchies) {
    const names = await readdir(hierarchy.own).catch(() => [] as string[]);
    for (const name of names) {
      const match = NAME_PATTERN.exec(name);
      if (match === null || Number(match[1]) !== OWN_PID_NAMESPACE) continue;
      if (!ownerRuns(Number(match[2]), Number(match[3]))) stale.push(join(hierarchy.own, name));
    }
  }
  // All at once: the first command waits for this, and a folder that cannot go (a cgroup made
  // inside it) takes two seconds of retries; one after another, n of them held it 2n seconds.
  const gone = await Promise.all(stale.map((folder) => removeCgroup(folder)));
  return stale.filter((_, index) => gone[index]);
}

/** Whether the process `pid` runs and was started at `startTime` (so it is the host that named the cgroup). */
function ownerRuns(pid: number, startTime: number): boolean {
  // This pid with another start time: a host before this one (a restarted container's pid 1).
  if (pid === process.pid) return startTime === OWN_START_TIME;
  const now = startTimeOf(pid);
  return now !== undefined && now === startTime;
}

/** The inode of a process's PID namespace (`pid:[4026531836]`); undefined where it cannot be read. */
function pidNamespaceOf(pid: number | "self"): number | undefined {
  const inode = Number(/^pid:\[(\d+)\]$/.exec(readProcLink(`/proc/${pid}/ns/pid`))?.[1]);
  return Number.isSafeInteger(inode) && inode > 0 ? inode : undefined;
}

/** A process's start time in clock ticks after boot (field 22 of /proc/<pid>/stat); undefined when it is gone. */
function startTimeOf(pid: number | "self"): number | undefined {
  const stat = readProcText(`/proc/${pid}/stat`);
  // The command name (field 2) is in parentheses and may hold spaces: count fields after its ")".
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const value = Number(fields[19]);
  return stat === "" || !Number.isSafeInteger(value) ? undefined : value;
}

/** SIGKILLs what is left in `folder` and removes it, retrying while the kernel reaps; true once it is gone. */
async function removeCgroup(folder: string): Promise<boolean> {
  for (let attempt = 0; attempt < 40; attempt++) {
    try {
      await rmdir(folder);
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return true;
      const pids = await readFile(join(folder, "cgroup.procs"), "utf8").catch(() => "");
      for (const line of pids.split("\n")) {
        const pid = Number(line);
        // cgroup v2 lists a process of another PID namespace as 0: kill(0) would be our own group.
        if (!Number.isSafeInteger(pid) || pid <= 0) continue;
        try {
          process.kill(pid, "SIGKILL");
        } catch {
          // Already gone.
        }
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  return false;
}

/** The writable hierarchies, from /proc/self/cgroup: v1 `pids` and `memory`, or the v2 tree. */
function findHierarchies(): Hierarchy[] {
  if (process.platform !== "linux") return [];
  let lines: string[];
  try {
    lines = readFileSync("/proc/self/cgroup", "utf8").split("\n");
  } catch {
    return [];
  }
  const found: Hierarchy[] = [];
  for (const line of lines) {
    const [, controllers = "", path = ""] = line.split(":");
    const names = controllers.split(",");
    if (names.includes("pids"))
      found.push({ own: join(CGROUP_ROOT, "pids", path), pidsFile: "pids.max", memoryFiles: [] });
    if (names.includes("memory")) {
      found.push({
        own: join(CGROUP_ROOT, "memory", path),
        pidsFile: undefined,
        memoryFiles: ["memory.limit_in_bytes", "memory.memsw.limit_in_bytes"],
      });
    }
    if (controllers === "" && line.startsWith("0::") && found.length === 0) {
      // cgroup v2: usable only where our cgroup already hands pids and memory to its children.
      const own = join(CGROUP_ROOT, path);
      const delegated = readProcText(join(own, "cgroup.subtree_control")).split(/\s+/);
      if (delegated.includes("pids") || delegated.includes("memory")) {
        found.push({
          own,
          pidsFile: delegated.includes("pids") ? "pids.max" : undefined,
          memoryFiles: delegated.includes("memory") ? ["memory.max", "memory.swap.max"] : [],
        });
      }
    }
  }
  // A v2 line comes last in hybrid setups; keep it only where v1 gave nothing.
  return found.filter((hierarchy) => existsSync(hierarchy.own));
}
