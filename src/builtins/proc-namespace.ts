// Whether /proc is this process's own PID namespace's. Under `unshare --pid --fork` without
// `--mount-proc` (or a container given the host's /proc) it is not: /proc/<pid> there names
// another namespace's process, so nothing may look a process up by pid in it.

import { readFileSync, readlinkSync } from "node:fs";

/**
 * Whether /proc lists the processes of this process's own PID namespace: NSpid in /proc/self/status
 * has one pid per namespace from /proc's down to ours, so one entry means they are the same.
 */
export function procShowsOwnPidNamespace(): boolean {
  const nsPid = /^NSpid:\s*(.*)$/m.exec(readText("/proc/self/status"))?.[1];
  // Kernels before 4.1 have no NSpid: /proc/self then names our pid only in our own namespace.
  if (nsPid === undefined) return readLink("/proc/self") === String(process.pid);
  const pids = nsPid.trim().split(/\s+/);
  return pids.length === 1 && pids[0] === String(process.pid);
}

function readLink(path: string): string {
  try {
    return readlinkSync(path);
  } catch {
    return "";
  }
}

function readText(path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return "";
  }
}
