// Whether /proc is this process's own PID namespace's. Under `unshare --pid --fork` without
// `--mount-proc` (or a container given the host's /proc) it is not: /proc/<pid> there names
// another namespace's process, so nothing may look a process up by pid in it. With the tolerant
// readers of /proc files the sandbox and the cgroup sweep share.

import { readFileSync, readlinkSync } from "node:fs";

/**
 * Whether /proc lists the processes of this process's own PID namespace: NSpid in /proc/self/status
 * has one pid per namespace from /proc's down to ours, so one entry means they are the same.
 */
export function procShowsOwnPidNamespace(): boolean {
  const nsPid = /^NSpid:\s*(.*)$/m.exec(readProcText("/proc/self/status"))?.[1];
  // Kernels before 4.1 have no NSpid: /proc/self then names our pid only in our own namespace.
  if (nsPid === undefined) return readProcLink("/proc/self") === String(process.pid);
  const pids = nsPid.trim().split(/\s+/);
  return pids.length === 1 && pids[0] === String(process.pid);
}

/** The target of a /proc link; "" where it cannot be read (the process is gone, no permission). */
export function readProcLink(path: string): string {
  try {
    return readlinkSync(path);
  } catch {
    return "";
  }
}

/** A /proc (or cgroupfs) file's text, trimmed; "" where it cannot be read. */
export function readProcText(path: string): string {
  try {
    return readFileSync(path, "utf8").trim();
  } catch {
    return "";
  }
}
