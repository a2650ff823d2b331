// The shell sandbox tested from the outside: what a command inside cannot write, see or reach.
// These tests need bubblewrap and fail (they do not skip) where it is missing: CI installs it.

import { mkdir, mkdtemp, readFile, realpath, rm, stat, writeFile } from "node:fs/promises";
import { createServer, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { detectShellSandbox } from "../../src/builtins/shell-sandbox.js";
import { createShellTool, type ShellRunResult, type ShellToolOptions } from "../../src/builtins/shell-tool.js";
import { SwitchyardError } from "../../src/errors.js";
import { DIRECT_CONTEXT, runScript } from "../helpers/shell-script.js";

let root: string;
let workspace: string;
let outside: string;

beforeAll(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), "switchyard-sandbox-")));
  workspace = join(root, "workspace");
  outside = join(root, "outside");
  await mkdir(workspace);
  await mkdir(outside);
  await writeFile(join(outside, "secret.txt"), "outside secret\n");
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

const context = DIRECT_CONTEXT;

const run = (script: string, options: Partial<ShellToolOptions> = {}): Promise<ShellRunResult> =>
  runScript(workspace, script, options);

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

describe("the shell sandbox", () => {
  it("is available on this machine (bubblewrap installed; CI installs it with apt-get install -y bubblewrap)", () => {
    expect(detectShellSandbox("none")).not.toHaveProperty("unavailable");
    expect(detectShellSandbox("host")).not.toHaveProperty("unavailable");
  });

  it("lets a command write in the workspace and nowhere else on the host", async () => {
    const result = await run(
      [
        "echo inside > made.txt",
        `echo x > ${outside}/planted.txt`,
        `echo x >> ${outside}/secret.txt`,
        "echo x > /etc/planted",
        "echo x > /usr/planted",
        "echo x > /planted",
        "echo x > /tmp/private.txt && cat /tmp/private.txt",
      ].join("; "),
    );
    expect(await readFile(join(workspace, "made.txt"), "utf8")).toBe("inside\n");
    expect(await exists(join(outside, "planted.txt"))).toBe(false);
    expect(await readFile(join(outside, "secret.txt"), "utf8")).toBe("outside secret\n");
    expect(await exists("/etc/planted")).toBe(false);
    expect(await exists("/usr/planted")).toBe(false);
    expect(await exists("/planted")).toBe(false);
    // /tmp inside is private: written there, visible to the command, absent on the host.
    expect(result.stdout).toBe("x\n");
    expect(await exists("/tmp/private.txt")).toBe(false);
    expect(result.stderr).toMatch(/Read-only file system|No such file or directory/);
  });

  it("does not show folders outside the system and the workspace, even read-only", async () => {
    const result = await run(`cat ${outside}/secret.txt; ls /root /home /var; ls /`);
    expect(result.stdout).not.toContain("outside secret");
    expect(result.stderr).toContain("No such file or directory");
    expect(result.stdout.split("\n")).not.toContain("root");
    expect(result.stdout.split("\n")).toEqual(expect.arrayContaining(["usr", "etc", "tmp", "proc", "dev"]));
  });

  it("does not show the parent's environment: not in env, nor in /proc/1/environ or /proc/$PPID/environ", async () => {
    const canary = `canary-${process.pid}-${Date.now()}`;
    process.env["SWITCHYARD_SANDBOX_CANARY"] = canary;
    try {
      const result = await run(
        "env; for f in /proc/1/environ /proc/$PPID/environ /proc/self/environ; do tr '\\0' '\\n' < $f; done; cat /proc/*/environ",
      );
      expect(result.exitCode).toBe(0);
      expect(result.stdout).toContain("HOME=/tmp");
      expect(result.stdout).not.toContain(canary);
      expect(result.stdout).not.toContain("SWITCHYARD_SANDBOX_CANARY");
    } finally {
      delete process.env["SWITCHYARD_SANDBOX_CANARY"];
    }
  });

  it("does not show the host's processes: ps and /proc list only the sandbox's own", async () => {
    const result = await run("ps -e -o pid=,comm=; echo; ls /proc | grep -c '^[0-9]'; echo $PPID");
    expect(result.exitCode).toBe(0);
    const [listing = "", counts = ""] = result.stdout.split("\n\n");
    const commands = listing
      .trim()
      .split("\n")
      .map((line) => line.trim().split(/\s+/)[1]);
    expect(commands).not.toContain("node");
    expect(commands).not.toContain("vitest");
    expect(commands.length).toBeLessThan(8);
    const [processCount, parent] = counts.trim().split("\n").map(Number);
    expect(processCount).toBeLessThan(8);
    // The shell's parent is a process of the sandbox (bwrap's PID 1, or the shell running the script).
    expect(parent).toBeLessThan(8);
    expect(result.stdout).not.toContain(String(process.pid));
  });

  describe("network", () => {
    let server: Server;
    let port: number;
    const connections: Socket[] = [];

    beforeAll(async () => {
      server = createServer((socket) => {
        connections.push(socket);
        socket.end("hello from the host\n");
      });
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      port = (server.address() as { port: number }).port;
    });

    afterEach(() => {
      connections.length = 0;
    });

    afterAll(async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    });

    const connect = (): string => `exec 3<>/dev/tcp/127.0.0.1/${port} && head -1 <&3`;

    it("cannot reach a TCP server on the host's loopback by default", async () => {
      const result = await run(`bash -c '${connect()}'`);
      expect(result.exitCode).not.toBe(0);
      expect(result.stdout).not.toContain("hello from the host");
      expect(result.stderr).toMatch(/Connection refused|Network is unreachable|Cannot assign/);
      expect(connections).toHaveLength(0);
    });

    it("reaches it with network: host (the control that shows the test can fail)", async () => {
      const result = await run(`bash -c '${connect()}'`, { network: "host" });
      expect(result.stdout).toBe("hello from the host\n");
      expect(connections).toHaveLength(1);
    });
  });

  it("does not read a .gitconfig planted in the workspace, nor git settings from the environment", async () => {
    await writeFile(join(workspace, ".gitconfig"), "[user]\n\tname = planted\n[alias]\n\tst = !touch pwned\n");
    try {
      const result = await run("git config --get user.name; echo exit=$?; echo HOME=$HOME");
      expect(result.stdout).toBe("exit=1\nHOME=/tmp\n");
      expect(await exists(join(workspace, "pwned"))).toBe(false);
    } finally {
      await rm(join(workspace, ".gitconfig"));
    }
  });

  it("stops a process at its CPU-time limit", async () => {
    const started = Date.now();
    const result = await run("while :; do :; done", { limits: { cpuSeconds: 1 }, timeoutMs: 20_000 });
    expect(result.timedOut).toBe(false);
    // Killed by SIGXCPU (24) or SIGKILL (9) at the hard limit; the shell reports 128 + signal.
    expect([128 + 9, 128 + 24]).toContain(result.exitCode);
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it("stops a write at the file-size limit", async () => {
    const result = await run("head -c 100000 /dev/zero > big.bin; echo exit=$?", {
      limits: { maxFileBytes: 4096 },
    });
    expect(result.stdout).toBe(`exit=${128 + 25}\n`);
    expect((await stat(join(workspace, "big.bin"))).size).toBe(4096);
    await rm(join(workspace, "big.bin"));
  });

  it("sets the process limit and sizes the private /tmp", async () => {
    const result = await run(
      "grep -o 'processes *[0-9]*' /proc/self/limits; head -c 200000 /dev/zero > /tmp/fill; echo exit=$?",
      {
        limits: { maxProcesses: 64, maxTmpBytes: 65_536 },
      },
    );
    const [processes, tmpExit] = result.stdout.trim().split("\n");
    expect(processes).toMatch(/^processes +64$/);
    expect(tmpExit).not.toBe("exit=0");
    expect(result.stderr).toContain("No space left on device");
  });

  it("shows an extra read-only path, and it stays read-only", async () => {
    const result = await run(`cat ${outside}/secret.txt; echo x > ${outside}/planted.txt`, {
      readOnlyPaths: [outside],
    });
    expect(result.stdout).toBe("outside secret\n");
    expect(result.stderr).toContain("Read-only file system");
    expect(await exists(join(outside, "planted.txt"))).toBe(false);
  });
});

describe("createShellTool where no sandbox can be made", () => {
  const platform = process.platform;
  afterEach(() => {
    Object.defineProperty(process, "platform", { value: platform });
  });

  it("refuses to create the tool with SANDBOX_UNAVAILABLE, saying why", () => {
    Object.defineProperty(process, "platform", { value: "darwin" });
    let error: unknown;
    try {
      createShellTool({ workspace });
    } catch (thrown) {
      error = thrown;
    }
    expect(error).toBeInstanceOf(SwitchyardError);
    expect((error as SwitchyardError).code).toBe("SANDBOX_UNAVAILABLE");
    expect((error as SwitchyardError).message).toMatch(/darwin.*unsandboxed: true/s);
  });

  it("creates it with an explicit unsandboxed: true, which runs without isolation but with a fixed environment", async () => {
    Object.defineProperty(process, "platform", { value: "darwin" });
    const tool = createShellTool({ workspace, unsandboxed: true });
    Object.defineProperty(process, "platform", { value: platform });
    process.env["SWITCHYARD_SANDBOX_CANARY"] = "hunter2";
    try {
      const result = await tool.execute({ command: `env; cat ${outside}/secret.txt` }, context);
      // No sandbox: the outside is readable. That is what the flag says.
      expect(result.stdout).toContain("outside secret");
      expect(result.stdout).not.toContain("hunter2");
      expect(result.stdout).toContain("GIT_CONFIG_GLOBAL=/dev/null");
      const home = /^HOME=(.*)$/m.exec(result.stdout)?.[1];
      expect(home).toBeDefined();
      expect(home).not.toBe(workspace);
      // The per-call HOME is removed afterwards.
      expect(await exists(home as string)).toBe(false);
    } finally {
      delete process.env["SWITCHYARD_SANDBOX_CANARY"];
    }
  });

  it("refuses network and readOnlyPaths together with unsandboxed: true", () => {
    expect(() => createShellTool({ workspace, unsandboxed: true, network: "none" })).toThrow(/need the sandbox/);
    expect(() => createShellTool({ workspace, unsandboxed: true, readOnlyPaths: [outside] })).toThrow(
      /need the sandbox/,
    );
  });
});
