// The command's one error path: whatever fails ends as one message on stderr saying what went
// wrong and what to do, and one exit code from EXIT_CODES (documented in the README). A user's
// mistake (a bad flag, a missing file, a busy port, a config error) never prints a stack trace;
// only an error nobody anticipated does, because that one is a bug worth reporting.

import { open } from "node:fs/promises";
import { dirname } from "node:path";
import { SwitchyardError } from "../errors.js";

/** Exit codes of the `switchyard` command. 130 and 143 (interrupted) come from process-interrupts.ts. */
export const EXIT_CODES = {
  /** The command did what it was asked; for `run`, the program ended ok. */
  ok: 0,
  /** The program (or the agent) ran and failed: a RunResult or AgentResult that is not ok. */
  failed: 1,
  /** A usage or configuration mistake, found before anything ran. */
  usage: 2,
  /** An unexpected error: a bug in Switchyard; the stack is printed. */
  internal: 3,
} as const;

/** What to print and the exit code, for anything a command threw. */
export interface ErrorReport {
  readonly message: string;
  readonly exitCode: number;
}

/** One `switchyard: ...` report for `error`; see the module comment. */
export function reportOf(error: unknown): ErrorReport {
  if (SwitchyardError.isInstance(error)) {
    return { message: `switchyard: ${oneLine(error.message, error.code, error.details)}`, exitCode: EXIT_CODES.usage };
  }
  const refusal = redisRefusalOf(error);
  if (refusal !== undefined) return { message: `switchyard: ${escapeControls(refusal)}`, exitCode: EXIT_CODES.usage };
  const stack = error instanceof Error ? (error.stack ?? error.message) : String(error);
  return {
    message: `switchyard: unexpected error (please report it with the lines below):\n${stack}`,
    exitCode: EXIT_CODES.internal,
  };
}

/**
 * A library error's message as one line. The library may write several (an MCP server's last
 * stderr lines, one line per failed server) for a log; a terminal gets the first line, and for a
 * server that did not start the last line it wrote, taken from the error's details.
 */
function oneLine(message: string, code: string, details: unknown): string {
  const lines = message.split("\n").map((line) => line.trim());
  const stderr = (details as { stderr?: unknown } | null | undefined)?.stderr;
  const written = Array.isArray(stderr) ? stderr.filter((line) => typeof line === "string" && line.trim() !== "") : [];
  const last = written.at(-1) as string | undefined;
  if (code === "SOURCE_START_FAILED" && last !== undefined) {
    return escapeControls(`${lines[0]} Its stderr ended with: ${JSON.stringify(last.trim().slice(0, 200))}`);
  }
  // Several lines of one kind (one per failed server): joined, so each still shows.
  return escapeControls(lines.filter((line) => line !== "").join(" "));
}

/**
 * Redis's own refusal of a command (ioredis's ReplyError) as one line saying what to do: a Redis
 * out of memory under `maxmemory` refuses writes (OOM) and discards a transaction (EXECABORT), a
 * replica refuses writes (READONLY). Not a bug of Switchyard's; undefined for anything else.
 */
function redisRefusalOf(error: unknown): string | undefined {
  if (!(error instanceof Error) || error.name !== "ReplyError") return undefined;
  // The first line, without the script's digest and line a Lua script's refusal adds.
  const said = (error.message.split("\n")[0] ?? "").replace(/\. script: .*$/, "").slice(0, 160);
  const advice = /^(OOM|EXECABORT)/.test(said)
    ? " Redis is out of memory (maxmemory): free memory or raise maxmemory, then run the command again."
    : /^READONLY/.test(said)
      ? " Redis is a read-only replica: point --redis at the primary."
      : "";
  return `Redis refused the command (${said}).${advice}`;
}

/**
 * Control characters written as escapes: a message may quote a config key, a path or a server's
 * words, and an escape sequence in one must not recolour, move or clear the user's terminal.
 */
export function escapeControls(text: string): string {
  return text.replace(
    /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g,
    (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

/**
 * A file-system failure on a path the user gave, as a usage error that says what to do.
 * `what` names the file ("the program file"), `access` whether it was being read or written.
 */
export function fileErrorOf(error: unknown, path: string, what: string, access: "read" | "write"): SwitchyardError {
  const code = (error as { code?: unknown } | null)?.code;
  const quoted = JSON.stringify(path);
  let message: string;
  switch (code) {
    case "ENOENT":
      message =
        access === "read"
          ? `${what} ${quoted} does not exist; check the path.`
          : `cannot write ${what} ${quoted}: the folder ${JSON.stringify(dirname(path))} does not exist; create it or choose another path.`;
      break;
    case "EISDIR":
      message = `${what} ${quoted} is a folder; give the path of a file.`;
      break;
    case "ENOTDIR":
      message = `${what} ${quoted}: a part of the path is a file, not a folder; check the path.`;
      break;
    case "EACCES":
    case "EPERM":
    case "EROFS":
      message = `cannot ${access} ${what} ${quoted}: permission denied; choose a path you may ${access}.`;
      break;
    default:
      message = `cannot ${access} ${what} ${quoted}: ${error instanceof Error ? error.message : String(error)}.`;
  }
  return new SwitchyardError("OPTION_INVALID", message, { path, code: typeof code === "string" ? code : null });
}

/**
 * Checks that `path` can be appended to (creating it if missing), so a flag like `--trace`
 * fails before anything runs rather than after. Throws the usage error of fileErrorOf.
 */
export async function assertWritableFile(path: string, what: string): Promise<void> {
  try {
    const handle = await open(path, "a");
    await handle.close();
  } catch (error) {
    throw fileErrorOf(error, path, what, "write");
  }
}
