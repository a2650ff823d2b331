// Descriptors the host inherited without close-on-exec (a CI runner's pipe on fd 3+, a native
// addon's file) must not reach a sandboxed command: bwrap passes on whatever it is given, and Node
// marks only its first few descriptors close-on-exec at start-up, so a high one went through.
// Attack: a command writes into the CI runner's pipe on fd 200 (forged job output) or reads a
// secret file the host holds open; with `unsandboxed: true` the shell was spawned with nothing
// between it and the host's descriptors, so every one of them reached the command. And a host in a
// PID namespace without a /proc of its own (`unshare --pid --fork`): there /proc/$$ is another
// process, whose descriptors a closer listing /proc/$$/fd would close instead of its own.

import { spawn } from "node:child_process";
import type { Readable } from "node:stream";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import type { ShellRunResult } from "../../src/builtins/shell-tool.js";

const HOST = fileURLToPath(new URL("./fixtures/run-shell-command.ts", import.meta.url));
// Low ones (Node's start-up marks those close-on-exec) and high ones (past the first gap, it does not).
const EXTRA_FDS = [3, 9, 40, 200];

interface Mode {
  readonly name: string;
  /** What the host runs under (e.g. unshare). */
  readonly prefix: readonly string[];
  readonly hostArguments: readonly string[];
}

const isRoot = process.getuid?.() === 0;
const MODES: Mode[] = [
  { name: "sandboxed", prefix: [], hostArguments: [] },
  { name: "unsandboxed", prefix: [], hostArguments: ["--unsandboxed"] },
  // unshare needs root (as here and in CI).
  ...(isRoot
    ? [
        {
          name: "unsandboxed, PID namespace without its /proc",
          prefix: ["unshare", "--pid", "--fork", "--kill-child"],
          hostArguments: ["--unsandboxed"],
        },
      ]
    : []),
];

/** Starts a host with a pipe on each of EXTRA_FDS, runs `command` in it, and collects what reached each pipe. */
async function runInHostWithExtraFds(
  command: string,
  mode: Mode,
): Promise<{ result: ShellRunResult; received: Map<number, string> }> {
  const stdio: ("pipe" | "ignore")[] = Array.from({ length: Math.max(...EXTRA_FDS) + 1 }, () => "ignore");
  stdio[1] = "pipe";
  stdio[2] = "pipe";
  for (const fd of EXTRA_FDS) stdio[fd] = "pipe";
  const argv = [...mode.prefix, process.execPath, "--import", "tsx", HOST, command, ...mode.hostArguments];
  const host = spawn(argv[0] as string, argv.slice(1), { stdio });
  const received = new Map<number, string>(EXTRA_FDS.map((fd) => [fd, ""]));
  for (const fd of EXTRA_FDS) {
    const stream = host.stdio[fd] as Readable;
    stream.on("data", (chunk: Buffer) => received.set(fd, received.get(fd) + chunk.toString()));
    stream.on("error", () => undefined);
  }
  let stdout = "";
  let stderr = "";
  host.stdout?.on("data", (chunk: Buffer) => (stdout += chunk));
  host.stderr?.on("data", (chunk: Buffer) => (stderr += chunk));
  const code = await new Promise<number | null>((resolve) => host.on("exit", resolve));
  for (const fd of EXTRA_FDS) (host.stdio[fd] as Readable | null)?.removeAllListeners("data");
  expect(code, stderr).toBe(0);
  return { result: JSON.parse(stdout) as ShellRunResult, received };
}

describe.each(MODES)("shell.run ($name) with descriptors the host inherited", (mode) => {
  it("runs the command with only stdin, stdout and stderr open", async () => {
    // ls lists its own descriptors: what the command inherited, and the folder it reads.
    const { result } = await runInHostWithExtraFds("ls -l /proc/self/fd", mode);
    expect(result.exitCode).toBe(0);
    const open = new Map(
      [...result.stdout.matchAll(/ (\d+) -> (.*)$/gm)].map((match) => [match[1] ?? "", match[2] ?? ""] as const),
    );
    expect(open.size).toBeGreaterThanOrEqual(3);
    for (const [fd, target] of open) {
      if (Number(fd) <= 2) continue;
      expect(target, `fd ${fd}`).toMatch(/\/\.script\.sh$|^\/proc\/\d+\/fd$/);
    }
    for (const fd of EXTRA_FDS) expect(open.get(String(fd)) ?? "", `fd ${fd}`).not.toMatch(/pipe|socket/);
  }, 30_000);

  it("fails to write to or read from any inherited pipe, and nothing reaches the host's end", async () => {
    // dash reads redirections of one digit only (and /proc/self/fd/N refuses the sandbox's user):
    // bash writes the descriptor itself.
    const writes = EXTRA_FDS.map((fd) => `bash -c 'echo leaked-${fd} >&${fd}'; echo "write ${fd}: $?";`).join(" ");
    const command = `${writes} cat <&9; echo "read 9: $?"`;
    const { result, received } = await runInHostWithExtraFds(command, mode);
    for (const fd of EXTRA_FDS) {
      expect(result.stdout).toMatch(new RegExp(`write ${fd}: [1-9]`));
      expect(received.get(fd)).toBe("");
    }
    expect(result.stdout).toMatch(/read 9: [1-9]/);
  }, 30_000);
});
