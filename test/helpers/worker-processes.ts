// The sandbox worker processes (src/sandbox/worker-process.ts) a process has started, read from
// `ps`, for tests that kill one or check that they are gone.

import { execFile } from "node:child_process";
import { promisify } from "node:util";

/** Process ids of the sandbox workers whose parent is `parentPid` (default: this process). */
export async function sandboxWorkerPids(parentPid: number = process.pid): Promise<number[]> {
  let stdout: string;
  try {
    ({ stdout } = await promisify(execFile)("ps", ["-o", "pid=,args=", "--ppid", String(parentPid)]));
  } catch (error) {
    // ps exits 1 when the parent has no children at all.
    if ((error as { code?: unknown }).code === 1) return [];
    throw error;
  }
  return stdout
    .split("\n")
    .filter((line) => line.includes("worker-process"))
    .map((line) => Number(line.trim().split(/\s+/)[0]));
}
