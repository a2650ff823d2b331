// The built-in `shell.run` tool: runs one command line with /bin/sh in the workspace folder,
// with a scrubbed environment, a timeout that kills the whole process group, and capped
// output. Permission comes from `shellPermissionRules` (read: allow, write: ask, destructive:
// deny); the tool refuses destructive commands itself as well, in case the rules are missing.
// It is not a sandbox: a command can still reach anything the host user can (see createShellTool).

import { spawn } from "node:child_process";
import { SwitchyardError, ToolError } from "../errors.js";
import { classifyCommand, type CommandClassification } from "../permissions/command-classifier.js";
import type { PermissionRule } from "../permissions/permission-gate.js";
import { defineTool, type ToolDefinition } from "../registry/define-tool.js";
import { DRAFT_2020_12, existingFolderOption, positiveIntegerOption } from "./builtin-support.js";

/** Options of `createShellTool`. */
export interface ShellToolOptions {
  /** The folder commands run in (and their HOME). It must exist. */
  readonly workspace: string;
  /** Wall-clock limit per command in ms; the process group is killed when it runs out. Default 30 000. */
  readonly timeoutMs?: number;
  /** Most bytes kept of stdout and of stderr each; the middle is cut with a marker. Default 65 536. */
  readonly maxOutputBytes?: number;
  /** Extra environment variables, added to (and overriding) PATH, HOME and LANG. */
  readonly env?: Readonly<Record<string, string>>;
}

export interface ShellRunInput {
  readonly command: string;
}

export interface ShellRunResult {
  /** The exit code; null when the shell was killed by a signal. */
  exitCode: number | null;
  /** The signal that ended the shell (e.g. SIGKILL after a timeout); null after a normal exit. */
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
const DEFAULT_PATH = "/usr/local/bin:/usr/bin:/bin";

/**
 * Creates `shell.run`: `/bin/sh -c <command>` with cwd = the workspace (real path), stdin
 * closed, and an environment of only PATH (the host's), HOME (= the workspace), LANG (the
 * host's or C.UTF-8) plus `options.env`. After `timeoutMs` (default 30 s), or when the call is
 * aborted, the command's whole process group gets SIGKILL; background processes left when the
 * shell exits are killed too. stdout and stderr are each capped at `maxOutputBytes`
 * (default 64 KB), keeping the first and last halves around a truncation marker. A non-zero
 * exit is a result, not an error. Effect `write`, so calls run one at a time.
 * Destructive commands (by `classifyCommand`) are refused with `PERMISSION_DENIED` before
 * anything runs; `SHELL_UNAVAILABLE` when the shell cannot start.
 * Limits: this confines the working directory and environment, not the file system or the
 * network: pair it with `shellPermissionRules()` and an approver, and run the host as a user
 * with no more rights than the agent should have. A process that leaves the process group
 * (setsid) escapes the kill.
 * Throws SwitchyardError `OPTION_INVALID` for a missing workspace or a bad limit.
 */
export function createShellTool(options: ShellToolOptions): ToolDefinition<ShellRunInput, ShellRunResult> {
  const workspace = existingFolderOption(options.workspace, "createShellTool", "workspace");
  const timeoutMs = positiveIntegerOption(options.timeoutMs, DEFAULT_TIMEOUT_MS, "createShellTool", "timeoutMs");
  const maxOutputBytes = positiveIntegerOption(
    options.maxOutputBytes,
    DEFAULT_MAX_OUTPUT_BYTES,
    "createShellTool",
    "maxOutputBytes",
  );
  const extraEnv = checkEnv(options.env);

  return defineTool<ShellRunInput, ShellRunResult>({
    name: SHELL_TOOL_NAME,
    description:
      `Run a shell command line with /bin/sh in the workspace folder and return its exit code, stdout and stderr. ` +
      `Read-only commands (ls, cat, grep, git status …) run directly; commands that change files or the system need approval; ` +
      `destructive ones (rm -r, force pushes, writes outside the workspace …) are refused with PERMISSION_DENIED. ` +
      `Each command times out after ${timeoutMs} ms (timedOut: true); stdout and stderr are each cut to ${maxOutputBytes} bytes (truncated: true). ` +
      `The environment holds only PATH, HOME (the workspace) and LANG; stdin is empty. A non-zero exitCode is a result, not an error.`,
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
            'The command line, run as /bin/sh -c "<command>" in the workspace folder, e.g. "grep -rn TODO src | head -20".',
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
      const classification = classifyCommand(input.command);
      if (classification.risk === "destructive") {
        throw new ToolError(
          `The command was refused as destructive: ${classification.reasons.join("; ")}. Nothing ran.`,
          {
            code: "PERMISSION_DENIED",
            details: { risk: classification.risk, reasons: [...classification.reasons] },
          },
        );
      }
      const env: Record<string, string> = {
        PATH: process.env["PATH"] ?? DEFAULT_PATH,
        HOME: workspace,
        LANG: process.env["LANG"] ?? "C.UTF-8",
        ...extraEnv,
      };
      return runShell(input.command, { cwd: workspace, env, timeoutMs, maxOutputBytes, signal: context.signal });
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
  const cache = new WeakMap<object, CommandClassification>();
  const riskOf = (input: unknown): CommandClassification["risk"] => {
    if (typeof input !== "object" || input === null) return "destructive";
    const known = cache.get(input);
    if (known !== undefined) return known.risk;
    const command = (input as { command?: unknown }).command;
    if (typeof command !== "string") return "destructive";
    const classification = classifyCommand(command);
    cache.set(input, classification);
    return classification.risk;
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

interface RunShellOptions {
  readonly cwd: string;
  readonly env: Record<string, string>;
  readonly timeoutMs: number;
  readonly maxOutputBytes: number;
  readonly signal: AbortSignal;
}

function runShell(command: string, options: RunShellOptions): Promise<ShellRunResult> {
  return new Promise<ShellRunResult>((resolve, reject) => {
    if (options.signal.aborted) {
      reject(new ToolError("The command was cancelled before it started.", { code: "CANCELLED" }));
      return;
    }
    const child = spawn("/bin/sh", ["-c", command], {
      cwd: options.cwd,
      env: options.env,
      // Its own process group, so a timeout kills the shell and everything it started.
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
      windowsHide: true,
    });
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

function checkEnv(env: Readonly<Record<string, string>> | undefined): Record<string, string> {
  const checked: Record<string, string> = {};
  for (const [name, value] of Object.entries(env ?? {})) {
    if (typeof value !== "string" || name === "" || name.includes("=") || name.includes("\0") || value.includes("\0")) {
      throw new SwitchyardError(
        "OPTION_INVALID",
        `createShellTool: env ${JSON.stringify(name)} must be a string without NUL bytes, named without "=".`,
      );
    }
    checked[name] = value;
  }
  return checked;
}
