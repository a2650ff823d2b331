// A stdio MCP server's own children: a server started through `sh -c`, npx or an npm script is a
// tree, and stopping the process the SDK spawned leaves the rest running, holding the stdio pipes
// open. Node then never drains its event loop: a `switchyard run` whose server failed to start
// printed its one line and never exited (with `sleep 1000` below the shell: 17 minutes), and the
// orphan outlived it. So the tree is read while its root still lives (afterwards the children
// belong to init and nothing links them to it), and what is left of it is killed after the root.
// Linux only (it reads /proc); elsewhere the tree is the root alone.

import { readdirSync, readFileSync } from "node:fs";

/** A process of the tree: its pid and its start time (clock ticks since boot), so a reused pid is never killed. */
export interface TreeMember {
  readonly pid: number;
  readonly startedAt: string;
}

/** The descendants of `root` running now, nearest first; empty where /proc cannot be read. */
export function descendantsOf(root: number): TreeMember[] {
  if (process.platform !== "linux") return [];
  const children = new Map<number, TreeMember[]>();
  let names: string[];
  try {
    names = readdirSync("/proc");
  } catch {
    return [];
  }
  for (const name of names) {
    if (!/^[0-9]+$/.test(name)) continue;
    const stat = statOf(Number(name));
    if (stat === undefined) continue;
    const siblings = children.get(stat.parent) ?? [];
    siblings.push({ pid: Number(name), startedAt: stat.startedAt });
    children.set(stat.parent, siblings);
  }
  const found: TreeMember[] = [];
  const queue = [root];
  // A pid seen twice (a cycle cannot happen, but a racing read could mislead) is walked once.
  const seen = new Set<number>(queue);
  while (queue.length > 0) {
    for (const child of children.get(queue.shift()!) ?? []) {
      if (seen.has(child.pid)) continue;
      seen.add(child.pid);
      found.push(child);
      queue.push(child.pid);
    }
  }
  return found;
}

/** SIGKILLs each member still running as the same process (same start time). */
export function killMembers(members: readonly TreeMember[]): void {
  for (const member of members) {
    if (statOf(member.pid)?.startedAt !== member.startedAt) continue;
    try {
      process.kill(member.pid, "SIGKILL");
    } catch {
      // Gone meanwhile, or not ours to signal.
    }
  }
}

/** The parent pid and start time from /proc/<pid>/stat; undefined when it cannot be read. */
function statOf(pid: number): { parent: number; startedAt: string } | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return undefined;
  }
  // The command name (field 2) is in parentheses and may hold spaces or parentheses itself.
  const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
  // After the name: state (3), ppid (4), ... starttime (22).
  const parent = Number(fields[1]);
  const startedAt = fields[19];
  if (!Number.isInteger(parent) || startedAt === undefined) return undefined;
  return { parent, startedAt };
}
