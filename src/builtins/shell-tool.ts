// The built-in `shell.run` tool: runs one command line with dash in an OS sandbox
// (bubblewrap, see shell-sandbox.ts): the system read-only, the workspace the only writable
// folder, a private /tmp, no network unless granted, a fixed environment and resource limits.
// Permission comes from `shellPermissionRules` (read: allow, write: ask, destructive: deny) and
// the tool refuses destructive commands itself as well; the classifier is not the only wall.
// Where no sandbox can be made, the tool refuses to be created unless `unsandboxed: true`.

import { spawn } from "node:child_process";
import { closeSync, realpathSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { isAbsolute, join } from "node:path";
import { SwitchyardError, ToolError } from "../errors.js";
import { classifyCommand, type CommandClassification } from "../permissions/command-classifier.js";
import { loadShellParser } from "../permissions/shell-syntax.js";
import type { PermissionRule } from "../permissions/permission-gate.js";
import { defineTool, type ToolDefinition } from "../registry/define-tool.js";
import { DRAFT_2020_12, existingFolderOption, positiveIntegerOption } from "./builtin-support.js";
import { createCommandCgroup } from "./shell-cgroup.js";
import {
  commandArguments,
  DEFAULT_SHELL_LIMITS,
  detectShellSandbox,
  findFdCloser,
  findPinnedShell,
  findPrlimit,
  limitedCommand,
  openSeccompFilter,
  SANDBOX_HOME,
  type SandboxPolicy,
  type ShellLimits,
  type ShellNetwork,
  type ShellSandbox,
  sandboxArguments,
  withInheritedFdsClosed,
} from "./shell-sandbox.js";

export type { ShellLimits, ShellNetwork } from "./shell-sandbox.js";

/** Options of `createShellTool`. */
export interface ShellToolOptions {
  /** The folder commands run in; the only folder they may write. It must exist and not be `/`. */
  readonly workspace: string;
  /** Wall-clock limit per command in ms; the sandbox (or process group) is killed when it runs out. Default 30 000. */
  readonly timeoutMs?: number;
  /** Most bytes kept of stdout and of stderr each; the middle is cut with a marker. Default 65 536. */
  readonly maxOutputBytes?: number;
  /**
   * Extra environment variables. Nothing of the host's environment reaches a command: it gets
   * PATH (the standard system folders), HOME (a private folder, never the workspace), LANG
   * (C.UTF-8), TMPDIR, GIT_CONFIG_NOSYSTEM=1 and GIT_CONFIG_GLOBAL=/dev/null, plus these.
   * PATH and LANG may be overridden; HOME, TMPDIR and GIT_CONFIG* may not (OPTION_INVALID).
   */
  readonly env?: Readonly<Record<string, string>>;
  /**
   * `"none"` (default): commands run in an empty network namespace (not even the host's
   * loopback). `"host"`: they share the host's network. bwrap alone cannot allow single
   * hosts; use the `http.fetch` tool with `allowHosts` for that.
   */
  readonly network?: ShellNetwork;
  /** Per-command resource limits; see ShellLimits for the defaults and what the kernel enforces. */
  readonly limits?: ShellLimits;
  /** Host folders or files (absolute, existing) made visible read-only, e.g. a toolchain under /opt. */
  readonly readOnlyPaths?: readonly string[];
  /**
   * Runs commands WITHOUT an OS sandbox: they can read and write whatever the host user can,
   * reach the network, and see the host's processes. Only the environment is scrubbed, HOME
   * is a fresh empty folder, descriptors above 2 are closed (bash, as in the sandbox), and the
   * limits apply where prlimit exists. Nothing binds the command to the host's life: a host killed
   * with SIGKILL leaves it running. Without this flag,
   * createShellTool throws SANDBOX_UNAVAILABLE where bubblewrap cannot run (macOS, Windows,
   * Linux without bubblewrap or user namespaces). `network` and `readOnlyPaths` cannot be
   * combined with it (OPTION_INVALID): there is nothing to enforce them with. Default false.
   */
  readonly unsandboxed?: boolean;
}

export interface ShellRunInput {
  readonly command: string;
}

export interface ShellRunResult {
  /**
   * The exit code; null when the command was killed by a signal from outside (a timeout).
   * Inside the sandbox a command killed by a signal (say SIGXCPU at the CPU limit) reports
   * 128 + the signal number, as a shell does.
   */
  exitCode: number | null;
  /** The signal that ended the command (e.g. SIGKILL after a timeout); null after a normal exit. */
  signal: string | null;
  stdout: string;
  stderr: string;
  /** True when stdout or stderr was cut to the output limit. */
  truncated: boolean;
  /** True when the command ran out of time and was killed. */
  timedOut: boolean;
}

export const SHELL_TOOL_NAME = "shell.run";

const DEFAULT_TIMEOUT_MS = 30_000;
const DEFAULT_MAX_OUTPUT_BYTES = 64 * 1024;
const MAX_COMMAND_LENGTH = 65_536;
// After the shell exits, leftover background processes are killed; their pipes get this long to close.
const DRAIN_AFTER_EXIT_MS = 1_000;
// The pipeline's own timeout sits this far behind the tool's, so the tool reports timedOut itself.
const PIPELINE_GRACE_MS = 2_000;
const FIXED_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
const OWNER = "createShellTool";

/**
 * Creates `shell.run`: `dash -c <command>` in a bubblewrap sandbox (see ShellToolOptions
 * and README "The shell sandbox"): the workspace (real path) is the working folder and the
 * only writable one, the system is read-only, /tmp is private, the network is off unless
 * `network: "host"`, other processes are invisible, the environment is fixed, and CPU time,
 * file size and process count are limited. stdin is empty. After `timeoutMs` (default 30 s),
 * or when the call is aborted, the sandbox is killed with everything in it. stdout and stderr
 * are each capped at `maxOutputBytes` (default 64 KB), keeping the first and last halves
 * around a truncation marker. A non-zero exit is a result, not an error. Effect `write`, so
 * calls run one at a time. Destructive commands (by `classifyCommand`) are refused with
 * `PERMISSION_DENIED` before anything runs; `SHELL_UNAVAILABLE` when the shell cannot start.
 * Throws SwitchyardError `SANDBOX_UNAVAILABLE` where no sandbox can be made (with the reason
 * and what to install) unless `unsandboxed: true`; `OPTION_INVALID` for a missing workspace,
 * a bad limit, a refused environment variable or a bad read-only path.
 */
export function createShellTool(options: ShellToolOptions): ToolDefinition<ShellRunInput, ShellRunResult> {
  const workspace = existingFolderOption(options.workspace, OWNER, "workspace");
  if (workspace === "/") {
    throw new SwitchyardError("OPTION_INVALID", `${OWNER}: workspace "/" would make the whole file system writable.`);
  }
  const timeoutMs = positiveIntegerOption(options.timeoutMs, DEFAULT_TIMEOUT_MS, OWNER, "timeoutMs");
  const maxOutputBytes = positiveIntegerOption(
    options.maxOutputBytes,
    DEFAULT_MAX_OUTPUT_BYTES,
    OWNER,
    "maxOutputBytes",
  );
  const limits = checkLimits(options.limits);
  const extraEnv = checkEnv(options.env);
  const unsandboxed = options.unsandboxed === true;
  if (unsandboxed && (options.network !== undefined || options.readOnlyPaths !== undefined)) {
    throw new SwitchyardError(
      "OPTION_INVALID",
      `${OWNER}: network and readOnlyPaths need the sandbox; with unsandboxed: true commands reach the whole network and file system.`,
    );
  }
  const network = checkNetwork(options.network);
  const readOnlyPaths = (options.readOnlyPaths ?? []).map((path, index) =>
    existingPathOption(path, `readOnlyPaths[${index}]`),
  );
  let sandbox: ShellSandbox | undefined;
  if (!unsandboxed) {
    const found = detectShellSandbox(network);
    if ("unavailable" in found) {
      throw new SwitchyardError(
        "SANDBOX_UNAVAILABLE",
        `${OWNER}: ${found.unavailable}. Commands are never run without a sandbox unless you pass unsandboxed: true (they can then reach everything the host user can).`,
      );
    }
    sandbox = found;
  }
  // dash is pinned, sandboxed or not: the classifier parses exactly its dialect.
  const shellPath = sandbox?.shellPath ?? findPinnedShell();
  if (shellPath === undefined) {
    throw new SwitchyardError(
      "SANDBOX_UNAVAILABLE",
      `${OWNER}: dash is not installed (apt-get install -y dash); shell.run runs dash, the POSIX dialect its permission rules parse.`,
    );
  }
  // Unsandboxed too, the command must not inherit the host's descriptors: bash closes them first.
  const closerPath = sandbox?.closerPath ?? findFdCloser();
  if (closerPath === undefined) {
    throw new SwitchyardError(
      "SANDBOX_UNAVAILABLE",
      `${OWNER}: bash is not installed (apt-get install -y bash); shell.run uses it to close the descriptors a command would inherit from the host.`,
    );
  }
  // The parser loads once (~0.3 s) here, not on the event loop of the first call.
  loadShellParser();
  const prlimitPath = findPrlimit();
  const baseEnv = (home: string): Record<string, string> => ({
    PATH: FIXED_PATH,
    LANG: "C.UTF-8",
    ...extraEnv,
    HOME: home,
    TMPDIR: sandbox === undefined ? tmpdir() : "/tmp",
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: "/dev/null",
  });
  // One policy per tool: its bwrap arguments (a look at every system path and mask) are built here, not per command.
  const policy: SandboxPolicy | undefined =
    sandbox === undefined ? undefined : { workspace, network, limits, readOnlyPaths, env: baseEnv(SANDBOX_HOME) };
  const isolation = policy === undefined ? [] : sandboxArguments(policy);
  const isolationText =
    sandbox === undefined
      ? "It runs WITHOUT a sandbox: it can reach everything the host user can."
      : `It runs in a sandbox: only the workspace (${workspace}) is writable, /tmp is private and empty, the rest of the system is read-only, ` +
        `${network === "none" ? "there is no network, " : ""}other processes are invisible, it runs as an unprivileged user, and each process gets ${limits.cpuSeconds} s of CPU, ${limits.maxMemoryBytes} bytes of memory and files up to ${limits.maxFileBytes} bytes.`;

  return defineTool<ShellRunInput, ShellRunResult>({
    name: SHELL_TOOL_NAME,
    description:
      `Run a POSIX shell command line with dash in the workspace folder and return its exit code, stdout and stderr. ` +
      `Read-only commands (ls, cat, grep, git status …) run directly; commands that change files or the system need approval; ` +
      `destructive ones (rm -r, force pushes, writes outside the workspace …) are refused with PERMISSION_DENIED. ` +
      `Each command times out after ${timeoutMs} ms (timedOut: true); stdout and stderr are each cut to ${maxOutputBytes} bytes (truncated: true). ` +
      `${isolationText} The environment holds only PATH, HOME, LANG and TMPDIR; stdin is empty. A non-zero exitCode is a result, not an error.`,
    source: "builtin",
    effect: "write",
    timeoutMs: timeoutMs + PIPELINE_GRACE_MS,
    inputSchema: {
      $schema: DRAFT_2020_12,
      type: "object",
      properties: {
        command: {
          type: "string",
          minLength: 1,
          maxLength: MAX_COMMAND_LENGTH,
          description:
            'The command line, run as dash -c "<command>" (POSIX sh: no bash syntax) in the workspace folder, e.g. "grep -rn TODO src | head -20".',
        },
      },
      required: ["command"],
      additionalProperties: false,
    },
    outputSchema: {
      $schema: DRAFT_2020_12,
      type: "object",
      properties: {
        exitCode: {
          type: ["integer", "null"],
          description: "The exit code (0 is success); null when the command was killed by a signal.",
        },
        signal: {
          type: ["string", "null"],
          description: 'The signal that ended the command, e.g. "SIGKILL" after a timeout; null after a normal exit.',
        },
        stdout: {
          type: "string",
          description: "Standard output, UTF-8; cut in the middle with a marker when over the limit.",
        },
        stderr: {
          type: "string",
          description: "Standard error, UTF-8; cut in the middle with a marker when over the limit.",
        },
        truncated: { type: "boolean", description: "True when stdout or stderr was cut to the output limit." },
        timedOut: { type: "boolean", description: "True when the command ran out of time and was killed." },
      },
      required: ["exitCode", "signal", "stdout", "stderr", "truncated", "timedOut"],
      additionalProperties: false,
    },
    inputExamples: [
      { command: "ls -la" },
      { command: "grep -rn 'TODO' src | head -20" },
      { command: "git status --short" },
    ],
    execute: async (input, context) => {
      const classification = classifyInput(input, input.command);
      if (classification.risk === "destructive") {
        throw new ToolError(
          `The command was refused as destructive: ${classification.reasons.join("; ")}. Nothing ran.`,
          {
            code: "PERMISSION_DENIED",
            details: { risk: classification.risk, reasons: [...classification.reasons] },
          },
        );
      }
      if (sandbox !== undefined && policy !== undefined) {
        const sandboxed = {
          file: sandbox.bwrapPath,
          args: [...isolation, ...commandArguments(sandbox, policy, input.command)],
        };
        // The cgroup is joined before bwrap starts, so no process of the command is outside it.
        const cgroup = await createCommandCgroup(limits);
        const [file, ...args] =
          cgroup === undefined
            ? [sandboxed.file, ...sandboxed.args]
            : ["/bin/sh", "-c", JOIN_CGROUPS, "sh", ...cgroup.procsFiles, "--", sandboxed.file, ...sandboxed.args];
        try {
          return await runShell(file as string, args, {
            cwd: workspace,
            env: policy.env,
            timeoutMs,
            maxOutputBytes,
            signal: context.signal,
            seccompFilter: () => openSeccompFilter(sandbox),
          });
        } finally {
          await cgroup?.release();
        }
      }
      // No sandbox: HOME is still never the workspace, but a fresh empty folder per call.
      const home = await mkdtemp(join(tmpdir(), "switchyard-shell-home-"));
      try {
        const argv =
          prlimitPath === undefined
            ? [shellPath, "-c", input.command]
            : limitedCommand(prlimitPath, shellPath, limits, input.command);
        const [file = closerPath, ...args] = withInheritedFdsClosed(closerPath, argv);
        return await runShell(file, args, {
          cwd: workspace,
          env: baseEnv(home),
          timeoutMs,
          maxOutputBytes,
          signal: context.signal,
        });
      } finally {
        await rm(home, { recursive: true, force: true });
      }
    },
  });
}

/**
 * Permission rules that route every `shell.run` command through `classifyCommand`: read-only
 * commands are allowed, writes ask the approver (denied when there is none), destructive
 * commands are denied. An input whose command cannot be read counts as destructive, so the
 * rules fail closed. Put them before broader rules; the first matching rule wins.
 */
export function shellPermissionRules(): PermissionRule[] {
  loadShellParser();
  const riskOf = (input: unknown): CommandClassification["risk"] => {
    if (typeof input !== "object" || input === null) return "destructive";
    const command = (input as { command?: unknown }).command;
    if (typeof command !== "string") return "destructive";
    return classifyInput(input, command).risk;
  };
  return [
    {
      tools: SHELL_TOOL_NAME,
      decision: "deny",
      when: (input) => riskOf(input) === "destructive",
      reason:
        "the command was classified destructive (recursive or forced deletion, history rewrites, writes to system paths, or code downloaded and run); it is never run. Use a narrower, recoverable command.",
    },
    {
      tools: SHELL_TOOL_NAME,
      decision: "ask",
      when: (input) => riskOf(input) === "write",
      reason: "the command may change files, processes or the network, so it needs approval",
    },
    {
      tools: SHELL_TOOL_NAME,
      decision: "allow",
      when: (input) => riskOf(input) === "read",
      reason: "the command only reads",
    },
  ];
}

// The pipeline hands the same input object to the permission rules (three of them) and to the
// tool: each command line is parsed once per call. Keyed by the input and checked against its
// command, so an input changed after its check is classified again.
const classifications = new WeakMap<object, { readonly command: string; readonly result: CommandClassification }>();

function classifyInput(input: object, command: string): CommandClassification {
  const known = classifications.get(input);
  if (known !== undefined && known.command === command) return known.result;
  const result = classifyCommand(command);
  classifications.set(input, { command, result });
  return result;
}

// Run on the host before bwrap: moves itself into each cgroup given before `--`, then execs the rest.
const JOIN_CGROUPS = 'while [ "$1" != -- ]; do echo $$ > "$1" || exit 125; shift; done; shift; exec "$@"';

interface RunShellOptions {
  readonly cwd: string;
  readonly env: Record<string, string>;
  readonly timeoutMs: number;
  readonly maxOutputBytes: number;
  readonly signal: AbortSignal;
  /** Opens the descriptor given to the child as fd 3 (bwrap's --seccomp); closed after the spawn. */
  readonly seccompFilter?: () => number;
}

function runShell(file: string, args: readonly string[], options: RunShellOptions): Promise<ShellRunResult> {
  return new Promise<ShellRunResult>((resolve, reject) => {
    if (options.signal.aborted) {
      reject(new ToolError("The command was cancelled before it started.", { code: "CANCELLED" }));
      return;
    }
    const filter = options.seccompFilter?.();
    let child: ReturnType<typeof spawn>;
    try {
      child = spawn(file, args, {
        cwd: options.cwd,
        env: options.env,
        // Its own process group, so a timeout kills the shell (or bwrap, whose PID namespace then
        // dies with everything in it) and everything it started.
        detached: true,
        stdio: filter === undefined ? ["ignore", "pipe", "pipe"] : ["ignore", "pipe", "pipe", filter],
        windowsHide: true,
      });
    } finally {
      if (filter !== undefined) closeSync(filter);
    }
    const stdout = new CappedOutput(options.maxOutputBytes);
    const stderr = new CappedOutput(options.maxOutputBytes);
    let timedOut = false;
    let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
    let settled = false;
    let drainTimer: ReturnType<typeof setTimeout> | undefined;

    const killGroup = (): void => {
      if (child.pid === undefined) return;
      try {
        process.kill(-child.pid, "SIGKILL");
      } catch {
        // ESRCH: the group is already gone.
      }
    };
    const onAbort = (): void => killGroup();
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup();
    }, options.timeoutMs);
    options.signal.addEventListener("abort", onAbort, { once: true });

    const cleanUp = (): void => {
      settled = true;
      clearTimeout(timer);
      if (drainTimer !== undefined) clearTimeout(drainTimer);
      options.signal.removeEventListener("abort", onAbort);
    };
    const finish = (): void => {
      if (settled) return;
      cleanUp();
      child.stdout?.destroy();
      child.stderr?.destroy();
      resolve({
        exitCode: exit?.code ?? null,
        signal: exit?.signal ?? null,
        stdout: stdout.text(),
        stderr: stderr.text(),
        truncated: stdout.truncated || stderr.truncated,
        timedOut,
      });
    };

    child.stdout?.on("data", (chunk: Buffer) => stdout.push(chunk));
    child.stderr?.on("data", (chunk: Buffer) => stderr.push(chunk));
    child.on("error", (error: NodeJS.ErrnoException) => {
      if (settled) return;
      cleanUp();
      killGroup();
      reject(
        new ToolError(`The shell could not be started (${error.code ?? "unknown error"}).`, {
          code: "SHELL_UNAVAILABLE",
        }),
      );
    });
    child.on("exit", (code, signal) => {
      exit = { code, signal };
      // Background jobs must not outlive the call (nor hold its pipes open).
      killGroup();
      drainTimer = setTimeout(finish, DRAIN_AFTER_EXIT_MS);
    });
    child.on("close", finish);
  });
}

/** Keeps the first and last halves of a stream past `maxBytes`, counting what was cut. */
class CappedOutput {
  readonly #headLimit: number;
  readonly #tailLimit: number;
  readonly #head: Buffer[] = [];
  #headBytes = 0;
  #tail: Buffer = Buffer.alloc(0);
  #total = 0;

  constructor(maxBytes: number) {
    this.#headLimit = Math.ceil(maxBytes / 2);
    this.#tailLimit = Math.floor(maxBytes / 2);
  }

  get truncated(): boolean {
    return this.#total > this.#headLimit + this.#tailLimit;
  }

  push(chunk: Buffer): void {
    this.#total += chunk.length;
    let rest = chunk;
    if (this.#headBytes < this.#headLimit) {
      const taken = rest.subarray(0, this.#headLimit - this.#headBytes);
      this.#head.push(taken);
      this.#headBytes += taken.length;
      rest = rest.subarray(taken.length);
    }
    if (rest.length === 0 || this.#tailLimit === 0) return;
    this.#tail =
      rest.length >= this.#tailLimit
        ? Buffer.from(rest.subarray(rest.length - this.#tailLimit))
        : Buffer.concat([this.#tail, rest]).subarray(-this.#tailLimit);
  }

  text(): string {
    const head = Buffer.concat(this.#head).toString("utf8");
    if (!this.truncated) return head + this.#tail.toString("utf8");
    const omitted = this.#total - this.#headBytes - this.#tail.length;
    return `${head}\n[... ${omitted} bytes of output omitted ...]\n${this.#tail.toString("utf8")}`;
  }
}

const FIXED_VARIABLES = new Set(["HOME", "TMPDIR", "GIT_CONFIG_NOSYSTEM", "GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM"]);

function checkEnv(env: Readonly<Record<string, string>> | undefined): Record<string, string> {
  const checked: Record<string, string> = {};
  for (const [name, value] of Object.entries(env ?? {})) {
    if (typeof value !== "string" || name === "" || name.includes("=") || name.includes("\0") || value.includes("\0")) {
      throw new SwitchyardError(
        "OPTION_INVALID",
        `${OWNER}: env ${JSON.stringify(name)} must be a string without NUL bytes, named without "=".`,
      );
    }
    // GIT_CONFIG_COUNT/KEY_n/VALUE_n and GIT_CONFIG_PARAMETERS set git options that run programs.
    if (FIXED_VARIABLES.has(name) || name.startsWith("GIT_CONFIG")) {
      throw new SwitchyardError(
        "OPTION_INVALID",
        `${OWNER}: env ${name} is fixed by the shell tool (HOME, TMPDIR and git's configuration cannot be chosen).`,
      );
    }
    checked[name] = value;
  }
  return checked;
}

function checkNetwork(network: ShellNetwork | undefined): ShellNetwork {
  if (network === undefined || network === "none" || network === "host") return network ?? "none";
  throw new SwitchyardError(
    "OPTION_INVALID",
    `${OWNER}: network must be "none" or "host", got ${JSON.stringify(network)}.`,
  );
}

function checkLimits(limits: ShellLimits | undefined): Required<ShellLimits> {
  const given = limits ?? {};
  const limit = (name: keyof ShellLimits): number => {
    const value = positiveIntegerOption(given[name], DEFAULT_SHELL_LIMITS[name], OWNER, `limits.${name}`);
    // Past 2^53 the number prints as 1e+21: bwrap and prlimit refuse it and every command would fail.
    if (!Number.isSafeInteger(value)) {
      throw new SwitchyardError("OPTION_INVALID", `${OWNER}: limits.${name} must be at most 2^53 - 1, got ${value}.`);
    }
    return value;
  };
  return {
    cpuSeconds: limit("cpuSeconds"),
    maxFileBytes: limit("maxFileBytes"),
    maxProcesses: limit("maxProcesses"),
    maxMemoryBytes: limit("maxMemoryBytes"),
    maxTmpBytes: limit("maxTmpBytes"),
    maxShmBytes: limit("maxShmBytes"),
  };
}

function existingPathOption(path: string, name: string): string {
  if (typeof path === "string" && isAbsolute(path)) {
    try {
      return realpathSync(path);
    } catch {
      // Reported below.
    }
  }
  throw new SwitchyardError(
    "OPTION_INVALID",
    `${OWNER}: ${name} ${JSON.stringify(path)} is not an existing absolute path.`,
  );
}
